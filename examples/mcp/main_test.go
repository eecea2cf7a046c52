package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolrpc/toolrpc/examples/mcp/tools"
	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
)

// TestMain fails the package's tests if any goroutine outlives them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// The example's tools on the wire, in both eras: their list with titles,
// descriptions, schemas and annotations; add, with both numbers required
// (0 is a number given); stats, validated, with a structured result and
// the scope it needs (its securitySchemes), unchecked in a call without a
// token (stdio); count, one progress notification per step; sleep; whoami,
// anonymous without a token.
func TestTools(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "mcp", Version: "(devel)"})
	require.NoError(t, s.Register("", tools.Tools{}))
	wiretest.Serve(t, s.Handler(), transcript, nil)
}

// The built program serves on stdin and stdout: a client that cancels a
// sleep of ten minutes gets its next call answered, and the program exits
// 0 once its input ends (it would not, were the sleep still running).
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example")
	}
	bin := filepath.Join(t.TempDir(), "mcp")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	ctx := context.Background()
	server, err := rpc.StartProcess(ctx, exec.Command(bin), nil,
		&rpc.ProcessOptions{Options: rpc.Options{CancelNotification: rpc.CancelledNotification, Logger: wiretest.Quiet()}})
	require.NoError(t, err)
	meta := map[string]any{"io.modelcontextprotocol/protocolVersion": mcp.Latest, "io.modelcontextprotocol/clientCapabilities": map[string]any{}}

	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	require.NoError(t, server.Call(ctx, "tools/list", map[string]any{"_meta": meta}, &list))
	assert.Len(t, list.Tools, 5)

	// Cancelled at its first progress report: the sleep has started.
	cctx, cancel := context.WithCancel(ctx)
	cctx = rpc.WithProgress(cctx, func(rpc.Progress) { cancel() })
	err = server.Call(cctx, "tools/call", map[string]any{"name": "sleep", "arguments": map[string]any{"ms": 600000}, "_meta": meta}, nil)
	assert.ErrorIs(t, err, context.Canceled)

	var res json.RawMessage
	require.NoError(t, server.Call(ctx, "tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": 1, "b": 2}, "_meta": meta}, &res))
	assert.JSONEq(t, `{"resultType":"complete","content":[{"type":"text","text":"3"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcp","version":"(devel)"}}}`, string(res))
	assert.NoError(t, server.Close())
}

// transcript is TestTools': the tools/list a legacy client gets, then calls
// of the modern era.
const transcript = `
	--> {"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":1}
	<-- {"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"mcp","version":"(devel)"}},"id":1}
	--> {"jsonrpc":"2.0","method":"notifications/initialized"}
	--> {"jsonrpc":"2.0","method":"tools/list","id":2}
	<-- {"jsonrpc":"2.0","result":{"tools":[{"name":"add","title":"Add","description":"Adds two numbers, a and b, and returns their sum.","inputSchema":{"type":"object","properties":{"a":{"description":"the first addend","type":"number"},"b":{"description":"the second addend","type":"number"}},"required":["a","b"],"additionalProperties":false},"annotations":{"title":"Add","readOnlyHint":true,"openWorldHint":false}},{"name":"count","title":"Count","description":"Counts from 1 to n, one progress notification per step, and returns n.","inputSchema":{"type":"object","properties":{"n":{"description":"how far to count, at most 1000 (10 when not given)","default":10,"type":"integer","minimum":0,"maximum":1000}},"additionalProperties":false},"annotations":{"title":"Count","readOnlyHint":true,"openWorldHint":false}},{"name":"sleep","title":"Sleep","description":"Sleeps for ms milliseconds, or until cancelled; reports progress 0 as it starts.","inputSchema":{"type":"object","properties":{"ms":{"description":"how long to sleep, in milliseconds","type":"integer","minimum":0,"maximum":600000}},"additionalProperties":false},"annotations":{"title":"Sleep","readOnlyHint":true,"openWorldHint":false}},{"name":"stats","title":"Statistics","description":"Returns the count, sum, mean, minimum and maximum of 1 to 10000 numbers.","inputSchema":{"type":"object","properties":{"values":{"description":"the numbers, 1 to 10000 of them","type":"array","items":{"type":"number"},"minItems":1,"maxItems":10000}},"required":["values"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"count":{"type":"integer"},"sum":{"type":"number"},"mean":{"type":"number"},"min":{"type":"number"},"max":{"type":"number"}},"required":["count","sum","mean","min","max"],"additionalProperties":false},"annotations":{"title":"Statistics","readOnlyHint":true,"openWorldHint":false},"_meta":{"securitySchemes":[{"type":"oauth2","scopes":["stats"]}]}},{"name":"whoami","title":"Who am I","description":"Returns the caller's subject and scopes, from its bearer token, or anonymous without one.","inputSchema":{"type":"object","additionalProperties":false},"annotations":{"title":"Who am I","readOnlyHint":true,"openWorldHint":false}}]},"id":2}
	--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":{"a":0,"b":-2.5},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}},"id":3}
	<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"-2.5"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcp","version":"(devel)"}}},"id":3}
	--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":{"a":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}},"id":4}
	<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"Invalid arguments:\n- b is required"}],"isError":true,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcp","version":"(devel)"}}},"id":4}
	--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"stats","arguments":{"values":[2,4,9]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}},"id":5}
	<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"{\"count\":3,\"sum\":15,\"mean\":5,\"min\":2,\"max\":9}"}],"structuredContent":{"count":3,"sum":15,"mean":5,"min":2,"max":9},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcp","version":"(devel)"}}},"id":5}
	--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"stats","arguments":{"values":[]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}},"id":6}
	<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"Invalid arguments:\n- values must be at least 1 items long"}],"isError":true,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcp","version":"(devel)"}}},"id":6}
	--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"count","arguments":{"n":3},"_meta":{"progressToken":7,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}},"id":7}
	<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1,"total":3}}
	<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":2,"total":3}}
	<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":3,"total":3}}
	<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"3"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcp","version":"(devel)"}}},"id":7}
	--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"sleep","arguments":{"ms":0},"_meta":{"progressToken":"s","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}},"id":8}
	<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"s","progress":0,"message":"sleeping"}}
	<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"slept"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcp","version":"(devel)"}}},"id":8}
	--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"count","arguments":{"n":1001},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}},"id":9}
	<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"Invalid arguments:\n- n must be at most 1000"}],"isError":true,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcp","version":"(devel)"}}},"id":9}
	--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"count","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}},"id":10}
	<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"10"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcp","version":"(devel)"}}},"id":10}
	--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"count","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}},"id":11}
	<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"10"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcp","version":"(devel)"}}},"id":11}
	--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"whoami","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}},"id":12}
	<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"anonymous"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcp","version":"(devel)"}}},"id":12}`
