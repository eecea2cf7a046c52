package rpc_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

// arith is a server for the client tests.
type arith struct {
	notes     chan string   // notifications received
	cancelled chan error    // causes seen by "block" when its context ends
	started   chan struct{} // "block" started
	peerCalls atomic.Int32  // "askBack" calls made to the peer
}

func newArith() *arith {
	return &arith{notes: make(chan string, 100), cancelled: make(chan error, 100), started: make(chan struct{}, 100)}
}

func (a *arith) Handle(ctx context.Context, req *rpc.Request) (any, error) {
	switch req.Method {
	case "add":
		var xs [2]int
		if err := json.Unmarshal(req.Params, &xs); err != nil {
			return nil, rpc.NewError(codec.InvalidParams, "")
		}
		return xs[0] + xs[1], nil
	case "echo":
		return req.Params, nil
	case "fail":
		return nil, rpc.NewError(-1234, "quota exceeded").WithData(map[string]any{"retry": 5, "who": []string{"a"}})
	case "note":
		a.notes <- string(req.Params)
		return nil, nil
	case "block":
		// Says it started (to the caller too, if it asked for progress),
		// then waits for its context.
		a.started <- struct{}{}
		if token := jsonx.Member(jsonx.Member(req.Params, "_meta"), "progressToken"); token != nil {
			_ = rpc.Notify(ctx, rpc.ProgressNotification, map[string]any{"progressToken": json.RawMessage(token), "progress": 1})
		}
		<-ctx.Done()
		a.cancelled <- context.Cause(ctx)
		return nil, ctx.Err()
	case "count":
		// Reports progress MCP's way, by hand (package middleware does it
		// for real servers).
		var p struct{ N int }
		_ = json.Unmarshal(req.Params, &p)
		token := jsonx.Member(jsonx.Member(req.Params, "_meta"), "progressToken")
		for i := 1; i <= p.N; i++ {
			if token != nil {
				if err := rpc.Notify(ctx, rpc.ProgressNotification, map[string]any{
					"progressToken": json.RawMessage(token), "progress": i, "total": p.N, "message": fmt.Sprint("step ", i),
				}); err != nil {
					return nil, err
				}
			}
		}
		return p.N, nil
	case "askBack":
		// Calls its caller, and answers with what the caller said.
		a.peerCalls.Add(1)
		var answer string
		if err := rpc.ConnFromContext(ctx).Call(ctx, "whoAreYou", nil, &answer); err != nil {
			return nil, err
		}
		return "caller says " + answer, nil
	}
	return nil, rpc.NewError(codec.MethodNotFound, "")
}

// clientSide answers the server's calls back.
var clientSide = rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
	if req.Method == "whoAreYou" {
		return "the client", nil
	}
	return nil, rpc.NewError(codec.MethodNotFound, "")
})

func TestCall(t *testing.T) {
	p := wiretest.NewPair(newArith(), nil, nil, nil)
	defer p.Close(t)
	ctx := context.Background()

	var sum int
	require.NoError(t, p.Client.Call(ctx, "add", []int{40, 2}, &sum))
	assert.Equal(t, 42, sum)

	var echo map[string]string
	require.NoError(t, p.Client.Call(ctx, "echo", map[string]string{"a": "b"}, &echo))
	assert.Equal(t, map[string]string{"a": "b"}, echo)

	require.NoError(t, p.Client.Call(ctx, "add", []int{1, 1}, nil), "a nil result discards it")

	err := p.Client.Call(ctx, "fail", nil, nil)
	var e *codec.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, codec.Code(-1234), e.Code)
	assert.Equal(t, "quota exceeded", e.Message)
	assert.JSONEq(t, `{"retry":5,"who":["a"]}`, string(e.Data.(json.RawMessage)))

	err = p.Client.Call(ctx, "nope", nil, nil)
	require.ErrorAs(t, err, &e)
	assert.Equal(t, codec.MethodNotFound, e.Code)

	err = p.Client.Call(ctx, "add", []int{1, 2}, new(string))
	assert.ErrorContains(t, err, "decoding the result")

	assert.ErrorContains(t, p.Client.Call(ctx, "add", 5, nil), "params must be an object or an array, not 5")
}

func TestManyConcurrentCalls(t *testing.T) {
	p := wiretest.NewPair(newArith(), nil, nil, nil)
	defer p.Close(t)
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 1000 / 16 {
				var sum int
				if !assert.NoError(t, p.Client.Call(context.Background(), "add", []int{g, i}, &sum)) {
					return
				}
				assert.Equal(t, g+i, sum)
			}
		})
	}
	wg.Wait()
}

func TestClientNotify(t *testing.T) {
	a := newArith()
	p := wiretest.NewPair(a, nil, nil, nil)
	defer p.Close(t)
	require.NoError(t, p.Client.Notify(context.Background(), "note", []string{"hello"}))
	assert.Equal(t, `["hello"]`, <-a.notes)
}

