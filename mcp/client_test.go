package mcp_test

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
)

// askers are tools that ask their client: a sampling and a form.
type askers struct{}

func (askers) Sample(ctx context.Context, p struct {
	Prompt string `json:"prompt"`
}) (string, error) {
	res, err := mcp.CreateMessage(ctx, &mcp.CreateMessageParams{
		Messages:  []mcp.SamplingMessage{{Role: "user", Content: mcp.TextContent{Text: p.Prompt}}},
		MaxTokens: 10,
	})
	if err != nil {
		return "", err
	}
	return res.Model + " says " + res.Text(), nil
}

func (askers) Form(ctx context.Context) (string, error) {
	res, err := mcp.Elicit(ctx, &mcp.ElicitParams{
		Message: "Who?",
		Fields: []mcp.Field{
			mcp.StringField{Name: "name", Title: "Name", MaxLength: mcp.Ptr(20), Default: mcp.Ptr("Ann")},
			mcp.NumberField{Name: "age", Integer: true, Minimum: mcp.Ptr(0.0)},
			mcp.BooleanField{Name: "ok", Default: mcp.Ptr(false)},
			mcp.EnumField{Name: "color", Values: []string{"r", "g"}, Titles: []string{"Red", "Green"}, Default: mcp.Ptr("g")},
			mcp.EnumField{Name: "old", Values: []string{"a"}, Titles: []string{"A"}, LegacyTitles: true},
			mcp.MultiEnumField{Name: "tags", Values: []string{"x", "y"}, MaxItems: mcp.Ptr(2), Default: []string{"x"}},
			mcp.MultiEnumField{Name: "sizes", Values: []string{"s"}, Titles: []string{"Small"}},
		},
		Required: []string{"name"},
	})
	if err != nil {
		return "", err
	}
	var v struct {
		Name string `json:"name"`
	}
	if res.Accepted() {
		if err := res.Decode(&v); err != nil {
			return "", err
		}
	}
	return res.Action + " " + v.Name, nil
}

// Capability says how asking fails without the capability.
func (askers) Capability(ctx context.Context) (bool, error) {
	_, err := mcp.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 1,
		Messages: []mcp.SamplingMessage{{Role: "user", Content: mcp.TextContent{Text: "?"}}}})
	return errors.Is(err, mcp.ErrClientCapability), nil
}

func newAskers(t *testing.T) *mcp.Server {
	t.Helper()
	s := mcp.New(&mcp.Options{Name: "ask", Version: "1"})
	require.NoError(t, s.Register("", askers{}))
	return s
}

// serveSteps serves s with its own Serve method, step by step.
func serveSteps(t *testing.T, s *mcp.Server, tr string) {
	t.Helper()
	wiretest.StepsServe(t, func(r io.Reader, w io.Writer) error {
		return s.Serve(context.Background(), r, w, &rpc.Options{Logger: wiretest.Quiet()})
	}, tr)
}

const askInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{},"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}`

