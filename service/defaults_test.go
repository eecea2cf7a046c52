package service_test

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/service"
)

// Query is the params of Lister.List: every member but q has a default.
type Query struct {
	Q      string         `json:"q"`
	Limit  int            `json:"limit" default:"10" validate:"min=1,max=100"`
	Order  string         `json:"order" default:"\"asc\"" validate:"oneof=asc desc"`
	Fields []string       `json:"fields" default:"[\"id\", \"name\"]"`
	Ratio  *float64       `json:"ratio" default:"0.5"`
	Page   *QueryPage     `json:"page"`
	Extra  map[string]int `json:"extra" default:"{\"a\":1}"`
}

// QueryPage is nested in a Query: its default applies when the page is
// given without it.
type QueryPage struct {
	Size int `json:"size" default:"20"`
	From int `json:"from"`
}

// Lister echoes its params, and changes what it was given (the defaults
// of the next call must not see it).
type Lister struct{}

// List returns q as it came, then scribbles on it.
func (Lister) List(q Query) Query {
	out := q
	out.Fields = slices.Clone(q.Fields)
	if q.Ratio != nil {
		r := *q.Ratio
		out.Ratio = &r
		*q.Ratio = 99
	}
	if q.Extra != nil {
		out.Extra = maps.Clone(q.Extra)
		q.Extra["b"] = 2
	}
	if len(q.Fields) > 0 {
		q.Fields[0] = "scribbled"
	}
	return out
}

// An absent member gets its default; a given one overrides it; null is a
// value (nil for a pointer), not an absence; a nested object given gets
// its defaults, an absent one is not made up; absent params are {}; a call
// that changes the values it was given does not change the defaults of
// the next one.
func TestDefaultsApplied(t *testing.T) {
	svc := service.New(nil)
	require.NoError(t, svc.Register("", Lister{}))
	all := `"limit":10,"order":"asc","fields":["id","name"],"ratio":0.5,"page":null,"extra":{"a":1}`
	wiretest.Serve(t, svc, `
		--> {"jsonrpc":"2.0","method":"list","params":{"q":"x"},"id":1}
		<-- {"jsonrpc":"2.0","result":{"q":"x",`+all+`},"id":1}
		--> {"jsonrpc":"2.0","method":"list","params":{"q":"x"},"id":2}
		<-- {"jsonrpc":"2.0","result":{"q":"x",`+all+`},"id":2}
		--> {"jsonrpc":"2.0","method":"list","id":3}
		<-- {"jsonrpc":"2.0","result":{"q":"",`+all+`},"id":3}
		--> {"jsonrpc":"2.0","method":"list","params":{},"id":4}
		<-- {"jsonrpc":"2.0","result":{"q":"",`+all+`},"id":4}
		--> {"jsonrpc":"2.0","method":"list","params":{"limit":3,"order":"desc","fields":[],"ratio":null,"extra":{}},"id":5}
		<-- {"jsonrpc":"2.0","result":{"q":"","limit":3,"order":"desc","fields":[],"ratio":null,"page":null,"extra":{}},"id":5}
		--> {"jsonrpc":"2.0","method":"list","params":{"page":{"from":40}},"id":6}
		<-- {"jsonrpc":"2.0","result":{"q":"",`+strings.Replace(all, `"page":null`, `"page":{"size":20,"from":40}`, 1)+`},"id":6}
		--> {"jsonrpc":"2.0","method":"list","params":{"page":{"size":5}},"id":7}
		<-- {"jsonrpc":"2.0","result":{"q":"",`+strings.Replace(all, `"page":null`, `"page":{"size":5,"from":0}`, 1)+`},"id":7}
		--> {"jsonrpc":"2.0","method":"list","params":{"q":"x"},"id":8}
		<-- {"jsonrpc":"2.0","result":{"q":"x",`+all+`},"id":8}
	`, nil)
}

// A member's problem leaves the defaults of the absent members applied:
// their validation sees the default, so the answer lists the one problem
// the client made, not a "oneof" for an order it never sent (the schema
// agreement test found it: a 2^63 limit was answered with two problems).
func TestDefaultsAppliedBesideAProblem(t *testing.T) {
	svc := service.New(nil)
	require.NoError(t, svc.Register("", Lister{}))
	wiretest.Serve(t, svc, `
		--> {"jsonrpc":"2.0","method":"list","params":{"limit":9223372036854775808},"id":1}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"limit","rule":"range","param":"int","message":"9223372036854775808 does not fit in int"}]},"id":1}
		--> {"jsonrpc":"2.0","method":"list","params":{"q":7},"id":2}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"q","rule":"type","param":"string","message":"expected a string, got a number"}]},"id":2}
	`, nil)
}