func TestBatch(t *testing.T) {
	a := newArith()
	p := wiretest.NewPair(a, nil, nil, nil)
	defer p.Close(t)
	var sum, sum2 int
	calls := []rpc.BatchCall{
		{Method: "add", Params: []int{1, 2}, Result: &sum},
		{Method: "note", Params: []string{"batched"}, Notification: true},
		{Method: "fail"},
		{Method: "add", Params: []int{3, 4}, Result: &sum2},
		{Method: "nope"},
	}
	require.NoError(t, p.Client.Batch(context.Background(), calls))
	assert.Equal(t, 3, sum)
	assert.Equal(t, 7, sum2)
	assert.NoError(t, calls[0].Err)
	assert.NoError(t, calls[1].Err)
	var e *codec.Error
	require.ErrorAs(t, calls[2].Err, &e)
	assert.Equal(t, codec.Code(-1234), e.Code)
	require.ErrorAs(t, calls[4].Err, &e)
	assert.Equal(t, codec.MethodNotFound, e.Code)
	assert.Equal(t, `["batched"]`, <-a.notes)

	require.NoError(t, p.Client.Batch(context.Background(), []rpc.BatchCall{{Method: "note", Params: []int{1}, Notification: true}}),
		"a batch of notifications only")
	assert.Equal(t, `[1]`, <-a.notes)
	assert.ErrorContains(t, p.Client.Batch(context.Background(), nil), "an empty batch is invalid")
}

func TestBatchRefusedAsAWhole(t *testing.T) {
	p := wiretest.NewPair(newArith(), &rpc.Options{MaxBatch: 2}, nil, nil)
	defer p.Close(t)
	calls := []rpc.BatchCall{{Method: "add", Params: []int{1, 2}}, {Method: "add", Params: []int{1, 2}}, {Method: "add", Params: []int{1, 2}}}
	require.NoError(t, p.Client.Batch(context.Background(), calls))
	for _, c := range calls {
		var e *codec.Error
		require.ErrorAs(t, c.Err, &e)
		assert.Equal(t, codec.InvalidRequest, e.Code)
		assert.Equal(t, "Invalid Request", e.Message)
		assert.JSONEq(t, `{"reason":"batch longer than the limit of 2 entries"}`, string(e.Data.(json.RawMessage)))
	}
}

func TestProgressCallbacks(t *testing.T) {
	p := wiretest.NewPair(newArith(), nil, nil, nil)
	defer p.Close(t)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			n := 3 + g
			var got []rpc.Progress
			ctx := rpc.WithProgress(context.Background(), func(pr rpc.Progress) { got = append(got, pr) })
			var result int
			if !assert.NoError(t, p.Client.Call(ctx, "count", map[string]int{"n": n}, &result)) {
				return
			}
			assert.Equal(t, n, result)
			require.Len(t, got, n, "every report of this call, before Call returns")
			for i, pr := range got {
				assert.Equal(t, rpc.Progress{Progress: float64(i + 1), Total: float64(n), Message: fmt.Sprint("step ", i+1)}, pr)
			}
		})
	}
	wg.Wait()
}

func TestProgressTokenGoesIntoMeta(t *testing.T) {
	p := wiretest.NewPair(newArith(), nil, nil, nil)
	defer p.Close(t)
	ctx := rpc.WithProgress(context.Background(), func(rpc.Progress) {})
	tests := []struct {
		params any
		want   string
	}{
		{nil, `{"_meta":{"progressToken":%s}}`},
		{map[string]int{}, `{"_meta":{"progressToken":%s}}`},
		{map[string]int{"a": 1}, `{"_meta":{"progressToken":%s},"a":1}`},
		{json.RawMessage(`{"a":1,"_meta":{"trace":"x"}}`), `{"a":1,"_meta":{"progressToken":%s,"trace":"x"}}`},
		{json.RawMessage(`{"_meta":{}}`), `{"_meta":{"progressToken":%s}}`},
	}
	for _, tt := range tests {
		var echo json.RawMessage
		require.NoError(t, p.Client.Call(ctx, "echo", tt.params, &echo))
		token := jsonx.Member(jsonx.Member(echo, "_meta"), "progressToken")
		assert.Equal(t, fmt.Sprintf(tt.want, token), string(echo))
	}
	assert.ErrorContains(t, p.Client.Call(ctx, "echo", []int{1}, nil), "progress needs named params")
	assert.ErrorContains(t, p.Client.Call(ctx, "echo", json.RawMessage(`{"_meta":{"progressToken":1}}`), nil), "without a progressToken")
}

