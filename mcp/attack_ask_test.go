package mcp_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
)

// A client's answer of the wrong shape for the request asked (an
// elicitation's answer to a sampling, a sampling's to an elicitation, an
// action not in the protocol's enum, form values that are not the flat
// primitives a form holds) is no answer of that request: the tool gets an
// error, never a result with empty fields; in both eras.
func TestAttackAskWrongShape(t *testing.T) {
	const sampling = `{"jsonrpc":"2.0","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10},"id":1}`
	const form = `{"jsonrpc":"2.0","method":"elicitation/create","params":{"message":"Who?","requestedSchema":{"type":"object","properties":{"name":{"type":"string","title":"Name","maxLength":20,"default":"Ann"},"age":{"type":"integer","minimum":0},"ok":{"type":"boolean","default":false},"color":{"type":"string","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}],"default":"g"},"old":{"type":"string","enum":["a"],"enumNames":["A"]},"tags":{"type":"array","maxItems":2,"items":{"type":"string","enum":["x","y"]},"default":["x"]},"sizes":{"type":"array","items":{"anyOf":[{"const":"s","title":"Small"}]}}},"required":["name"]}},"id":1}`
	const notSampling = `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"mcp: the client's answer to sampling/createMessage is not the result of one"}],"isError":true},"id":2}`
	const notForm = `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"mcp: the client's answer to elicitation/create is not the result of one"}],"isError":true},"id":2}`
	for _, c := range []struct{ name, call, asked, answer, want string }{
		{"elicitation for sampling", `"sample","arguments":{"prompt":"hi"}`, sampling, `{"action":"accept","content":{"name":"x"}}`, notSampling},
		{"empty for sampling", `"sample","arguments":{"prompt":"hi"}`, sampling, `{}`, notSampling},
		{"role not a role", `"sample","arguments":{"prompt":"hi"}`, sampling, `{"role":"system","content":{"type":"text","text":"x"},"model":"m"}`, notSampling},
		{"content not a block", `"sample","arguments":{"prompt":"hi"}`, sampling, `{"role":"assistant","content":"x","model":"m"}`, notSampling},
		{"content missing", `"sample","arguments":{"prompt":"hi"}`, sampling, `{"role":"assistant","model":"m"}`, notSampling},
		{"content null", `"sample","arguments":{"prompt":"hi"}`, sampling, `{"role":"assistant","content":null,"model":"m"}`, notSampling},
		{"sampling for elicitation", `"form"`, form, `{"role":"assistant","content":{"type":"text","text":"x"},"model":"m"}`, notForm},
		{"action not in the enum", `"form"`, form, `{"action":"maybe","content":{"name":"x"}}`, notForm},
		{"action not a string", `"form"`, form, `{"action":1}`, notForm},
		{"content not an object", `"form"`, form, `{"action":"accept","content":["x"]}`, notForm},
		{"content nested", `"form"`, form, `{"action":"accept","content":{"name":{"a":{"b":[1]}}}}`, notForm},
		{"content array of numbers", `"form"`, form, `{"action":"accept","content":{"tags":[1,2]}}`, notForm},
		{"content null value", `"form"`, form, `{"action":"accept","content":{"name":null}}`, notForm},
		{"sampling array content", `"sample","arguments":{"prompt":"hi"}`, sampling, `{"role":"assistant","content":[{"type":"text","text":"x"}],"model":"m"}`, `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"m says "}]},"id":2}`},
		{"declined", `"form"`, form, `{"action":"decline"}`, `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"decline "}]},"id":2}`},
		{"flat primitives", `"form"`, form, `{"action":"accept","content":{"name":"Bo","age":3,"ok":true,"tags":["x"]}}`, `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"accept Bo"}]},"id":2}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			serveSteps(t, newAskers(t), `
				--> `+askInit+`
				<-- {"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"ask","version":"1"}},"id":1}
				--> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":`+c.call+`}}
				<-- `+c.asked+`
				--> {"jsonrpc":"2.0","id":1,"result":`+c.answer+`}
				<-- `+c.want+`
			`)
		})
	}
}

// In 2026-07-28 the answer comes in the retry's inputResponses: one of
// the wrong shape fails the tool as it does in a legacy session.
func TestAttackAskWrongShapeModern(t *testing.T) {
	serveSteps(t, newAskers(t), `
		--> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{"prompt":"hi"},"inputResponses":{"sampling-2a5d62d36af8ea92":{"action":"accept","content":{"name":"x"}}},"_meta":{`+askMeta+`}}}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"mcp: the client's answer to sampling/createMessage is not the result of one"}],"isError":true,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"ask","version":"1"}}},"id":2}
	`)
}

// An Mcp-Param header is checked against the argument the tool gets: a
// body that names the mirrored argument twice is checked on its last
// value, and the tool refuses it (a member given twice): it cannot pass
// the check with one value and reach the tool with the other. A long header value (here 100 kB, Base64) costs its length
// once, and is echoed shortened (codec.MaxEcho).
func TestAttackParamHeader(t *testing.T) {
	srv := newMirrored(t)
	call := func(args string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"route","arguments":` + args + `,` + modernMeta + `}}`
	}
	long := strings.Repeat("x", 100_000)
	for _, c := range []struct{ name, args, header, want string }{
		{"duplicate key, the first", `{"region":"a","region":"b"}`, "a",
			refusal(-32020, `Header mismatch: Mcp-Param-Region header value "a" does not match body value arguments.region`, "", "7")},
		{"duplicate key, the last", `{"region":"a","region":"b"}`, "b",
			streamed(`{"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"Invalid arguments:\n- region: member \"region\" given more than once"}],"isError":true,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"steps","version":"1.0.0"}}},"id":7}`)},
		{"long, Base64, CR LF inside", `{"region":"r"}`, "=?base64?" + base64.StdEncoding.EncodeToString([]byte("\r\n"+long)) + "?=",
			refusal(-32020, `Header mismatch: Mcp-Param-Region header value "\r\n`+long[:254]+`…(100002 bytes)" does not match body value arguments.region`, "", "7")},
	} {
		t.Run(c.name, func(t *testing.T) {
			hd := modernHeaders("tools/call", "route")
			hd["Mcp-Param-Region"] = c.header
			_, body := do(t, srv.URL, exchange{header: hd, body: call(c.args)})
			assert.Equal(t, c.want, body)
		})
	}
}

