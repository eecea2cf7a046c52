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

// Three middleware keeping a value for one call: the third finds no room
// in the context the first two share, and makes another. The innermost
// Progress is the one that reports, as with any two Progress middleware.
func TestMoreValuesThanOneContextHolds(t *testing.T) {
	tracer := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		if err := middleware.ReportProgress(ctx, 1, 2, "reading"); err != nil {
			return nil, err
		}
		return middleware.TraceID(ctx), nil
	})
	h := middleware.Chain(middleware.Progress(nil), middleware.Progress(middleware.LSPProgress()), middleware.Correlation())(tracer)
	wiretest.Serve(t, h, `
		--> {"jsonrpc":"2.0","method":"m","params":{"workDoneToken":"w","_meta":{"progressToken":"p","traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}},"id":1}
		<-- {"jsonrpc":"2.0","method":"$/progress","params":{"token":"w","value":{"kind":"begin","title":"reading","percentage":50}}}
		<-- {"jsonrpc":"2.0","result":"0af7651916cd43dd8448eb211c80319c","id":1}`, nil)
}
