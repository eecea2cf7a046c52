package mcp_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
)

// A response POSTed in 2026-07-28, where servers send no requests, answers
// none: accepted (202) and dropped, logged at Debug as a legacy session's
// response to no request waiting, never at Warn, however many POSTs (each
// stateless request has an rpc handler of its own, whose count of
// dropped responses would start anew each time).
func TestAttackModernResponsesLogNothing(t *testing.T) {
	var logs wiretest.Logs
	h := newAskers(t).NewHTTPHandler(context.Background(), &mcp.HTTPOptions{KeepAlive: time.Hour, RPC: rpc.Options{Logger: logs.Logger()}})
	srv := httptest.NewServer(h)
	defer func() {
		srv.Close()
		_ = h.Close()
	}()
	hd := map[string]string{"Mcp-Protocol-Version": "2026-07-28"}
	for i := range 100 {
		for _, body := range []string{
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"role":"assistant","content":{"type":"text","text":"x"},"model":"m"}}`, i),
			`{"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"m"}}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}`,
		} {
			check(t, srv.URL, exchange{body: body, header: hd, status: http.StatusAccepted})
		}
	}
	for _, r := range logs.Records(t) {
		require.Equal(t, "DEBUG", r["level"], "%v", r)
	}
	assert.Len(t, logs.Messages(t, "mcp: a response to no request waiting"), 300)
}

// asker is a legacy stdio session of s, initialized by a client that
// declares sampling and elicitation, driven line by line.
type asker struct {
	in     *io.PipeWriter
	out    *bufio.Reader
	served chan error
}

func newAsker(t *testing.T, s *mcp.Server) *asker {
	t.Helper()
	r, in := io.Pipe()
	outR, out := io.Pipe()
	a := &asker{in: in, out: bufio.NewReader(outR), served: make(chan error, 1)}
	go func() {
		a.served <- s.Serve(context.Background(), r, out, &rpc.Options{Logger: wiretest.Quiet()})
		_ = out.Close()
	}()
	t.Cleanup(func() {
		_ = in.Close()
		go func() { _, _ = io.Copy(io.Discard, outR) }()
		require.NoError(t, wiretest.Receive(t, a.served, "Serve to return"))
	})
	a.send(t, askInit)
	a.read(t)
	return a
}

func (a *asker) send(t *testing.T, line string) {
	t.Helper()
	_, err := io.WriteString(a.in, line+"\n")
	require.NoError(t, err)
}

func (a *asker) read(t *testing.T) string {
	t.Helper()
	line, err := a.out.ReadString('\n')
	require.NoError(t, err)
	return strings.TrimSuffix(line, "\n")
}

// ask calls the tool, reads its request to the client, and returns the
// request's id.
func (a *asker) ask(t *testing.T, tool string) string {
	t.Helper()
	a.send(t, `{"jsonrpc":"2.0","id":"call","method":"tools/call","params":{"name":`+quote(tool)+`}}`)
	req := a.read(t)
	i := strings.LastIndex(req, `"id":`)
	require.Positive(t, i, req)
	return strings.TrimSuffix(req[i+len(`"id":`):], "}")
}

// formAsker asks a form of one field, a multi-choice, and says how many
// bytes of values it got.
type formAsker struct{}

func (formAsker) Form(ctx context.Context) (string, error) {
	res, err := mcp.Elicit(ctx, &mcp.ElicitParams{Message: "?", Fields: []mcp.Field{
		mcp.StringField{Name: "name"},
		mcp.MultiEnumField{Name: "tags", Values: []string{"a", "b"}},
	}})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s, %d bytes", res.Action, len(res.Content)), nil
}

// members is n members "k0":1, "k1":1... of an object, without its braces.
func members(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":1`, i)
	}
	return b.String()
}

