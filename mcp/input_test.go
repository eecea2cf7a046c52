package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
)

// rounds asks two questions at once, with a state, and answers once both
// came back with it.
type rounds struct{}

func (rounds) Rounds(ctx context.Context, p struct {
	N int `json:"n"`
}) (string, error) {
	var color mcp.ElicitResult
	haveColor, err := mcp.InputResponse(ctx, "color", &color)
	if err != nil {
		return "", err
	}
	var poem mcp.CreateMessageResult
	havePoem, err := mcp.InputResponse(ctx, "poem", &poem)
	if err != nil {
		return "", err
	}
	state, ok := mcp.RequestState(ctx)
	if !haveColor || !havePoem || !ok {
		return "", &mcp.InputRequired{State: "round 1", Requests: []*mcp.InputRequest{
			mcp.ElicitRequest("color", &mcp.ElicitParams{Message: "Color?", Fields: []mcp.Field{mcp.StringField{Name: "c"}}}),
			mcp.CreateMessageRequest("poem", &mcp.CreateMessageParams{MaxTokens: 5,
				Messages: []mcp.SamplingMessage{{Role: "user", Content: mcp.TextContent{Text: "A poem"}}}}),
		}}
	}
	return state + ": " + string(color.Content) + " " + poem.Text(), nil
}

// Roots asks for the roots, which needs a capability.
func (rounds) Roots(ctx context.Context) error {
	return &mcp.InputRequired{Requests: []*mcp.InputRequest{mcp.ListRootsRequest("r")}}
}

// call sends a modern tools/call of tool with args and the extra params,
// and returns the response.
func call(t *testing.T, p *wiretest.Pipe, id int, tool, args, caps, extra string) map[string]any {
	t.Helper()
	line := `{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + extra +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}` + "\n"
	require.NoError(t, p.Write([]byte(line)))
	out, err := p.ReadLine()
	require.NoError(t, err)
	var resp map[string]any
	require.NoError(t, json.Unmarshal(out, &resp))
	return resp
}

// A tool's InputRequired: its requests under its keys and its state,
// sealed; the retry that brings the answers and the state back runs the
// tool with both. A requestState altered, made for another tool or other
// arguments, or not a string, is -32602 and never reaches the tool; a
// request the client did not declare the capability for is -32021 with
// the capability named.
func TestInputRequired(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "r", Version: "1"})
	require.NoError(t, s.Register("", rounds{}))
	p := wiretest.NewPipe(s.Handler(), nil)
	defer p.Close(t)
	caps := `{"sampling":{},"elicitation":{}}`

	r1 := call(t, p, 1, "rounds", `{"n":1}`, caps, "")
	result := r1["result"].(map[string]any)
	assert.Equal(t, "input_required", result["resultType"])
	b, _ := json.Marshal(result["inputRequests"])
	assert.Equal(t, `{"color":{"method":"elicitation/create","params":{"message":"Color?","requestedSchema":{"properties":{"c":{"type":"string"}},"type":"object"}}},"poem":{"method":"sampling/createMessage","params":{"maxTokens":5,"messages":[{"content":{"text":"A poem","type":"text"},"role":"user"}]}}}`, string(b))
	state := result["requestState"].(string)
	answers := `,"inputResponses":{"color":{"action":"accept","content":{"c":"red"}},"poem":{"role":"assistant","content":{"type":"text","text":"roses"},"model":"m"},"extra":{"ignored":true}}`

	r2 := call(t, p, 2, "rounds", `{"n":1}`, caps, answers+`,"requestState":"`+state+`"`)
	assert.Equal(t, `round 1: {"c":"red"} roses`, r2["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"])

	refused := `{"code":-32602,"message":"Invalid params","data":[{"field":"requestState","rule":"requestState","message":"requestState is not one this server sent for this call, or it expired: call again without it"}]}`
	for i, retry := range []struct{ tool, args, state string }{
		{"rounds", `{"n":1}`, `"` + state + `x"`},
		{"rounds", `{"n":1}`, `"x` + state + `"`},
		{"rounds", `{"n":1}`, `"` + strings.Replace(state, ".", "", 1) + `"`},
		{"rounds", `{"n":2}`, `"` + state + `"`},
		{"roots", `{}`, `"` + state + `"`},
		{"rounds", `{"n":1}`, `7`},
		{"rounds", `{"n":1}`, `""`},
	} {
		r := call(t, p, 3+i, retry.tool, retry.args, caps, answers+`,"requestState":`+retry.state)
		b, _ := json.Marshal(r["error"])
		assert.JSONEq(t, refused, string(b), "%+v", retry)
	}
	// The same arguments, spaced otherwise, are the same call.
	r3 := call(t, p, 20, "rounds", `{ "n" : 1 }`, caps, answers+`,"requestState":"`+state+`"`)
	assert.Contains(t, r3, "result")

	r4 := call(t, p, 21, "roots", `{}`, caps, "")
	b, _ = json.Marshal(r4["error"])
	assert.JSONEq(t, `{"code":-32021,"message":"Missing required client capability: roots","data":{"requiredCapabilities":{"roots":{}}}}`, string(b))
	r5 := call(t, p, 22, "rounds", `{"n":1}`, `{"elicitation":{}}`, "")
	b, _ = json.Marshal(r5["error"])
	assert.JSONEq(t, `{"code":-32021,"message":"Missing required client capability: sampling","data":{"requiredCapabilities":{"sampling":{}}}}`, string(b))
}

