package service_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

const dialect = `"$schema":"https://json-schema.org/draft/2020-12/schema",`

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// TestDescribe holds the params and result schemas of each shape of
// method, as Register computes them.
func TestDescribe(t *testing.T) {
	svc := service.New(nil)
	require.NoError(t, svc.Register("", &Shapes{}))
	tests := []struct {
		name, goName string
		structure    service.ParamStructure
		params       string
		result       string
	}{
		{"nothing", "Nothing", service.Either, `null`, `null`},
		{"withCtx", "WithCtx", service.Either, `null`, `{` + dialect + `"type":"boolean"}`},
		{"quotient", "Quotient", service.Either,
			`{` + dialect + `"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number","not":{"const":0}}},"required":["b"],"additionalProperties":false}`,
			`{` + dialect + `"type":"number"}`},
		{"sum", "Sum", service.ByPosition,
			`{` + dialect + `"type":"array","items":{"type":"integer"}}`,
			`{` + dialect + `"type":"integer"}`},
		{"count", "Count", service.ByName,
			`{` + dialect + `"type":"object","additionalProperties":{"type":"integer"}}`,
			`{` + dialect + `"type":"integer"}`},
		{"raw", "Raw", service.Either, `{` + dialect + `"type":["object","array"]}`, `{` + dialect[:len(dialect)-1] + `}`},
		{"pow", "Pow", service.ByPosition,
			`{` + dialect + `"type":"array","prefixItems":[{"type":"number"},{"type":"integer"}],"items":false,"minItems":2,"maxItems":2}`,
			`{` + dialect + `"type":"number"}`},
		{"any", "Any", service.ByPosition,
			`{` + dialect + `"type":"array","prefixItems":[true],"items":false,"minItems":1,"maxItems":1}`,
			`{` + dialect[:len(dialect)-1] + `}`},
		{"sizes", "Sizes", service.Either,
			`{` + dialect + `"type":"object","properties":{"n":{"type":"integer","minimum":-128,"maximum":127},"u":{"type":"integer","minimum":0},"F":{"type":"number"}},"additionalProperties":false}`,
			`{` + dialect + `"type":"object","properties":{"n":{"type":"integer","minimum":-128,"maximum":127},"u":{"type":"integer","minimum":0},"F":{"type":"number"}},"required":["n","u","F"],"additionalProperties":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, ok := svc.Method(tt.name)
			require.True(t, ok)
			assert.Equal(t, tt.name, m.Name)
			assert.Equal(t, tt.goName, m.GoName)
			assert.Equal(t, tt.structure, m.ParamStructure)
			assert.Equal(t, tt.params, marshal(t, m.Params))
			assert.Equal(t, tt.result, marshal(t, m.Result))
		})
	}
	var names []string
	for _, m := range svc.Describe() {
		names = append(names, m.Name)
	}
	assert.Equal(t, svc.Methods(), names, "Describe lists every method, sorted")
	_, ok := svc.Method("missing")
	assert.False(t, ok)
}

// Results is a method for each kind of result.
type Results struct{}

type textID int

func (textID) MarshalText() ([]byte, error) { return []byte("id"), nil }

func (Results) Ptr() *int                 { return nil }
func (Results) Bytes() []byte             { return nil }
func (Results) Array() [2]string          { return [2]string{} }
func (Results) Map() map[string]int       { return nil }
func (Results) Text() textID              { return 0 }
func (Results) Uint() uint8               { return 0 }
func (Results) Number() json.Number       { return "1" }
func (Results) Slice() ([]Pair, error)    { return nil, nil }
func (Results) Raw() json.RawMessage      { return nil }
func (Results) Ctx(context.Context) error { return nil }

// TestDescribeResults holds the result schemas: what encoding/json makes
// of each Go type, null where it can be null (package schema tests
// ForResult in depth).
func TestDescribeResults(t *testing.T) {
	svc := service.New(nil)
	require.NoError(t, svc.Register("", Results{}))
	want := map[string]string{
		"ptr":    `{"type":["integer","null"]}`,
		"bytes":  `{"type":["string","null"],"pattern":"^[\\r\\n]*(?:(?:[A-Za-z0-9+/][\\r\\n]*){4})*(?:(?:[A-Za-z0-9+/][\\r\\n]*){2}=[\\r\\n]*=[\\r\\n]*|(?:[A-Za-z0-9+/][\\r\\n]*){3}=[\\r\\n]*)?$","contentEncoding":"base64"}`,
		"array":  `{"type":"array","items":{"type":"string"},"minItems":2,"maxItems":2}`,
		"map":    `{"type":["object","null"],"additionalProperties":{"type":"integer"}}`,
		"text":   `{"type":"string"}`,
		"uint":   `{"type":"integer","minimum":0,"maximum":255}`,
		"number": `{"type":"number"}`,
		"slice":  `{"type":["array","null"],"items":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}}`,
		"raw":    `{}`,
		"ctx":    `null`,
	}
	for name, w := range want {
		m, ok := svc.Method(name)
		require.True(t, ok, name)
		if w != "null" {
			w = "{" + dialect + w[1:]
			w = strings.Replace(w, ",}", "}", 1)
		}
		assert.Equal(t, w, marshal(t, m.Result), name)
	}
}

// TestDescribeAgrees holds the published params schemas to the server: on
// each params, an independent JSON Schema 2020-12 validator and the
// service give the same verdict (package schema tests the named form in
// depth; this, the forms the service adds: positional params, null in a
// positional slot, the count).
func TestDescribeAgrees(t *testing.T) {
	for _, open := range []bool{false, true} {
		svc := service.New(&service.Options{AllowUnknownFields: open})
		require.NoError(t, svc.Register("", &Shapes{}))
		tests := []struct{ method, params string }{
			{"pow", `[2,3]`},
			{"pow", `[null,null]`},
			{"pow", `[2]`},
			{"pow", `[2,3,4]`},
			{"pow", `[2,3.5]`},
			{"pow", `["2",3]`},
			{"negate", `[1]`},
			{"negate", `[null]`},
			{"negate", `[]`},
			{"any", `[{"x":1}]`},
			{"any", `[null]`},
			{"any", `[1,2]`},
			{"sum", `[1,2,null]`},
			{"sum", `[1.5]`},
			{"sum", `[]`},
			{"variadic", `["a",null]`},
			{"variadic", `[1]`},
			{"count", `{"a":1}`},
			{"count", `{"a":"1"}`},
			{"quotient", `{"a":1,"b":2}`},
			{"quotient", `{"a":1,"b":0}`},
			{"quotient", `{"a":1}`},
			{"quotient", `{"b":1,"c":2}`},
			{"named", `{"id":1,"name":null}`},
			{"named", `{"name":"x"}`},
			{"orders", `[{"customer":"ada","items":[{"sku":"a","qty":1}]}]`},
			{"orders", `[{"customer":"ada","items":[{"sku":"a","qty":0}]}]`},
			{"orders", `[null]`},
			{"raw", `[1]`},
			{"raw", `{}`},
		}
		for _, tt := range tests {
			m, ok := svc.Method(tt.method)
			require.True(t, ok, tt.method)
			compiled := compile(t, m.Params)
			inst, err := jsonschema.UnmarshalJSON(strings.NewReader(tt.params))
			require.NoError(t, err)
			schemaOK := compiled.Validate(inst) == nil
			_, err = svc.Handle(context.Background(), &rpc.Request{ID: json.RawMessage("1"), Method: tt.method, Params: json.RawMessage(tt.params)})
			var ce *codec.Error
			if err != nil {
				require.True(t, errors.As(err, &ce) && ce.Code == codec.InvalidParams, "%s %s: %v", tt.method, tt.params, err)
			}
			assert.Equal(t, err == nil, schemaOK, "open=%v %s %s: server %v, schema %s", open, tt.method, tt.params, err, marshal(t, m.Params))
		}
	}
}

func compile(t *testing.T, s any) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(marshal(t, s)))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("mem:///params.json", doc))
	compiled, err := c.Compile("mem:///params.json")
	require.NoError(t, err)
	return compiled
}

// TestDescribeAllowUnknownFields: Options.AllowUnknownFields opens the
// objects of the schema as it opens the binder.
func TestDescribeAllowUnknownFields(t *testing.T) {
	for _, open := range []bool{false, true} {
		svc := service.New(&service.Options{AllowUnknownFields: open})
		require.NoError(t, svc.Register("", &Shapes{}))
		m, _ := svc.Method("place")
		text := marshal(t, m.Params)
		assert.Equal(t, !open, strings.Contains(text, `"additionalProperties":false`), text)
	}
}

// Mislabelled has a field whose jsonschema tag is written for another
// library: its method's schema cannot be made.
type Mislabelled struct{}

type LabelParams struct {
	N int `json:"n" jsonschema:"minimum=1"`
}

func (Mislabelled) Label(LabelParams) error { return nil }
func (Mislabelled) Fine() error             { return nil }

// Malformed has a validate tag that validator panics on at the first call:
// its schema cannot be made either, and it is refused at registration.
type Malformed struct{}

type MalformedParams struct {
	N int `json:"n" validate:"min=1,,max=3"`
}

func (Malformed) Check(MalformedParams) error { return nil }

// TestDescribeErrors: a method whose schema cannot be made is refused at
// registration, or skipped with a warning under SkipUnservable.
func TestDescribeErrors(t *testing.T) {
	err := service.New(nil).Register("", Mislabelled{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "service: method service_test.Mislabelled.Label cannot be served: params: schema: field N: jsonschema tag")

	var logs bytes.Buffer
	svc := service.New(&service.Options{SkipUnservable: true, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	require.NoError(t, svc.Register("", Mislabelled{}))
	assert.Equal(t, []string{"fine"}, svc.Methods())
	assert.Contains(t, logs.String(), "Mislabelled.Label cannot be served")

	err = service.New(nil).Register("", Malformed{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `service: method service_test.Malformed.Check cannot be served: params: schema: field N: validate tag "min=1,,max=3": an empty rule`)
}

// Documents documents its methods.
type Documents struct{ Base }

func (Documents) Add(Pair) int { return 0 }
func (Documents) Stop()        {}
func (Documents) MethodDocs() map[string]service.MethodDoc {
	return map[string]service.MethodDoc{"Add": {Title: "Addition", Description: "Adds a and b."}}
}

type typo struct{ key string }

func (typo) Add(Pair) int { return 0 }
func (t typo) MethodDocs() map[string]service.MethodDoc {
	if t.key == "" {
		panic("no docs")
	}
	return map[string]service.MethodDoc{t.key: {Description: "x"}}
}

func (Base) Promoted() {}

// TestMethodDocs: a Documented value's descriptions reach MethodInfo;
// MethodDocs is not served; a key that names no served method is an error.
func TestMethodDocs(t *testing.T) {
	svc := service.New(&service.Options{Names: service.SnakeCase})
	require.NoError(t, svc.Register("calc", Documents{}))
	assert.Equal(t, []string{"calc.add", "calc.stop"}, svc.Methods(), "MethodDocs is not served")
	m, _ := svc.Method("calc.add")
	assert.Equal(t, "Addition", m.Title)
	assert.Equal(t, "Adds a and b.", m.Description)
	m, _ = svc.Method("calc.stop")
	assert.Empty(t, m.Description)

	for _, key := range []string{"add", "Ad", "MethodDocs", "Promoted", "record"} {
		err := service.New(nil).Register("", typo{key})
		require.Error(t, err, key)
		assert.Contains(t, err.Error(), `service: service_test.typo.MethodDocs documents "`+key+`", which is not a method`)
	}
	err := service.New(nil).Register("", typo{})
	require.Error(t, err)
	assert.Equal(t, "service: service_test.typo.MethodDocs panicked: no docs", err.Error())
}