func TestCallCancelled(t *testing.T) {
	for _, style := range []string{rpc.CancelRequest, rpc.CancelledNotification} {
		t.Run(style, func(t *testing.T) {
			a := newArith()
			p := wiretest.NewPair(a, nil, nil, &rpc.Options{CancelNotification: style})
			defer p.Close(t)
			ctx, cancel := context.WithCancel(context.Background())
			errs := make(chan error, 1)
			go func() { errs <- p.Client.Call(ctx, "block", nil, nil) }()
			<-a.started
			cancel()
			// block answers only when cancelled by the peer; Call returned
			// ctx's error, not that answer.
			assert.ErrorIs(t, wiretest.Receive(t, errs, "the cancelled call"), context.Canceled)
			assert.ErrorIs(t, wiretest.Receive(t, a.cancelled, "the server's handler to be cancelled"), rpc.ErrCancelled,
				"the server's handler saw its context cancelled by the peer")
			// The connection goes on.
			var sum int
			require.NoError(t, p.Client.Call(context.Background(), "add", []int{1, 2}, &sum))
			assert.Equal(t, 3, sum)
		})
	}
}

func TestCallWithDoneContext(t *testing.T) {
	p := wiretest.NewPair(newArith(), nil, nil, nil)
	defer p.Close(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, p.Client.Call(ctx, "add", []int{1, 2}, nil), context.Canceled)
}

func TestConnectionLossFailsPendingCalls(t *testing.T) {
	a := newArith()
	p := wiretest.NewPair(a, &rpc.Options{ShutdownGrace: 10 * time.Millisecond}, nil, nil)
	const n = 20
	errs := make(chan error, n)
	for range n {
		go func() { errs <- p.Client.Call(context.Background(), "block", nil, nil) }()
	}
	for range n {
		<-a.started
	}
	p.KillServer()
	for range n { // block never answers: each call fails because the connection ended
		err := wiretest.Receive(t, errs, "a pending call to fail")
		assert.ErrorIs(t, err, rpc.ErrClosed)
		assert.EqualError(t, err, "rpc: connection closed: the input ended: EOF", "says what happened: our input ended")
	}
	assert.ErrorIs(t, p.Client.Call(context.Background(), "add", []int{1, 2}, nil), rpc.ErrClosed, "and so does every later call")
	_ = p.Client.Close()
	_ = p.Server.Close() // its blocked handlers, as in a killed process, are cancelled
}

func TestCallAfterClose(t *testing.T) {
	p := wiretest.NewPair(newArith(), nil, nil, nil)
	require.NoError(t, p.Client.Close())
	require.NoError(t, p.Client.Close(), "Close is idempotent")
	assert.ErrorIs(t, p.Client.Call(context.Background(), "add", []int{1, 2}, nil), rpc.ErrClosed)
	_ = p.Server.Wait()
}

func TestServerCallsItsCaller(t *testing.T) {
	for _, opts := range []*rpc.Options{{Sequential: true}, {Concurrency: 1}, nil} {
		t.Run(fmt.Sprintf("%+v", opts), func(t *testing.T) {
			a := newArith()
			p := wiretest.NewPair(a, opts, clientSide, nil)
			defer p.Close(t)
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() {
					var answer string
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					defer cancel()
					if assert.NoError(t, p.Client.Call(ctx, "askBack", nil, &answer)) {
						assert.Equal(t, "caller says the client", answer)
					}
				})
			}
			wg.Wait()
		})
	}
}

// With the server's queue full of the client's requests, a handler waiting
// for the client's answer still gets it: the server reads on past the
// queued requests to find it, up to 16 times the queue's size (beyond that,
// requests are refused ServerBusy: TestServerBusyWhileAwaitingThePeer).
func TestServerCallsItsCallerWithAFullQueue(t *testing.T) {
	p := wiretest.NewPair(newArith(), &rpc.Options{Sequential: true, QueueSize: 4}, clientSide, nil)
	defer p.Close(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			method := "add"
			if i%5 == 0 {
				method = "askBack"
			}
			assert.NoError(t, p.Client.Call(ctx, method, []int{1, 2}, nil))
		})
	}
	wg.Wait()
}

