package rpc

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/jsonx"
)

// frameOut is a replier that collects what a frame is answered with, as
// a request/response transport would.
type frameOut struct {
	mu    sync.Mutex
	lines []string
}

func (o *frameOut) reply(line []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.lines = append(o.lines, string(line))
}

func (o *frameOut) replyString(id []byte, s string) {
	line, err := codec.AppendResponse(nil, id, s)
	if err != nil {
		panic(err)
	}
	o.reply(line)
}

func (o *frameOut) replyStringIn([]byte, jsonx.StringIn) bool { return false }

func (o *frameOut) notify(_ context.Context, line []byte) error {
	o.reply(line)
	return nil
}

func (o *frameOut) awaitRead(context.Context) {}

func (o *frameOut) logger() *slog.Logger   { return slog.New(slog.DiscardHandler) }
func (o *frameOut) request() *http.Request { return nil }

func (o *frameOut) inputEnded() <-chan struct{} { return nil }

func (o *frameOut) sendable(bool) error { return nil }

func (o *frameOut) taken() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	lines := o.lines
	o.lines = nil
	return lines
}

// frameHandler serves the methods the frame tests call.
func frameHandler(ctx context.Context, req *Request) (any, error) {
	switch req.Method {
	case "echo":
		return req.Params, nil
	case "note":
		if err := Notify(ctx, "note", map[string]int{"n": 1}); err != nil {
			return nil, err
		}
		return "ok", nil
	case "fail":
		return nil, NewError(-32099, "nope")
	case "err":
		return nil, errors.New("plain")
	case "boom":
		panic("boom")
	case "big":
		return strings.Repeat("x", streamSize+1), nil
	case "block":
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return nil, NewError(codec.MethodNotFound, "")
}

// streamAnswers is what a stream connection served by frameHandler writes
// when it reads frame, line by line.
func streamAnswers(t *testing.T, frame string, opts *Options) []string {
	t.Helper()
	var stream bytes.Buffer
	require.NoError(t, Serve(context.Background(), strings.NewReader(frame+"\n"), &stream, HandlerFunc(frameHandler), opts))
	if s := strings.TrimSuffix(stream.String(), "\n"); s != "" {
		return strings.Split(s, "\n")
	}
	return nil
}

// stopCore shuts a test's core down and waits for its workers.
func stopCore(s *core) {
	if s.beginStop() {
		s.stop()
	}
	s.closeJobs()
	s.running.Wait()
}

// A frame served by the core alone, as a request/response transport serves
// it, is answered exactly as the stream connection answers the same line:
// the rules are the core's, not the stream's.
func TestServeFrameAnswersAsTheStream(t *testing.T) {
	big := `{"jsonrpc":"2.0","result":"` + strings.Repeat("x", streamSize+1) + `","id":1}`
	tests := []struct {
		name, frame string
		want        []string
	}{
		{"request", `{"jsonrpc":"2.0","method":"echo","params":[1,2],"id":1}`,
			[]string{`{"jsonrpc":"2.0","result":[1,2],"id":1}`}},
		{"notification", `{"jsonrpc":"2.0","method":"echo","params":[1]}`, nil},
		{"notification before the response", `{"jsonrpc":"2.0","method":"note","id":"a"}`,
			[]string{`{"jsonrpc":"2.0","method":"note","params":{"n":1}}`, `{"jsonrpc":"2.0","result":"ok","id":"a"}`}},
		{"batch", `[{"jsonrpc":"2.0","method":"echo","params":{"x":1},"id":1},{"jsonrpc":"2.0","method":"echo"},{"foo":1},` +
			`{"jsonrpc":"2.0","method":"fail","id":2},{"jsonrpc":"2.0","method":"rpc.x","id":3},{"jsonrpc":"2.0","method":"boom","id":4},` +
			`{"jsonrpc":"2.0","method":"err","id":5},{"jsonrpc":"2.0","method":"note","id":6}]`,
			[]string{`{"jsonrpc":"2.0","method":"note","params":{"n":1}}`,
				`[{"jsonrpc":"2.0","result":{"x":1},"id":1},` +
					`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"jsonrpc must be the string 2.0"}},"id":null},` +
					`{"jsonrpc":"2.0","error":{"code":-32099,"message":"nope"},"id":2},` +
					`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":3},` +
					`{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"string","message":"boom"}},"id":4},` +
					`{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"*errors.errorString","message":"plain"}},"id":5},` +
					`{"jsonrpc":"2.0","result":"ok","id":6}]`}},
		{"empty batch", `[]`,
			[]string{`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"a batch must not be empty"}},"id":null}`}},
		{"batch of invalid entries", `[1,2]`,
			[]string{`[{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"a request must be a JSON object"}},"id":null},` +
				`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"a request must be a JSON object"}},"id":null}]`}},
		{"batch of notifications", `[{"jsonrpc":"2.0","method":"echo"},{"jsonrpc":"2.0","method":"note"}]`,
			[]string{`{"jsonrpc":"2.0","method":"note","params":{"n":1}}`}},
		{"parse error", `{bad json`,
			[]string{`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`}},
		{"too deep", `{"jsonrpc":"2.0","method":"echo","params":[[[[[1]]]]],"id":1}`,
			[]string{`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"nested more than 4 levels deep"}},"id":null}`}},
		{"unknown method", `{"jsonrpc":"2.0","method":"nosuch","id":9}`,
			[]string{`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":9}`}},
		{"a response", `{"jsonrpc":"2.0","result":1,"id":7}`, nil},
		{"a long string result", `{"jsonrpc":"2.0","method":"big","id":1}`, []string{big}},
	}
	opts := &Options{Logger: slog.New(slog.DiscardHandler), MaxDepth: 4}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, streamAnswers(t, tt.frame, opts), "the stream")

			s := newCore(context.Background(), HandlerFunc(frameHandler), opts.Logger, opts)
			defer stopCore(s)
			var out frameOut
			dec := codec.Decoder{MaxDepth: opts.MaxDepth}
			s.serveFrame(context.Background(), &dec, []byte(tt.frame), &out)
			assert.Equal(t, tt.want, out.taken(), "the core alone")
		})
	}
}

