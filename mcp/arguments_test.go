package mcp_test

import (
	"testing"

	"github.com/toolrpc/toolrpc/internal/wiretest"
)

// A tool's arguments are its own object (the protocol's
// {[key: string]: unknown}, described by its inputSchema): "_meta" is the
// protocol's metadata in the params of tools/call, never in arguments,
// where it is an argument like any other. A raw tool gets it as it came;
// a map tool gets it as a key; a struct tool (additionalProperties false)
// and a tool without arguments refuse it, as any argument they do not
// take, while the params' own _meta is never an argument.
func TestArgumentsMeta(t *testing.T) {
	s, _ := newServer(nil)
	wiretest.Serve(t, s.Handler(), `
		--> {"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":1}
		<-- {"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"kit","title":"Test kit","version":"1.0.0"},"instructions":"Use add to add."},"id":1}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"raw","arguments":{"_meta":{"k":1},"a":1},"_meta":{"progressToken":"p"}},"id":2}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"{\"_meta\":{\"k\":1},\"a\":1}"}]},"id":2}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"tags","arguments":{"_meta":"m","x":"1"},"_meta":{"progressToken":"p"}},"id":3}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"2"}]},"id":3}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2,"_meta":{}},"_meta":{"progressToken":"p"}},"id":4}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"Invalid arguments:\n- _meta: unknown field \"_meta\""}],"isError":true},"id":4}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"hello","arguments":{"_meta":{}}},"id":5}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"Invalid arguments:\n- the method takes no params"}],"isError":true},"id":5}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"progressToken":"p"}},"id":6}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"3"}]},"id":6}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"hello","arguments":{},"_meta":{}},"id":7}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"hello, world"}]},"id":7}`, nil)
}

// An integer argument is an integer in any notation (7.0, 2e0), exactly as
// the params binder reads one; a fraction is refused, as a tool error
// naming the argument.
func TestArgumentsIntegerNotations(t *testing.T) {
	s, _ := newServer(nil)
	wiretest.Serve(t, s.Handler(), `
		--> {"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":1}
		<-- {"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"kit","title":"Test kit","version":"1.0.0"},"instructions":"Use add to add."},"id":1}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"point","arguments":{"a":7.0,"b":2e0}},"id":2}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"{\"x\":3,\"y\":1,\"label\":\"<q&a>\"}"}],"structuredContent":{"x":3,"y":1,"label":"<q&a>"}},"id":2}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"point","arguments":{"a":7.5,"b":2}},"id":3}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"Invalid arguments:\n- a: expected an integer, got 7.5"}],"isError":true},"id":3}`, nil)
}