// A requestState is honored until it expires, and not a second after; by
// the server that sealed it, for the principal, tool and arguments it was
// sealed for, and no other.
func TestRequestStateExpires(t *testing.T) {
	s := mcp.New(nil)
	now := time.Unix(1_800_000_000, 0)
	sealed := mcp.Seal(s, "alice", "t", []byte(`{}`), "st", now.Add(mcp.InputStateTTL))
	state, ok := mcp.Unseal(s, "alice", "t", []byte(`{}`), sealed, now.Add(mcp.InputStateTTL))
	assert.True(t, ok)
	assert.Equal(t, "st", state)
	_, ok = mcp.Unseal(s, "alice", "t", []byte(`{}`), sealed, now.Add(mcp.InputStateTTL+time.Second))
	assert.False(t, ok)
	_, ok = mcp.Unseal(mcp.New(nil), "alice", "t", []byte(`{}`), sealed, now) // another server's key
	assert.False(t, ok)
	for _, other := range [][3]string{{"bob", "t", `{}`}, {"", "t", `{}`}, {"alice", "u", `{}`}, {"alice", "t", `{"a":1}`}} {
		_, ok = mcp.Unseal(s, other[0], other[1], []byte(other[2]), sealed, now)
		assert.False(t, ok, "%v", other)
	}
	_, ok = mcp.Unseal(s, "alice", "t", []byte(` { } `), sealed, now) // the same arguments, spaced
	assert.True(t, ok)
}

// Servers of one set of StateKeys open each other's requestState, and
// keys rotate: a server whose keys are [new, old] opens what [old] sealed,
// and seals with new, which [old] alone cannot open. A key shorter than
// MinStateKey is refused at New.
func TestStateKeys(t *testing.T) {
	old, next := bytes.Repeat([]byte{1}, mcp.MinStateKey), bytes.Repeat([]byte{2}, mcp.MinStateKey+8)
	a := mcp.New(&mcp.Options{StateKeys: [][]byte{old}})
	b := mcp.New(&mcp.Options{StateKeys: [][]byte{next, old}})
	now := time.Unix(1_800_000_000, 0)
	byA := mcp.Seal(a, "", "t", []byte(`{}`), "st", now.Add(time.Minute))
	state, ok := mcp.Unseal(b, "", "t", []byte(`{}`), byA, now)
	assert.True(t, ok)
	assert.Equal(t, "st", state)
	byB := mcp.Seal(b, "", "t", []byte(`{}`), "st", now.Add(time.Minute))
	_, ok = mcp.Unseal(a, "", "t", []byte(`{}`), byB, now)
	assert.False(t, ok, "sealed with the new key")
	_, ok = mcp.Unseal(mcp.New(&mcp.Options{StateKeys: [][]byte{next}}), "", "t", []byte(`{}`), byB, now)
	assert.True(t, ok)
	_, ok = mcp.Unseal(mcp.New(nil), "", "t", []byte(`{}`), byA, now)
	assert.False(t, ok, "a random key of its own")
	assert.PanicsWithValue(t, "mcp: Options.StateKeys[1] is 31 bytes long: a key is at least MinStateKey (32) bytes of a secret", func() {
		mcp.New(&mcp.Options{StateKeys: [][]byte{old, old[:31]}})
	})
}

