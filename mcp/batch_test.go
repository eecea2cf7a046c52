package mcp_test

import (
	"testing"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
)

// Batches are served in 2025-03-26, the one revision that has them ("MCP
// implementations ... MUST support receiving JSON-RPC batches"), but never
// with initialize in them ("The initialize request MUST NOT be part of a
// JSON-RPC batch"); in every other revision (2024-11-05, before they came;
// 2025-06-18, which removed them; 2025-11-25; 2026-07-28) each entry of a
// batch is refused, -32600 with the reason in its data, notifications
// unanswered as ever. An entry is served by its own revision: one whose
// _meta names 2025-03-26 is served in a batch on any connection.
func TestBatches(t *testing.T) {
	const (
		// The end of the answer of a legacy initialize.
		caps  = `"capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"kit","version":"1.0.0"}},"id":1}`
		caps2 = `"capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"kit","version":"1.0.0"}},"id":"i"}`
	)
	s, _ := newServer(&mcp.Options{Name: "kit", Version: "1.0.0"})
	for _, tc := range []struct{ name, tr string }{
		{"2025-03-26", `
			--> {"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":1}
			<-- {"jsonrpc":"2.0","result":{"protocolVersion":"2025-03-26",` + caps + `
			--> [{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}},"id":2},{"jsonrpc":"2.0","method":"ping","id":3},{"jsonrpc":"2.0","method":"tools/list","params":{"cursor":"cmF3"},"id":4}]
			<-- [{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"3"}]},"id":2},{"jsonrpc":"2.0","result":{},"id":3},{"jsonrpc":"2.0","result":{"tools":[{"name":"rich","inputSchema":{"type":"object","additionalProperties":false}},{"name":"tags","inputSchema":{"type":"object","additionalProperties":{"type":"string"}}}]},"id":4}]
			--> [{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":5},{"jsonrpc":"2.0","method":"ping","id":6}]
			<-- [{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"initialize must not be part of a JSON-RPC batch: send it on its own"}},"id":5},{"jsonrpc":"2.0","result":{},"id":6}]
			--> [{"jsonrpc":"2.0","method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-06-18"}},"id":7}]
			<-- [{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"MCP 2025-06-18 has no JSON-RPC batches: send each message on its own"}},"id":7}]`},
		{"2024-11-05", `
			--> {"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":1}
			<-- {"jsonrpc":"2.0","result":{"protocolVersion":"2024-11-05",` + caps + `
			--> [{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}},"id":2},{"jsonrpc":"2.0","method":"ping","id":3}]
			<-- [{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"MCP 2024-11-05 has no JSON-RPC batches: send each message on its own"}},"id":2},{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"MCP 2024-11-05 has no JSON-RPC batches: send each message on its own"}},"id":3}]
			--> {"jsonrpc":"2.0","method":"ping","id":4}
			<-- {"jsonrpc":"2.0","result":{},"id":4}`},
		{"2025-06-18", `
			--> {"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":1}
			<-- {"jsonrpc":"2.0","result":{"protocolVersion":"2025-06-18",` + caps + `
			--> [{"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}},"id":2},{"jsonrpc":"2.0","method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-03-26"}},"id":3}]
			<-- [{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"MCP 2025-06-18 has no JSON-RPC batches: send each message on its own"}},"id":2},{"jsonrpc":"2.0","result":{},"id":3}]`},
		{"2025-11-25", `
			--> [{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":1}]
			<-- [{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"initialize must not be part of a JSON-RPC batch: send it on its own"}},"id":1}]
			--> [{"jsonrpc":"2.0","method":"ping","id":2}]
			<-- [{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"MCP 2025-11-25 has no JSON-RPC batches: send each message on its own"}},"id":2}]
			--> {"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":"i"}
			<-- {"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25",` + caps2 + `
			--> [{"jsonrpc":"2.0","method":"tools/list","id":3}]
			<-- [{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"MCP 2025-11-25 has no JSON-RPC batches: send each message on its own"}},"id":3}]`},
		{"2026-07-28", `
			--> [{"jsonrpc":"2.0","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}},"id":1},{"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}},"id":2}]
			<-- [{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"MCP 2026-07-28 has no JSON-RPC batches: send each message on its own"}},"id":1},{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"MCP 2026-07-28 has no JSON-RPC batches: send each message on its own"}},"id":2}]
			--> [{"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-03-26"}},"id":3}]
			<-- [{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"3"}]},"id":3}]
			--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}},"id":4}
			<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"3"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":4}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wiretest.Serve(t, s.Handler(), tc.tr, nil)
		})
	}
}
