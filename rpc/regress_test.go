package rpc_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

// Regression tests for defects found in review. Each names what broke.

// slowNotes holds any write that holds a notification until released, and
// records whether anything is written after it is sealed.
type slowNotes struct {
	mu      sync.Mutex
	out     strings.Builder
	sealed  bool
	late    []string
	writing chan struct{} // receives a value as a notification's write begins
	release chan struct{} // closed to let the notification's write end
}

func (s *slowNotes) Write(p []byte) (int, error) {
	if strings.Contains(string(p), `"method":"log"`) {
		s.writing <- struct{}{}
		<-s.release
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sealed {
		s.late = append(s.late, string(p))
	}
	return s.out.Write(p)
}

// A response queued behind a slow write was dropped at the end of the
// input, and the slow write landed after Wait returned. In a synctest
// bubble: synctest.Wait tells when the response is queued and when the end
// of the input is read, and the bubble's end, when every goroutine of the
// connection has ended, when nothing more can be written.
func TestEOFWritesEverythingQueuedBeforeWaitReturns(t *testing.T) {
	w := &slowNotes{}
	synctest.Test(t, func(t *testing.T) {
		w.writing, w.release = make(chan struct{}, 1), make(chan struct{})
		pr, pw := io.Pipe()
		h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) { return "ok", nil })
		c := rpc.NewConn(context.Background(), pr, w, h, &rpc.Options{Logger: quiet})
		go func() { _ = c.Notify(context.Background(), "log", map[string]int{"n": 1}) }()
		<-w.writing // the notification is being written, until released
		wiretest.Send(t, pw, `{"jsonrpc":"2.0","method":"m","id":1}`)
		synctest.Wait() // its response is queued behind it
		require.NoError(t, pw.Close())
		synctest.Wait() // the end of the input is read, the write still under way
		close(w.release)
		require.NoError(t, c.Wait())
		w.mu.Lock()
		w.sealed = true
		got := w.out.String()
		w.mu.Unlock()
		assert.Equal(t, `{"jsonrpc":"2.0","method":"log","params":{"n":1}}`+"\n"+`{"jsonrpc":"2.0","result":"ok","id":1}`+"\n", got)
	})
	// synctest.Test returned: every goroutine of the bubble has ended.
	w.mu.Lock()
	defer w.mu.Unlock()
	assert.Empty(t, w.late, "written after Wait returned")
}

type nilErr struct{ msg string }

func (e *nilErr) Error() string { return e.msg }

type panicky struct{}

func (panicky) MarshalJSON() ([]byte, error) { panic("marshal exploded") }

// Typed nil errors and panicking MarshalJSON methods crashed the process:
// the response was built outside the handler's recovery.
func TestPanicsWhileEncodingTheResponse(t *testing.T) {
	h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		switch req.Method {
		case "typed-nil-codec-error":
			var e *codec.Error
			return nil, e
		case "typed-nil-error":
			var e *nilErr
			return nil, e
		case "marshal-panics":
			return panicky{}, nil
		case "data-panics":
			return nil, rpc.NewError(42, "x").WithData(panicky{})
		}
		return "ok", nil
	})
	wiretest.Serve(t, h, `
		--> {"jsonrpc":"2.0","method":"typed-nil-codec-error","id":1}
		<-- {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"*codec.Error","message":"<nil>"}},"id":1}
		--> {"jsonrpc":"2.0","method":"typed-nil-error","id":2}
		<-- {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"*rpc_test.nilErr","message":"<nil>"}},"id":2}
		--> {"jsonrpc":"2.0","method":"marshal-panics","id":3}
		<-- {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"string","message":"marshal exploded"}},"id":3}
		--> {"jsonrpc":"2.0","method":"data-panics","id":4}
		<-- {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"string","message":"marshal exploded"}},"id":4}
		--> {"jsonrpc":"2.0","method":"after","id":5}
		<-- {"jsonrpc":"2.0","result":"ok","id":5}`, nil)
}

