package codec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// describe renders a message in one line, for tables.
func describe(m Message) string {
	var b strings.Builder
	b.WriteString(m.Kind.String())
	field := func(name string, v []byte) {
		if v != nil {
			fmt.Fprintf(&b, " %s=%s", name, v)
		}
	}
	field("id", m.ID)
	field("method", m.Method)
	field("params", m.Params)
	field("meta", m.Meta)
	field("result", m.Result)
	field("error", m.Error)
	if m.Err != nil {
		fmt.Fprintf(&b, " err=%d", m.Err.Code)
		if m.Err.Message != m.Err.Code.String() {
			fmt.Fprintf(&b, " %q", m.Err.Message)
		}
		if d, ok := m.Err.Data.(InvalidRequestData); ok {
			fmt.Fprintf(&b, " (%s)", d.Reason)
		}
	}
	return b.String()
}

func decodeAll(d *Decoder, frame string) (out []string, batch bool) {
	msgs, batch := d.Decode([]byte(frame))
	for _, m := range msgs {
		out = append(out, describe(m))
	}
	return out, batch
}

func TestDecodeSingle(t *testing.T) {
	tests := []struct{ in, want string }{
		// Requests and notifications.
		{`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`, `request id=1 method=subtract params=[42,23]`},
		{`{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}`, `request id=3 method=subtract params={"subtrahend": 23, "minuend": 42}`},
		{`{"jsonrpc":"2.0","method":"update","params":[1,2,3,4,5]}`, `notification method=update params=[1,2,3,4,5]`},
		{`{"jsonrpc":"2.0","method":"foobar"}`, `notification method=foobar`},
		{`{"id":null,"method":"m","jsonrpc":"2.0"}`, `request id=null method=m`},
		{`{"jsonrpc":"2.0","method":"m","id":0}`, `request id=0 method=m`},
		{`{"jsonrpc":"2.0","method":"m","id":""}`, `request id="" method=m`},
		{`{"jsonrpc":"2.0","method":"m","id":12345678901234567890}`, `request id=12345678901234567890 method=m`},
		{`{"jsonrpc":"2.0","method":"m","id":1.0}`, `request id=1.0 method=m`},
		{`{"jsonrpc":"2.0","method":"m","id":-1e400}`, `request id=-1e400 method=m`},
		{`{"jsonrpc":"2.0","method":"m","id":"é\"\u00e9"}`, `request id="é\"\u00e9" method=m`},
		{`{"jsonrpc":"2.0","method":"","id":1}`, `request id=1 method=`},
		{`{"jsonrpc":"2.0","method":"a\u002fb","id":1}`, `request id=1 method=a/b`},
		{`{"jsonrpc":"2\u002e0","method":"m","id":1}`, `request id=1 method=m`},
		{`{"\u006aSONrpc":"2.0","method":"m","id":1}`, `invalid id=1 err=-32600 (jsonrpc must be the string 2.0)`},
		{`{"j\u0073onrpc":"2.0","method":"m","id":1}`, `request id=1 method=m`},
		{`{"jsonrpc":"2.0","method":"m","params":{},"id":1}`, `request id=1 method=m params={}`},
		{`{"jsonrpc":"2.0","method":"m","params":[],"id":1}`, `request id=1 method=m params=[]`},
		{`{"jsonrpc":"2.0","method":"m","params":{"a":1,"_meta":{"progressToken":"t"}},"id":1}`, `request id=1 method=m params={"a":1,"_meta":{"progressToken":"t"}} meta={"progressToken":"t"}`},
		{`{"jsonrpc":"2.0","method":"m","params":{"\u005fmeta":7},"id":1}`, `request id=1 method=m params={"\u005fmeta":7} meta=7`},
		{`{"jsonrpc":"2.0","method":"m","params":{"x":{"_meta":1}},"id":1}`, `request id=1 method=m params={"x":{"_meta":1}}`},
		{`{"jsonrpc":"2.0","method":"m","params":[{"_meta":1}],"id":1}`, `request id=1 method=m params=[{"_meta":1}]`},
		{"\t {\"jsonrpc\":\"2.0\",\"method\":\"m\",\"id\":1} \r", `request id=1 method=m`},

		// Invalid requests: answered -32600, with the id when it is valid.
		{`{"jsonrpc":"2.0","method":1,"params":"bar"}`, `invalid err=-32600 (method must be a string)`},
		{`{"jsonrpc":"2.0","method":1,"id":7}`, `invalid id=7 err=-32600 (method must be a string)`},
		{`{"jsonrpc":"2.0","params":[1],"id":7}`, `invalid id=7 err=-32600 (method is required)`},
		{`{"jsonrpc":"2.0","id":7}`, `invalid id=7 err=-32600 (method is required)`},
		{`{"method":"m","id":7}`, `invalid id=7 err=-32600 (jsonrpc must be the string 2.0)`},
		{`{"jsonrpc":"1.0","method":"m","id":7}`, `invalid id=7 err=-32600 (jsonrpc must be the string 2.0)`},
		{`{"jsonrpc":2.0,"method":"m","id":7}`, `invalid id=7 err=-32600 (jsonrpc must be the string 2.0)`},
		{`{"jsonrpc":"2.0 ","method":"m","id":7}`, `invalid id=7 err=-32600 (jsonrpc must be the string 2.0)`},
		{`{"jsonrpc":null,"method":"m","id":7}`, `invalid id=7 err=-32600 (jsonrpc must be the string 2.0)`},
		{`{"jsonrpc":"2.0","method":"m","params":"bar","id":7}`, `invalid id=7 err=-32600 (params must be an object or an array)`},
		{`{"jsonrpc":"2.0","method":"m","params":1,"id":7}`, `invalid id=7 err=-32600 (params must be an object or an array)`},
		{`{"jsonrpc":"2.0","method":"m","params":null,"id":7}`, `invalid id=7 err=-32600 (params must be an object or an array)`},
		{`{"jsonrpc":"2.0","method":"m","params":true,"id":7}`, `invalid id=7 err=-32600 (params must be an object or an array)`},
		{`{"jsonrpc":"2.0","method":"m","id":{}}`, `invalid err=-32600 (id must be a string, a number or null)`},
		{`{"jsonrpc":"2.0","method":"m","id":[1]}`, `invalid err=-32600 (id must be a string, a number or null)`},
		{`{"jsonrpc":"2.0","method":"m","id":true}`, `invalid err=-32600 (id must be a string, a number or null)`},
		{`{"jsonrpc":"2.0","method":"m","id":7,"extra":1}`, `invalid id=7 err=-32600 (a request has no members but jsonrpc, method, params and id)`},
		{`{"jsonrpc":"2.0","method":"m","id":7,"id":8}`, `invalid err=-32600 (id given more than once)`},
		{`{"jsonrpc":"2.0","method":"m","id":{},"id":8}`, `invalid err=-32600 (id given more than once)`},
		{`{"jsonrpc":"2.0","method":"m","id":7,"\u0069d":7}`, `invalid err=-32600 (id given more than once)`},
		{`{"jsonrpc":"2.0","jsonrpc":"2.0","method":"m","id":7}`, `invalid id=7 err=-32600 (jsonrpc given more than once)`},
		{`{"jsonrpc":"2.0","method":"m","params":[],"params":{},"id":7}`, `invalid id=7 err=-32600 (params given more than once)`},
		{`{"jsonrpc":"2.0","method":"m","id":7,"extra":1,"extra":2}`, `invalid id=7 err=-32600 (a request has no members but jsonrpc, method, params and id)`},
		{`{"jsonrpc":"2.0","method":"m","method":"n","id":7}`, `invalid id=7 err=-32600 (method given more than once)`},
		{`{"jsonrpc":"2.0","method":"m","result":1,"id":7}`, `invalid id=7 err=-32600 (a request has no members but jsonrpc, method, params and id)`},
		{`{"jsonrpc":"2.0","method":"m","error":{},"id":7}`, `invalid id=7 err=-32600 (a request has no members but jsonrpc, method, params and id)`},
		{`{}`, `invalid err=-32600 (jsonrpc must be the string 2.0)`},
		{`1`, `invalid err=-32600 (a request must be a JSON object)`},
		{`"x"`, `invalid err=-32600 (a request must be a JSON object)`},
		{`null`, `invalid err=-32600 (a request must be a JSON object)`},
		{`[]`, `invalid err=-32600 (a batch must not be empty)`},
		{` [ ] `, `invalid err=-32600 (a batch must not be empty)`},

		// Not JSON: -32700.
		{`{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]`, `invalid err=-32700`},
		{`{"jsonrpc":"2.0","method":"m","id":1}x`, `invalid err=-32700`},
		{`{"jsonrpc":"2.0","method":"m","id":1} {}`, `invalid err=-32700`},
		{`{"jsonrpc":"2.0","method":"m","id":01}`, `invalid err=-32700`},
		{`{"jsonrpc":"2.0","method":"m","params":[1,],"id":1}`, `invalid err=-32700`},
		{"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\",\"id\":1}", `invalid err=-32700`},
		{"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":[\"\xc3\"],\"id\":1}", `invalid err=-32700`},
		{"\ufeff{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"id\":1}", `invalid err=-32700`},
		{"{\"jsonrpc\":\"2.0\",\"method\":\"m\x00\",\"id\":1}", `invalid err=-32700`},
		{`[}`, `invalid err=-32700`},
		{`[]]`, `invalid err=-32700`},
		{`{`, `invalid err=-32700`},
		{`{"a"`, `invalid err=-32700`},
		{`{"a":1`, `invalid err=-32700`},
		{`{"a":1,`, `invalid err=-32700`},
		{`{"a" 1}`, `invalid err=-32700`},
		{`{1:1}`, `invalid err=-32700`},
		{`x`, `invalid err=-32700`},

		// Responses to our own requests.
		{`{"jsonrpc":"2.0","result":19,"id":1}`, `response id=1 result=19`},
		{`{"jsonrpc":"2.0","result":null,"id":"a"}`, `response id="a" result=null`},
		{`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"1"}`, `response id="1" error={"code":-32601,"message":"Method not found"}`},
		{`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`, `response id=null error={"code":-32700,"message":"Parse error"}`},
		{`{"jsonrpc":"2.0","result":1,"error":{},"id":1}`, `response id=1 result=1 error={} err=-32600 "response has both result and error"`},
		{`{"jsonrpc":"2.0","result":1}`, `response result=1 err=-32600 "response without a valid id"`},
		{`{"jsonrpc":"2.0","result":1,"id":[]}`, `response result=1 err=-32600 "response without a valid id"`},
		{`{"result":1,"id":1}`, `response id=1 result=1 err=-32600 "response without \"jsonrpc\": \"2.0\""`},
		{`{"jsonrpc":"2.0","error":"bad","id":1}`, `response id=1 error="bad" err=-32600 "response error is not an object"`},
		{`{"jsonrpc":"2.0","result":1,"id":1,"x":0}`, `response id=1 result=1 err=-32600 "response has members it must not have"`},
	}
	var d Decoder
	for _, tt := range tests {
		got, batch := decodeAll(&d, tt.in)
		assert.False(t, batch, "%s", tt.in)
		assert.Equal(t, []string{tt.want}, got, "%s", tt.in)
	}
}

func TestDecodeBatch(t *testing.T) {
	tests := []struct {
		in    string
		batch bool
		want  []string
	}{
		{`[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},{"jsonrpc":"2.0","method"]`, false,
			[]string{`invalid err=-32700`}},
		{`[1]`, true, []string{`invalid err=-32600 (a request must be a JSON object)`}},
		{`[1,2,3]`, true, []string{`invalid err=-32600 (a request must be a JSON object)`, `invalid err=-32600 (a request must be a JSON object)`, `invalid err=-32600 (a request must be a JSON object)`}},
		{`[[]]`, true, []string{`invalid err=-32600 (a request must be a JSON object)`}},
		{`[[{"jsonrpc":"2.0","method":"m","id":1}]]`, true, []string{`invalid err=-32600 (a request must be a JSON object)`}},
		{`[{"jsonrpc":"2.0","method":"m","id":1},{"foo":"boo"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","result":1,"id":9}]`, true,
			[]string{`request id=1 method=m`, `invalid err=-32600 (jsonrpc must be the string 2.0)`, `notification method=n`, `response id=9 result=1`}},
		{` [ {"jsonrpc":"2.0","method":"m","id":1} , 2 ] `, true, []string{`request id=1 method=m`, `invalid err=-32600 (a request must be a JSON object)`}},
		{`[{"jsonrpc":"2.0","method":"m","id":1},]`, false, []string{`invalid err=-32700`}},
		{`[{"jsonrpc":"2.0","method":"m","id":1}] x`, false, []string{`invalid err=-32700`}},
		{`[{"jsonrpc":"2.0","method":"m","id":1}`, false, []string{`invalid err=-32700`}},
	}
	var d Decoder
	for _, tt := range tests {
		got, batch := decodeAll(&d, tt.in)
		assert.Equal(t, tt.batch, batch, "%s", tt.in)
		assert.Equal(t, tt.want, got, "%s", tt.in)
	}
}

func TestDecodeLimits(t *testing.T) {
	req := `{"jsonrpc":"2.0","method":"m","id":1}`
	tests := []struct {
		name     string
		maxDepth int
		maxBatch int
		in       string
		want     string
	}{
		{"batch at limit", 0, 3, "[" + strings.Repeat(req+",", 2) + req + "]", ""},
		{"batch over limit", 0, 3, "[" + strings.Repeat(req+",", 3) + req + "]",
			`invalid err=-32600 (batch longer than the limit of 3 entries)`},
		{"batch over limit but broken", 0, 3, "[" + strings.Repeat(req+",", 3) + req, `invalid err=-32700`},
		{"params at depth limit", 3, 0, `{"jsonrpc":"2.0","method":"m","params":[[1]],"id":1}`, ""},
		{"params over depth limit", 3, 0, `{"jsonrpc":"2.0","method":"m","params":[[[1]]],"id":1}`,
			`invalid err=-32600 (nested more than 3 levels deep)`},
		{"object params over depth limit", 3, 0, `{"jsonrpc":"2.0","method":"m","params":{"a":{"b":{}}},"id":1}`,
			`invalid err=-32600 (nested more than 3 levels deep)`},
		{"id over depth limit", 1, 0, `{"jsonrpc":"2.0","method":"m","id":[1]}`,
			`invalid err=-32600 (nested more than 1 levels deep)`},
		{"batch over depth limit", 1, 0, "[" + req + "]", `invalid err=-32600 (nested more than 1 levels deep)`},
		// A response too deep to read still fails the call it answers.
		{"response over depth limit", 3, 0, `{"jsonrpc":"2.0","result":[[[1]]],"id":7}`,
			`response id=7 err=-32600 "response nested more than 3 levels deep"`},
		{"error response over depth limit", 2, 0, `{"id":"a","error":{"code":1,"data":[2]},"jsonrpc":"2.0"}`,
			`response id="a" err=-32600 "response nested more than 2 levels deep"`},
		{"response over depth limit, id invalid", 2, 0, `{"jsonrpc":"2.0","result":[[1]],"id":{}}`,
			`response err=-32600 "response nested more than 2 levels deep"`},
		{"response over depth limit, id twice", 2, 0, `{"jsonrpc":"2.0","result":[[1]],"id":1,"id":2}`,
			`response id=2 err=-32600 "response nested more than 2 levels deep"`},
		{"response over depth limit, broken after", 2, 0, `{"jsonrpc":"2.0","result":[[1]],"id":1`,
			`invalid err=-32600 (nested more than 2 levels deep)`},
		{"response over depth limit, trailing", 2, 0, `{"jsonrpc":"2.0","result":[[1]],"id":1} x`,
			`invalid err=-32600 (nested more than 2 levels deep)`},
		{"response over depth limit, with a method", 2, 0, `{"jsonrpc":"2.0","method":"m","result":[[1]],"id":1}`,
			`invalid err=-32600 (nested more than 2 levels deep)`},
		{"response over depth limit, in a batch", 3, 0, `[{"jsonrpc":"2.0","result":[[1]],"id":1}]`,
			`invalid err=-32600 (nested more than 3 levels deep)`},
		// What a response too deep is told by: the members of its envelope,
		// read as the envelope of any frame is read.
		{"response over depth limit, method escaped", 2, 0, `{"jsonrpc":"2.0","\u006dethod":"m","result":[[1]],"id":1}`,
			`invalid err=-32600 (nested more than 2 levels deep)`},
		{"response over depth limit, method last", 2, 0, `{"result":[[1]],"id":1,"method":"m"}`,
			`invalid err=-32600 (nested more than 2 levels deep)`},
		{"response over depth limit, id escaped", 2, 0, `{"jsonrpc":"2.0","\u0069d":5,"\u0072esult":[[1]]}`,
			`response id=5 err=-32600 "response nested more than 2 levels deep"`},
		{"response over depth limit, deep elsewhere", 2, 0, ` {"jsonrpc":[[1]],"error":{},"x":{"y":[]},"id":"z"} `,
			`response id="z" err=-32600 "response nested more than 2 levels deep"`},
		{"response over depth limit, id deep", 2, 0, `{"jsonrpc":"2.0","result":1,"id":[[1]]}`,
			`response err=-32600 "response nested more than 2 levels deep"`},
		{"response over depth limit, id null", 2, 0, `{"jsonrpc":"2.0","error":{"code":1,"data":[1]},"id":null}`,
			`response id=null err=-32600 "response nested more than 2 levels deep"`},
		{"request over depth limit", 2, 0, `{"jsonrpc":"2.0","method":"m","params":[[1]],"id":1}`,
			`invalid err=-32600 (nested more than 2 levels deep)`},
		{"notification over depth limit", 2, 0, `{"jsonrpc":"2.0","method":"m","params":{"a":[1]}}`,
			`invalid err=-32600 (nested more than 2 levels deep)`},
		{"neither over depth limit", 2, 0, `{"jsonrpc":"2.0","id":1,"x":[[1]]}`,
			`invalid err=-32600 (nested more than 2 levels deep)`},
		{"response over depth limit, broken deep down", 2, 0, `{"jsonrpc":"2.0","result":[[1,]],"id":1}`,
			`invalid err=-32600 (nested more than 2 levels deep)`},
		{"response over depth limit, bad escape deep down", 2, 0, `{"jsonrpc":"2.0","result":[["\x"]],"id":1}`,
			`invalid err=-32600 (nested more than 2 levels deep)`},
		{"response a MiB deep", 0, 0, `{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat("[", 1<<20) + strings.Repeat("]", 1<<20) + `}`,
			`response id=1 err=-32600 "response nested more than 128 levels deep"`},
		{"default depth response", 0, 0, `{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat("[", 128) + strings.Repeat("]", 128) + `}`,
			`response id=1 err=-32600 "response nested more than 128 levels deep"`},
		{"deep scalar batch", 1, 0, `[[1]]`, `invalid err=-32600 (nested more than 1 levels deep)`},
		{"default depth", 0, 0, strings.Repeat("[", 129) + strings.Repeat("]", 129),
			`invalid err=-32600 (nested more than 128 levels deep)`},
		{"default depth ok", 0, 0, `{"jsonrpc":"2.0","method":"m","params":` + strings.Repeat("[", 127) + strings.Repeat("]", 127) + `,"id":1}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Decoder{MaxDepth: tt.maxDepth, MaxBatch: tt.maxBatch}
			got, _ := decodeAll(&d, tt.in)
			if tt.want == "" {
				for _, g := range got {
					assert.NotContains(t, g, "invalid")
				}
				return
			}
			assert.Equal(t, []string{tt.want}, got)
		})
	}
}

func TestDecoderReusesStorage(t *testing.T) {
	var d Decoder
	d.Decode([]byte(`[{"jsonrpc":"2.0","method":"m","id":1},{"jsonrpc":"2.0","method":"m","id":2}]`))
	frame := []byte(`{"jsonrpc":"2.0","method":"m","params":{"a":1,"_meta":{}},"id":1}`)
	allocs := testing.AllocsPerRun(100, func() { d.Decode(frame) })
	assert.Zero(t, allocs)
}
