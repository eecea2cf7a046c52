package rpc_test

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

// lsp frames each body as LSP's base protocol does, with the one header
// toolrpc writes.
func lsp(bodies ...string) string {
	var b strings.Builder
	for _, body := range bodies {
		b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
	}
	return b.String()
}

// lspHandler is arith, with a long string result, written in pieces.
func lspHandler() rpc.Handler {
	a := newArith()
	return rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		if req.Method == "long" {
			return strings.Repeat("é\"", 50<<10), nil
		}
		return a.Handle(ctx, req)
	})
}

const parseError = `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`

// Transcripts of LSP framing, byte for byte both ways: what a peer sends,
// headers and all, and exactly what the connection writes.
func TestLSPFramingTranscripts(t *testing.T) {
	long, err := codec.AppendResponse(nil, []byte("9"), strings.Repeat("é\"", 50<<10))
	require.NoError(t, err)
	tests := []struct {
		name string
		in   string
		want []string // the bodies written, each framed by lsp
	}{
		{"a request", lsp(`{"jsonrpc":"2.0","method":"add","params":[40,2],"id":1}`),
			[]string{`{"jsonrpc":"2.0","result":42,"id":1}`}},
		{"named params, an error with data", lsp(`{"jsonrpc":"2.0","method":"add","params":{"a":1},"id":"x"}`, `{"jsonrpc":"2.0","method":"fail","id":2}`),
			[]string{`{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params"},"id":"x"}`,
				`{"jsonrpc":"2.0","error":{"code":-1234,"message":"quota exceeded","data":{"retry":5,"who":["a"]}},"id":2}`}},
		{"a notification is not answered", lsp(`{"jsonrpc":"2.0","method":"note","params":[1]}`, `{"jsonrpc":"2.0","method":"add","params":[1,1],"id":3}`),
			[]string{`{"jsonrpc":"2.0","result":2,"id":3}`}},
		{"a batch", lsp(`[{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1},{"jsonrpc":"2.0","method":"note","params":[2]},{"jsonrpc":"2.0","method":"nope","id":2}]`),
			[]string{`[{"jsonrpc":"2.0","result":3,"id":1},{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":2}]`}},
		{"a call's notifications before its response", lsp(`{"jsonrpc":"2.0","method":"count","params":{"n":2,"_meta":{"progressToken":"t"}},"id":4}`),
			[]string{
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"step 1","progress":1,"progressToken":"t","total":2}}`,
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"step 2","progress":2,"progressToken":"t","total":2}}`,
				`{"jsonrpc":"2.0","result":2,"id":4}`}},
		{"headers of any case, Content-Type and others ignored, bare newlines",
			"content-type: application/vscode-jsonrpc; charset=utf-8\r\nX-Other: 1\r\nCONTENT-LENGTH: 2\r\n\r\n[]" +
				"Content-Length: 56\n\n" + `{"jsonrpc":"2.0","method":"add","params":[40,2],"id":11}`,
			[]string{`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"a batch must not be empty"}},"id":null}`,
				`{"jsonrpc":"2.0","result":42,"id":11}`}},
		{"a body that is not JSON", lsp(`{"jsonrpc"`, `{"jsonrpc":"2.0","method":"add","params":[1,1],"id":5}`),
			[]string{parseError, `{"jsonrpc":"2.0","result":2,"id":5}`}},
		{"an empty body", lsp(``, `{"jsonrpc":"2.0","method":"add","params":[1,1],"id":5}`),
			[]string{parseError, `{"jsonrpc":"2.0","result":2,"id":5}`}},
		{"a long string result, written in pieces", lsp(`{"jsonrpc":"2.0","method":"long","id":9}`),
			[]string{string(long)}},

		{"no Content-Length", "Content-Type: application/json\r\n\r\n{}" + lsp(`{"jsonrpc":"2.0","method":"add","params":[1,1],"id":6}`),
			[]string{parseError, `{"jsonrpc":"2.0","result":2,"id":6}`}},
		{"a Content-Length not a number", "Content-Length: ten\r\n\r\n" + `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":0}` + lsp(`{"jsonrpc":"2.0","method":"add","params":[1,1],"id":6}`),
			[]string{parseError, `{"jsonrpc":"2.0","result":2,"id":6}`}},
		{"a negative Content-Length", "Content-Length: -5\r\n\r\n{}" + lsp(`{"jsonrpc":"2.0","method":"add","params":[1,1],"id":6}`),
			[]string{parseError, `{"jsonrpc":"2.0","result":2,"id":6}`}},
		{"two Content-Lengths that differ", "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}" + lsp(`{"jsonrpc":"2.0","method":"add","params":[1,1],"id":6}`),
			[]string{parseError, `{"jsonrpc":"2.0","result":2,"id":6}`}},
		{"a line that is not a header", "hello\r\n" + lsp(`{"jsonrpc":"2.0","method":"add","params":[1,1],"id":6}`),
			[]string{parseError, `{"jsonrpc":"2.0","result":2,"id":6}`}},
		{"a header line too long", "X: " + strings.Repeat("y", 2000) + "\r\n\r\n" + lsp(`{"jsonrpc":"2.0","method":"add","params":[1,1],"id":6}`),
			[]string{parseError, `{"jsonrpc":"2.0","result":2,"id":6}`}},
		{"too many headers", strings.Repeat("X: 1\r\n", 40) + "\r\n" + lsp(`{"jsonrpc":"2.0","method":"add","params":[1,1],"id":6}`),
			[]string{parseError, `{"jsonrpc":"2.0","result":2,"id":6}`}},
		{"newline framing to an LSP server", `{"jsonrpc":"2.0","method":"add","params":[1,1],"id":7}` + "\n",
			[]string{parseError}},
		{"a body over the limit", lsp(`{"jsonrpc":"2.0","method":"echo","params":["`+strings.Repeat("z", 200)+`"],"id":8}`, `{"jsonrpc":"2.0","method":"add","params":[1,1],"id":6}`),
			[]string{`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"frame larger than the limit of 100 bytes"}},"id":null}`,
				`{"jsonrpc":"2.0","result":2,"id":6}`}},
		{"input ends inside a body", lsp(`{"jsonrpc":"2.0","method":"add","params":[1,1],"id":6}`) + "Content-Length: 60\r\n\r\n" + `{"jsonrpc":"2.0","method":"add"`,
			[]string{`{"jsonrpc":"2.0","result":2,"id":6}`, parseError}},
		{"input ends inside a header block", lsp(`{"jsonrpc":"2.0","method":"add","params":[1,1],"id":6}`) + "Content-Length: 60\r\n",
			[]string{`{"jsonrpc":"2.0","result":2,"id":6}`, parseError}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			opts := &rpc.Options{Framing: rpc.FramingLSP, Sequential: true, Logger: wiretest.Quiet()}
			if strings.Contains(tt.name, "over the limit") {
				opts.MaxFrameSize = 100
			}
			require.NoError(t, rpc.Serve(context.Background(), strings.NewReader(tt.in), &out, lspHandler(), opts))
			assert.Equal(t, lsp(tt.want...), out.String())
		})
	}
}

