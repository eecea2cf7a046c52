package mcp_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
)

// Listens fill the connection's Concurrency (the documented bound: each
// holds a slot); a request past it waits in the queue, and is served once
// a cancellation frees a slot; a cancellation storm (twice, unknown ids) is
// harmless; the input's end tears down the listen still open, with
// notifications/cancelled and its completion.
func TestAttackListenStorm(t *testing.T) {
	s, _ := newServer(&mcp.Options{Name: "kit", Version: "1.0.0"})
	const listen = `"method":"subscriptions/listen","params":{` + modernMeta + `,"notifications":{"toolsListChanged":true}}`
	wiretest.Steps(t, s.Handler(), `
		--> {"jsonrpc":"2.0",`+listen+`,"id":1}
		<-- {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"notifications":{"toolsListChanged":true}}}
		--> {"jsonrpc":"2.0",`+listen+`,"id":2}
		<-- {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2},"notifications":{"toolsListChanged":true}}}
		--> {"jsonrpc":"2.0",`+listen+`,"id":3}
		--> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}
		--> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}
		--> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},`+modernMeta+`},"id":4}
		--> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"3"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":4}
		--> {"jsonrpc":"2.0",`+listen+`,"id":5}
		<-- {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":5},"notifications":{"toolsListChanged":true}}}
		--> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}
		--> {"jsonrpc":"2.0","method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}},"id":6}
		<-- {"jsonrpc":"2.0","result":{},"id":6}
		--> {"jsonrpc":"2.0","method":"notifications/initialized"}
		<-- {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"the input ended"}}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":5,"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":5}`,
		&rpc.Options{Concurrency: 2, Logger: wiretest.Quiet()})
	assert.Equal(t, 0, mcp.Listeners(s))
}

// hostile is tools a hostile client drives to their edges.
type hostile struct{}

// Longerr returns an error of 1 MiB.
func (hostile) Longerr() error { return errors.New(strings.Repeat("e", 1<<20)) }

// Longpanic panics with 1 MiB.
func (hostile) Longpanic() int { panic(strings.Repeat("p", 1<<20)) }

// Nilresult returns a nil *ToolResult.
func (hostile) Nilresult() *mcp.ToolResult { return nil }

// Shout logs its text, which the model chose, at warning.
func (hostile) Shout(ctx context.Context, p struct {
	Text string `json:"text"`
}) string {
	mcp.Logger(ctx).Warn("heard", "text", p.Text)
	return "ok"
}

// A tool's failure costs a bounded amount whatever its size: a returned
// error's text, and a panic's value, reach the peer shortened to
// MaxErrorText, and the connection's log line of the panic holds at most
// MaxErrorText bytes of its value too (a panic may carry the model's own
// arguments).
func TestAttackLongFailures(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "h", Version: "1"})
	require.NoError(t, s.Register("", hostile{}))
	var logs wiretest.Logs
	wiretest.Serve(t, s.Handler(), `
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"longerr",`+modernMeta+`},"id":1}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"`+strings.Repeat("e", mcp.MaxErrorText)+`…(1048576 bytes)"}],"isError":true,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"h","version":"1"}}},"id":1}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"longpanic",`+modernMeta+`},"id":2}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"the tool failed: `+strings.Repeat("p", mcp.MaxErrorText-len("the tool failed: "))+`…(1048593 bytes)"}],"isError":true,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"h","version":"1"}}},"id":2}`,
		&rpc.Options{Sequential: true, Logger: logs.Logger()})
	panics := logs.Messages(t, "mcp: tool panicked")
	require.Len(t, panics, 1)
	assert.Equal(t, strings.Repeat("p", mcp.MaxErrorText)+"…(1048576 bytes)", panics[0]["panic"])
}

// A record a tool logs reaches the client with at most MaxLogData bytes of
// data, whatever the model made it log: a longer one is sent as its
// message (shortened to MaxErrorText) and the length of the data it
// stood for. The connection's own logger gets the record whole.
func TestAttackLogDataBounded(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "h", Version: "1"})
	require.NoError(t, s.Register("", hostile{}))
	fits := strings.Repeat("f", mcp.MaxLogData-len(`{"msg":"heard","text":""}`))
	long := strings.Repeat("x", 1<<20)
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"warning"}`
	const done = `"result":{"resultType":"complete","content":[{"type":"text","text":"ok"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"h","version":"1"}}}`
	wiretest.Serve(t, s.Handler(), `
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"shout","arguments":{"text":"`+fits+`"},`+meta+`},"id":1}
		<-- {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","data":{"msg":"heard","text":"`+fits+`"}}}
		<-- {"jsonrpc":"2.0",`+done+`,"id":1}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"shout","arguments":{"text":"`+fits+`f"},`+meta+`},"id":2}
		<-- {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","data":{"msg":"heard","truncated":16385}}}
		<-- {"jsonrpc":"2.0",`+done+`,"id":2}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"shout","arguments":{"text":"`+long+`"},`+meta+`},"id":3}
		<-- {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","data":{"msg":"heard","truncated":1048601}}}
		<-- {"jsonrpc":"2.0",`+done+`,"id":3}`, nil)
}

// A call cancelled before it started (waiting for a slot of Concurrency)
// never runs and gets no answer; one cancelled while it runs gets none
// either; progress tokens of every JSON type the protocol has (string,
// integer) are echoed as sent, and those it has not (a fraction, null, an
// object, an array) send no progress, the call still answered. A nil
// *ToolResult is a result without content.
func TestAttackCancelAndProgressTokens(t *testing.T) {
	s, k := newServer(nil)
	require.NoError(t, s.Register("", hostile{}))
	const meta = `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`
	const si = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","title":"Test kit","version":"1.0.0"}}`
	wiretest.Steps(t, s.Handler(), `
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"block","_meta":{"progressToken":-9007199254740993,`+meta+`}},"id":1}
		<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":-9007199254740993,"progress":1,"message":"started"}}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{`+meta+`}},"id":2}
		--> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}
		--> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"nilresult","_meta":{"progressToken":1.5,`+meta+`}},"id":3}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[],`+si+`},"id":3}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"nilresult","_meta":{"progressToken":null,`+meta+`}},"id":4}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[],`+si+`},"id":4}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"nilresult","_meta":{"progressToken":{"a":[1]},`+meta+`}},"id":5}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[],`+si+`},"id":5}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"nilresult","_meta":{"progressToken":["p"],`+meta+`}},"id":6}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[],`+si+`},"id":6}`,
		&rpc.Options{Concurrency: 1, Logger: wiretest.Quiet()})
	assert.ErrorIs(t, wiretest.Receive(t, k.ended, "the tool's end"), rpc.ErrCancelled)
}
