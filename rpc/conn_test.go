package rpc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

// TestMain fails the package's tests if any goroutine outlives them. Run
// with TOOLRPC_TEST_PROCESS set, the test binary is instead a child
// process for the process tests (see stdioChild and childProcess).
func TestMain(m *testing.M) {
	if mode := os.Getenv("TOOLRPC_TEST_PROCESS"); mode != "" {
		if code, ok := stdioChild(mode); ok {
			os.Exit(code)
		}
		os.Exit(childProcess(mode))
	}
	goleak.VerifyTestMain(m)
}

var quiet = slog.New(slog.DiscardHandler)

// TestConcurrencyIsBounded runs in a synctest bubble, so that
// synctest.Wait tells when every call that can start has started.
func TestConcurrencyIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const limit = 3
		var running, peak atomic.Int32
		gate := make(chan struct{})
		h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
			n := running.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			<-gate // holds its worker until every call that can start has
			running.Add(-1)
			return nil, nil
		})
		var in strings.Builder
		for i := range 60 {
			fmt.Fprintf(&in, `{"jsonrpc":"2.0","method":"m","id":%d}`+"\n", i)
		}
		var out bytes.Buffer
		done := make(chan error, 1)
		go func() {
			done <- rpc.Serve(context.Background(), strings.NewReader(in.String()), &out, h,
				&rpc.Options{Logger: quiet, Concurrency: limit})
		}()
		synctest.Wait() // every call that can start has started
		close(gate)
		require.NoError(t, wiretest.Receive(t, done, "Serve to return"))
		assert.Equal(t, int32(limit), peak.Load())
		assert.Equal(t, 60, strings.Count(out.String(), "\n"))
	})
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// A full queue stops the reader: by count (QueueSize) or by bytes
// (MaxQueueBytes), the rest of the input stays unread until there is room.
// In a synctest bubble: synctest.Wait returns once the reader is stopped
// (or has read everything), not after a guess at how long that takes.
func TestFullQueueStopsReading(t *testing.T) {
	tests := []struct {
		name    string
		opts    rpc.Options
		payload int   // bytes of each notification's params
		lines   int   // notifications sent
		most    int64 // lines the reader may take in while the handler blocks
	}{
		// One runs, four wait, one is held by the reader: the rest unread.
		{"by count", rpc.Options{QueueSize: 4}, 1000, 1000, 20},
		// One runs, three wait (300 kB), one is held, part of one buffered.
		{"by bytes", rpc.Options{MaxQueueBytes: 300_000}, 100_000, 100, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				gate := make(chan struct{})
				h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
					<-gate
					return nil, nil
				})
				line := `{"jsonrpc":"2.0","method":"m","params":["` + strings.Repeat("x", tt.payload) + `"]}` + "\n"
				pr, pw := io.Pipe()
				cr := &countingReader{r: pr}
				opts := tt.opts
				opts.Logger = quiet
				c := rpc.NewConn(context.Background(), cr, io.Discard, h, &opts)
				go func() {
					for range tt.lines {
						if _, err := io.WriteString(pw, line); err != nil {
							return
						}
					}
					_ = pw.Close()
				}()
				synctest.Wait() // the reader reads on, or is stopped for good
				assert.Less(t, cr.n.Load(), tt.most*int64(len(line)), "the reader kept reading with a full queue")
				close(gate)
				require.NoError(t, c.Wait())
				assert.Equal(t, int64(tt.lines*len(line)), cr.n.Load())
			})
		})
	}
}

func TestOptionsDefaults(t *testing.T) {
	// A nil *Options works, and a zero one means the same.
	for _, opts := range []*rpc.Options{nil, {}} {
		var out bytes.Buffer
		h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) { return "ok", nil })
		in := `{"jsonrpc":"2.0","method":"m","id":1}` + "\n"
		require.NoError(t, rpc.Serve(context.Background(), strings.NewReader(in), &out, h, opts))
		assert.Equal(t, `{"jsonrpc":"2.0","result":"ok","id":1}`+"\n", out.String())
	}
}