// A client driven by raw lines: a response for an id it never used is
// logged and dropped, and never answered; a malformed response to a call
// fails that call, one nested deeper than the limit too (it waited for its
// context before).
func TestUnexpectedAndMalformedResponses(t *testing.T) {
	cr, tw := io.Pipe() // the test writes to the client
	tr, cw := io.Pipe() // the client writes to the test
	fromClient := bufio.NewScanner(tr)
	var logs wiretest.Buffer
	c := rpc.NewConn(context.Background(), cr, cw, nil, &rpc.Options{MaxDepth: 4, Logger: slog.New(slog.NewTextHandler(&logs, nil))})

	wiretest.Send(t, tw, `{"jsonrpc":"2.0","result":1,"id":99}`)
	errs := make(chan error, 1)
	go func() { errs <- c.Call(context.Background(), "m", nil, nil) }()
	require.True(t, fromClient.Scan())
	assert.Equal(t, `{"jsonrpc":"2.0","method":"m","id":1}`, fromClient.Text(), "the first line from the client is its call: nothing answered the stray response")
	wiretest.Send(t, tw, `{"jsonrpc":"2.0","result":1,"error":{"code":1,"message":"x"},"id":1}`)
	err := <-errs
	assert.ErrorIs(t, err, rpc.ErrBadResponse)
	assert.ErrorContains(t, err, "both result and error")
	assert.Contains(t, logs.String(), "unexpected response dropped")
	assert.Contains(t, logs.String(), "id=99")

	for _, tc := range []struct{ answer, want string }{
		{`{"jsonrpc":"2.0","result":[[[[1]]]],"id":2}`, "response nested more than 4 levels deep"},
		{`{"error":{"code":1,"message":"x","data":[[[1]]]},"id":3,"jsonrpc":"2.0"}`, "response nested more than 4 levels deep"},
		{`{"jsonrpc":"2.0","result":[[1]],"id":4}`, ""},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // fails, not hangs, without the fix
		defer cancel()
		go func() { errs <- c.Call(ctx, "m", nil, nil) }()
		require.True(t, fromClient.Scan())
		assert.Regexp(t, `^\{"jsonrpc":"2.0","method":"m","id":\d\}$`, fromClient.Text(), "a call, never an answer to a response")
		wiretest.Send(t, tw, tc.answer)
		if err := <-errs; tc.want == "" {
			assert.NoError(t, err)
		} else {
			assert.ErrorIs(t, err, rpc.ErrBadResponse)
			assert.ErrorContains(t, err, tc.want)
		}
	}

	require.NoError(t, tw.Close())
	go func() { _, _ = io.Copy(io.Discard, tr) }()
	require.NoError(t, c.Wait())
	_ = cw.Close()
}