// The id of a finished batch entry was released before the batch was
// answered, so a new request could reuse it and both were answered. In a
// synctest bubble, so that synctest.Wait tells when "fast" is done.
func TestBatchIDsStayInFlightUntilTheBatchIsAnswered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
			if req.Method == "slow" {
				select {
				case <-gate:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return req.Method, nil
		})
		pr, pw := io.Pipe()
		var out wiretest.Buffer
		c := rpc.NewConn(context.Background(), pr, &out, h, &rpc.Options{Logger: quiet})
		wiretest.Send(t, pw, `[{"jsonrpc":"2.0","method":"fast","id":1},{"jsonrpc":"2.0","method":"slow","id":2}]`)
		synctest.Wait() // fast is done; its answer waits for the batch
		wiretest.Send(t, pw, `{"jsonrpc":"2.0","method":"fast","id":1}`)
		wiretest.WaitForLines(t, &out, 1)
		close(gate)
		wiretest.WaitForLines(t, &out, 2)
		wiretest.Send(t, pw, `{"jsonrpc":"2.0","method":"fast","id":1}`)
		require.NoError(t, pw.Close())
		require.NoError(t, c.Wait())
		assert.Equal(t, []string{
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"id already in use by a request in flight"}},"id":1}`,
			`[{"jsonrpc":"2.0","result":"fast","id":1},{"jsonrpc":"2.0","result":"slow","id":2}]`,
			`{"jsonrpc":"2.0","result":"fast","id":1}`,
		}, wiretest.Lines(t, out.String()))
	})
}

// A request read while the connection shut down, waiting for room in a full
// queue, got no answer at all. Each run is a synctest bubble, so that
// synctest.Wait tells when every request has reached its place.
func TestShutdownAnswersEveryRequestRead(t *testing.T) {
	for run := range 50 {
		synctest.Test(t, func(t *testing.T) {
			started := make(chan struct{}, 1)
			h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
				started <- struct{}{}
				<-ctx.Done()
				return nil, ctx.Err()
			})
			pr, pw := io.Pipe()
			var out wiretest.Buffer
			ctx, cancel := context.WithCancel(context.Background())
			c := rpc.NewConn(ctx, pr, &out, h, &rpc.Options{Logger: quiet, Concurrency: 1, QueueSize: 1})
			for _, id := range []string{"A", "B", "C", "D"} {
				wiretest.Send(t, pw, fmt.Sprintf(`{"jsonrpc":"2.0","method":"m","id":%q}`, id))
				if id == "A" {
					<-started
				}
			}
			// A runs, B waits for a slot, C is queued, D waits for room.
			synctest.Wait()
			cancel()
			require.ErrorIs(t, c.Wait(), context.Canceled)
			_ = pr.Close()
			got := wiretest.Lines(t, out.String())
			require.Len(t, got, 4, "run %d: %q", run, got)
			for _, line := range got {
				assert.Contains(t, line, `"code":-32000`)
			}
		})
	}
}

// rw is a stream whose value cannot be compared with ==.
type rw struct {
	io.Reader
	io.Writer
	closes *int
	_      []int
}

func (s rw) Close() error { *s.closes++; return nil }

// Close compared r and w with ==, which panics for such values.
func TestCloseWithOneUncomparableStream(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	closes := 0
	s := rw{Reader: pr, Writer: io.Discard, closes: &closes}
	c := rpc.NewConn(context.Background(), s, s, nil, &rpc.Options{Logger: quiet})
	require.NotPanics(t, func() { _ = c.Close() })
	_ = pr.Close()
	assert.Positive(t, closes)
}

// After a shutdown, the requests of a batch no worker had started were
// still run by the worker holding the batch, even after Serve returned. In
// a synctest bubble: the grace runs on the bubble's clock, and
// synctest.Wait tells when the worker has done all it will do.
func TestShutdownStopsABatchsUnstartedRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var sideEffects atomic.Int32
		slowStarted := make(chan struct{})
		release := make(chan struct{})
		slowDone := make(chan struct{})
		h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
			switch req.Method {
			case "slow":
				defer close(slowDone)
				close(slowStarted)
				<-release // ignores its context
				return "late", nil
			case "side_effect":
				sideEffects.Add(1)
			}
			return "ok", nil
		})
		pr, pw := io.Pipe()
		defer pw.Close()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		var out wiretest.Buffer
		go func() {
			done <- rpc.Serve(ctx, pr, &out, h, &rpc.Options{Logger: quiet, Concurrency: 1, ShutdownGrace: 20 * time.Millisecond})
		}()
		wiretest.Send(t, pw, `[{"jsonrpc":"2.0","method":"slow","id":1},{"jsonrpc":"2.0","method":"side_effect","id":2},{"jsonrpc":"2.0","method":"side_effect","id":3}]`)
		<-slowStarted
		cancel()
		require.ErrorIs(t, <-done, context.Canceled)
		close(release)
		<-slowDone
		synctest.Wait() // the worker would have gone on to the next request now
		assert.Zero(t, sideEffects.Load(), "a request of the batch ran after the shutdown")
		_ = pr.Close()
	})
}

// A batch dispatched while every worker was busy ran on one worker, one
// request after another, though the others soon had nothing to do. Here
// each request of the batch waits until four of them run at once. In a
// synctest bubble, the 5 s that a request waits alone pass only once
// everything else is blocked: never by a slow machine's chance.
func TestABatchSpreadsToWorkersThatFreeUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		holds := make(chan struct{})
		holding := make(chan struct{}, 3)
		meet := meeting(4)
		h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
			if req.Method == "hold" {
				holding <- struct{}{}
				<-holds
				return "held", nil
			}
			return meet(), nil
		})
		p := wiretest.NewPair(h, &rpc.Options{Concurrency: 4}, nil, nil)
		defer p.Close(t)
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() { _ = p.Client.Call(context.Background(), "hold", nil, nil) })
		}
		for range 3 {
			wiretest.Receive(t, holding, "a hold to start")
		} // three workers busy; room for one
		calls := make([]rpc.BatchCall, 6)
		var results [6]string
		for i := range calls {
			calls[i] = rpc.BatchCall{Method: "m", Result: &results[i]}
		}
		batchDone := make(chan error, 1)
		go func() { batchDone <- p.Client.Batch(context.Background(), calls) }()
		synctest.Wait() // the batch is read: an entry runs on the free worker
		close(holds)    // three workers free up
		require.NoError(t, <-batchDone)
		wg.Wait()
		for i, r := range results {
			assert.Equal(t, "met", r, "entry %d", i)
		}
	})
}

// stalling is a slog.Handler that calls stall before each record it
// passes on.
type stalling struct {
	slog.Handler
	stall func()
}

func (s stalling) Handle(ctx context.Context, r slog.Record) error {
	s.stall()
	return s.Handler.Handle(ctx, r)
}
func (s stalling) WithAttrs(as []slog.Attr) slog.Handler {
	return stalling{s.Handler.WithAttrs(as), s.stall}
}
func (s stalling) WithGroup(g string) slog.Handler { return stalling{s.Handler.WithGroup(g), s.stall} }

// The warning that handlers still ran after the grace period was logged
// from a goroutine nobody waited for: a program that exited once Serve
// returned lost it (TestMainShutdownEndsWithTheGracePeriod failed 5 runs
// in 30). A logger that takes its time has it written before Serve
// returns; one that blocks for good still does not hold Serve up. In a
// synctest bubble, where the slow logger's pause and the bound on the
// wait pass only once everything else is blocked.
func TestLateWarningsAreWrittenBeforeServeReturns(t *testing.T) {
	for _, blocked := range []bool{false, true} {
		t.Run(fmt.Sprintf("blocked=%v", blocked), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var logs wiretest.Buffer
				gate := make(chan struct{})
				logger := slog.New(stalling{slog.NewJSONHandler(&logs, nil), func() {
					if blocked {
						<-gate
					} else {
						// A slow logger, on the bubble's clock: the
						// record is late by any measure, always.
						time.Sleep(time.Millisecond)
					}
				}})
				started, release := make(chan struct{}), make(chan struct{})
				h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
					close(started)
					<-release // ignores its context
					return "late", nil
				})
				pr, pw := io.Pipe()
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan error, 1)
				go func() {
					done <- rpc.Serve(ctx, pr, io.Discard, h, &rpc.Options{Logger: logger, ShutdownGrace: time.Nanosecond})
				}()
				wiretest.Send(t, pw, `{"jsonrpc":"2.0","method":"m","id":1}`)
				<-started
				cancel()
				require.ErrorIs(t, wiretest.Receive(t, done, "Serve to return"), context.Canceled)
				warned := strings.Contains(logs.String(), "handlers still running after the shutdown grace period")
				assert.Equal(t, !blocked, warned, "the warning is written before Serve returns, unless the logger blocks")
				close(gate)
				close(release)
				_ = pw.Close()
			})
		})
	}
}

// Of the names under rpc., only Discover reaches the handler; the others
// are answered MethodNotFound before it runs.
func TestReservedNamesButDiscover(t *testing.T) {
	h := rpc.HandlerFunc(func(_ context.Context, req *rpc.Request) (any, error) {
		return "handled " + req.Method, nil
	})
	wiretest.Serve(t, h, `
		--> {"jsonrpc":"2.0","method":"rpc.discover","id":1}
		<-- {"jsonrpc":"2.0","result":"handled rpc.discover","id":1}
		--> {"jsonrpc":"2.0","method":"rpc.other","id":2}
		<-- {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":2}
		--> {"jsonrpc":"2.0","method":"rpc.discover.x","id":3}
		<-- {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":3}
		--> {"jsonrpc":"2.0","method":"rpc.Discover","id":4}
		<-- {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":4}
		--> {"jsonrpc":"2.0","method":"rpc.","id":5}
		<-- {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":5}
		--> {"jsonrpc":"2.0","method":"rpcdiscover","id":6}
		<-- {"jsonrpc":"2.0","result":"handled rpcdiscover","id":6}`, nil)
}
