package mcp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

// A tool reports progress to a tools/call whose _meta holds a
// progressToken, before its answer; notifications/cancelled cancels the
// tool's context (cause rpc.ErrCancelled) and the call gets no answer, in
// both eras. The connection goes on.
func TestProgressAndCancellationThroughToolsCall(t *testing.T) {
	for _, tc := range []struct{ name, meta, init, initAnswer string }{
		{"legacy", `"_meta":{"progressToken":"p"}`,
			`--> {"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":1}`,
			`<-- {"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"kit","title":"Test kit","version":"1.0.0"},"instructions":"Use add to add."},"id":1}`},
		{"modern", `"_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`,
			`--> {"jsonrpc":"2.0","method":"ping","id":1}`,
			`<-- {"jsonrpc":"2.0","result":{},"id":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, k := newServer(nil)
			wiretest.Steps(t, s.Handler(), tc.init+`
				`+tc.initAnswer+`
				--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"block",`+tc.meta+`},"id":2}
				<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1,"message":"started"}}
				--> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"enough"}}
				--> {"jsonrpc":"2.0","method":"ping","id":3}
				<-- {"jsonrpc":"2.0","result":{},"id":3}`, nil)
			cause := wiretest.Receive(t, k.ended, "the tool's end")
			assert.ErrorIs(t, cause, rpc.ErrCancelled)
		})
	}
}