// askingPrompts is a prompt that asks first.
type askingPrompts struct{}

func (askingPrompts) Topic(ctx context.Context) (string, error) {
	var answer mcp.ElicitResult
	if ok, err := mcp.InputResponse(ctx, "topic", &answer); ok || err != nil {
		return "Write about " + string(answer.Content), err
	}
	return "", &mcp.InputRequired{Requests: []*mcp.InputRequest{
		mcp.ElicitRequest("topic", &mcp.ElicitParams{Message: "Topic?", Fields: []mcp.Field{mcp.StringField{Name: "t"}}})}}
}

// prompts/get, in 2026-07-28, asks as tools/call does: input_required,
// then the retry with the answer; without the capability, -32021.
func TestInputRequiredPrompt(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "p", Version: "1"})
	require.NoError(t, s.RegisterPrompts("", askingPrompts{}))
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	wiretest.Serve(t, s.Handler(), `
		--> {"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"topic",`+meta+`}}
		<-- {"jsonrpc":"2.0","result":{"resultType":"input_required","inputRequests":{"topic":{"method":"elicitation/create","params":{"message":"Topic?","requestedSchema":{"type":"object","properties":{"t":{"type":"string"}}}}}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"p","version":"1"}}},"id":1}
		--> {"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"topic","inputResponses":{"topic":{"action":"accept","content":{"t":"owls"}}},`+meta+`}}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","messages":[{"role":"user","content":{"type":"text","text":"Write about {\"t\":\"owls\"}"}}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"p","version":"1"}}},"id":2}
		--> {"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"topic","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
		<-- {"jsonrpc":"2.0","error":{"code":-32021,"message":"Missing required client capability: elicitation","data":{"requiredCapabilities":{"elicitation":{}}}},"id":3}
	`, nil)
}

// resources/read asks as tools/call does, in 2026-07-28.
func TestInputRequiredResource(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "p", Version: "1"})
	require.NoError(t, s.AddResources(mcp.Resource{URI: "test://secret", Name: "secret",
		Read: func(ctx context.Context, uri string, _ map[string]string) ([]mcp.ResourceContents, error) {
			var answer mcp.ElicitResult
			if ok, err := mcp.InputResponse(ctx, "pin", &answer); ok || err != nil {
				return []mcp.ResourceContents{{Text: "unlocked by " + answer.Action}}, err
			}
			return nil, &mcp.InputRequired{State: "locked", Requests: []*mcp.InputRequest{
				mcp.ElicitRequest("pin", &mcp.ElicitParams{Message: "PIN?", Fields: []mcp.Field{mcp.StringField{Name: "pin"}}})}}
		}}))
	p := wiretest.NewPipe(s.Handler(), nil)
	defer p.Close(t)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	read := func(id, extra string) map[string]any {
		require.NoError(t, p.Write([]byte(`{"jsonrpc":"2.0","id":`+id+`,"method":"resources/read","params":{"uri":"test://secret",`+extra+meta+`}}`+"\n")))
		line, err := p.ReadLine()
		require.NoError(t, err)
		var resp map[string]any
		require.NoError(t, json.Unmarshal(line, &resp))
		return resp
	}
	r1 := read("1", "")["result"].(map[string]any)
	assert.Equal(t, "input_required", r1["resultType"])
	state := r1["requestState"].(string)
	r2 := read("2", `"inputResponses":{"pin":{"action":"accept","content":{"pin":"1234"}}},"requestState":"`+state+`",`)
	assert.Equal(t, "unlocked by accept", r2["result"].(map[string]any)["contents"].([]any)[0].(map[string]any)["text"])
	r3 := read("3", `"requestState":"`+state+`x",`)
	assert.Equal(t, -32602.0, r3["error"].(map[string]any)["code"])
}