// A client's response is routed only within its session: another
// session's response with the same id reaches no call (and is accepted,
// 202, as any response that answers nothing); the session's own does.
// An elicitation's answer to the sampling fails the tool (the shape
// checked over HTTP as over stdio).
func TestAttackAskOtherSession(t *testing.T) {
	h, url, sid := askHTTP(t, 0)
	resp := check(t, url, exchange{body: askInit, status: 200,
		want: `{"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"ask","version":"1"}},"id":1}` + "\n"})
	other := resp.Header.Get("Mcp-Session-Id")
	require.NotEqual(t, sid, other)
	s := post(t, url, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{"prompt":"hi"}}}`)
	assert.Equal(t, `data: {"jsonrpc":"2.0","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10},"id":1}`+"\n\n", s.event(t))
	answer(t, url, other, `{"jsonrpc":"2.0","id":1,"result":{"role":"assistant","content":{"type":"text","text":"intruder"},"model":"x"}}`)
	answer(t, url, other, `{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"intruder"}}`)
	assert.Equal(t, 1, mcp.Waiting(h))
	answer(t, url, sid, `{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"name":"x"}}}`)
	assert.Equal(t, `data: {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"mcp: the client's answer to sampling/createMessage is not the result of one"}],"isError":true},"id":2}`+"\n\n", s.event(t))
	assert.Equal(t, 0, mcp.Waiting(h))
}

