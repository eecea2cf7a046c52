package rpc_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/rpc"
)

// clientMethods serves what the HTTP client tests call.
var clientMethods = rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
	switch req.Method {
	case "echo":
		return req.Params, nil
	case "fail":
		return nil, rpc.NewError(-32001, "nope").WithData(map[string]int{"x": 1})
	case "count":
		var p struct {
			Meta struct {
				Token json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		}
		_ = json.Unmarshal(req.Params, &p)
		for i := 1; i <= 3; i++ {
			if err := rpc.Notify(ctx, rpc.ProgressNotification, map[string]any{"progressToken": p.Meta.Token, "progress": i, "total": 3}); err != nil {
				return nil, err
			}
		}
		return "counted", nil
	case "block":
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return nil, rpc.NewError(rpc.MethodNotFound, "")
})

// The HTTP client against the HTTP handler: calls, errors, progress,
// notifications and batches, with the stream client's errors.
func TestHTTPClient(t *testing.T) {
	h := rpc.NewHTTPHandler(context.Background(), clientMethods, &rpc.Options{Logger: quiet})
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer h.Close()
	c := rpc.NewHTTPClient(srv.URL, nil)
	ctx := context.Background()

	var got []int
	require.NoError(t, c.Call(ctx, "echo", []int{1, 2}, &got))
	assert.Equal(t, []int{1, 2}, got)
	var named map[string]string
	require.NoError(t, c.Call(ctx, "echo", map[string]string{"a": "b"}, &named))
	assert.Equal(t, map[string]string{"a": "b"}, named)

	err := c.Call(ctx, "fail", nil, nil)
	var e *rpc.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, rpc.Code(-32001), e.Code)
	assert.Equal(t, "nope", e.Message)
	assert.JSONEq(t, `{"x":1}`, string(e.Data.(json.RawMessage)))
	require.ErrorAs(t, c.Call(ctx, "rpc.nope", nil, nil), &e)
	assert.Equal(t, rpc.MethodNotFound, e.Code)

	var reports []rpc.Progress
	var counted string
	require.NoError(t, c.Call(rpc.WithProgress(ctx, func(p rpc.Progress) { reports = append(reports, p) }), "count", nil, &counted))
	assert.Equal(t, "counted", counted)
	assert.Equal(t, []rpc.Progress{{Progress: 1, Total: 3}, {Progress: 2, Total: 3}, {Progress: 3, Total: 3}}, reports)

	require.NoError(t, c.Notify(ctx, "echo", []int{1}))

	var a, b []int
	calls := []rpc.BatchCall{
		{Method: "echo", Params: []int{1}, Result: &a},
		{Method: "echo", Params: []int{2}, Notification: true},
		{Method: "fail"},
		{Method: "echo", Params: []int{3}, Result: &b},
	}
	require.NoError(t, c.Batch(ctx, calls))
	assert.Equal(t, []int{1}, a)
	assert.Equal(t, []int{3}, b)
	assert.NoError(t, calls[0].Err)
	require.ErrorAs(t, calls[2].Err, &e)
	assert.Equal(t, rpc.Code(-32001), e.Code)
	require.NoError(t, c.Batch(ctx, []rpc.BatchCall{{Method: "echo", Notification: true}}), "notifications alone: 202")

	ended, cancel := context.WithCancel(ctx)
	cancel()
	assert.ErrorIs(t, c.Call(ended, "echo", nil, nil), context.Canceled)

	require.NoError(t, c.Close())
	assert.ErrorIs(t, c.Call(ctx, "echo", nil, nil), rpc.ErrClosed)
}

