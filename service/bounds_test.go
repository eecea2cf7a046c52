package service_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// Stock takes a params array of structs, each validated.
type Stock struct{}

func (Stock) Restock(items []Item) int { return len(items) }

// invalid is the line that answers id with InvalidParams and the entries.
func invalid(id int, entries ...string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[%s]},"id":%d}`,
		strings.Join(entries, ","), id)
}

// entry is one FieldError as written, its texts already escaped for JSON.
func entry(field, rule, param, message string) string {
	if param != "" {
		param = `,"param":"` + param + `"`
	}
	return `{"field":"` + field + `","rule":"` + rule + `"` + param + `,"message":"` + message + `"}`
}

// elems is n copies of elem, comma-separated.
func elems(elem string, n int) string {
	return strings.TrimSuffix(strings.Repeat(elem+",", n), ",")
}

// failing is the entries for the elements [from, to) of a list, each of
// whose qty fails gte=1.
func failing(prefix string, from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		f := fmt.Sprintf("%s[%d].qty", prefix, i)
		out = append(out, entry(f, "gte", "1", f+" must be at least 1"))
	}
	return out
}

// An answer costs a bounded amount whatever the params: at most
// MaxFieldErrors entries and one that counts the rest, and what the peer
// sent repeated at most codec.MaxEcho bytes at a time, quoted once.
func TestInvalidParamsAreBounded(t *testing.T) {
	x256 := strings.Repeat("x", codec.MaxEcho)
	long := x256 + strings.Repeat("y", 44) // 300 bytes
	snowmen := strings.Repeat("☃", 100)    // 300 bytes; the cut falls inside the 86th
	digits := "1" + strings.Repeat("0", 400)
	tests := []struct{ name, in, want string }{
		{"an unknown member's name, shortened", fmt.Sprintf(`{"%s.":1}`, long),
			invalid(1, entry(`[\"`+x256+`…(301 bytes)\"]`, "unknown", "", `unknown field \"`+x256+`…(301 bytes)\"`))},
		{"a name is cut before a character, never inside one", fmt.Sprintf(`{"%s":1}`, snowmen),
			invalid(1, entry(strings.Repeat("☃", 85)+"…(300 bytes)", "unknown", "", `unknown field \"`+strings.Repeat("☃", 85)+`…(300 bytes)\"`))},
		{"a name is quoted once, as JSON", `{"a\u007f\"b.":1}`,
			invalid(1, entry("[\\\"a\x7f\\\\\\\"b.\\\"]", "unknown", "", "unknown field \\\"a\x7f\\\\\\\"b.\\\"")),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wiretest.Serve(t, newShapes(t, nil), `
				--> {"jsonrpc":"2.0","method":"add","params":`+tt.in+`,"id":1}
				<-- `+tt.want, nil)
		})
	}

	t.Run("a duplicate key, a value, a number", func(t *testing.T) {
		wiretest.Serve(t, newShapes(t, nil), `
			--> {"jsonrpc":"2.0","method":"count","params":{"`+long+`":1,"`+long+`":2},"id":1}
			<-- `+invalid(1, entry(`[\"`+x256+`…(300 bytes)\"]`, "duplicate", "", `member \"`+x256+`…(300 bytes)\" given more than once`))+`
			--> {"jsonrpc":"2.0","method":"sizes","params":{"n":`+digits+`},"id":2}
			<-- `+invalid(2, entry("n", "range", "int8", digits[:codec.MaxEcho]+"…(401 bytes) does not fit in int8"))+`
			--> {"jsonrpc":"2.0","method":"sum","params":[`+digits+`.5],"id":3}
			<-- `+invalid(3, entry("[0]", "type", "integer", "expected an integer, got "+digits[:codec.MaxEcho]+"…(403 bytes)")), nil)
	})

	t.Run("a path is at most MaxFieldText bytes", func(t *testing.T) {
		// [{"a…a":{"a…a":…{"k":1,"k":2}}}]: six keys of 200 bytes, then the duplicate.
		key := strings.Repeat("a", 200)
		in := strings.Repeat(`{"`+key+`":`, 6) + `{"k":1,"k":2}` + strings.Repeat("}", 6)
		path := "[0]" + strings.Repeat(`["`+key+`"]`, 6) + `["k"]`
		require.Len(t, path, 1232)
		field := strings.ReplaceAll(path[:service.MaxFieldText], `"`, `\"`) + "…(1232 bytes)"
		wiretest.Serve(t, newShapes(t, nil), `
			--> {"jsonrpc":"2.0","method":"any","params":[`+in+`],"id":1}
			<-- `+invalid(1, entry(field, "duplicate", "", `member \"k\" given more than once`)), nil)
	})

	t.Run("at most MaxFieldErrors entries, then one that counts the rest", func(t *testing.T) {
		svc := service.New(nil)
		require.NoError(t, svc.Register("", Stock{}))
		bad := `{"sku":"a","qty":0}`
		more := func(n int) string {
			s := strconv.Itoa(n)
			noun := "problems"
			if n == 1 {
				noun = "problem"
			}
			return entry("", "more", s, s+" more "+noun+" not listed")
		}
		wiretest.Serve(t, svc, `
			--> {"jsonrpc":"2.0","method":"restock","params":[`+elems(bad, 100)+`],"id":1}
			<-- `+invalid(1, failing("", 0, 100)...)+`
			--> {"jsonrpc":"2.0","method":"restock","params":[`+elems(bad, 101)+`],"id":2}
			<-- `+invalid(2, append(failing("", 0, 100), more(1))...)+`
			--> {"jsonrpc":"2.0","method":"restock","params":[`+elems(bad, 150)+`],"id":3}
			<-- `+invalid(3, append(failing("", 0, 100), more(50))...), nil)
		// The same within one struct: the validator's list is cut too.
		wiretest.Serve(t, newShapes(t, nil), `
			--> {"jsonrpc":"2.0","method":"place","params":{"customer":"ann","items":[`+elems(bad, 150)+`]},"id":1}
			<-- `+invalid(1, append(failing("items", 0, 100), more(50))...), nil)
	})
}

// FieldErrors encode as encoding/json would encode them.
func TestFieldErrorsAppendJSON(t *testing.T) {
	list := service.FieldErrors{
		{Field: `tags["a.b"]`, Rule: "max", Param: "3", Message: "<a & b> \x7f é"},
		{Field: "", Rule: "count", Message: "expected 1 positional param, got 0"},
		nil,
	}
	got, err := list.AppendJSON([]byte("x"))
	require.NoError(t, err)
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode([]*service.FieldError(list)))
	assert.Equal(t, "x"+strings.TrimSuffix(want.String(), "\n"), string(got))
	got, err = service.FieldErrors(nil).AppendJSON(nil)
	require.NoError(t, err)
	assert.Equal(t, "null", string(got), "as encoding/json has a nil slice")
}

// The data of an InvalidParams error is FieldErrors, for a Go caller too.
func TestInvalidParamsData(t *testing.T) {
	req := &rpc.Request{ID: json.RawMessage(`1`), Method: "quotient", Params: json.RawMessage(`{"a":1,"b":0}`)}
	_, err := newShapes(t, nil).Handle(context.Background(), req)
	var e *codec.Error
	require.ErrorAs(t, err, &e)
	list, ok := e.Data.(service.FieldErrors)
	require.True(t, ok, "%T", e.Data)
	require.Len(t, list, 1)
	assert.Equal(t, "b must not be 0", list[0].Message)
}
