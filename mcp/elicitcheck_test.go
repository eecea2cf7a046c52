package mcp_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolrpc/toolrpc/mcp"
)

// formRequest is the elicitation/create the form tool of askers sends,
// but for its id.
const formRequest = `{"jsonrpc":"2.0","method":"elicitation/create","params":{"message":"Who?","requestedSchema":{"type":"object","properties":{"name":{"type":"string","title":"Name","maxLength":20,"default":"Ann"},"age":{"type":"integer","minimum":0},"ok":{"type":"boolean","default":false},"color":{"type":"string","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}],"default":"g"},"old":{"type":"string","enum":["a"],"enumNames":["A"]},"tags":{"type":"array","maxItems":2,"items":{"type":"string","enum":["x","y"]},"default":["x"]},"sizes":{"type":"array","items":{"anyOf":[{"const":"s","title":"Small"}]}}},"required":["name"]}},"id":%d}`

// An accepted answer that does not fit the form it was asked with fails
// the tool's Elicit (ErrFormAnswer), whatever the client says the user
// entered: each field's type, bounds and choices, as the requestedSchema
// sent says (lengths in characters, integers without a fraction, members
// that name no field allowed); one that fits is the answer. It was
// handed to the tool as it came before.
func TestElicitAnswerFitsTheForm(t *testing.T) {
	const misfit = "mcp: the answer does not fit the form: "
	tests := []formAnswer{
		{`{"action":"accept","content":{"name":"Bo","age":3,"ok":true,"color":"r","old":"a","tags":["x","y"],"sizes":["s"],"other":1}}`, "accept Bo"},
		{`{"action":"accept","content":{"name":"Bo","age":2.0,"tags":[]}}`, "accept Bo"},
		{`{"action":"accept","content":{"name":"` + strings.Repeat("é", 20) + `"}}`, "accept " + strings.Repeat("é", 20)},
		{`{"action":"decline","content":{"age":"no"}}`, "decline "},
		{`{"action":"cancel"}`, "cancel "},
		{`{"action":"accept","content":{}}`, misfit + `field "name" is required`},
		{`{"action":"accept"}`, misfit + `field "name" is required`},
		{`{"action":"accept","content":{"name":"` + strings.Repeat("é", 21) + `"}}`, misfit + `field "name" has 21 characters, out of its bounds`},
		{`{"action":"accept","content":{"name":5}}`, misfit + `field "name" must be a string`},
		{`{"action":"accept","content":{"name":"Bo","age":1.5}}`, misfit + `field "age" must be an integer`},
		{`{"action":"accept","content":{"name":"Bo","age":-1}}`, misfit + `field "age" is out of its bounds`},
		{`{"action":"accept","content":{"name":"Bo","age":"3"}}`, misfit + `field "age" must be a number`},
		{`{"action":"accept","content":{"name":"Bo","age":1e400}}`, misfit + `field "age" is beyond a float64's range`},
		{`{"action":"accept","content":{"name":"Bo","ok":"yes"}}`, misfit + `field "ok" must be a boolean`},
		{`{"action":"accept","content":{"name":"Bo","color":"b"}}`, misfit + `field "color" must be one of its values`},
		{`{"action":"accept","content":{"name":"Bo","old":true}}`, misfit + `field "old" must be one of its values`},
		{`{"action":"accept","content":{"name":"Bo","tags":["x","x","y"]}}`, misfit + `field "tags" has 3 items, out of its bounds`},
		{`{"action":"accept","content":{"name":"Bo","tags":["z"]}}`, misfit + `field "tags" must be an array of its values`},
		{`{"action":"accept","content":{"name":"Bo","sizes":"s"}}`, misfit + `field "sizes" must be an array of its values`},
	}
	serveFormAnswers(t, tests)
}

// formAnswer is an answer to the form tool's question, and the text of
// the tool's result it gives (an isError one when it is a misfit).
type formAnswer struct{ answer, want string }

// serveFormAnswers calls the form tool once for each answer, over stdio,
// and checks the result each gives.
func serveFormAnswers(t *testing.T, tests []formAnswer) {
	t.Helper()
	const misfit = "mcp: the answer does not fit the form: "
	var steps strings.Builder
	steps.WriteString(`
		--> ` + askInit + `
		<-- {"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"ask","version":"1"}},"id":1}`)
	for i, tt := range tests {
		text, err := json.Marshal(tt.want)
		if err != nil {
			t.Fatal(err)
		}
		result := `{"content":[{"type":"text","text":` + string(text) + `}]}`
		if strings.HasPrefix(tt.want, misfit) {
			result = strings.TrimSuffix(result, "}") + `,"isError":true}`
		}
		fmt.Fprintf(&steps, `
		--> {"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"form"}}
		<-- `+formRequest+`
		--> {"jsonrpc":"2.0","id":%d,"result":%s}
		<-- {"jsonrpc":"2.0","result":%s,"id":%d}`, i+2, i+1, i+1, tt.answer, result, i+2)
	}
	serveSteps(t, newAskers(t), steps.String()+"\n")
}

// In 2026-07-28 the answer comes in the retry's inputResponses, and is
// checked the same way.
func TestElicitAnswerFitsTheFormModern(t *testing.T) {
	const call = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"form","inputResponses":{"elicitation-c73a626ee871f2b2":%s},"_meta":{` + askMeta + `}}}`
	serveSteps(t, newAskers(t), `
		--> `+fmt.Sprintf(call, 1, `{"action":"accept","content":{"name":"Bo","age":3}}`)+`
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"accept Bo"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"ask","version":"1"}}},"id":1}
		--> `+fmt.Sprintf(call, 2, `{"action":"accept","content":{"age":-3}}`)+`
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"mcp: the answer does not fit the form: field \"name\" is required"}],"isError":true,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"ask","version":"1"}}},"id":2}
	`)
}

// Check is the check Elicit makes, for an answer read otherwise (with
// InputResponse): nil for no answer, a declined or cancelled one and one
// that fits; ErrFormAnswer, saying why, for an accepted one that does not.
func TestElicitParamsCheck(t *testing.T) {
	form := &mcp.ElicitParams{Message: "PIN?", Fields: []mcp.Field{
		mcp.StringField{Name: "pin", MinLength: mcp.Ptr(4), MaxLength: mcp.Ptr(4)},
	}, Required: []string{"pin"}}
	tests := []struct {
		name string
		res  *mcp.ElicitResult
		want string
	}{
		{"none", nil, ""},
		{"declined", &mcp.ElicitResult{Action: "decline", Content: json.RawMessage(`{"pin":1}`)}, ""},
		{"cancelled", &mcp.ElicitResult{Action: "cancel"}, ""},
		{"fits", &mcp.ElicitResult{Action: "accept", Content: json.RawMessage(`{"pin":"1234"}`)}, ""},
		{"too short", &mcp.ElicitResult{Action: "accept", Content: json.RawMessage(`{"pin":"12"}`)},
			`mcp: the answer does not fit the form: field "pin" has 2 characters, out of its bounds`},
		{"missing", &mcp.ElicitResult{Action: "accept"}, `mcp: the answer does not fit the form: field "pin" is required`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := form.Check(tt.res)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, mcp.ErrFormAnswer)
			assert.EqualError(t, err, tt.want)
		})
	}
}