func TestCallOverThePeersFrameLimitFails(t *testing.T) {
	p := wiretest.NewPair(newArith(), &rpc.Options{MaxFrameSize: 64}, nil, nil)
	defer p.Close(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // fails, not hangs, without the fix
	defer cancel()
	err := p.Client.Call(ctx, "add", []string{strings.Repeat("x", 100)}, nil)
	var e *codec.Error
	require.ErrorAs(t, err, &e, "the peer's error with id null is about the one call under way")
	assert.Equal(t, codec.InvalidRequest, e.Code)
	assert.Equal(t, "jsonrpc error -32600: Invalid Request: frame larger than the limit of 64 bytes", e.Error())
	var sum int
	require.NoError(t, p.Client.Call(context.Background(), "add", []int{1, 2}, &sum), "the connection goes on")
	assert.Equal(t, 3, sum)
}

// TestResponsesWithIDNull: an error with id null fails what it can only be
// about (every batch under way, or the one call under way); anything else
// with id null or no id is logged and dropped.
func TestResponsesWithIDNull(t *testing.T) {
	cr, tw := io.Pipe() // the test writes to the client
	tr, cw := io.Pipe() // the client writes to the test
	fromClient := bufio.NewScanner(tr)
	var logs wiretest.Buffer
	// At Debug: past the second, a connection logs its dropped responses
	// there (TestDroppedResponsesAreLoggedSparsely).
	c := rpc.NewConn(context.Background(), cr, cw, nil, &rpc.Options{MaxDepth: 4, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	refusal := `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}`

	// Two calls and a batch under way.
	calls := make(chan error, 2)
	for range 2 {
		go func() { calls <- c.Call(context.Background(), "m", nil, nil) }()
		require.True(t, fromClient.Scan())
	}
	batch := []rpc.BatchCall{{Method: "m"}, {Method: "m"}}
	batchDone := make(chan error, 1)
	go func() { batchDone <- c.Batch(context.Background(), batch) }()
	require.True(t, fromClient.Scan())
	assert.Equal(t, `[{"jsonrpc":"2.0","method":"m","id":3},{"jsonrpc":"2.0","method":"m","id":4}]`, fromClient.Text())

	wiretest.Send(t, tw, `{"jsonrpc":"2.0","result":1,"id":null}`) // a result: about nothing
	wiretest.Send(t, tw, `{"jsonrpc":"2.0","result":1}`)           // malformed
	wiretest.Send(t, tw, `{"jsonrpc":"2.0","result":1,"error":{"code":1,"message":"x"},"id":null}`)
	wiretest.Send(t, tw, refusal) // fails the batch, not the calls
	require.NoError(t, <-batchDone)
	for _, bc := range batch {
		var e *codec.Error
		require.ErrorAs(t, bc.Err, &e)
		assert.Equal(t, codec.InvalidRequest, e.Code)
	}
	assert.Equal(t, 3, strings.Count(logs.String(), "unexpected response dropped"), logs.String())

	wiretest.Send(t, tw, refusal) // two calls under way: it could be either's
	wiretest.WaitUntil(t, &logs, "the refusal to be dropped", func(s string) bool {
		return strings.Contains(s, "error response with id null dropped")
	})
	wiretest.Send(t, tw, `{"jsonrpc":"2.0","result":1,"id":1}`)
	require.NoError(t, <-calls)
	wiretest.Send(t, tw, refusal) // one call under way: it is that call's
	var e *codec.Error
	require.ErrorAs(t, <-calls, &e)
	assert.Equal(t, codec.InvalidRequest, e.Code)

	require.NoError(t, tw.Close())
	go func() { _, _ = io.Copy(io.Discard, tr) }()
	require.NoError(t, c.Wait())
	_ = cw.Close()
}

// TestServerBusyWhileAwaitingThePeer: a handler awaiting its caller's answer
// lets the connection read on past a full queue, up to 16 times QueueSize;
// the requests beyond are answered -32002 at once, and the ones queued are
// served once the handler has its answer.
func TestServerBusyWhileAwaitingThePeer(t *testing.T) {
	sr, tw := io.Pipe() // the test writes to the server
	tr, sw := io.Pipe() // the server writes to the test
	fromServer := bufio.NewScanner(tr)
	h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		if req.Method == "askBack" {
			var n int
			err := rpc.ConnFromContext(ctx).Call(ctx, "back", nil, &n)
			return n, err
		}
		return 3, nil
	})
	srv := rpc.NewConn(context.Background(), sr, sw, h, &rpc.Options{Sequential: true, QueueSize: 1})

	wiretest.Send(t, tw, `{"jsonrpc":"2.0","method":"askBack","id":0}`)
	require.True(t, fromServer.Scan())
	require.Equal(t, `{"jsonrpc":"2.0","method":"back","id":1}`, fromServer.Text())
	sent := make(chan error, 1)
	go func() { // the refusals are written as the requests are read
		var err error
		for id := 1; id <= 18 && err == nil; id++ { // 16 queued, 2 refused
			_, err = fmt.Fprintf(tw, `{"jsonrpc":"2.0","method":"add","id":%d}`+"\n", id)
		}
		sent <- err
	}()
	for _, id := range []int{17, 18} {
		require.True(t, fromServer.Scan())
		assert.Equal(t, fmt.Sprintf(`{"jsonrpc":"2.0","error":{"code":-32002,"message":"Server busy"},"id":%d}`, id), fromServer.Text())
	}
	require.NoError(t, <-sent)
	wiretest.Send(t, tw, `{"jsonrpc":"2.0","result":7,"id":1}`)
	require.True(t, fromServer.Scan())
	assert.Equal(t, `{"jsonrpc":"2.0","result":7,"id":0}`, fromServer.Text())
	for id := 1; id <= 16; id++ {
		require.True(t, fromServer.Scan())
		assert.Equal(t, fmt.Sprintf(`{"jsonrpc":"2.0","result":3,"id":%d}`, id), fromServer.Text())
	}
	require.NoError(t, tw.Close())
	require.NoError(t, srv.Wait())
	require.NoError(t, sw.Close())
	require.False(t, fromServer.Scan(), "nothing more: %q", fromServer.Text())
}

// stalledOutput is an output the peer reads only when the test does: a
// Write blocks in the pipe until then. entered receives a value as each
// Write begins.
type stalledOutput struct {
	w       *io.PipeWriter
	entered chan struct{}
}

func (s *stalledOutput) Write(p []byte) (int, error) {
	s.entered <- struct{}{}
	return s.w.Write(p)
}

// Every wait of Call, Notify and Batch ends with its context, the write of
// its line too: against a peer that reads nothing, each returns ctx.Err()
// once its context ends. A request no write had taken is never sent; one
// being written goes out whole, followed by its cancellation, which never
// blocks the caller.
func TestCallsEndWithTheirContextsWhileTheOutputIsBlocked(t *testing.T) {
	cr, tw := io.Pipe() // the test writes to the client
	tr, cw := io.Pipe() // the client writes to the test
	out := &stalledOutput{w: cw, entered: make(chan struct{}, 100)}
	c := rpc.NewConn(context.Background(), cr, out, nil, &rpc.Options{Logger: quiet})
	big := []string{strings.Repeat("x", codec.DefaultMaxPending)} // more than the writer holds
	type op func(context.Context) error
	start := func(do op) (cancel func(), errs chan error) {
		ctx, cancel := context.WithCancel(context.Background())
		errs = make(chan error, 1)
		go func() { errs <- do(ctx) }()
		return cancel, errs
	}
	call := func(method string, params any) op {
		return func(ctx context.Context) error { return c.Call(ctx, method, params, nil) }
	}
	cancelled := func(cancel func(), errs chan error, what string) {
		t.Helper()
		cancel()
		assert.ErrorIs(t, wiretest.Receive(t, errs, what+" to return once its context ended"), context.Canceled, what)
	}

	cancelA, errsA := start(call("a", nil)) // id 1: being written, and blocked
	wiretest.Receive(t, out.entered, "the write of the first call")
	cancelB, errsB := start(call("b", nil)) // id 2: queued behind it
	cancelled(cancelB, errsB, "a call queued behind a blocked write")
	cancelled(cancelA, errsA, "a call whose write is blocked")
	cancel, errs := start(call("c", big)) // id 3: waits for room
	cancelled(cancel, errs, "a call waiting for room")
	cancel, errs = start(func(ctx context.Context) error { return c.Notify(ctx, "n", big) })
	cancelled(cancel, errs, "a notification waiting for room")
	cancel, errs = start(func(ctx context.Context) error { // ids 4, 5
		return c.Batch(ctx, []rpc.BatchCall{{Method: "d"}, {Method: "e", Params: big}})
	})
	cancelled(cancel, errs, "a batch waiting for room")
	ctx, cancelLast := context.WithCancel(context.Background())
	defer cancelLast()
	require.NoError(t, c.Notify(ctx, "last", nil), "a notification that fits is queued")

	// The peer reads at last: whole lines, what was taken and nothing else.
	fromClient := bufio.NewScanner(tr)
	for _, want := range []string{
		`{"jsonrpc":"2.0","method":"a","id":1}`,
		`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`,
		`{"jsonrpc":"2.0","method":"last"}`,
	} {
		require.True(t, fromClient.Scan())
		assert.Equal(t, want, fromClient.Text())
	}
	rest := make(chan []string, 1)
	go func() {
		var lines []string
		for fromClient.Scan() {
			lines = append(lines, fromClient.Text())
		}
		rest <- lines
	}()
	require.NoError(t, tw.Close())
	require.NoError(t, c.Wait())
	require.NoError(t, cw.Close())
	assert.Empty(t, wiretest.Receive(t, rest, "the rest of the output"))
}

// signalParams are params whose encoding says it happened.
type signalParams chan struct{}

func (s signalParams) MarshalJSON() ([]byte, error) {
	s <- struct{}{}
	return []byte(`[1,2]`), nil
}

// A batch takes its slots (Options.MaxPendingCalls) all at once or not at
// all: waiting for them, it holds none, so a call that fits goes through;
// holding some while waiting for more, two batches can wait for each other
// for ever. In a synctest bubble, so that synctest.Wait tells when the
// batch waits.
func TestABatchWaitingForSlotsHoldsNone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := newArith()
		p := wiretest.NewPair(a, nil, nil, &rpc.Options{MaxPendingCalls: 2})
		defer p.Close(t)
		blockCtx, unblock := context.WithCancel(context.Background())
		defer unblock()
		go func() { _ = p.Client.Call(blockCtx, "block", nil, nil) }() // holds 1 slot of 2
		wiretest.Receive(t, a.started, "the blocking call")

		encoded := make(signalParams, 1)
		batch := []rpc.BatchCall{{Method: "add", Params: encoded}, {Method: "add", Params: []int{3, 4}}}
		batchDone := make(chan error, 1)
		go func() { batchDone <- p.Client.Batch(context.Background(), batch) }()
		wiretest.Receive(t, encoded, "the batch's first entry to be encoded")
		synctest.Wait()
		// The batch needs 2 slots and 1 is free: it waits, holding none.
		callDone := make(chan error, 1)
		go func() { callDone <- p.Client.Call(context.Background(), "add", []int{1, 1}, nil) }()
		require.NoError(t, wiretest.Receive(t, callDone, "a call that fits to go past the waiting batch"))
		unblock()
		require.NoError(t, wiretest.Receive(t, batchDone, "the batch, once the blocking call ended"))
		wiretest.Receive(t, a.cancelled, "the server to be told the blocking call was cancelled")
		for _, bc := range batch {
			assert.NoError(t, bc.Err)
		}
	})
}

