package mcp_test

import (
	"testing"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
)

// The legacy era on one connection: ping before initialize, which every
// other request needs when its _meta names no revision; the handshake;
// tools/list (in name order, the tools of 2025-11-25: title,
// annotations, outputSchema for a struct result); tools/call of every
// shape of result (a number, a struct as structuredContent and text, a
// string, nothing, a ToolResult), of a returned error, an *rpc.Error and a
// panic (isError, their text, no Go types, no stack), of arguments that
// fail binding or validation (isError, one line per problem), and the
// protocol errors: an unknown tool, params that are not a tools/call's,
// a method no revision has, server/discover in a legacy revision, a
// request with id null (which MCP forbids).
func TestLegacyEra(t *testing.T) {
	s, _ := newServer(nil)
	wiretest.Serve(t, s.Handler(), `
		--> {"jsonrpc":"2.0","method":"ping","id":0}
		<-- {"jsonrpc":"2.0","result":{},"id":0}
		--> {"jsonrpc":"2.0","method":"tools/list","id":1}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"_meta[\"io.modelcontextprotocol/protocolVersion\"]","rule":"required","message":"the request names no protocol version, and no initialize came before it"}]},"id":1}
		--> {"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":2}
		<-- {"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"kit","title":"Test kit","version":"1.0.0"},"instructions":"Use add to add."},"id":2}
		--> {"jsonrpc":"2.0","method":"notifications/initialized"}
		--> {"jsonrpc":"2.0","method":"ping","id":3}
		<-- {"jsonrpc":"2.0","result":{},"id":3}
		--> {"jsonrpc":"2.0","method":"tools/list","params":{},"id":4}
		<-- {"jsonrpc":"2.0","result":{"tools":[{"name":"add","title":"Add numbers","description":"Adds a and b.","inputSchema":{"type":"object","properties":{"a":{"description":"the first addend","type":"number"},"b":{"type":"number"}},"required":["a","b"],"additionalProperties":false},"annotations":{"title":"Add numbers","readOnlyHint":true,"openWorldHint":false}},{"name":"block","inputSchema":{"type":"object","additionalProperties":false}},{"name":"boom","inputSchema":{"type":"object","additionalProperties":false}},{"name":"coded","inputSchema":{"type":"object","additionalProperties":false}},{"name":"fail","inputSchema":{"type":"object","additionalProperties":false}},{"name":"hello","inputSchema":{"type":"object","additionalProperties":false}},{"name":"nothing","inputSchema":{"type":"object","additionalProperties":false}},{"name":"point","description":"Divides a by b: quotient and remainder.","inputSchema":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer","not":{"const":0}}},"required":["b"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"x":{"type":"integer"},"y":{"type":"integer"},"label":{"type":"string"}},"required":["x","y"],"additionalProperties":false}},{"name":"raw","inputSchema":{"type":"object"}},{"name":"rich","inputSchema":{"type":"object","additionalProperties":false}},{"name":"tags","inputSchema":{"type":"object","additionalProperties":{"type":"string"}}}]},"id":4}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2.5}},"id":5}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"3.5"}]},"id":5}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"point","arguments":{"a":7,"b":2}},"id":6}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"{\"x\":3,\"y\":1,\"label\":\"<q&a>\"}"}],"structuredContent":{"x":3,"y":1,"label":"<q&a>"}},"id":6}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"hello"},"id":7}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"hello, world"}]},"id":7}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"nothing","arguments":{}},"id":8}
		<-- {"jsonrpc":"2.0","result":{"content":[]},"id":8}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"fail"},"id":9}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"the disk is full: free some space and retry"}],"isError":true},"id":9}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"coded"},"id":10}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"quota exceeded"}],"isError":true},"id":10}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"boom"},"id":11}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"the tool failed: index 7 out of range"}],"isError":true},"id":11}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":{"a":"1","c":3}},"id":12}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"Invalid arguments:\n- a: expected a number, got a string\n- c: unknown field \"c\"\n- b is required"}],"isError":true},"id":12}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"point","arguments":{"a":1,"b":0}},"id":13}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"Invalid arguments:\n- b must not be 0"}],"isError":true},"id":13}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"tags","arguments":{"x":"1","y":"2"}},"id":14}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"2"}]},"id":14}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"raw","arguments":{"k":[1, 2]}},"id":15}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"{\"k\":[1, 2]}"}]},"id":15}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"rich"},"id":16}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"a"},{"type":"image","data":"AQID","mimeType":"image/png"}],"structuredContent":{"n":1},"isError":true},"id":16}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"nope"},"id":17}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Unknown tool: nope"},"id":17}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{}},"id":18}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"name","rule":"required","message":"name is required"}]},"id":18}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":1},"id":19}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"name","rule":"type","param":"string","message":"name must be a string"}]},"id":19}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":[1,2]},"id":20}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"arguments","rule":"type","param":"object","message":"arguments must be an object"}]},"id":20}
		--> {"jsonrpc":"2.0","method":"tools/call","params":[1],"id":21}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"","rule":"shape","message":"params must be an object"}]},"id":21}
		--> {"jsonrpc":"2.0","method":"resources/list","id":22}
		<-- {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":22}
		--> {"jsonrpc":"2.0","method":"ping","id":null}
		<-- {"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"an MCP request's id must not be null"}},"id":null}
		--> {"jsonrpc":"2.0","method":"server/discover","id":23}
		<-- {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":23}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"toolAnnotations"},"id":24}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Unknown tool: toolAnnotations"},"id":24}`, nil)
}

