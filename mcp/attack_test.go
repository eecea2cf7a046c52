package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/middleware"
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

// Kaboom panics.
func (hostile) Kaboom() int { panic("kaboom") }

// Badjson returns a result whose encoding panics.
func (hostile) Badjson() badJSON { return badJSON{} }

type badJSON struct{}

func (badJSON) MarshalJSON() ([]byte, error) { panic("bad json") }

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

// A tool's panic is recovered once: under middleware.Default (whose
// Recover answers the protocol's other panics) it is the tool's error
// result, logged once, by the tool call; a panic in the protocol's own
// code after the tool returned is Recover's to answer and log.
func TestAToolPanicIsRecoveredOnce(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "h", Version: "1"})
	require.NoError(t, s.Register("", hostile{}))
	var logs wiretest.Logs
	h := middleware.Default(logs.Logger())(s.Handler())
	wiretest.Serve(t, h, `
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"kaboom",`+modernMeta+`},"id":1}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"the tool failed: kaboom"}],"isError":true,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"h","version":"1"}}},"id":1}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"badjson",`+modernMeta+`},"id":2}
		<-- {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"string","message":"bad json"}},"id":2}`,
		&rpc.Options{Sequential: true, Logger: logs.Logger()})
	var panics []any
	for _, r := range logs.Records(t) {
		if r["panic"] != nil {
			panics = append(panics, r["msg"], r["panic"], r["tool"])
		}
	}
	assert.Equal(t, []any{"mcp: tool panicked", "kaboom", "kaboom", "rpc: handler panicked", "bad json", nil}, panics)
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

// initialize as a hostile client sends it. A protocolVersion the server
// does not speak, however odd (empty, a trailing space, 1 MiB), is
// answered with the latest legacy revision, as the revisions say, and
// never echoed; one that is not a string, and params that are not an
// object, are refused. initialize again renegotiates; in a batch it is
// refused. notifications/initialized, early, twice or with odd params, is
// silent. Before any initialize, only ping is served. A legacy revision
// named in _meta ignores the modern _meta keys, garbage or not.
func TestAttackInitialize(t *testing.T) {
	s, _ := newServer(&mcp.Options{Name: "kit", Version: "1.0.0"})
	const client = `"capabilities":{},"clientInfo":{"name":"c","version":"1"}`
	answer := func(v string) string {
		return `{"jsonrpc":"2.0","result":{"protocolVersion":"` + v + `","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"kit","version":"1.0.0"}}`
	}
	wiretest.Serve(t, s.Handler(), `
		--> {"jsonrpc":"2.0","method":"notifications/initialized"}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}},"id":1}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"_meta[\"io.modelcontextprotocol/protocolVersion\"]","rule":"required","message":"the request names no protocol version, and no initialize came before it"}]},"id":1}
		--> {"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25 ",`+client+`},"id":2}
		<-- `+answer("2025-11-25")+`,"id":2}
		--> {"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"",`+client+`},"id":3}
		<-- `+answer("2025-11-25")+`,"id":3}
		--> {"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"`+strings.Repeat("9", 1<<20)+`",`+client+`},"id":4}
		<-- `+answer("2025-11-25")+`,"id":4}
		--> {"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":["2025-03-26"],`+client+`},"id":5}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"protocolVersion","rule":"type","param":"string","message":"protocolVersion must be a string"}]},"id":5}
		--> {"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":null,"capabilities":null,"clientInfo":null},"id":6}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"capabilities","rule":"type","param":"object","message":"capabilities must be an object"},{"field":"clientInfo","rule":"type","param":"Implementation","message":"clientInfo must be an object with a string name and version"}]},"id":6}
		--> {"jsonrpc":"2.0","method":"initialize","params":["2025-03-26"],"id":7}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"","rule":"shape","message":"params must be an object"}]},"id":7}
		--> {"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-03-26",`+client+`},"id":8}
		<-- `+answer("2025-03-26")+`,"id":8}
		--> [{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-03-26",`+client+`},"id":9},{"jsonrpc":"2.0","method":"ping","id":10}]
		<-- [{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"initialize must not be part of a JSON-RPC batch: send it on its own"}},"id":9},{"jsonrpc":"2.0","result":{},"id":10}]
		--> {"jsonrpc":"2.0","method":"notifications/initialized","params":{"x":1}}
		--> {"jsonrpc":"2.0","method":"notifications/initialized"}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"hello","_meta":{"io.modelcontextprotocol/protocolVersion":"2025-06-18","io.modelcontextprotocol/clientCapabilities":1,"io.modelcontextprotocol/logLevel":"garbage"}},"id":11}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"hello, world"}]},"id":11}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"hello","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28 ","io.modelcontextprotocol/clientCapabilities":{}}},"id":12}
		<-- {"jsonrpc":"2.0","error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"2026-07-28 "}},"id":12}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"hello","_meta":{"io.modelcontextprotocol/protocolVersion":"`+strings.Repeat("9", 1<<20)+`"}},"id":13}
		<-- {"jsonrpc":"2.0","error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"`+strings.Repeat("9", 256)+`…(1048576 bytes)"}},"id":13}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"hello","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":"c","io.modelcontextprotocol/logLevel":"`+strings.Repeat("d", 1<<20)+`"}},"id":14}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"_meta[\"io.modelcontextprotocol/clientInfo\"]","rule":"type","param":"Implementation","message":"the client's info must be an object with a string name and version"},{"field":"_meta[\"io.modelcontextprotocol/logLevel\"]","rule":"oneof","param":"debug info notice warning error critical alert emergency","message":"the log level must be one of the protocol's"}]},"id":14}`, nil)
	assert.Equal(t, 1, mcp.Sessions(s), "the connection is one session however often it initializes")
}