// Two batches, each within MaxPendingCalls alone and over it together,
// both complete (each used to take its slots one at a time, and both could
// stop halfway, waiting for each other).
func TestConcurrentBatchesOverTheBound(t *testing.T) {
	// MaxPendingCalls: 4096; MaxBatch past the batches', on both sides.
	p := wiretest.NewPair(newArith(), &rpc.Options{MaxBatch: 5000}, nil, &rpc.Options{MaxBatch: 5000})
	defer p.Close(t)
	for range 5 {
		done := make(chan error, 2)
		for range 2 {
			go func() {
				calls := make([]rpc.BatchCall, 3000)
				for i := range calls {
					calls[i] = rpc.BatchCall{Method: "add", Params: []int{i, 1}}
				}
				done <- p.Client.Batch(context.Background(), calls)
			}()
		}
		for range 2 {
			require.NoError(t, wiretest.Receive(t, done, "a batch"))
		}
	}
	assert.ErrorContains(t, p.Client.Batch(context.Background(), make([]rpc.BatchCall, 4097)),
		"a batch of 4097 calls is more than Options.MaxPendingCalls (4096)", "a batch over the bound alone fails at once")
}

// Once our output failed, every Call, Notify and Batch fails with the same
// error: ErrClosed, saying the output failed, wrapping the write's error —
// the one whose write failed first too.
func TestEveryCallFailsTheSameWayOnceTheOutputFailed(t *testing.T) {
	ops := map[string]func(context.Context, *rpc.Conn) error{
		"Call":   func(ctx context.Context, c *rpc.Conn) error { return c.Call(ctx, "m", nil, nil) },
		"Notify": func(ctx context.Context, c *rpc.Conn) error { return c.Notify(ctx, "m", nil) },
		"Batch":  func(ctx context.Context, c *rpc.Conn) error { return c.Batch(ctx, []rpc.BatchCall{{Method: "m"}}) },
	}
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, first := range []string{"Call", "Notify", "Batch"} {
		t.Run(first+" first", func(t *testing.T) {
			outR, outW, err := os.Pipe()
			require.NoError(t, err)
			require.NoError(t, outR.Close()) // the peer is gone: writing gets EPIPE
			inR, inW := io.Pipe()
			c := rpc.NewConn(context.Background(), inR, outW, nil, &rpc.Options{Logger: quiet})
			for _, name := range []string{first, "Call", "Notify", "Batch"} {
				for _, ctx := range []context.Context{context.Background(), cancellable} {
					err := ops[name](ctx, c)
					assert.ErrorIs(t, err, rpc.ErrClosed, name)
					assert.ErrorIs(t, err, syscall.EPIPE, name)
					if assert.Error(t, err, name) {
						assert.Equal(t, "rpc: connection closed: the output failed: write |1: broken pipe", err.Error(), name)
					}
				}
			}
			require.NoError(t, inW.Close())
			assert.ErrorIs(t, c.Wait(), syscall.EPIPE)
			_ = outW.Close()
		})
	}
}

