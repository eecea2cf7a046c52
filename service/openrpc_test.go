package service_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/openrpctest"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

type TreeNode struct {
	Name     string      `json:"name" validate:"required"`
	Children []*TreeNode `json:"children,omitempty"`
}

type Leaf struct {
	V int `json:"v" validate:"gte=1"`
}

type Kinds struct{}

type TwoLeaves struct {
	A    Leaf   `json:"a"`
	B    Leaf   `json:"b"`
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty" validate:"required_with=From"`
}

// Plain refers to itself, unvalidated: its schema's root is "#".
type Plain struct {
	Name string   `json:"name"`
	Kids []*Plain `json:"kids"`
}

func (Kinds) Tree(n TreeNode) int                         { return len(n.Children) }
func (Kinds) Pair(a int, b string) string                 { return b }
func (Kinds) Leaves(p TwoLeaves) Leaf                     { return p.A }
func (Kinds) Tags(m map[string]int) int                   { return len(m) }
func (Kinds) Raw(p json.RawMessage) json.RawMessage       { return p }
func (Kinds) Nodes(a *TreeNode, b int) (*TreeNode, error) { return a, nil }
func (Kinds) Plain(p *Plain) int                          { return 0 }
func (Kinds) Sum(xs []uint8) int                          { return len(xs) }
func (Kinds) MethodDocs() map[string]service.MethodDoc {
	return map[string]service.MethodDoc{"Pair": {Title: "A pair"}}
}

// The document of every shape of method validates against the OpenRPC
// meta-schema, its schemas in draft-07.
func TestOpenRPC(t *testing.T) {
	s := service.New(nil)
	require.NoError(t, s.Register("", Kinds{}))
	doc, err := s.OpenRPC(service.Info{Title: "shapes", Version: "1.0.0", Description: "every shape"})
	require.NoError(t, err)
	openrpctest.Validate(t, doc)
	for _, word := range []string{`"$schema"`, `"$defs"`, `"prefixItems"`, `"dependentRequired"`, `#/$defs/`} {
		assert.NotContains(t, string(doc), word, "not draft-07")
	}
	var d struct {
		Info    service.Info `json:"info"`
		Methods []struct {
			Name           string            `json:"name"`
			Summary        string            `json:"summary"`
			Params         []json.RawMessage `json:"params"`
			ParamStructure string            `json:"paramStructure"`
			Result         json.RawMessage   `json:"result"`
			Errors         []json.RawMessage `json:"errors"`
		} `json:"methods"`
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
			Errors  map[string]json.RawMessage `json:"errors"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(doc, &d))
	assert.Equal(t, service.Info{Title: "shapes", Version: "1.0.0", Description: "every shape"}, d.Info)
	got := map[string]string{}
	for _, m := range d.Methods {
		var ps []string
		for _, p := range m.Params {
			ps = append(ps, string(p))
		}
		got[m.Name] = m.Summary + "|" + m.ParamStructure + "|" + strings.Join(ps, ",") + "|" + string(m.Result) + "|" + strconv.Itoa(len(m.Errors))
	}
	want := map[string]string{
		"leaves": `|by-name|{"name":"a","required":true,"schema":{"$ref":"#/components/schemas/Leaf"}},{"name":"b","required":true,"schema":{"$ref":"#/components/schemas/Leaf"}},{"name":"from","required":false,"schema":{"type":"string"}},{"name":"to","required":false,"schema":{"type":"string","x-validate":"required_with=From"}}|{"name":"result","schema":{"additionalProperties":false,"properties":{"v":{"type":"integer"}},"required":["v"],"type":"object"}}|1`,
		"pair":   `A pair|by-position|{"name":"param1","required":true,"schema":{"type":"integer"}},{"name":"param2","required":true,"schema":{"type":"string"}}|{"name":"result","schema":{"type":"string"}}|1`,
		"tree":   `|by-name|{"name":"name","required":true,"schema":{"minLength":1,"type":"string"}},{"name":"children","required":false,"schema":{"items":{"anyOf":[{"type":"null"},{"$ref":"#/components/schemas/TreeNode.unvalidated"}]},"type":["array","null"]}}|{"name":"result","schema":{"type":"integer"}}|1`,
		"plain":  `|by-name|{"name":"name","required":false,"schema":{"type":"string"}},{"name":"kids","required":false,"schema":{"items":{"anyOf":[{"type":"null"},{"$ref":"#/components/schemas/plain.params"}]},"type":["array","null"]}}|{"name":"result","schema":{"type":"integer"}}|1`,
		"tags":   `|by-name||{"name":"result","schema":{"type":"integer"}}|1`,
		"raw":    `|either||{"name":"result","schema":{}}|1`,
	}
	for name, w := range want {
		assert.Equal(t, w, got[name], name)
	}
	assert.Contains(t, string(d.Components.Schemas["plain.params"]), `"$ref":"#/components/schemas/plain.params"`, "the root, referred to")
	assert.Contains(t, string(d.Components.Schemas["Leaf"]), `"minimum":1`)
	assert.Len(t, d.Methods, 8)
}

// rpc.discover is answered only where it is served, takes no params, and
// cannot be registered.
func TestServeDiscover(t *testing.T) {
	s := service.New(nil)
	require.NoError(t, s.Register("", Kinds{}))
	_, err := s.Handle(t.Context(), &rpc.Request{Method: rpc.Discover})
	assert.Equal(t, codec.MethodNotFound, err.(*codec.Error).Code, "off unless served")

	s.ServeDiscover(service.Info{Title: "shapes", Version: "1"})
	want, err := s.OpenRPC(service.Info{Title: "shapes", Version: "1"})
	require.NoError(t, err)
	for _, params := range []string{``, `[]`, ` {} `} {
		got, err := s.Handle(t.Context(), &rpc.Request{Method: rpc.Discover, Params: json.RawMessage(params)})
		require.NoError(t, err, params)
		assert.JSONEq(t, string(want), string(got.(json.RawMessage)), params)
	}
	_, err = s.Handle(t.Context(), &rpc.Request{Method: rpc.Discover, Params: json.RawMessage(`{"x":1}`)})
	assert.Equal(t, codec.InvalidParams, err.(*codec.Error).Code)
	assert.NotContains(t, s.Methods(), rpc.Discover)

	named := service.New(&service.Options{Names: func(string) string { return rpc.Discover }})
	assert.ErrorContains(t, named.Register("", Kinds{}), "reserved")
}