func TestHandlerFuncAndCodecErrors(t *testing.T) {
	h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		return nil, rpc.Errorf(codec.InvalidParams, "want %d params", 2)
	})
	var out bytes.Buffer
	in := `{"jsonrpc":"2.0","method":"m","params":[1],"id":1}` + "\n"
	require.NoError(t, rpc.Serve(context.Background(), strings.NewReader(in), &out, h, &rpc.Options{Logger: quiet}))
	assert.Equal(t, `{"jsonrpc":"2.0","error":{"code":-32602,"message":"want 2 params"},"id":1}`+"\n", out.String())
}

// A handler can be given a logger: panics are logged with their stack.
func TestPanicIsLogged(t *testing.T) {
	var logs wiretest.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) { panic("kaboom") })
	var out bytes.Buffer
	in := `{"jsonrpc":"2.0","method":"m","id":1}` + "\n"
	require.NoError(t, rpc.Serve(context.Background(), strings.NewReader(in), &out, h, &rpc.Options{Logger: logger}))
	assert.Contains(t, logs.String(), "handler panicked")
	assert.Contains(t, logs.String(), "kaboom")
	assert.Contains(t, logs.String(), "conn_test.go", "the stack is logged")
	assert.NotContains(t, out.String(), "conn_test.go", "the stack never reaches the wire")
}

func ExampleServe() {
	greet := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		if req.Method != "greet" {
			return nil, rpc.NewError(rpc.MethodNotFound, "")
		}
		return "hello", nil
	})
	in := strings.NewReader(`{"jsonrpc":"2.0","method":"greet","id":1}
{"jsonrpc":"2.0","method":"greet"}
{"jsonrpc":"2.0","method":"wave","id":2}
`)
	// In a tool server: rpc.ServeStdio(ctx, greet, nil).
	var out bytes.Buffer
	if err := rpc.Serve(context.Background(), in, &out, greet, &rpc.Options{Sequential: true}); err != nil {
		panic(err)
	}
	fmt.Print(out.String())
	// Output:
	// {"jsonrpc":"2.0","result":"hello","id":1}
	// {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":2}
}

func ExampleNotify() {
	work := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		for step := 1; step <= 2; step++ {
			_ = rpc.Notify(ctx, "step", map[string]int{"step": step})
		}
		return "finished", nil
	})
	in := strings.NewReader(`{"jsonrpc":"2.0","method":"work","id":1}` + "\n")
	var out bytes.Buffer
	_ = rpc.Serve(context.Background(), in, &out, work, nil)
	fmt.Print(out.String())
	// Output:
	// {"jsonrpc":"2.0","method":"step","params":{"step":1}}
	// {"jsonrpc":"2.0","method":"step","params":{"step":2}}
	// {"jsonrpc":"2.0","result":"finished","id":1}
}

var trivial = rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) { return true, nil })

// BenchmarkRoundTrip is one request and its response through a connection
// over io.Pipe, with a trivial handler, one call in flight.
func BenchmarkRoundTrip(b *testing.B) {
	wiretest.BenchRoundTrip(b, trivial, `{"jsonrpc":"2.0","method":"ping","params":[1,2],"id":1}`, `{"jsonrpc":"2.0","result":true,"id":1}`)
}