// A call of ours that fails because the connection ended says what
// happened: the input ended or failed, the output failed, Close, or the
// connection's context.
func TestTheEndOfTheConnectionSaysWhatHappened(t *testing.T) {
	boom := errors.New("connection reset")
	tests := []struct {
		name string
		end  func(c *rpc.Conn, in *io.PipeWriter, out *os.File, cancel context.CancelFunc)
		want string
	}{
		{"the input ended", func(_ *rpc.Conn, in *io.PipeWriter, _ *os.File, _ context.CancelFunc) { _ = in.Close() },
			"rpc: connection closed: the input ended: EOF"},
		{"the input failed", func(_ *rpc.Conn, in *io.PipeWriter, _ *os.File, _ context.CancelFunc) { _ = in.CloseWithError(boom) },
			"rpc: connection closed: the input failed: connection reset"},
		{"Close", func(c *rpc.Conn, _ *io.PipeWriter, _ *os.File, _ context.CancelFunc) { _ = c.Close() },
			"rpc: connection closed: Close was called"},
		{"the context ended", func(_ *rpc.Conn, _ *io.PipeWriter, _ *os.File, cancel context.CancelFunc) { cancel() },
			"rpc: connection closed: its context ended: context canceled"},
		{"the output failed", func(c *rpc.Conn, _ *io.PipeWriter, out *os.File, _ context.CancelFunc) {
			_ = out.Close() // the peer stops reading
			_ = c.Notify(context.Background(), "m", nil)
		}, "rpc: connection closed: the output failed: write |1: broken pipe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outR, outW, err := os.Pipe()
			require.NoError(t, err)
			defer outW.Close()
			defer outR.Close()
			inR, inW := io.Pipe()
			defer inR.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c := rpc.NewConn(ctx, inR, outW, nil, &rpc.Options{Logger: quiet})
			errs := make(chan error, 1)
			go func() { errs <- c.Call(context.Background(), "m", nil, nil) }()
			line, err := bufio.NewReader(outR).ReadString('\n')
			require.NoError(t, err)
			require.Equal(t, `{"jsonrpc":"2.0","method":"m","id":1}`+"\n", line, "the call is under way")
			tt.end(c, inW, outR, cancel)
			err = wiretest.Receive(t, errs, "the call to fail")
			assert.ErrorIs(t, err, rpc.ErrClosed)
			if assert.Error(t, err) {
				assert.Equal(t, tt.want, err.Error())
			}
			bg := context.Background()
			for _, later := range []error{c.Call(bg, "m", nil, nil), c.Notify(bg, "n", nil),
				c.Batch(bg, []rpc.BatchCall{{Method: "n", Notification: true}})} {
				assert.Equal(t, err, later, "every later call fails the same way")
			}
			_ = inW.Close()
			_ = c.Close()
		})
	}
}