// A server that cannot be reached is ErrClosed, a refusal is its JSON-RPC
// error with the status, and a server that answers something else than
// JSON-RPC is ErrBadResponse.
func TestHTTPClientFailures(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/html":
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<p>hello</p>"))
		case "/wrong-id":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","result":1,"id":999}`))
		case "/both":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","result":1,"error":{"code":1,"message":"x"},"id":1}`))
		case "/no-answer":
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	for path, want := range map[string]error{"/html": rpc.ErrBadResponse, "/wrong-id": rpc.ErrBadResponse, "/both": rpc.ErrBadResponse, "/no-answer": rpc.ErrBadResponse} {
		err := rpc.NewHTTPClient(srv.URL+path, nil).Call(ctx, "m", nil, nil)
		assert.ErrorIs(t, err, want, path)
	}

	h := rpc.NewHTTPHandler(ctx, clientMethods, &rpc.Options{Logger: quiet, MaxFrameSize: 64})
	big := httptest.NewServer(h)
	defer big.Close()
	defer h.Close()
	err := rpc.NewHTTPClient(big.URL, nil).Call(ctx, "echo", []string{"a long string that makes the body pass its limit of 64 bytes"}, nil)
	var e *rpc.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, rpc.InvalidRequest, e.Code)
	assert.Contains(t, err.Error(), "413")

	srv.Close()
	err = rpc.NewHTTPClient(srv.URL, nil).Call(ctx, "m", nil, nil)
	assert.ErrorIs(t, err, rpc.ErrClosed)
	assert.False(t, errors.Is(err, rpc.ErrBadResponse))
}

// A call's context ending cancels its request, and the server's handler
// cancels the call: both ends let go.
func TestHTTPClientCancellation(t *testing.T) {
	started, cancelled := make(chan struct{}), make(chan error, 1)
	h := rpc.NewHTTPHandler(context.Background(), rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		close(started)
		<-ctx.Done()
		cancelled <- context.Cause(ctx)
		return nil, ctx.Err()
	}), &rpc.Options{Logger: quiet})
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer h.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	assert.ErrorIs(t, rpc.NewHTTPClient(srv.URL, nil).Call(ctx, "m", nil, nil), context.Canceled)
	assert.ErrorIs(t, <-cancelled, context.Canceled, "the server's call is cancelled")
}

// cannedServer answers every request with body, of the content type
// given, until the test ends.
func cannedServer(t *testing.T, contentType, body string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The client reads any well-formed event stream: long events, data over
// several lines, comments and other fields, every line ending; and a
// server that answers a notification 204.
func TestHTTPClientEventStreams(t *testing.T) {
	long := strings.Repeat("x", 70000)
	tests := []struct {
		name, stream string
		want         string // the result, JSON
	}{
		{"a long event", "data: {\"jsonrpc\":\"2.0\",\"result\":\"" + long + "\",\"id\":1}\n\n", `"` + long + `"`},
		{"data over lines", "data: {\"jsonrpc\":\"2.0\",\ndata: \"result\":[1,\ndata: 2],\"id\":1}\n\n", "[1,\n2]"},
		{"comments and other fields", ": hello\nevent: message\nid: 7\nretry: 10\ndata: {\"jsonrpc\":\"2.0\",\"result\":3,\"id\":1}\n\n", `3`},
		{"CRLF", "data: {\"jsonrpc\":\"2.0\",\"result\":4,\"id\":1}\r\n\r\n", `4`},
		{"CR", "data: {\"jsonrpc\":\"2.0\",\"result\":5,\"id\":1}\r\r", `5`},
		{"no blank line at the end", "data: {\"jsonrpc\":\"2.0\",\"result\":6,\"id\":1}", `6`},
		{"progress, then the answer", "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n" +
			"data: {\"jsonrpc\":\"2.0\",\"result\":7,\"id\":1}\n\n", `7`},
		// A request of the server's is never the call's answer, even with
		// the call's id: the client serves no calls, and drops it.
		{"a request with the call's id, then the answer", "data: {\"jsonrpc\":\"2.0\",\"method\":\"sampling/createMessage\",\"params\":{},\"id\":1}\n\n" +
			"data: {\"jsonrpc\":\"2.0\",\"result\":8,\"id\":1}\n\n", `8`},
		{"requests and a notification in a batch, then the answer", "data: [{\"jsonrpc\":\"2.0\",\"method\":\"roots/list\",\"id\":\"s1\"},{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}," +
			"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}]\n\n" +
			"data: {\"jsonrpc\":\"2.0\",\"result\":9,\"id\":1}\n\n", `9`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := cannedServer(t, "text/event-stream", tt.stream)
			var got json.RawMessage
			ctx := rpc.WithProgress(context.Background(), func(rpc.Progress) {})
			require.NoError(t, rpc.NewHTTPClient(srv.URL, nil).Call(ctx, "m", nil, &got))
			assert.Equal(t, tt.want, string(got))
		})
	}

	noContent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	defer noContent.Close()
	assert.NoError(t, rpc.NewHTTPClient(noContent.URL, nil).Notify(context.Background(), "m", nil))
}

