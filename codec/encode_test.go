package codec

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/jsonx"
)

type badUTF8 struct{}

func (badUTF8) MarshalJSON() ([]byte, error) { return []byte("\"\xff\""), nil }

type spaced struct{}

func (spaced) MarshalJSON() ([]byte, error) { return []byte("{ \"a\" :\n [1, 2] }"), nil }

func TestAppendResponse(t *testing.T) {
	tests := []struct {
		name   string
		id     string
		result any
		want   string
		err    error
	}{
		{"int", `1`, 19, `{"jsonrpc":"2.0","result":19,"id":1}`, nil},
		{"null id", ``, "x", `{"jsonrpc":"2.0","result":"x","id":null}`, nil},
		{"id kept byte for byte", `12345678901234567890`, true, `{"jsonrpc":"2.0","result":true,"id":12345678901234567890}`, nil},
		{"escaped string id", `"\u00e9"`, nil, `{"jsonrpc":"2.0","result":null,"id":"\u00e9"}`, nil},
		{"no html escaping", `1`, "<a&b>", `{"jsonrpc":"2.0","result":"<a&b>","id":1}`, nil},
		{"struct", `1`, struct {
			A int    `json:"a"`
			B string `json:"b,omitempty"`
		}{A: 1}, `{"jsonrpc":"2.0","result":{"a":1},"id":1}`, nil},
		{"slice", `1`, []string{"hello", "5"}, `{"jsonrpc":"2.0","result":["hello","5"],"id":1}`, nil},
		{"raw compacted", `1`, json.RawMessage(" {\"a\" : [1,\n 2], \"b\": \"x y\"}\r\n"), `{"jsonrpc":"2.0","result":{"a":[1,2],"b":"x y"},"id":1}`, nil},
		{"raw invalid", `1`, json.RawMessage(`{"a":}`), ``, jsonx.ErrInvalidJSON},
		{"raw two values", `1`, json.RawMessage(`1 2`), ``, jsonx.ErrInvalidJSON},
		{"raw empty", `1`, json.RawMessage(``), ``, jsonx.ErrInvalidJSON},
		{"raw nil", `1`, json.RawMessage(nil), `{"jsonrpc":"2.0","result":null,"id":1}`, nil},
		{"raw invalid utf-8", `1`, json.RawMessage("\"\xff\""), ``, jsonx.ErrInvalidJSON},
		{"marshaler compacted", `1`, spaced{}, `{"jsonrpc":"2.0","result":{"a":[1,2]},"id":1}`, nil},
		{"marshaler invalid utf-8", `1`, badUTF8{}, ``, jsonx.ErrInvalidJSON},
		{"string invalid utf-8 replaced", `1`, "a\xffb", `{"jsonrpc":"2.0","result":"a\ufffdb","id":1}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var id []byte
			if tt.id != "" {
				id = []byte(tt.id)
			}
			got, err := AppendResponse([]byte("prefix"), id, tt.result)
			if tt.err != nil {
				assert.ErrorIs(t, err, tt.err)
				assert.Equal(t, "prefix", string(got), "nothing appended on error")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "prefix"+tt.want, string(got))
		})
	}
	_, err := AppendResponse(nil, []byte(`1`), make(chan int))
	assert.Error(t, err, "a value encoding/json cannot encode")
}

func TestAppendErrorResponse(t *testing.T) {
	tests := []struct {
		name string
		id   string
		err  *Error
		want string
	}{
		{"spec parse error", ``, errorOf(ParseError), `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`},
		{"spec method not found", `"1"`, errorOf(MethodNotFound), `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"1"}`},
		{"data", `7`, errorOf(InvalidParams).WithData([]map[string]string{{"field": "b", "rule": "ne", "param": "0"}}),
			`{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"b","param":"0","rule":"ne"}]},"id":7}`},
		{"invalid request with its reason", `7`, invalidRequest("params must be an object or an array"),
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"params must be an object or an array"}},"id":7}`},
		{"raw data", `7`, &Error{Code: 42, Message: "m\n\"q\"", Data: json.RawMessage(` [ 1 ] `)},
			`{"jsonrpc":"2.0","error":{"code":42,"message":"m\n\"q\"","data":[1]},"id":7}`},
		{"internal error with its exception", `7`, internalError("*fs.PathError", `open "a<b>&c": no such file`),
			`{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"*fs.PathError","message":"open \"a<b>&c\": no such file"}},"id":7}`},
		{"unencodable data", `7`, &Error{Code: 42, Message: "m", Data: make(chan int)},
			`{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"codec.dataError","message":"codec: error data: json: unsupported type: chan int"}},"id":7}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var id []byte
			if tt.id != "" {
				id = []byte(tt.id)
			}
			got, _ := AppendErrorResponse(nil, id, tt.err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}

// internalError's data encodes byte for byte as the two forms it
// replaced did: the map of AppendErrorResponse and the struct of package
// rpc, whatever the text holds (escapes, HTML, U+2028, invalid UTF-8).
func TestInternalErrorEncodesAsBefore(t *testing.T) {
	type exception struct {
		Exception string `json:"exception"`
		Message   string `json:"message"`
	}
	for _, text := range []string{"", "plain", "a<b>&c", "q\"\\", "\b\f\n\r\t\x00\x1f", "\u2028\u2029", "\xff\xfe", "é😀"} {
		got, err := AppendErrorResponse(nil, []byte("1"), internalError(text, text))
		require.NoError(t, err)
		asMap, err := AppendErrorResponse(nil, []byte("1"), errorOf(InternalError).
			WithData(map[string]string{"exception": text, "message": text}))
		require.NoError(t, err)
		asStruct, err := AppendErrorResponse(nil, []byte("1"), errorOf(InternalError).
			WithData(exception{Exception: text, Message: text}))
		require.NoError(t, err)
		assert.Equal(t, string(asMap), string(got), "%q", text)
		assert.Equal(t, string(asStruct), string(got), "%q", text)
	}
}

func TestAppendRequest(t *testing.T) {
	tests := []struct {
		id     string
		method string
		params any
		want   string
		fails  bool
	}{
		{`1`, "subtract", []int{42, 23}, `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`, false},
		{``, "update", []int{1, 2}, `{"jsonrpc":"2.0","method":"update","params":[1,2]}`, false},
		{``, "foobar", nil, `{"jsonrpc":"2.0","method":"foobar"}`, false},
		{`"a"`, "m", json.RawMessage(`null`), `{"jsonrpc":"2.0","method":"m","id":"a"}`, false},
		{`1`, "m", map[string]int{"a": 1}, `{"jsonrpc":"2.0","method":"m","params":{"a":1},"id":1}`, false},
		{`1`, "m", 5, ``, true},
		{`1`, "m", "x", ``, true},
	}
	for _, tt := range tests {
		var id []byte
		if tt.id != "" {
			id = []byte(tt.id)
		}
		got, err := AppendRequest(nil, id, tt.method, tt.params)
		if tt.fails {
			assert.Error(t, err)
			assert.Empty(t, got)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tt.want, string(got))
	}
}

// NewStringIn takes what around a string makes one JSON value on one
// line, in which the string is a value of its own; AppendResponse then
// writes the text escaped in place.
func TestStringIn(t *testing.T) {
	tests := []struct {
		name                string
		before, text, after string
		want                string // the response to id 1; "" for jsonx.ErrInvalidJSON
	}{
		{"text block", `{"content":[{"type":"text","text":`, "a\"b\n\xff\u2028", `}]}`,
			`{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"a\"b\n\ufffd\u2028"}]},"id":1}`},
		{"text alone", ``, "x", ``, `{"jsonrpc":"2.0","result":"x","id":1}`},
		{"long plain text", `[`, strings.Repeat("abcdefgh", 100) + "\x01", `]`,
			`{"jsonrpc":"2.0","result":["` + strings.Repeat("abcdefgh", 100) + `\u0001"],"id":1}`},
		{"around a key", `{`, "k", `:1}`, `{"jsonrpc":"2.0","result":{"k":1},"id":1}`},
		{"not one value", `{"a":`, "x", `} 2`, ""},
		{"a line break", "{\"a\":", "x", "\n}", ""},
		{"a carriage return", "{\"a\":\r", "x", "}", ""},
		{"invalid", `{"a"`, "x", `}`, ""},
		// ["a\ then "" is valid JSON, but the text would not be a string of its own.
		{"inside a string", `["a\`, "x", `"]`, ""},
		{"after a string", `["a`, "x", `b"]`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := jsonx.NewStringIn(tt.before, tt.text, tt.after)
			if tt.want == "" {
				assert.ErrorIs(t, err, jsonx.ErrInvalidJSON)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.text, v.Text())
			got, err := AppendResponse(nil, []byte("1"), v)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
			got, err = AppendResponse(nil, []byte("1"), v.WithText("y"))
			require.NoError(t, err)
			assert.Equal(t, strings.Replace(tt.want, string(jsonx.AppendString(nil, tt.text)), `"y"`, 1), string(got))
		})
	}
	got, err := AppendResponse(nil, []byte("1"), jsonx.StringIn{})
	require.NoError(t, err)
	assert.Equal(t, `{"jsonrpc":"2.0","result":"","id":1}`, string(got), "the zero StringIn")
}
