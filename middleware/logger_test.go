package middleware_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/middleware"
	"github.com/toolrpc/toolrpc/rpc"
)

// One logger, set once on the connection, gets every record: the
// connection's own and those of Recover and Logging given no logger of
// their own (Default(nil)).
func TestDefaultLogsThroughTheConnectionsLogger(t *testing.T) {
	var logs wiretest.Logs
	wiretest.Serve(t, middleware.Default(nil)(probe), `
		--> {"jsonrpc":"2.0","method":"ok","id":1}
		<-- {"jsonrpc":"2.0","result":"fine","id":1}
		--> {"jsonrpc":"2.0","method":"panic","id":2}
		<-- {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"string","message":"boom"}},"id":2}
		--> {"jsonrpc":"2.0","result":1,"id":99}`, &rpc.Options{Sequential: true, Logger: logs.Logger()})
	type record struct{ level, msg, method string }
	var got []record
	for _, r := range logs.Records(t) {
		method, _ := r["method"].(string)
		got = append(got, record{r["level"].(string), r["msg"].(string), method})
	}
	assert.Subset(t, got, []record{
		{"DEBUG", "rpc call", "ok"},                      // Logging
		{"ERROR", "rpc: handler panicked", "panic"},      // Recover
		{"WARN", "rpc: unexpected response dropped", ""}, // the connection
	})
}

// Recover and Logging given a logger log there, wherever the connection
// logs; outside any connection, a nil logger is slog.Default().
func TestAGivenLoggerWins(t *testing.T) {
	var conn, own wiretest.Logs
	h := middleware.Chain(middleware.Recover(own.Logger()), middleware.Logging(&middleware.LoggingOptions{Logger: own.Logger()}))(probe)
	wiretest.Serve(t, h, `
		--> {"jsonrpc":"2.0","method":"panic","id":1}
		<-- {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"string","message":"boom"}},"id":1}`,
		&rpc.Options{Sequential: true, Logger: conn.Logger()})
	assert.Len(t, own.Records(t), 2, "Logging's record and Recover's")
	assert.Empty(t, conn.Records(t))

	assert.Same(t, slog.Default(), rpc.LoggerFromContext(context.Background()))
}
