package service_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/openrpctest"
	"github.com/toolrpc/toolrpc/service"
)

// Shown has a method of each kind of params, documented with examples.
type Shown struct{ docs map[string]service.MethodDoc }

type ShownParams struct {
	A int `json:"a" validate:"gte=1"`
	B int `json:"b"`
}

func (s Shown) MethodDocs() map[string]service.MethodDoc { return s.docs }
func (Shown) Add(p ShownParams) int                      { return p.A + p.B }
func (Shown) Join(a string, n *int) []string             { return nil }
func (Shown) Count(xs []int) int                         { return len(xs) }
func (Shown) Ping()                                      {}

// An example is held to the method it shows: its params must be accepted
// and its result must be a value of the method's result type, or
// registration fails and says which example and why.
func TestExamplesAreHeldToTheCode(t *testing.T) {
	tests := []struct {
		name    string
		method  string
		example service.Example
		err     string // "" when registration succeeds
	}{
		{"by name", "Add", service.Example{Name: "e", Params: json.RawMessage(`{"a":1,"b":2}`), Result: 3}, ""},
		{"by position", "Add", service.Example{Name: "e", Params: json.RawMessage(`[1,2]`), Result: 3}, ""},
		{"several parameters", "Join", service.Example{Name: "e", Params: json.RawMessage(`["x",1]`), Result: []string{"x"}}, ""},
		{"nil where null is answered", "Join", service.Example{Name: "e", Params: json.RawMessage(`["x",2]`)}, ""},
		{"no params, no result", "Ping", service.Example{Name: "e"}, ""},
		{"no name", "Add", service.Example{Params: json.RawMessage(`{"a":1}`), Result: 1},
			`service: method service_test.Shown.Add cannot be served: an example has no name`},
		{"params failing validation", "Add", service.Example{Name: "zero", Params: json.RawMessage(`{"a":0}`), Result: 0},
			`service: method service_test.Shown.Add cannot be served: example "zero": its params are refused: [{"field":"a","rule":"gte","param":"1","message":"a must be at least 1"}]`},
		{"params of the wrong type", "Count", service.Example{Name: "e", Params: json.RawMessage(`["1"]`), Result: 1},
			`service: method service_test.Shown.Count cannot be served: example "e": its params are refused: [{"field":"[0]","rule":"type","param":"integer","message":"expected an integer, got a string"}]`},
		{"params to a method without", "Ping", service.Example{Name: "e", Params: json.RawMessage(`[1]`)},
			`service: method service_test.Shown.Ping cannot be served: example "e": its params are refused: [{"field":"","rule":"count","param":"0","message":"the method takes no params"}]`},
		{"a result of another type", "Add", service.Example{Name: "e", Params: json.RawMessage(`{"a":1}`), Result: 1.5},
			`service: method service_test.Shown.Add cannot be served: example "e": its result has type float64, but the method answers type int`},
		{"no result where one is answered", "Add", service.Example{Name: "e", Params: json.RawMessage(`{"a":1}`)},
			`service: method service_test.Shown.Add cannot be served: example "e": its result is nil, but the method answers type int`},
		{"a result where none is answered", "Ping", service.Example{Name: "e", Result: true},
			`service: method service_test.Shown.Ping cannot be served: example "e": its result has type bool, but the method answers null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := service.New(nil)
			err := svc.Register("", Shown{docs: map[string]service.MethodDoc{tt.method: {Examples: []service.Example{tt.example}}}})
			if tt.err == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tt.err, err.Error())
		})
	}

	twice := []service.Example{{Name: "e", Params: json.RawMessage(`[1,2]`), Result: 3}, {Name: "e", Params: json.RawMessage(`[2,1]`), Result: 3}}
	err := service.New(nil).Register("", Shown{docs: map[string]service.MethodDoc{"Add": {Examples: twice}}})
	require.Error(t, err)
	assert.Equal(t, `service: method service_test.Shown.Add cannot be served: two examples are named "e"`, err.Error())
}

// Examples are published: in MethodInfo as given, and in the OpenRPC
// document as example pairings, each param named as its content
// descriptor (by name or by position alike).
func TestExamplesArePublished(t *testing.T) {
	docs := map[string]service.MethodDoc{
		"Add": {Examples: []service.Example{
			{Name: "by name", Description: "named", Params: json.RawMessage(`{"b":2,"a":1}`), Result: 3},
			{Name: "by position", Params: json.RawMessage(`[1,2]`), Result: 3},
		}},
		"Join":  {Examples: []service.Example{{Name: "two", Params: json.RawMessage(`["x",2]`), Result: []string{"x", "x"}}}},
		"Count": {Examples: []service.Example{{Name: "three", Params: json.RawMessage(`[1,2,3]`), Result: 3}}},
		"Ping":  {Examples: []service.Example{{Name: "ping"}}},
	}
	svc := service.New(nil)
	require.NoError(t, svc.Register("", Shown{docs: docs}))
	m, ok := svc.Method("add")
	require.True(t, ok)
	assert.Equal(t, docs["Add"].Examples, m.Examples)

	doc, err := svc.OpenRPC(service.Info{Title: "shown", Version: "1"})
	require.NoError(t, err)
	openrpctest.Validate(t, doc)
	var d struct {
		Methods []struct {
			Name     string          `json:"name"`
			Examples json.RawMessage `json:"examples"`
		} `json:"methods"`
	}
	require.NoError(t, json.Unmarshal(doc, &d))
	got := map[string]string{}
	for _, m := range d.Methods {
		got[m.Name] = string(m.Examples)
	}
	assert.Equal(t, map[string]string{
		"add": `[{"name":"by name","description":"named","params":[{"name":"a","value":1},{"name":"b","value":2}],"result":{"name":"result","value":3}},` +
			`{"name":"by position","params":[{"name":"a","value":1},{"name":"b","value":2}],"result":{"name":"result","value":3}}]`,
		"join":  `[{"name":"two","params":[{"name":"param1","value":"x"},{"name":"param2","value":2}],"result":{"name":"result","value":["x","x"]}}]`,
		"count": `[{"name":"three","params":[{"name":"item1","value":1},{"name":"item2","value":2},{"name":"item3","value":3}],"result":{"name":"result","value":3}}]`,
		"ping":  `[{"name":"ping","params":[],"result":{"name":"result","value":null}}]`,
	}, got)
}