// A client that answers with an error object of the wrong shape (a code
// not an integer, an error null, an error beside a result) has answered:
// the tool gets the error saying so, and the call its isError result; it
// does not wait on.
func TestAttackAskErrorShapes(t *testing.T) {
	for _, c := range []struct{ answer, want string }{
		{`"error":{"code":"x","message":1}`, `rpc: malformed response: codec: error object: json: invalid number literal, trying to unmarshal \"\\\"x\\\"\" into Number`},
		{`"error":null`, `rpc: malformed response: response error is not an object`},
		{`"error":{"code":1,"message":"m"},"result":{}`, `rpc: malformed response: response has both result and error`},
		{`"error":{"code":1.5,"message":"m"}`, `rpc: malformed response: codec: error code 1.5 is not an integer`},
	} {
		t.Run(c.answer, func(t *testing.T) {
			serveSteps(t, newAskers(t), `
				--> `+askInit+`
				<-- {"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"ask","version":"1"}},"id":1}
				--> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{"prompt":"hi"}}}
				<-- {"jsonrpc":"2.0","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10},"id":1}
				--> {"jsonrpc":"2.0","id":1,`+c.answer+`}
				<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"`+c.want+`"}],"isError":true},"id":2}
			`)
		})
	}
}

// sealedTwin is a tool and a prompt of the same name, "twin", each asking
// with a state, and saying what state its retry brought.
type sealedTwin struct{}

func (sealedTwin) Twin(ctx context.Context, p struct {
	N int `json:"n"`
}) (string, error) {
	if state, ok := mcp.RequestState(ctx); ok {
		return "tool got " + state, nil
	}
	return "", &mcp.InputRequired{State: "tool state"}
}

type twinPrompt struct{}

func (twinPrompt) Twin(ctx context.Context) (string, error) {
	if state, ok := mcp.RequestState(ctx); ok {
		return "prompt got " + state, nil
	}
	return "", &mcp.InputRequired{State: "prompt state"}
}

// A requestState replayed: for the prompt of the same name as its tool,
// for other arguments (a member more, a member twice), truncated, huge,
// or 10 minutes and a second after it was sent (synctest's clock), is
// -32602 and reaches neither; within its 10 minutes it is honored.
func TestAttackRequestStateReplay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mcp.New(&mcp.Options{Name: "r", Version: "1"})
		require.NoError(t, s.Register("", sealedTwin{}))
		require.NoError(t, s.RegisterPrompts("", twinPrompt{}))
		p := wiretest.NewPipe(s.Handler(), nil)
		defer p.Close(t)
		meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
		send := func(method, params string) string {
			require.NoError(t, p.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":{"name":"twin",`+params+meta+`}}`+"\n")))
			line, err := p.ReadLine()
			require.NoError(t, err)
			return string(line)
		}
		stateOf := func(line string) string {
			var resp struct {
				Result struct {
					RequestState string `json:"requestState"`
				} `json:"result"`
			}
			require.NoError(t, json.Unmarshal([]byte(line), &resp))
			require.NotEmpty(t, resp.Result.RequestState, line)
			return resp.Result.RequestState
		}
		tool := stateOf(send("tools/call", `"arguments":{"n":1},`))
		prompt := stateOf(send("prompts/get", ``))
		refused := `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"requestState","rule":"requestState","message":"requestState is not one this server sent for this call, or it expired: call again without it"}]},"id":1}` + "\n"
		for _, c := range []struct{ method, params string }{
			{"prompts/get", `"requestState":"` + tool + `",`},
			{"tools/call", `"arguments":{},"requestState":"` + prompt + `",`},
			{"tools/call", `"arguments":{"n":1,"m":2},"requestState":"` + tool + `",`},
			{"tools/call", `"arguments":{"n":1,"n":1},"requestState":"` + tool + `",`},
			{"tools/call", `"arguments":{"n":1},"requestState":"` + tool[:len(tool)-1] + `",`},
			{"tools/call", `"arguments":{"n":1},"requestState":"` + tool[:12] + `",`},
			{"tools/call", `"arguments":{"n":1},"requestState":"` + strings.Repeat("A", 100_000) + `.` + strings.Repeat("A", 43) + `",`},
			{"tools/call", `"arguments":{"n":1},"requestState":"` + strings.Repeat(".", 1000) + `",`},
			{"tools/call", `"arguments":{"n":1},"requestState":null,`},
		} {
			assert.Equal(t, refused, send(c.method, c.params), "%s %s", c.method, jsonx.Shorten(c.params, 80))
		}
		time.Sleep(mcp.InputStateTTL)
		assert.Equal(t, `{"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"tool got tool state"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"r","version":"1"}}},"id":1}`+"\n",
			send("tools/call", `"arguments":{"n":1},"requestState":"`+tool+`",`))
		time.Sleep(time.Second)
		assert.Equal(t, refused, send("tools/call", `"arguments":{"n":1},"requestState":"`+tool+`",`))
		assert.Equal(t, refused, send("prompts/get", `"requestState":"`+prompt+`",`))
	})
}