// A client and a server, both of LSP framing: calls, a notification, a
// batch, progress, an error, and a call back from the server.
func TestLSPFramingClientAndServer(t *testing.T) {
	opts := &rpc.Options{Framing: rpc.FramingLSP, Logger: wiretest.Quiet()}
	a := newArith()
	p := wiretest.NewPair(a, opts, clientSide, opts)
	defer p.Close(t)
	ctx := context.Background()

	var sum int
	require.NoError(t, p.Client.Call(ctx, "add", []int{40, 2}, &sum))
	assert.Equal(t, 42, sum)

	var e *rpc.Error
	require.ErrorAs(t, p.Client.Call(ctx, "fail", nil, nil), &e)
	assert.Equal(t, rpc.Code(-1234), e.Code)

	require.NoError(t, p.Client.Notify(ctx, "note", []int{7}))
	assert.Equal(t, "[7]", wiretest.Receive(t, a.notes, "the notification"))

	var got []rpc.Progress
	pctx := rpc.WithProgress(ctx, func(pr rpc.Progress) { got = append(got, pr) })
	var n int
	require.NoError(t, p.Client.Call(pctx, "count", map[string]int{"n": 3}, &n))
	assert.Equal(t, 3, n)
	require.Len(t, got, 3)

	var answer string
	require.NoError(t, p.Client.Call(ctx, "askBack", nil, &answer))
	assert.Equal(t, "caller says the client", answer)

	var x, y int
	calls := []rpc.BatchCall{{Method: "add", Params: []int{1, 2}, Result: &x}, {Method: "note", Params: []int{8}, Notification: true}, {Method: "add", Params: []int{3, 4}, Result: &y}}
	require.NoError(t, p.Client.Batch(ctx, calls))
	assert.Equal(t, []int{3, 7}, []int{x, y})
	assert.Equal(t, "[8]", wiretest.Receive(t, a.notes, "the batch's notification"))
}

// A client of LSP framing writes its requests as LSP messages, and a
// cancellation too.
func TestLSPFramingClientWrites(t *testing.T) {
	pr, pw := io.Pipe()
	out := &wiretest.Buffer{}
	c := rpc.NewConn(context.Background(), pr, out, nil, &rpc.Options{Framing: rpc.FramingLSP, Logger: wiretest.Quiet()})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Call(ctx, "wait", map[string]int{"a": 1}, nil) }()
	call := `{"jsonrpc":"2.0","method":"wait","params":{"a":1},"id":1}`
	wiretest.WaitUntil(t, out, "the call written", func(s string) bool { return s == lsp(call) })
	cancel()
	assert.ErrorIs(t, wiretest.Receive(t, done, "the call to end"), context.Canceled)
	cancelled := `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`
	wiretest.WaitUntil(t, out, "the cancellation written", func(s string) bool { return s == lsp(call, cancelled) })
	require.NoError(t, c.Notify(context.Background(), "hello", []int{1}))
	require.NoError(t, pw.Close())
	require.NoError(t, c.Wait())
	assert.Equal(t, lsp(call, cancelled, `{"jsonrpc":"2.0","method":"hello","params":[1]}`), out.String())
}

func TestFramingRefused(t *testing.T) {
	c := rpc.NewConn(context.Background(), strings.NewReader(""), io.Discard, nil, &rpc.Options{Framing: 7, Logger: wiretest.Quiet()})
	assert.EqualError(t, c.Wait(), "rpc: Options.Framing is Framing(7): want rpc.FramingNewline or rpc.FramingLSP")
}