// BenchmarkPipelined keeps up to 256 calls in flight. An id is reused only
// once its response has come back.
func BenchmarkPipelined(b *testing.B) {
	for _, sequential := range []bool{false, true} {
		b.Run(fmt.Sprintf("sequential=%v", sequential), func(b *testing.B) {
			p := wiretest.NewPipe(trivial, &rpc.Options{Sequential: sequential})
			const window = 256
			var reqs [window][]byte
			free := make(chan int, window)
			for i := range reqs {
				reqs[i] = fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"ping","params":[1,2],"id":%d}`+"\n", i)
				free <- i
			}
			errs := make(chan error, 1)
			b.ReportAllocs()
			b.ResetTimer()
			go func() {
				for range b.N {
					if err := p.Write(reqs[<-free]); err != nil {
						errs <- err
						return
					}
				}
				errs <- nil
			}()
			for range b.N {
				line, err := p.ReadLine()
				if err != nil {
					b.Fatal(err)
				}
				free <- responseID(b, line)
			}
			require.NoError(b, <-errs)
			b.StopTimer()
			p.Close(b)
		})
	}
}

// responseID reads the integer id at the end of a result line.
func responseID(b *testing.B, line []byte) int {
	i := bytes.LastIndex(line, []byte(`"id":`))
	if i < 0 || !bytes.HasPrefix(line, []byte(`{"jsonrpc":"2.0","result":true,`)) {
		b.Fatalf("unexpected line %q", line)
	}
	id := 0
	for _, c := range line[i+5:] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + int(c-'0')
	}
	return id
}

// meeting returns a func that waits until n calls of it are under way at
// once and returns "met", or returns "alone" after 5 s (run it in a
// synctest bubble, where those pass only once everything else is
// blocked).
func meeting(n int32) func() string {
	var running atomic.Int32
	barrier := make(chan struct{})
	var once sync.Once
	return func() string {
		if running.Add(1) == n {
			once.Do(func() { close(barrier) })
		}
		select {
		case <-barrier:
			return "met"
		case <-time.After(5 * time.Second):
			return "alone"
		}
	}
}

// A batch's requests run in parallel: each entry here returns only once
// four of them are running at the same time. In a synctest bubble, the 5 s
// that an entry waits alone pass only once everything else is blocked.
func TestBatchEntriesRunInParallel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		meet := meeting(4)
		h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) { return meet(), nil })
		var entries []string
		var want []string
		for i := range 6 {
			entries = append(entries, fmt.Sprintf(`{"jsonrpc":"2.0","method":"m","id":%d}`, i))
			want = append(want, fmt.Sprintf(`{"jsonrpc":"2.0","result":"met","id":%d}`, i))
		}
		var out bytes.Buffer
		in := "[" + strings.Join(entries, ",") + "]\n"
		require.NoError(t, rpc.Serve(context.Background(), strings.NewReader(in), &out, h, &rpc.Options{Logger: quiet, Concurrency: 8}))
		assert.Equal(t, "["+strings.Join(want, ",")+"]\n", out.String())
	})
}

// gatedOutput is an output whose Writes wait for its gate, and which
// counts the bytes written once marked.
type gatedOutput struct {
	gate   chan struct{} // a Write waits for a value, or for it to be closed
	mu     sync.Mutex
	marked bool
	after  int // the bytes written since mark
}

func (g *gatedOutput) Write(p []byte) (int, error) {
	<-g.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.marked {
		g.after += len(p)
	}
	return len(p), nil
}

func (g *gatedOutput) mark() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.marked = true
}

func (g *gatedOutput) written() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.after
}

// Nothing is written after Serve returns but the piece (32 KiB at most) of
// a write under way when the grace period ended. A long string result is
// written in pieces, and its loop went on writing after Serve returned; a
// long line was handed to the output in one Write, all of which could land
// later.
func TestNothingIsWrittenAfterServeReturns(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	tests := []struct {
		name   string
		result any
	}{
		{"a long string, written in pieces", long},
		{"a long line, written at once", json.RawMessage(`"` + long + `"`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				in, peer := io.Pipe()
				out := &gatedOutput{gate: make(chan struct{})}
				h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) { return tt.result, nil })
				served := make(chan error, 1)
				go func() {
					served <- rpc.Serve(ctx, in, out, h, &rpc.Options{Logger: quiet, ShutdownGrace: 200 * time.Millisecond})
				}()
				wiretest.Send(t, peer, `{"jsonrpc":"2.0","method":"long","id":1}`)
				synctest.Wait() // the answer's first Write waits for the peer to read
				cancel()
				assert.ErrorIs(t, <-served, context.Canceled, "Serve returns after the grace period")
				out.mark()
				close(out.gate) // the peer reads everything from now on
				synctest.Wait() // and the handler's goroutine is done writing
				assert.LessOrEqual(t, out.written(), 32<<10, "bytes written after Serve returned")
				_ = peer.Close()
			})
		})
	}
}

// A handler's notifications, and its calls back to the peer, wait for room
// in an output the peer does not read only as long as their context lets
// them: however the context ends, each returns ctx.Err() and nothing of its
// line is written. The notifications queued before it are written whole,
// and before the call's response. (They waited with no context: the
// handler blocked for good, whatever ended its call.)
func TestHandlerNotificationsEndWithTheirContexts(t *testing.T) {
	const (
		a = `{"jsonrpc":"2.0","method":"a"}`
		b = `{"jsonrpc":"2.0","method":"b","params":["<4 MiB>"]}`
	)
	type ending func(t *testing.T, s *wiretest.Stalled, stop context.CancelFunc)
	cancelRequest := func(t *testing.T, s *wiretest.Stalled, _ context.CancelFunc) {
		s.Send(t, `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`)
	}
	tests := []struct {
		name     string
		deadline bool // the handler gives its context a deadline of 1 s
		callBack bool // the write that waits is a call back to the peer
		end      ending
		err      error // what the waiting Notify (or Call) returns
		want     []string
		served   error
	}{
		{
			name: "the peer cancels the call", end: cancelRequest, err: context.Canceled,
			want: []string{a, b, `{"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":1}`},
		},
		{
			name: "the peer cancels the call with no answer (MCP)", err: context.Canceled,
			end: func(t *testing.T, s *wiretest.Stalled, _ context.CancelFunc) {
				s.Send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
			},
			want: []string{a, b},
		},
		{
			name: "its deadline passes", deadline: true, err: context.DeadlineExceeded,
			end:  func(*testing.T, *wiretest.Stalled, context.CancelFunc) { time.Sleep(time.Second) }, // the bubble's clock
			want: []string{a, b, `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"context.deadlineExceededError","message":"context deadline exceeded"}},"id":1}`},
		},
		{
			name: "the connection shuts down", err: context.Canceled, served: context.Canceled,
			end:  func(_ *testing.T, _ *wiretest.Stalled, stop context.CancelFunc) { stop() },
			want: []string{a, b, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Server shutting down"},"id":1}`},
		},
		{
			name: "a call back to the peer, cancelled", callBack: true, end: cancelRequest, err: context.Canceled,
			want: []string{a, b, `{"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":1}`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				waited := make(chan error, 1)
				h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
					if tt.deadline {
						var cancel context.CancelFunc
						ctx, cancel = context.WithTimeout(ctx, time.Second)
						defer cancel()
					}
					// a is being written, blocked; b fills the room behind it.
					if err := rpc.Notify(ctx, "a", nil); err != nil {
						return nil, err
					}
					if err := rpc.Notify(ctx, "b", []string{wiretest.Fill()}); err != nil {
						return nil, err
					}
					var err error
					if tt.callBack {
						err = rpc.ConnFromContext(ctx).Call(ctx, "back", nil, nil)
					} else {
						err = rpc.Notify(ctx, "c", nil)
					}
					waited <- err
					return nil, err
				})
				ctx, stop := context.WithCancel(context.Background())
				defer stop()
				s := wiretest.NewStalled(ctx, h, nil)
				s.Send(t, `{"jsonrpc":"2.0","method":"work","id":1}`)
				synctest.Wait() // the handler waits for room in the output
				tt.end(t, s, stop)
				synctest.Wait()
				if err, ok := wiretest.Ready(t, waited, "the handler to return from its wait once its context ended"); ok {
					assert.ErrorIs(t, err, tt.err)
				}
				lines, served := s.Drain(t)
				assert.Equal(t, tt.want, lines)
				assert.ErrorIs(t, served, tt.served)
			})
		})
	}
}