// The frames one core serves share its ids in flight: a request whose id
// is in flight in another frame is refused, and a cancellation in one
// frame reaches a call of another.
func TestServeFrameSharesTheIDsInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newCore(context.Background(), HandlerFunc(frameHandler), slog.New(slog.DiscardHandler), &Options{})
		defer stopCore(s)
		serve := func(frame string) []string {
			var out frameOut
			var dec codec.Decoder
			s.serveFrame(context.Background(), &dec, []byte(frame), &out)
			return out.taken()
		}
		blocked := make(chan []string)
		go func() { blocked <- serve(`{"jsonrpc":"2.0","method":"block","id":1}`) }()
		synctest.Wait() // the call blocks in its handler, its id in flight
		assert.Equal(t, []string{`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"id already in use by a request in flight"}},"id":1}`},
			serve(`{"jsonrpc":"2.0","method":"echo","id":1}`))
		assert.Empty(t, serve(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`))
		assert.Equal(t, []string{`{"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":1}`}, <-blocked)
		assert.Equal(t, []string{`{"jsonrpc":"2.0","result":null,"id":1}`},
			serve(`{"jsonrpc":"2.0","method":"echo","id":1}`), "the id is free again")
	})
}

// Frames run their requests within the core's concurrency bound, and a
// core shutting down answers what it is given ServerShuttingDown.
func TestServeFrameConcurrencyAndShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newCore(context.Background(), HandlerFunc(frameHandler), slog.New(slog.DiscardHandler), &Options{Concurrency: 1})
		serve := func(ctx context.Context, frame string) <-chan []string { return serveAsync(ctx, s, frame) }
		first := serve(context.Background(), `{"jsonrpc":"2.0","method":"block","id":1}`)
		synctest.Wait()
		second := serve(context.Background(), `{"jsonrpc":"2.0","method":"echo","params":[2],"id":2}`)
		synctest.Wait() // every goroutine blocked: the second waits for the one worker
		select {
		case lines := <-second:
			t.Fatalf("a second request ran past Concurrency 1: %q", lines)
		default:
		}
		assert.Empty(t, <-serve(context.Background(), `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`))
		assert.Equal(t, []string{`{"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":1}`}, <-first)
		assert.Equal(t, []string{`{"jsonrpc":"2.0","result":[2],"id":2}`}, <-second)

		gaveUp, cancel := context.WithCancel(context.Background())
		running := serve(gaveUp, `{"jsonrpc":"2.0","method":"block","id":3}`)
		synctest.Wait()
		cancel()                                // the transport gives up: the call is cancelled, as by the peer
		if lines := <-running; len(lines) > 0 { // its answer, if it came before serveFrame returned
			assert.Equal(t, []string{`{"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":3}`}, lines)
		}

		require.True(t, s.beginStop())
		s.stop()
		s.cancelCalls(ErrShutdown)
		assert.Equal(t, []string{`{"jsonrpc":"2.0","error":{"code":-32000,"message":"Server shutting down"},"id":4}`},
			<-serve(context.Background(), `{"jsonrpc":"2.0","method":"echo","id":4}`))
		stopCore(s)
	})
}

func gatedHandler(gate chan struct{}) HandlerFunc {
	return func(ctx context.Context, req *Request) (any, error) {
		switch req.Method {
		case "block":
			<-ctx.Done()
			return nil, ctx.Err()
		case "gate":
			select {
			case <-gate:
			case <-ctx.Done():
			}
			return req.Params, nil
		}
		return "ok", nil
	}
}

func serveAsync(ctx context.Context, s *core, frame string) <-chan []string {
	done := make(chan []string, 1)
	go func() {
		var out frameOut
		var dec codec.Decoder
		s.serveFrame(ctx, &dec, []byte(frame), &out)
		done <- out.taken()
	}()
	return done
}

// serveFrame returns once its context ends while its request waits for a
// worker (Concurrency reached), settling the request unanswered.
func TestServeFrameGivesUpWhileWaitingForAWorker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newCore(context.Background(), gatedHandler(nil), slog.New(slog.DiscardHandler), &Options{Concurrency: 1})
		first := serveAsync(context.Background(), s, `{"jsonrpc":"2.0","method":"block","id":1}`)
		synctest.Wait()
		ctx, cancel := context.WithCancel(context.Background())
		second := serveAsync(ctx, s, `{"jsonrpc":"2.0","method":"echo","id":2}`)
		synctest.Wait()
		cancel()
		synctest.Wait()
		select {
		case lines := <-second: // settled without running: answered as cancelled, or not at all
			if len(lines) > 0 {
				assert.Equal(t, []string{`{"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":2}`}, lines)
			}
		default:
			t.Error("serveFrame did not return after its ctx ended (waiting for a worker)")
			defer func() { <-second }()
		}
		s.beginStop()
		s.stop()
		s.cancelCalls(ErrShutdown)
		<-first
		s.closeJobs()
		s.running.Wait()
	})
}

// A notification runs in serveFrame's goroutine: when the context ends it
// is cancelled, and serveFrame returns.
func TestServeFrameGivesUpDuringANotification(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newCore(context.Background(), gatedHandler(nil), slog.New(slog.DiscardHandler), &Options{})
		ctx, cancel := context.WithCancel(context.Background())
		done := serveAsync(ctx, s, `{"jsonrpc":"2.0","method":"block"}`)
		synctest.Wait()
		cancel()
		synctest.Wait()
		select {
		case <-done:
		default:
			t.Error("serveFrame did not return after its ctx ended (a notification runs)")
			defer func() { <-done }()
		}
		s.beginStop()
		s.stop()
		s.cancelCalls(ErrShutdown)
		s.closeJobs()
		s.running.Wait()
	})
}

// With frames served concurrently, notifications run at once: a
// shutdown cancels every one of them.
func TestShutdownCancelsEveryNotificationOfConcurrentFrames(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		s := newCore(context.Background(), gatedHandler(gate), slog.New(slog.DiscardHandler), &Options{})
		a := serveAsync(context.Background(), s, `{"jsonrpc":"2.0","method":"gate"}`)
		synctest.Wait()
		b := serveAsync(context.Background(), s, `{"jsonrpc":"2.0","method":"gate"}`)
		synctest.Wait()
		s.beginStop()
		s.stop()
		s.cancelCalls(ErrShutdown)
		synctest.Wait()
		n := 0
		for _, ch := range []<-chan []string{a, b} {
			select {
			case <-ch:
				n++
			default:
			}
		}
		if n != 2 {
			t.Errorf("after cancelCalls, %d of 2 notification handlers returned", n)
		}
		close(gate)
		synctest.Wait()
		s.closeJobs()
		s.running.Wait()
	})
}

// A request whose transport has already given up when it would start is
// never run, alone as in a batch (a request cancelled before it starts is
// never run): it is settled, answered as cancelled to an answer dropped.
// Alone it always ran before; in a batch when a worker took it at once.
func TestServeFrameDoesNotRunWhatItsTransportGaveUp(t *testing.T) {
	var ran sync.Map
	h := HandlerFunc(func(_ context.Context, req *Request) (any, error) {
		ran.Store(string(req.ID), true)
		return "ok", nil
	})
	s := newCore(context.Background(), h, slog.New(slog.DiscardHandler), &Options{})
	defer func() {
		s.beginStop()
		s.stop()
		s.closeJobs()
		s.running.Wait()
	}()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, frame := range []string{
		`{"jsonrpc":"2.0","method":"m","id":1}`,
		`[{"jsonrpc":"2.0","method":"m","id":2}]`,
	} {
		for _, line := range <-serveAsync(ctx, s, frame) {
			assert.Contains(t, line, `"code":-32800`, frame)
		}
	}
	ran.Range(func(id, _ any) bool {
		t.Errorf("the request with id %s ran", id)
		return true
	})
}
