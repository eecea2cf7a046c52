package middleware_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/middleware"
	"github.com/toolrpc/toolrpc/rpc"
)

// BenchmarkDefaultStack is a trivial call through a connection over
// io.Pipe, bare and wrapped in the default stack, logging to a text
// handler (writing to io.Discard) at its default level, Info; with a
// record formatted for every call (Debug enabled); and given no logger,
// finding the connection's in each call's context.
func BenchmarkDefaultStack(b *testing.B) {
	trivial := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) { return true, nil })
	info := slog.New(slog.NewTextHandler(io.Discard, nil))
	debug := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelDebug}))
	for _, bc := range []struct {
		name string
		h    rpc.Handler
	}{
		{"bare", trivial},
		{"default", middleware.Default(info)(trivial)},
		{"default-every-call-logged", middleware.Default(debug)(trivial)},
		{"default-connection-logger", middleware.Default(nil)(trivial)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			wiretest.BenchRoundTrip(b, bc.h, `{"jsonrpc":"2.0","method":"ping","id":1}`, `{"jsonrpc":"2.0","result":true,"id":1}`)
		})
	}
}
