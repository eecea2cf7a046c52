package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
)

// fuzzKit is the kit's tools that end on their own.
type fuzzKit struct{}

func (fuzzKit) Add(p addArgs) float64              { return kit{}.Add(p) }
func (fuzzKit) Point(p divArgs) point              { return kit{}.Point(p) }
func (fuzzKit) Rich() *mcp.ToolResult              { return kit{}.Rich() }
func (fuzzKit) Tags(m map[string]string) int       { return len(m) }
func (fuzzKit) Boom() int                          { return kit{}.Boom() }
func (fuzzKit) Raw(m json.RawMessage) (int, error) { return len(m), nil }

// FuzzHandle serves any message after an initialize: every line written is
// JSON, and nothing is answered InternalError (which is what a
// panic of the protocol's own code would be, past the middleware).
func FuzzHandle(f *testing.F) {
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for _, seed := range []string{
		`{"jsonrpc":"2.0","method":"tools/list","params":{"cursor":"YWRk"},"id":1}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}},"id":1}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"point","arguments":{"a":1,"b":0},` + meta + `},"id":1}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"rich",` + meta + `},"id":1}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"boom"},"id":1}`,
		`{"jsonrpc":"2.0","method":"server/discover","params":{` + meta + `},"id":1}`,
		`{"jsonrpc":"2.0","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[],"io.modelcontextprotocol/logLevel":1}},"id":1}`,
		`{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":1}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"tags","arguments":{"a":"\u00e9"}},"id":1}`,
		`{"jsonrpc":"2.0","method":"subscriptions/listen","params":{` + meta + `,"notifications":{"toolsListChanged":true}},"id":"l"}`,
		`{"jsonrpc":"2.0","method":"subscriptions/listen","params":{` + meta + `,"notifications":{"promptsListChanged":false,"resourceSubscriptions":["a"]}},"id":1}`,
		`[{"jsonrpc":"2.0","method":"ping","id":1},{"jsonrpc":"2.0","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-03-26"}},"id":2}]`,
		`[{"jsonrpc":"2.0","method":"subscriptions/listen","params":{` + meta + `,"notifications":{"toolsListChanged":true}},"id":1}]`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"\u0061dd","_meta":{"io.modelcontextprotocol/protocolVersion":"2026\u002d07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"\u0064ebug"}},"id":1}`,
		// The attacks of attack_test.go.
		`{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25 ","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":1}`,
		`{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":["2025-03-26"],"capabilities":null,"clientInfo":null},"id":1}`,
		`[{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":1},{"jsonrpc":"2.0","method":"ping","id":2}]`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{"x":1}}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"2025-06-18","io.modelcontextprotocol/clientCapabilities":1,"io.modelcontextprotocol/logLevel":"garbage"}},"id":1}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28 ","io.modelcontextprotocol/clientCapabilities":{}}},"id":1}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":"c","io.modelcontextprotocol/logLevel":"dddd"}},"id":1}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"a\u0000\n\u001b[31m"},"id":1}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"raw","arguments":null},"id":1}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"raw","arguments":{"_meta":{"progressToken":1},"a":[[[{}]]]}},"id":1}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"progressToken":-9007199254740993}},"id":1}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"progressToken":{"a":[1]}}},"id":1}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"progressToken":1.5}},"id":1}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","_meta":1},"id":1}`,
		`{"jsonrpc":"2.0","method":"tools/list","params":{"cursor":"cG9pbnQ="},"id":1}`,
		`{"jsonrpc":"2.0","method":"tools/list","params":{"cursor":"+/+/"},"id":1}`,
		`{"jsonrpc":"2.0","method":"tools/list","params":{"cursor":""},"id":1}`,
		`{"jsonrpc":"2.0","method":"tools/list","params":{"cursor":null},"id":1}`,
		`{"jsonrpc":"2.0","method":"tools/list","params":{"cursor":-1},"id":1}`,
		`{"jsonrpc":"2.0","method":"tools/list","params":{"cursor":"enp6"},"id":1}`,
		`{"jsonrpc":"2.0","method":"logging/setLevel","params":{"level":null},"id":1}`,
		`{"jsonrpc":"2.0","method":"logging/setLevel","params":{"level":"debug "},"id":1}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"x":1}}}`,
		`{"jsonrpc":"2.0","method":"subscriptions/listen","params":{` + meta + `,"notifications":{"toolsListChanged":1,"promptsListChanged":null,"resourceSubscriptions":[1]}},"id":1}`,
		// Resources, prompts, completion (features_test.go).
		`{"jsonrpc":"2.0","method":"resources/list","params":{"cursor":"dGVzdDovL2Jyb2tlbg"},"id":1}`,
		`{"jsonrpc":"2.0","method":"resources/templates/list","params":{` + meta + `},"id":1}`,
		`{"jsonrpc":"2.0","method":"resources/read","params":{"uri":"test://template/a%20b/data"},"id":1}`,
		`{"jsonrpc":"2.0","method":"resources/read","params":{"uri":"file:///a/%zz/b",` + meta + `},"id":1}`,
		`{"jsonrpc":"2.0","method":"resources/read","params":{"uri":"test://template/none/data"},"id":1}`,
		`{"jsonrpc":"2.0","method":"resources/subscribe","params":{"uri":"test://static-text"},"id":1}`,
		`{"jsonrpc":"2.0","method":"resources/unsubscribe","params":{"uri":["x"]},"id":1}`,
		`{"jsonrpc":"2.0","method":"prompts/list","params":{"cursor":"Y29kZQ"},"id":1}`,
		`{"jsonrpc":"2.0","method":"prompts/get","params":{"name":"code","arguments":{"language":"go","style":null}},"id":1}`,
		`{"jsonrpc":"2.0","method":"prompts/get","params":{"name":"code","arguments":{"language":"go"},` + meta + `},"id":1}`,
		`{"jsonrpc":"2.0","method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"code"},"argument":{"name":"language","value":"g"},"context":{"arguments":{"style":"x"}}},"id":1}`,
		`{"jsonrpc":"2.0","method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"test://template/{id}/data"},"argument":{"name":"id","value":"many"}},"id":1}`,
		`{"jsonrpc":"2.0","method":"completion/complete","params":{"ref":{"type":"ref/resource"},"argument":{"name":1,"value":"x"},"context":[]},"id":1}`,
		`{"jsonrpc":"2.0","method":"subscriptions/listen","params":{` + meta + `,"notifications":{"promptsListChanged":true,"resourceSubscriptions":["test://static-text"]}},"id":1}`,
	} {
		f.Add(seed)
	}
	s := mcp.New(&mcp.Options{Name: "fuzz", Version: "1", PageSize: 2})
	if err := s.Register("", fuzzKit{}); err != nil {
		f.Fatal(err)
	}
	addFeatures(f, s)
	const init = `{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":0}` + "\n"
	f.Fuzz(func(t *testing.T, line string) {
		var out bytes.Buffer
		err := rpc.Serve(context.Background(), strings.NewReader(init+line+"\n"), &out, s.Handler(),
			&rpc.Options{Sequential: true, Logger: wiretest.Quiet()})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range wiretest.Lines(t, out.String()) {
			if !json.Valid([]byte(l)) {
				t.Fatalf("not JSON: %q", l)
			}
			if strings.Contains(l, `"error":{"code":-32603`) {
				t.Fatalf("internal error for %q: %s", line, l)
			}
		}
	})
}