// An accepted form's values are checked against the form (shape, fields,
// members folded to a field's name) in a scan of the answer, whatever its
// members: an answer of 300,000 members (4 MiB), or of a multi-choice of
// a million items, costs a few times its length in allocations, where it
// cost 35 to 45 times (17 s of CPU and 620 MiB of heap for a 50 MB one)
// when each member and item was decoded into maps and slices, twice. Its
// verdicts are the same.
func TestAttackElicitAnswerCost(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "ask", Version: "1"})
	require.NoError(t, s.Register("", formAsker{}))
	a := newAsker(t, s)
	for _, c := range []struct{ name, content, want string }{
		{"many members", `{"name":"x",` + members(300_000) + `}`, "accept, 3488902 bytes"},
		{"many items", `{"tags":["a"` + strings.Repeat(`,"b"`, 1_000_000) + `]}`, "accept, 4000014 bytes"},
		{"many items, one not a choice", `{"tags":["a"` + strings.Repeat(`,"b"`, 1_000_000) + `,"c"]}`, `mcp: the answer does not fit the form: field \"tags\" must be an array of its values`},
		{"many items, one not a string", `{"tags":["a"` + strings.Repeat(`,"b"`, 1_000_000) + `,1]}`, `mcp: the client's answer to elicitation/create is not the result of one`},
		{"many members, one folded", `{"name":"x",` + members(300_000) + `,"NAME":"y"}`, `mcp: the answer does not fit the form: member \"NAME\" is not field \"name\" but would be decoded as it`},
		{"many members, one nested", `{"name":"x",` + members(300_000) + `,"k":{}}`, `mcp: the client's answer to elicitation/create is not the result of one`},
	} {
		t.Run(c.name, func(t *testing.T) {
			answer := `{"jsonrpc":"2.0","id":` + a.ask(t, "form") + `,"result":{"action":"accept","content":` + c.content + `}}`
			var got string
			allocated := wiretest.Allocated(func() {
				a.send(t, answer)
				got = a.read(t)
			})
			isError := strings.HasPrefix(c.want, "mcp:")
			want := `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"` + c.want + `"}]},"id":"call"}`
			if isError {
				want = `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"` + c.want + `"}],"isError":true},"id":"call"}`
			}
			assert.Equal(t, want, got)
			t.Logf("%d bytes answered: %d allocated (%.1f times)", len(answer), allocated, float64(allocated)/float64(len(answer)))
			assert.Less(t, allocated, uint64(10*len(answer)), "allocated for the answer (and its sending)")
		})
	}
}

// A 2026-07-28 retry's inputResponses is checked (an object of objects)
// in a scan: 300,000 answers to questions never asked (3.8 MB) cost a
// few times their length in allocations, where they cost 20 times,
// decoded into a map to be checked; the tool gets its own answer.
func TestAttackInputResponsesCost(t *testing.T) {
	p := wiretest.NewPipe(newAskers(t).Handler(), nil)
	defer p.Close(t)
	responses := `{` + strings.ReplaceAll(members(300_000), ":1", ":{}") + `,"sampling-2a5d62d36af8ea92":{"role":"assistant","content":{"type":"text","text":"hello"},"model":"m2"}}`
	req := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{"prompt":"hi"},"inputResponses":` + responses + `,"_meta":{` + askMeta + `}}}`
	var got []byte
	allocated := wiretest.Allocated(func() {
		require.NoError(t, p.Write([]byte(req+"\n")))
		var err error
		got, err = p.ReadLine()
		require.NoError(t, err)
	})
	assert.Equal(t, `{"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"m2 says hello"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"ask","version":"1"}}},"id":2}`+"\n", string(got))
	t.Logf("%d bytes: %d allocated (%.1f times)", len(req), allocated, float64(allocated)/float64(len(req)))
	assert.Less(t, allocated, uint64(6*len(req)), "allocated for the retry")
}