// Over stdio, a tool's CreateMessage and Elicit are requests of the
// server's connection (its own ids), answered by the client's responses,
// in the middle of the tools/call; a tool whose call the client cancels
// cancels its request (notifications/cancelled, MCP's), and the answer
// that comes after is dropped.
func TestAskOverStdio(t *testing.T) {
	serveSteps(t, newAskers(t), `
		--> `+askInit+`
		<-- {"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"ask","version":"1"}},"id":1}
		--> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{"prompt":"hi"}}}
		<-- {"jsonrpc":"2.0","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10},"id":1}
		--> {"jsonrpc":"2.0","id":1,"result":{"role":"assistant","content":{"type":"text","text":"hello"},"model":"m1","stopReason":"endTurn"}}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"m1 says hello"}]},"id":2}
		--> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"form"}}
		<-- {"jsonrpc":"2.0","method":"elicitation/create","params":{"message":"Who?","requestedSchema":{"type":"object","properties":{"name":{"type":"string","title":"Name","maxLength":20,"default":"Ann"},"age":{"type":"integer","minimum":0},"ok":{"type":"boolean","default":false},"color":{"type":"string","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}],"default":"g"},"old":{"type":"string","enum":["a"],"enumNames":["A"]},"tags":{"type":"array","maxItems":2,"items":{"type":"string","enum":["x","y"]},"default":["x"]},"sizes":{"type":"array","items":{"anyOf":[{"const":"s","title":"Small"}]}}},"required":["name"]}},"id":2}
		--> {"jsonrpc":"2.0","id":2,"result":{"action":"accept","content":{"name":"Bo"}}}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"accept Bo"}]},"id":3}
		--> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"sample","arguments":{"prompt":"again"}}}
		<-- {"jsonrpc":"2.0","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"again"}}],"maxTokens":10},"id":3}
		--> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}
		<-- {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}
		--> {"jsonrpc":"2.0","id":3,"result":{"role":"assistant","content":{"type":"text","text":"late"},"model":"m1"}}
		--> {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"form"}}
		<-- {"jsonrpc":"2.0","method":"elicitation/create","params":{"message":"Who?","requestedSchema":{"type":"object","properties":{"name":{"type":"string","title":"Name","maxLength":20,"default":"Ann"},"age":{"type":"integer","minimum":0},"ok":{"type":"boolean","default":false},"color":{"type":"string","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}],"default":"g"},"old":{"type":"string","enum":["a"],"enumNames":["A"]},"tags":{"type":"array","maxItems":2,"items":{"type":"string","enum":["x","y"]},"default":["x"]},"sizes":{"type":"array","items":{"anyOf":[{"const":"s","title":"Small"}]}}},"required":["name"]}},"id":4}
		--> {"jsonrpc":"2.0","id":4,"error":{"code":-1,"message":"the user said no"}}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"the user said no"}],"isError":true},"id":5}
	`)
}

// A client without the capability is not asked: the tool gets
// ErrClientCapability, in both eras.
func TestAskWithoutCapability(t *testing.T) {
	serveSteps(t, newAskers(t), `
		--> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"url":{}}},"clientInfo":{"name":"c","version":"1"}}}
		<-- {"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"ask","version":"1"}},"id":1}
		--> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"capability"}}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"true"}]},"id":2}
		--> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"form"}}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"mcp: the client did not declare the capability: elicitation/create needs it"}],"isError":true},"id":3}
		--> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"capability","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"true"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"ask","version":"1"}}},"id":4}
	`)
}

// askMeta is the _meta of a 2026-07-28 request from a client that
// declares sampling and elicitation.
const askMeta = `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{}}`

// In 2026-07-28 a tool that asks gets its call answered input_required,
// the request under a key of its own; the retry that holds the answer
// under that key (inputResponses) runs the tool again, which gets it.
// An answer that is not the request's result fails the tool.
func TestAskModern(t *testing.T) {
	serveSteps(t, newAskers(t), `
		--> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sample","arguments":{"prompt":"hi"},"_meta":{`+askMeta+`}}}
		<-- {"jsonrpc":"2.0","result":{"resultType":"input_required","inputRequests":{"sampling-2a5d62d36af8ea92":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10}}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"ask","version":"1"}}},"id":1}
		--> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{"prompt":"hi"},"inputResponses":{"sampling-2a5d62d36af8ea92":{"role":"assistant","content":{"type":"text","text":"hello"},"model":"m2"}},"_meta":{`+askMeta+`}}}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"m2 says hello"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"ask","version":"1"}}},"id":2}
		--> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sample","arguments":{"prompt":"hi"},"inputResponses":{"sampling-2a5d62d36af8ea92":[]},"_meta":{`+askMeta+`}}}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"inputResponses","rule":"type","param":"object","message":"inputResponses must be an object whose every member is an object: the client's result for each request"}]},"id":3}
		--> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"sample","arguments":{"prompt":"other"},"inputResponses":{"sampling-2a5d62d36af8ea92":{"role":"assistant","content":{"type":"text","text":"hello"},"model":"m2"}},"_meta":{`+askMeta+`}}}
		<-- {"jsonrpc":"2.0","result":{"resultType":"input_required","inputRequests":{"sampling-85b1d35a52da4eaf":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"other"}}],"maxTokens":10}}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"ask","version":"1"}}},"id":4}
	`)
}