// A batch's answer is taken alike over both transports, its responses
// matched by id in whatever order they come (JSON-RPC 2.0, section 6): an
// error with id null among them (an entry the server could not read) fails
// the batch's calls that no response to their id answers, wherever it
// stands in the array (before, it failed those answered after it); a
// result with id null or an unknown id is dropped.
func TestBatchAnswersAlikeOverBothTransports(t *testing.T) {
	const refusal = `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}`
	tests := []struct {
		name, answer string
		want         []string // each call's result, or its error's code
	}{
		{"an error with id null last", `[{"jsonrpc":"2.0","result":1,"id":1},` + refusal + `]`, []string{"1", "error -32600"}},
		{"an error with id null first", `[` + refusal + `,{"jsonrpc":"2.0","result":1,"id":1}]`, []string{"1", "error -32600"}},
		{"an error with id null between", `[{"jsonrpc":"2.0","result":2,"id":2},` + refusal + `,{"jsonrpc":"2.0","result":1,"id":1}]`, []string{"1", "2"}},
		{"an error with id null, nothing else", `[` + refusal + `]`, []string{"error -32600", "error -32600"}},
		{"results with id null and unknown ids dropped", `[{"jsonrpc":"2.0","result":3,"id":null},{"jsonrpc":"2.0","result":4,"id":7},` +
			`{"jsonrpc":"2.0","result":1,"id":1},{"jsonrpc":"2.0","error":{"code":-32001,"message":"x"},"id":2}]`, []string{"1", "error -32001"}},
	}
	outcome := func(calls []rpc.BatchCall) []string {
		var got []string
		for _, bc := range calls {
			var e *rpc.Error
			switch {
			case errors.As(bc.Err, &e):
				got = append(got, fmt.Sprintf("error %d", e.Code))
			case bc.Err != nil:
				got = append(got, bc.Err.Error())
			default:
				got = append(got, string(*bc.Result.(*json.RawMessage)))
			}
		}
		return got
	}
	batch := func() []rpc.BatchCall {
		return []rpc.BatchCall{{Method: "m", Result: new(json.RawMessage)}, {Method: "m", Result: new(json.RawMessage)}}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := cannedServer(t, "application/json", tt.answer)
			calls := batch()
			require.NoError(t, rpc.NewHTTPClient(srv.URL, nil).Batch(context.Background(), calls))
			assert.Equal(t, tt.want, outcome(calls), "over HTTP")

			cr, tw := io.Pipe()
			tr, cw := io.Pipe()
			c := rpc.NewConn(context.Background(), cr, cw, nil, &rpc.Options{Logger: quiet})
			go func() {
				fromClient := bufio.NewScanner(tr)
				if fromClient.Scan() {
					_, _ = io.WriteString(tw, tt.answer+"\n")
				}
				_, _ = io.Copy(io.Discard, tr)
			}()
			calls = batch()
			require.NoError(t, c.Batch(context.Background(), calls))
			assert.Equal(t, tt.want, outcome(calls), "on a stream")
			require.NoError(t, tw.Close())
			require.NoError(t, c.Wait())
			_ = cw.Close()
		})
	}
}