// A retry's inputResponses: unknown keys are ignored; a key given twice
// is its last value (as encoding/json and the codec both read it); a
// member not an object, or inputResponses null, is -32602; a huge answer
// is read as any other.
func TestAttackInputResponses(t *testing.T) {
	const key = `"sampling-2a5d62d36af8ea92"`
	const ok = `{"role":"assistant","content":{"type":"text","text":"hello"},"model":"m2"}`
	retry := func(responses string) string {
		return `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{"prompt":"hi"},"inputResponses":` + responses + `,"_meta":{` + askMeta + `}}}`
	}
	answered := func(text string, isError bool) string {
		e := ""
		if isError {
			e = `,"isError":true`
		}
		return `{"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":` + quote(text) + `}]` + e + `,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"ask","version":"1"}}},"id":2}`
	}
	refused := `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"inputResponses","rule":"type","param":"object","message":"inputResponses must be an object whose every member is an object: the client's result for each request"}]},"id":2}`
	huge := strings.Repeat("h", 200_000)
	for _, c := range []struct{ name, responses, want string }{
		{"unknown keys", `{"x":{},` + key + `:` + ok + `,"y":{"z":1}}`, answered("m2 says hello", false)},
		{"twice, the last", `{` + key + `:{"action":"accept"},` + key + `:` + ok + `}`, answered("m2 says hello", false)},
		{"twice, the last wrong", `{` + key + `:` + ok + `,` + key + `:{"action":"accept"}}`, answered("mcp: the client's answer to sampling/createMessage is not the result of one", true)},
		{"a string", `{` + key + `:"hello"}`, refused},
		{"null member", `{` + key + `:null}`, refused},
		{"null", `null`, refused},
		{"an array", `[` + ok + `]`, refused},
		{"huge", `{` + key + `:{"role":"assistant","content":{"type":"text","text":"` + huge + `"},"model":"m"}}`, answered("m says "+huge, false)},
	} {
		t.Run(c.name, func(t *testing.T) {
			wiretest.Serve(t, newAskers(t).Handler(), "--> "+retry(c.responses)+"\n<-- "+c.want+"\n", nil)
		})
	}
}

// Any answer a client gives to a tool's question, in a retry's
// inputResponses, is a result or an error of the call, never a panic: the
// shape checks of CreateMessage and Elicit.
func FuzzAskAnswer(f *testing.F) {
	for _, seed := range []string{
		`{"role":"assistant","content":{"type":"text","text":"hello"},"model":"m2"}`,
		`{"role":"assistant","content":[],"model":""}`,
		`{"action":"accept","content":{"name":"Bo","tags":["x"],"age":-1e3,"ok":true}}`,
		`{"action":"accept","content":{"name":null}}`,
		`{"action":"decline","content":null}`,
		`{"action":"cancel","content":{"tags":[1]}}`,
	} {
		f.Add(seed)
	}
	s := mcp.New(&mcp.Options{Name: "ask", Version: "1"})
	require.NoError(f, s.Register("", askers{}))
	f.Fuzz(func(t *testing.T, answer string) {
		if !json.Valid([]byte(answer)) || strings.ContainsAny(answer, "\n\r") {
			return
		}
		p := wiretest.NewPipe(s.Handler(), nil)
		defer p.Close(t)
		for _, q := range []string{`"sample","arguments":{"prompt":"hi"},"inputResponses":{"sampling-2a5d62d36af8ea92":`, `"form","inputResponses":{"elicitation-c73a626ee871f2b2":`} {
			require.NoError(t, p.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":`+q+answer+`},"_meta":{`+askMeta+`}}}`+"\n")))
			line, err := p.ReadLine()
			require.NoError(t, err)
			require.True(t, json.Valid(line), "%s", line)
			require.NotContains(t, string(line), "input_required", "the answer's key")
		}
	})
}