// Fill returns a line that fills the output's room for lines waiting.
func (hostile) Fill() string { return wiretest.Fill() }

// Changes to the tools while a legacy session's output is stalled cost
// that session at most one notification waiting and one change owed, not
// one goroutine and one line per change: once the client reads again it
// is told once more, whatever the number of changes meanwhile.
func TestAttackListChangedStalled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mcp.New(&mcp.Options{Name: "kit", Version: "1.0.0"})
		require.NoError(t, s.Register("", hostile{}))
		c := wiretest.NewStalled(context.Background(), s.Handler(), nil)
		c.Send(t, `{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":1}`)
		synctest.Wait()
		c.Send(t, `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"fill"},"id":2}`)
		synctest.Wait()
		before := runtime.NumGoroutine()
		for range 100 {
			require.NoError(t, s.Register("", extra{}))
			require.Equal(t, 1, s.Remove("extra"))
		}
		synctest.Wait()
		assert.LessOrEqual(t, runtime.NumGoroutine()-before, 1, "one goroutine tells the session, however many changes")
		lines, err := c.Drain(t)
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(lines), 2)
		assert.Equal(t, `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"<4 MiB>"}]},"id":2}`, lines[1])
		for _, l := range lines[2:] {
			assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, l)
		}
		assert.LessOrEqual(t, len(lines[2:]), 2, "at most the change waiting and the change owed")
	})
}

// tools/list's cursor as a hostile client forges it: pages end exactly at
// the last tool (no nextCursor), a cursor past every name, or from
// another server, names an empty page or the page after where its name
// would be; one that is not a string, not base64url (padding, the
// standard alphabet), empty or 1 MiB of garbage is an invalid cursor,
// never echoed.
func TestAttackCursors(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "kit", Version: "1.0.0", PageSize: 3})
	require.NoError(t, s.Register("", fuzzKit{}))
	entry := func(name string) string {
		return `{"name":"` + name + `","inputSchema":{"type":"object","additionalProperties":false}}`
	}
	const invalid = `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid cursor"}`
	list := func(cursor string, id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","method":"tools/list","params":{"cursor":%s,"_meta":{"io.modelcontextprotocol/protocolVersion":"2024-11-05"}},"id":%d}`, cursor, id)
	}
	wiretest.Serve(t, s.Handler(), `
		--> `+list(`"cG9pbnQ"`, 1)+`
		<-- {"jsonrpc":"2.0","result":{"tools":[{"name":"raw","inputSchema":{"type":"object"}},`+entry("rich")+`,{"name":"tags","inputSchema":{"type":"object","additionalProperties":{"type":"string"}}}]},"id":1}
		--> `+list(`"dGFncw"`, 2)+`
		<-- {"jsonrpc":"2.0","result":{"tools":[]},"id":2}
		--> `+list(`"enp6"`, 3)+`
		<-- {"jsonrpc":"2.0","result":{"tools":[]},"id":3}
		--> `+list(`"YQ"`, 4)+`
		<-- {"jsonrpc":"2.0","result":{"tools":[{"name":"add","inputSchema":{"type":"object","properties":{"a":{"description":"the first addend","type":"number"},"b":{"type":"number"}},"required":["a","b"],"additionalProperties":false}},`+entry("boom")+`,{"name":"point","inputSchema":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer","not":{"const":0}}},"required":["b"],"additionalProperties":false}}],"nextCursor":"cG9pbnQ"},"id":4}
		--> `+list(`"cG9pbnQ="`, 5)+`
		<-- `+invalid+`,"id":5}
		--> `+list(`"+/+/"`, 6)+`
		<-- `+invalid+`,"id":6}
		--> `+list(`""`, 7)+`
		<-- `+invalid+`,"id":7}
		--> `+list(`null`, 8)+`
		<-- `+invalid+`,"id":8}
		--> `+list(`-1`, 9)+`
		<-- `+invalid+`,"id":9}
		--> `+list(`{"after":"add"}`, 10)+`
		<-- `+invalid+`,"id":10}
		--> `+list(`"`+strings.Repeat("!", 1<<20)+`"`, 11)+`
		<-- `+invalid+`,"id":11}`, nil)
}