// A progress report for a call of ours that did not ask for progress (a
// server with ProgressOptions.UseRequestID sends them), or for one that has
// ended, is dropped at Debug; a token that is none of ours goes to the
// Handler, like any notification.
func TestProgressForNoCallOfOursIsDropped(t *testing.T) {
	cr, tw := io.Pipe() // the test writes to the client
	tr, cw := io.Pipe() // the client writes to the test
	fromClient := bufio.NewScanner(tr)
	var logs wiretest.Buffer
	notes := make(chan string, 10)
	h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		notes <- string(req.Params)
		return nil, nil
	})
	c := rpc.NewConn(context.Background(), cr, cw, h,
		&rpc.Options{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})

	errs := make(chan error, 1)
	go func() { errs <- c.Call(context.Background(), "m", nil, nil) }()
	require.True(t, fromClient.Scan())
	require.Equal(t, `{"jsonrpc":"2.0","method":"m","id":1}`, fromClient.Text())
	wiretest.Send(t, tw, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
	wiretest.Send(t, tw, `{"jsonrpc":"2.0","result":1,"id":1}`)
	require.NoError(t, <-errs)
	wiretest.Send(t, tw, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":2}}`)
	wiretest.Send(t, tw, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":3}}`)
	assert.Equal(t, `{"progressToken":"t","progress":3}`, wiretest.Receive(t, notes, "the notification with a token not ours"))
	require.NoError(t, tw.Close())
	go func() { _, _ = io.Copy(io.Discard, tr) }()
	require.NoError(t, c.Wait())
	_ = cw.Close()
	assert.Empty(t, notes, "only the token not ours reached the handler")
	assert.Equal(t, 2, strings.Count(logs.String(), `level=DEBUG msg="rpc: progress for no call of ours awaiting it dropped" token=1`), logs.String())
	assert.NotContains(t, logs.String(), "level=WARN")
}

// An option with a fixed set of values refuses any other: the connection
// does not start, and says why.
func TestInvalidCancelNotificationIsRefused(t *testing.T) {
	var out bytes.Buffer
	err := rpc.Serve(context.Background(), strings.NewReader(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`+"\n"),
		&out, newArith(), &rpc.Options{Logger: quiet, CancelNotification: "bogus"})
	const want = `rpc: Options.CancelNotification is "bogus": want rpc.CancelRequest ("$/cancelRequest") or rpc.CancelledNotification ("notifications/cancelled")`
	assert.EqualError(t, err, want)
	assert.Empty(t, out.String(), "nothing read, nothing written")

	c := rpc.NewConn(context.Background(), strings.NewReader(""), io.Discard, nil, &rpc.Options{Logger: quiet, CancelNotification: "$/cancel"})
	assert.ErrorContains(t, c.Wait(), `Options.CancelNotification is "$/cancel"`)
	err = c.Call(context.Background(), "m", nil, nil)
	assert.ErrorIs(t, err, rpc.ErrClosed)
	assert.ErrorContains(t, err, `Options.CancelNotification is "$/cancel"`)
	require.NoError(t, c.Close())

	_, err = rpc.StartProcess(context.Background(), child("serve"), nil,
		&rpc.ProcessOptions{Options: rpc.Options{Logger: quiet, CancelNotification: "bogus"}})
	assert.EqualError(t, err, want, "no process started")

	for _, style := range []string{"", rpc.CancelRequest, rpc.CancelledNotification} {
		p := wiretest.NewPair(newArith(), nil, nil, &rpc.Options{CancelNotification: style})
		require.NoError(t, p.Client.Call(context.Background(), "add", []int{1, 2}, nil), "%q", style)
		p.Close(t)
	}
}

// A write that fails in the writer's own goroutine — a call whose context
// can end is queued, not written by its caller — ends the connection as a
// failed write in a caller does: the call fails at once with ErrClosed
// wrapping the write's error, although the input is still open, and Wait
// returns that error once the input ends.
func TestOutputFailingBehindAQueuedCallEndsTheConnection(t *testing.T) {
	for name, op := range map[string]func(context.Context, *rpc.Conn) error{
		"Call":  func(ctx context.Context, c *rpc.Conn) error { return c.Call(ctx, "m", nil, nil) },
		"Batch": func(ctx context.Context, c *rpc.Conn) error { return c.Batch(ctx, []rpc.BatchCall{{Method: "m"}}) },
	} {
		t.Run(name, func(t *testing.T) {
			outR, outW, err := os.Pipe()
			require.NoError(t, err)
			require.NoError(t, outR.Close()) // the peer is gone: writing gets EPIPE
			inR, inW := io.Pipe()
			c := rpc.NewConn(context.Background(), inR, outW, nil, &rpc.Options{Logger: quiet})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- op(ctx, c) }()
			err = wiretest.Receive(t, done, "the call to fail")
			assert.ErrorIs(t, err, rpc.ErrClosed)
			assert.ErrorIs(t, err, syscall.EPIPE)
			require.NoError(t, inW.Close())
			assert.ErrorIs(t, c.Wait(), syscall.EPIPE)
			_ = outW.Close()
		})
	}
}
