package mcp_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
)

type logKit struct{}

// Log logs at four levels through mcp.Logger.
func (logKit) Log(ctx context.Context) string {
	log := mcp.Logger(ctx).With("tool", "log")
	log.Debug("detail")
	log.Info("hello", "n", 1)
	log.WithGroup("g").Warn("careful", "why", "<because>")
	log.Log(ctx, 12, "very bad")
	return "logged"
}

// A tool's records reach the client as notifications/message, before the
// answer, at or above the level it asked for: in a legacy session, from
// logging/setLevel on (none before it); in a modern request, by its _meta
// logLevel (none without it). logging/setLevel is legacy only.
func TestLogMessages(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "kit", Version: "1.0.0"})
	require.NoError(t, s.Register("", logKit{}))
	var logs wiretest.Logs
	const modern = `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`
	wiretest.Serve(t, s.Handler(), `
		--> {"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":1}
		<-- {"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"kit","version":"1.0.0"}},"id":1}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"log"},"id":2}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"logged"}]},"id":2}
		--> {"jsonrpc":"2.0","method":"logging/setLevel","params":{"level":"warning"},"id":3}
		<-- {"jsonrpc":"2.0","result":{},"id":3}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"log"},"id":4}
		<-- {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","data":{"msg":"careful","tool":"log","g":{"why":"<because>"}}}}
		<-- {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"critical","data":{"msg":"very bad","tool":"log"}}}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"logged"}]},"id":4}
		--> {"jsonrpc":"2.0","method":"logging/setLevel","params":{"level":"loud"},"id":5}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"level","rule":"oneof","param":"debug info notice warning error critical alert emergency","message":"level must be one of the protocol's"}]},"id":5}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"log","_meta":{`+modern+`,"io.modelcontextprotocol/logLevel":"debug"}},"id":6}
		<-- {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","data":{"msg":"detail","tool":"log"}}}
		<-- {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"msg":"hello","tool":"log","n":1}}}
		<-- {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","data":{"msg":"careful","tool":"log","g":{"why":"<because>"}}}}
		<-- {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"critical","data":{"msg":"very bad","tool":"log"}}}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"logged"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":6}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"log","_meta":{`+modern+`}},"id":7}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"logged"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":7}
		--> {"jsonrpc":"2.0","method":"logging/setLevel","params":{"level":"info","_meta":{`+modern+`}},"id":8}
		<-- {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":8}`, &rpc.Options{Sequential: true, Logger: logs.Logger()})
	require.Len(t, logs.Messages(t, "hello"), 4, "every record reaches the connection's logger too")
}
