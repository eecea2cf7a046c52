package rpc_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

// A call's context carries its connection's logger, at no cost; outside a
// call it is slog.Default().
func TestLoggerFromContext(t *testing.T) {
	logger := slog.New(slog.DiscardHandler)
	var same bool
	var allocs float64
	h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		same = rpc.LoggerFromContext(ctx) == logger
		allocs = testing.AllocsPerRun(100, func() { _ = rpc.LoggerFromContext(ctx) })
		return true, nil
	})
	wiretest.Serve(t, h, `
		--> {"jsonrpc":"2.0","method":"m","id":1}
		<-- {"jsonrpc":"2.0","result":true,"id":1}`, &rpc.Options{Logger: logger})
	assert.True(t, same, "the connection's logger")
	assert.Zero(t, allocs)

	logger = slog.Default()
	require.NoError(t, rpc.Serve(context.Background(), strings.NewReader(`{"jsonrpc":"2.0","method":"m","id":1}`), io.Discard, h, nil))
	assert.True(t, same, "no logger given: slog.Default()")
	assert.Same(t, slog.Default(), rpc.LoggerFromContext(context.Background()), "outside a call")
}