// completion/complete's context holds at most 1,000 arguments: more is
// -32602 naming the bound, decoded no further than one past it, so that
// 300,000 of them (3.8 MB) cost a few times their length in allocations,
// where they cost 18 times (a map of them all; a 64 MiB request, a
// gigabyte); 1,000 reach the CompletionFunc.
func TestAttackCompletionContextBounded(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "kit", Version: "1.0.0"})
	require.NoError(t, s.RegisterPrompts("", fixturePrompts{}))
	s.SetCompletion(func(_ context.Context, req mcp.CompleteRequest) ([]string, error) {
		return []string{fmt.Sprint(len(req.Context))}, nil
	})
	p := wiretest.NewPipe(s.Handler(), nil)
	defer p.Close(t)
	complete := func(n int) string {
		return `{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"code"},"argument":{"name":"language","value":"g"},"context":{"arguments":{` +
			strings.ReplaceAll(members(n), ":1", `:""`) + `}},` + modernMeta + `}}` + "\n"
	}
	answered := func(values string) string {
		return `{"jsonrpc":"2.0","result":{"resultType":"complete","completion":{"values":[` + values + `],"total":1,"hasMore":false},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":1}` + "\n"
	}
	refused := `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"context.arguments","rule":"max","param":"1000","message":"context.arguments must hold at most 1000 arguments"}]},"id":1}` + "\n"
	for _, c := range []struct {
		n    int
		want string
	}{{1000, answered(`"1000"`)}, {1001, refused}, {300_000, refused}} {
		req := complete(c.n)
		var got []byte
		allocated := wiretest.Allocated(func() {
			require.NoError(t, p.Write([]byte(req)))
			var err error
			got, err = p.ReadLine()
			require.NoError(t, err)
		})
		assert.Equal(t, c.want, string(got), "%d arguments", c.n)
		t.Logf("%d arguments, %d bytes: %d allocated (%.1f times)", c.n, len(req), allocated, float64(allocated)/float64(len(req)))
		if c.n > 1001 {
			assert.Less(t, allocated, uint64(4*len(req)), "allocated for the request")
		}
	}
}

// In 2025-03-26 a client may answer in an array of responses, which is a
// batch: one of more than MaxBatch (1,000) entries is refused as any
// batch is (-32600), none of its responses delivered, where each of 1.7
// million (a 60 MiB POST) was decoded and delivered, 3 s of CPU; one of
// 1,000 is delivered.
func TestAttackAskBatchedAnswersBounded(t *testing.T) {
	h, url, sid := askHTTP(t, 0)
	s := post(t, url, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{"prompt":"hi"}}}`)
	assert.Equal(t, `data: {"jsonrpc":"2.0","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10},"id":1}`+"\n\n", s.event(t))
	right := `{"jsonrpc":"2.0","id":1,"result":{"role":"assistant","content":{"type":"text","text":"batched"},"model":"m"}}`
	batch := func(n int) string {
		return "[" + right + strings.Repeat(`,{"jsonrpc":"2.0","id":7,"result":{}}`, n-1) + "]"
	}
	hd := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-03-26"}
	tooLong := `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"batch longer than the limit of 1000 entries"}},"id":null}` + "\n"
	check(t, url, exchange{body: batch(1001), header: hd, status: http.StatusOK, want: tooLong})
	huge := batch(1_700_000)
	allocated := wiretest.Allocated(func() {
		check(t, url, exchange{body: huge, header: hd, status: http.StatusOK, want: tooLong})
	})
	t.Logf("%d bytes: %d allocated (%.1f times)", len(huge), allocated, float64(allocated)/float64(len(huge)))
	assert.Less(t, allocated, uint64(4*len(huge)), "allocated for the batch")
	assert.Equal(t, 1, mcp.Waiting(h), "nothing delivered")
	check(t, url, exchange{body: batch(1000), header: hd, status: http.StatusAccepted})
	assert.Equal(t, `data: {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"m says batched"}]},"id":2}`+"\n\n", s.event(t))
	assert.Equal(t, 0, mcp.Waiting(h))
}