// The modern era (2026-07-28), stateless: server/discover; tools/list and
// tools/call with resultType first and the server's identity in _meta,
// ttlMs and cacheScope on lists, pages of PageSize with an opaque cursor;
// the per-request _meta's errors: an unsupported revision (-32022, with
// the revisions spoken), a version that is not a string, capabilities
// missing or not an object, a malformed clientInfo or logLevel (-32602,
// every problem listed), an invalid cursor; ping, removed in 2026-07-28.
// A request whose _meta names a legacy revision is served by it, without
// initialize (13 to 15: no resultType, no structuredContent before
// 2025-06-18, no annotations before 2025-03-26). initialize negotiates:
// the client's revision when it is a legacy one the server speaks, else
// 2025-11-25; its params are checked, every problem listed.
func TestModernEra(t *testing.T) {
	s, _ := newServer(&mcp.Options{Name: "kit", Version: "1.0.0", PageSize: 2, ListTTL: 60e9, Private: true})
	wiretest.Serve(t, s.Handler(), `
		--> {"jsonrpc":"2.0","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}},"id":1}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"capabilities":{"logging":{},"tools":{"listChanged":true}},"ttlMs":60000,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":1}
		--> {"jsonrpc":"2.0","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}},"id":2}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","tools":[{"name":"add","title":"Add numbers","description":"Adds a and b.","inputSchema":{"type":"object","properties":{"a":{"description":"the first addend","type":"number"},"b":{"type":"number"}},"required":["a","b"],"additionalProperties":false},"annotations":{"title":"Add numbers","readOnlyHint":true,"openWorldHint":false}},{"name":"block","inputSchema":{"type":"object","additionalProperties":false}}],"nextCursor":"YmxvY2s","ttlMs":60000,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":2}
		--> {"jsonrpc":"2.0","method":"tools/list","params":{"cursor":"cG9pbnQ","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}},"id":3}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","tools":[{"name":"raw","inputSchema":{"type":"object"}},{"name":"rich","inputSchema":{"type":"object","additionalProperties":false}}],"nextCursor":"cmljaA","ttlMs":60000,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":3}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"point","arguments":{"a":7,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}},"id":4}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"{\"x\":3,\"y\":1,\"label\":\"<q&a>\"}"}],"structuredContent":{"x":3,"y":1,"label":"<q&a>"},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":4}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"fail","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}},"id":5}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"the disk is full: free some space and retry"}],"isError":true,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":5}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"point","arguments":{"b":0},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}},"id":6}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"Invalid arguments:\n- b must not be 0"}],"isError":true,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":6}
		--> {"jsonrpc":"2.0","method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}},"id":7}
		<-- {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":7}
		--> {"jsonrpc":"2.0","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01"}},"id":8}
		<-- {"jsonrpc":"2.0","error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"1900-01-01"}},"id":8}
		--> {"jsonrpc":"2.0","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":2026}},"id":9}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"_meta[\"io.modelcontextprotocol/protocolVersion\"]","rule":"type","param":"string","message":"the protocol version must be a string"}]},"id":9}
		--> {"jsonrpc":"2.0","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}},"id":10}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"_meta[\"io.modelcontextprotocol/clientCapabilities\"]","rule":"required","message":"the client's capabilities are required"}]},"id":10}
		--> {"jsonrpc":"2.0","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[],"io.modelcontextprotocol/clientInfo":{"name":"x"},"io.modelcontextprotocol/logLevel":"loud"}},"id":11}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"_meta[\"io.modelcontextprotocol/clientCapabilities\"]","rule":"type","param":"object","message":"the client's capabilities must be an object"},{"field":"_meta[\"io.modelcontextprotocol/clientInfo\"]","rule":"type","param":"Implementation","message":"the client's info must be an object with a string name and version"},{"field":"_meta[\"io.modelcontextprotocol/logLevel\"]","rule":"oneof","param":"debug info notice warning error critical alert emergency","message":"the log level must be one of the protocol's"}]},"id":11}
		--> {"jsonrpc":"2.0","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"x","version":"1"},"io.modelcontextprotocol/logLevel":"debug"},"cursor":"!!"},"id":12}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid cursor"},"id":12}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"point","arguments":{"a":7,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-03-26"}},"id":13}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"{\"x\":3,\"y\":1,\"label\":\"<q&a>\"}"}]},"id":13}
		--> {"jsonrpc":"2.0","method":"tools/list","params":{"cursor":"cmF3","_meta":{"io.modelcontextprotocol/protocolVersion":"2024-11-05"}},"id":14}
		<-- {"jsonrpc":"2.0","result":{"tools":[{"name":"rich","inputSchema":{"type":"object","additionalProperties":false}},{"name":"tags","inputSchema":{"type":"object","additionalProperties":{"type":"string"}}}]},"id":14}
		--> {"jsonrpc":"2.0","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-03-26"}},"id":15}
		<-- {"jsonrpc":"2.0","result":{"tools":[{"name":"add","description":"Adds a and b.","inputSchema":{"type":"object","properties":{"a":{"description":"the first addend","type":"number"},"b":{"type":"number"}},"required":["a","b"],"additionalProperties":false},"annotations":{"title":"Add numbers","readOnlyHint":true,"openWorldHint":false}},{"name":"block","inputSchema":{"type":"object","additionalProperties":false}}],"nextCursor":"YmxvY2s"},"id":15}
		--> {"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":16}
		<-- {"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"kit","version":"1.0.0"}},"id":16}
		--> {"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":17}
		<-- {"jsonrpc":"2.0","result":{"protocolVersion":"2024-11-05","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"kit","version":"1.0.0"}},"id":17}
		--> {"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":18}
		<-- {"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"kit","version":"1.0.0"}},"id":18}
		--> {"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":1,"capabilities":1,"clientInfo":{"name":1}},"id":19}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"protocolVersion","rule":"type","param":"string","message":"protocolVersion must be a string"},{"field":"capabilities","rule":"type","param":"object","message":"capabilities must be an object"},{"field":"clientInfo","rule":"type","param":"Implementation","message":"clientInfo must be an object with a string name and version"}]},"id":19}
		--> {"jsonrpc":"2.0","method":"initialize","params":{},"id":20}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"protocolVersion","rule":"required","message":"protocolVersion is required"},{"field":"capabilities","rule":"required","message":"capabilities is required"},{"field":"clientInfo","rule":"required","message":"clientInfo is required"}]},"id":20}
		--> {"jsonrpc":"2.0","method":"initialize","id":21}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"protocolVersion","rule":"required","message":"protocolVersion is required"},{"field":"capabilities","rule":"required","message":"capabilities is required"},{"field":"clientInfo","rule":"required","message":"clientInfo is required"}]},"id":21}`, nil)
}

// With InvalidParamsAsErrors, arguments that fail binding or validation
// are answered -32602, the problems in its data.
func TestInvalidParamsAsErrors(t *testing.T) {
	s, _ := newServer(&mcp.Options{Name: "kit", Version: "1.0.0", InvalidParamsAsErrors: true})
	wiretest.Serve(t, s.Handler(), `
		--> {"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":1}
		<-- {"jsonrpc":"2.0","result":{"protocolVersion":"2025-06-18","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"kit","version":"1.0.0"}},"id":1}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":{"a":1}},"id":2}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"b","rule":"required","message":"b is required"}]},"id":2}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}},"id":3}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"3"}]},"id":3}`, nil)
}

// Strings with escapes mean what they decode to: the revision, the tool's
// name, the log level.
func TestEscapedStrings(t *testing.T) {
	s, _ := newServer(&mcp.Options{Name: "kit", Version: "1.0.0"})
	wiretest.Serve(t, s.Handler(), `
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"\u0061dd","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026\u002d07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"\u0064ebug"}},"id":1}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"3"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":1}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"\"x\\y\u00e9","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}},"id":2}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Unknown tool: \"x\\yé"},"id":2}`, nil)
}
