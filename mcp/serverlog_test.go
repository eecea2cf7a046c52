package mcp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
)

// Over stdio, Server.Logger's records go to the session's connection,
// once its client asked for them, at its level or above.
func TestServerLoggerStdio(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "kit", Version: "1.0.0"})
	require.NoError(t, s.Register("", fuzzKit{}))
	p := wiretest.NewPipe(s.Handler(), nil)
	defer p.Close(t)
	line := pipeLines(t, p)
	line(`{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":1}`)
	s.Logger().Error("before setLevel") // not asked for: not sent
	assert.Equal(t, `{"jsonrpc":"2.0","result":{},"id":2}`, line(`{"jsonrpc":"2.0","method":"logging/setLevel","params":{"level":"error"},"id":2}`))
	s.Logger().Warn("below the level")
	s.Logger().Error("boom", "n", 1)
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":{"msg":"boom","n":1}}}`, line(""))
}
