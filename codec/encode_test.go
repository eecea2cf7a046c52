package codec

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		{"raw invalid", `1`, json.RawMessage(`{"a":}`), ``, errInvalidJSON},
		{"raw two values", `1`, json.RawMessage(`1 2`), ``, errInvalidJSON},
		{"raw empty", `1`, json.RawMessage(``), ``, errInvalidJSON},
		{"raw nil", `1`, json.RawMessage(nil), `{"jsonrpc":"2.0","result":null,"id":1}`, nil},
		{"raw invalid utf-8", `1`, json.RawMessage("\"\xff\""), ``, errInvalidJSON},
		{"marshaler compacted", `1`, spaced{}, `{"jsonrpc":"2.0","result":{"a":[1,2]},"id":1}`, nil},
		{"marshaler invalid utf-8", `1`, badUTF8{}, ``, errInvalidJSON},
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
		{"spec parse error", ``, NewError(ParseError, ""), `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`},
		{"spec method not found", `"1"`, NewError(MethodNotFound, ""), `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"1"}`},
		{"data", `7`, NewError(InvalidParams, "").WithData([]map[string]string{{"field": "b", "rule": "ne", "param": "0"}}),
			`{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"b","param":"0","rule":"ne"}]},"id":7}`},
		{"invalid request with its reason", `7`, InvalidRequestError("params must be an object or an array"),
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"params must be an object or an array"}},"id":7}`},
		{"raw data", `7`, &Error{Code: 42, Message: "m\n\"q\"", Data: json.RawMessage(` [ 1 ] `)},
			`{"jsonrpc":"2.0","error":{"code":42,"message":"m\n\"q\"","data":[1]},"id":7}`},
		{"internal error with its exception", `7`, InternalErrorFor("*fs.PathError", `open "a<b>&c": no such file`),
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

// InternalErrorFor's data encodes byte for byte as the two forms it
// replaced did: the map of AppendErrorResponse and the struct of package
// rpc, whatever the text holds (escapes, HTML, U+2028, invalid UTF-8).
func TestInternalErrorForEncodesAsBefore(t *testing.T) {
	type exception struct {
		Exception string `json:"exception"`
		Message   string `json:"message"`
	}
	for _, text := range []string{"", "plain", "a<b>&c", "q\"\\", "\b\f\n\r\t\x00\x1f", "\u2028\u2029", "\xff\xfe", "é😀"} {
		got, err := AppendErrorResponse(nil, []byte("1"), InternalErrorFor(text, text))
		require.NoError(t, err)
		asMap, err := AppendErrorResponse(nil, []byte("1"), NewError(InternalError, "").
			WithData(map[string]string{"exception": text, "message": text}))
		require.NoError(t, err)
		asStruct, err := AppendErrorResponse(nil, []byte("1"), NewError(InternalError, "").
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

// viaEncodingJSON is what encoding/json makes of s on a round trip: each
// invalid UTF-8 byte becomes U+FFFD.
func viaEncodingJSON(t *testing.T, s string) string {
	b, err := json.Marshal(s)
	require.NoError(t, err)
	var back string
	require.NoError(t, json.Unmarshal(b, &back))
	return back
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "q\"b\\s", "\x00\x01\x1f\x7f", "\n\r\t\b\f", "é☃😀", "\u2028\u2029", "a\xffb\xc3", "<>&"} {
		got := AppendString(nil, s)
		assert.True(t, utf8.Valid(got))
		var back string
		require.NoError(t, json.Unmarshal(got, &back), "%q", got)
		assert.Equal(t, viaEncodingJSON(t, s), back)
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("a\"b\x00\u2028\xff")
	f.Add("0123456789abcdef\"0123456789abcdef\x00\u2028\xff0123456789abcdef\\0123456")
	f.Fuzz(func(t *testing.T, s string) {
		got := AppendString(nil, s)
		if !validJSON(got) {
			t.Fatalf("AppendString(%q) = %q, not valid JSON", s, got)
		}
		if n := stringBodyLen(s); n != len(got)-2 {
			t.Fatalf("stringBodyLen(%q) = %d, want %d", s, n, len(got)-2)
		}
		var back string
		require.NoError(t, json.Unmarshal(got, &back))
		if want := viaEncodingJSON(t, s); back != want {
			t.Fatalf("AppendString(%q) decodes to %q, want %q", s, back, want)
		}
	})
}

func FuzzAppendCompact(f *testing.F) {
	for _, c := range jsonSeeds {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := appendCompact(nil, raw)
		if (err == nil) != validJSON(raw) {
			t.Fatalf("appendCompact(%q) error %v, reference valid=%v", raw, err, validJSON(raw))
		}
		if err != nil {
			return
		}
		var want bytes.Buffer
		require.NoError(t, json.Compact(&want, raw))
		if string(got) != want.String() {
			t.Fatalf("appendCompact(%q) = %q, json.Compact gives %q", raw, got, want.String())
		}
	})
}

// appender appends its text as it is.
type appender string

func (a appender) AppendJSON(dst []byte) ([]byte, error) { return append(dst, a...), nil }

func TestAppendValueAppender(t *testing.T) {
	tests := []struct {
		a    appender
		want string
		err  error
	}{
		{`[{"a":"b"}]`, `x[{"a":"b"}]`, nil},
		{`[1,`, `x`, errInvalidJSON},
		{"[1,\n2]", `x`, errInvalidJSON},
		{"\"\xff\"", `x`, errInvalidJSON},
		{`1 2`, `x`, errInvalidJSON},
	}
	for _, tt := range tests {
		got, err := AppendValue([]byte("x"), tt.a)
		assert.ErrorIs(t, err, tt.err, "%q", tt.a)
		assert.Equal(t, tt.want, string(got), "%q", tt.a)
	}
}

// NewStringIn takes what around a string makes one JSON value on one
// line, in which the string is a value of its own; AppendResponse then
// writes the text escaped in place.
func TestStringIn(t *testing.T) {
	tests := []struct {
		name                string
		before, text, after string
		want                string // the response to id 1; "" for errInvalidJSON
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
			v, err := NewStringIn(tt.before, tt.text, tt.after)
			if tt.want == "" {
				assert.ErrorIs(t, err, errInvalidJSON)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.text, v.Text())
			got, err := AppendResponse(nil, []byte("1"), v)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
			got, err = AppendResponse(nil, []byte("1"), v.WithText("y"))
			require.NoError(t, err)
			assert.Equal(t, strings.Replace(tt.want, string(AppendString(nil, tt.text)), `"y"`, 1), string(got))
		})
	}
	got, err := AppendResponse(nil, []byte("1"), StringIn{})
	require.NoError(t, err)
	assert.Equal(t, `{"jsonrpc":"2.0","result":"","id":1}`, string(got), "the zero StringIn")
}

// A StringIn that NewStringIn makes is valid JSON with no line break,
// whatever its text: the text is a string of its own.
func FuzzStringIn(f *testing.F) {
	f.Add(`{"content":[{"type":"text","text":`, "a\"b\n\xff", `}]}`)
	f.Add(`["a\`, "x", `"]`)
	f.Add(`{`, "k", `:1}`)
	f.Fuzz(func(t *testing.T, before, text, after string) {
		v, err := NewStringIn(before, text, after)
		if err != nil {
			return
		}
		got, err := AppendValue(nil, v)
		require.NoError(t, err)
		if !validJSON(got) || bytes.ContainsAny(got, "\r\n") {
			t.Fatalf("AppendValue(%q, %q, %q) = %q: not one valid JSON value on one line", before, text, after, got)
		}
		require.Equal(t, before+string(AppendString(nil, text))+after, string(got))
	})
}

// float64 values are written as encoding/json writes them.
func FuzzAppendFloat64(f *testing.F) {
	for _, v := range []float64{0, math.Copysign(0, -1), 1, -1, 42, 0.1, 1e-6, 9.99e-7, 1e-7, 1.5e-300, 1e20, 1e21, 123456789e13,
		math.MaxFloat64, math.SmallestNonzeroFloat64, math.Inf(1), math.Inf(-1), math.NaN()} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) {
		got, err := AppendValue([]byte("x"), v)
		want, wantErr := json.Marshal(v)
		if wantErr != nil {
			require.Error(t, err, "%v", v)
			return
		}
		require.NoError(t, err)
		require.Equal(t, "x"+string(want), string(got), "%v", v)
	})
}