// Params by position are unchanged: one element per field, exactly; a
// missing one is not defaulted.
func TestDefaultsPositional(t *testing.T) {
	svc := service.New(nil)
	require.NoError(t, svc.Register("", Lister{}))
	wiretest.Serve(t, svc, `
		--> {"jsonrpc":"2.0","method":"list","params":["x",3,"desc",[],null,{},{}],"id":1}
		<-- {"jsonrpc":"2.0","result":{"q":"x","limit":3,"order":"desc","fields":[],"ratio":null,"page":{"size":20,"from":0},"extra":{}},"id":1}
		--> {"jsonrpc":"2.0","method":"list","params":["x"],"id":2}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"","rule":"count","param":"7","message":"expected 7 positional params, got 1"}]},"id":2}
	`, nil)
}

type badJSON struct {
	N int `json:"n" default:"1x"`
}
type wrongType struct {
	N int `json:"n" default:"\"ten\""`
}
type failsValidate struct {
	N int `json:"n" default:"0" validate:"min=1"`
}
type requiredDefault struct {
	N int `json:"n" default:"1" validate:"required"`
}
type elementsRequired struct {
	Tags []string `json:"tags" default:"[\"a\", \"\"]" validate:"max=3,dive,required"`
}
type outOfRange struct {
	N int8 `json:"n" default:"300"`
}
type nestedBad struct {
	Inner struct {
		S string `json:"s" default:"\"abcd\"" validate:"max=3"`
	} `json:"inner"`
}

type takes[T any] struct{}

func (takes[T]) Take(T) error { return nil }

// A default that is not JSON, does not decode into the field, or fails its
// rules, and one on a required field, fail the registration with an error
// that names the field, its struct type and the problem.
func TestDefaultRegistrationErrors(t *testing.T) {
	for _, c := range []struct {
		rcvr any
		want string
	}{
		{takes[badJSON]{}, `parameter 1: field N of service_test.badJSON: default 1x: not a JSON value: invalid character 'x' after top-level value`},
		{takes[wrongType]{}, `parameter 1: field N of service_test.wrongType: default "ten": expected an integer, got a string`},
		{takes[failsValidate]{}, `parameter 1: field N of service_test.failsValidate: default 0: fails validate "min=1"`},
		{takes[requiredDefault]{}, `parameter 1: field N of service_test.requiredDefault: default 1: a field with a default cannot be required: its member is never absent`},
		{takes[elementsRequired]{}, `parameter 1: field Tags of service_test.elementsRequired: default ["a", ""]: fails validate "max=3,dive,required"`},
		{takes[outOfRange]{}, `parameter 1: field N of service_test.outOfRange: default 300: 300 does not fit in int8`},
		{takes[nestedBad]{}, `parameter 1: field Inner: field S of struct { S string "json:\"s\" default:\"\\\"abcd\\\"\" validate:\"max=3\"" }: default "abcd": fails validate "max=3"`},
	} {
		err := service.New(nil).Register("", c.rcvr)
		require.Error(t, err)
		_, got, _ := strings.Cut(err.Error(), "cannot be served: ")
		assert.Equal(t, c.want, got)
	}
}

// The defaults are published where the params' schema is: in the
// method's description and in the OpenRPC document.
func TestDefaultsPublished(t *testing.T) {
	svc := service.New(nil)
	require.NoError(t, svc.Register("", Lister{}))
	info, ok := svc.Method("list")
	require.True(t, ok)
	b, err := json.Marshal(info.Params)
	require.NoError(t, err)
	for _, want := range []string{`"default":10,`, `"default":"asc",`, `"default":["id","name"],`, `"default":0.5,`, `"default":{"a":1},`, `"default":20,`} {
		assert.Contains(t, string(b), want)
	}
	doc, err := svc.OpenRPC(service.Info{Title: "t", Version: "1"})
	require.NoError(t, err)
	assert.Contains(t, string(doc), `"default":["id","name"]`)
	assert.Contains(t, string(doc), `"default":20`)
}
