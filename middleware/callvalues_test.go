package middleware_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/middleware"
	"github.com/toolrpc/toolrpc/rpc"
)

// What each middleware costs a call that neither logs nor reports, in
// allocations: one for the values Correlation and Progress keep, however
// many of them there are; none for the others.
func TestAllocationsPerCall(t *testing.T) {
	trivial := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) { return true, nil })
	info := slog.New(slog.NewTextHandler(io.Discard, nil)) // results, at Debug, are not logged
	tests := []struct {
		name   string
		mw     middleware.Middleware
		allocs float64
	}{
		{"Correlation", middleware.Correlation(), 1},
		{"Progress", middleware.Progress(nil), 1},
		{"Correlation and Progress", middleware.Chain(middleware.Correlation(), middleware.Progress(nil)), 1},
		{"Progress and Correlation", middleware.Chain(middleware.Progress(nil), middleware.Correlation()), 1},
		{"Logging", middleware.Logging(&middleware.LoggingOptions{Logger: info}), 0},
		{"Recover", middleware.Recover(info), 0},
		{"Default", middleware.Default(info), 1},
		{"Default, the connection's logger", middleware.Default(nil), 1},
	}
	req := &rpc.Request{ID: json.RawMessage(`1`), Method: "ping"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := tt.mw(trivial)
			allocs := testing.AllocsPerRun(100, func() { _, _ = h.Handle(context.Background(), req) })
			assert.Equal(t, tt.allocs, allocs)
		})
	}
}

// A trace id first read by many goroutines at once is one id.
func TestTraceIDReadConcurrently(t *testing.T) {
	const readers = 8
	var ids [readers]string
	h := middleware.Correlation()(rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		var wg sync.WaitGroup
		for i := range readers {
			wg.Go(func() { ids[i] = middleware.TraceID(ctx) })
		}
		wg.Wait()
		return nil, nil
	}))
	_, err := h.Handle(context.Background(), &rpc.Request{ID: json.RawMessage(`1`), Method: "m"})
	require.NoError(t, err)
	assert.Regexp(t, `^[0-9a-f]{32}$`, ids[0])
	for _, id := range ids[1:] {
		assert.Equal(t, ids[0], id)
	}
}

// Four middleware keeping a value for one call: the fourth finds no room
// in the context the first three share, and makes another. The innermost
// Progress is the one that reports, as with any two Progress middleware.
func TestMoreValuesThanOneContextHolds(t *testing.T) {
	tracer := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		if err := middleware.ReportProgress(ctx, 1, 2, "reading"); err != nil {
			return nil, err
		}
		return middleware.TraceID(ctx), nil
	})
	h := middleware.Chain(middleware.Progress(nil), middleware.Progress(nil), middleware.Progress(middleware.LSPProgress()), middleware.Correlation())(tracer)
	wiretest.Serve(t, h, `
		--> {"jsonrpc":"2.0","method":"m","params":{"workDoneToken":"w","_meta":{"progressToken":"p","traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}},"id":1}
		<-- {"jsonrpc":"2.0","method":"$/progress","params":{"token":"w","value":{"kind":"begin","title":"reading","percentage":50}}}
		<-- {"jsonrpc":"2.0","result":"0af7651916cd43dd8448eb211c80319c","id":1}`, nil)
}

// A trace id given with WithTraceID is the call's, before Correlation or
// inside it: what TraceID returns and what Logging, outside it, logs.
func TestWithTraceID(t *testing.T) {
	id := [16]byte{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36}
	const hexID = "4bf92f3577b34da6a3ce929d0e0e4736"
	give := func(id [16]byte) middleware.Middleware {
		return func(next rpc.Handler) rpc.Handler {
			return rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
				return next.Handle(middleware.WithTraceID(ctx, req, id), req)
			})
		}
	}
	tests := []struct {
		name  string
		chain func(logger *slog.Logger) middleware.Middleware
		want  string
	}{
		{"before Correlation", func(l *slog.Logger) middleware.Middleware {
			return middleware.Chain(give(id), middleware.Default(l))
		}, hexID},
		{"inside the default stack", func(l *slog.Logger) middleware.Middleware {
			return middleware.Chain(middleware.Default(l), give(id))
		}, hexID},
		{"an all-zero id: the traceparent's", func(l *slog.Logger) middleware.Middleware {
			return middleware.Chain(middleware.Default(l), give([16]byte{}))
		}, "0af7651916cd43dd8448eb211c80319c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logged struct {
				sync.Mutex
				ids []string
			}
			logger := slog.New(&traceIDHandler{record: func(id string) {
				logged.Lock()
				defer logged.Unlock()
				logged.ids = append(logged.ids, id)
			}})
			h := tt.chain(logger)(rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
				return middleware.TraceID(ctx), nil
			}))
			wiretest.Serve(t, h, `
				--> {"jsonrpc":"2.0","method":"m","params":{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}},"id":1}
				<-- {"jsonrpc":"2.0","result":"`+tt.want+`","id":1}`, nil)
			logged.Lock()
			defer logged.Unlock()
			assert.Equal(t, []string{tt.want}, logged.ids)
		})
	}
}

// traceIDHandler calls record with the trace_id of each record, at every
// level.
type traceIDHandler struct{ record func(id string) }

func (h *traceIDHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *traceIDHandler) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "trace_id" {
			h.record(a.Value.String())
		}
		return true
	})
	return nil
}
func (h *traceIDHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *traceIDHandler) WithGroup(string) slog.Handler      { return h }
