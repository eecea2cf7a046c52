package calc_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolrpc/toolrpc/examples/calculator/calc"
	"github.com/toolrpc/toolrpc/internal/openrpctest"
	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/schema"
	"github.com/toolrpc/toolrpc/service"
)

// TestMain fails the package's tests if any goroutine outlives them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func server(t *testing.T) rpc.Handler {
	t.Helper()
	h, err := calc.Server().Handler(&calc.Calculator{})
	require.NoError(t, err)
	return h
}

func TestCount(t *testing.T) {
	tests := []struct{ name, transcript string }{
		{"progress with a token, then the result", `
			--> {"jsonrpc":"2.0","id":1,"method":"count","params":{"n":3,"_meta":{"progressToken":"t1"}}}
			<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":1,"total":3}}
			<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":2,"total":3}}
			<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":3,"total":3}}
			<-- {"jsonrpc":"2.0","result":3,"id":1}`},
		{"no token, no progress", `
			--> {"jsonrpc":"2.0","id":2,"method":"count","params":{"n":3,"delay_ms":1}}
			<-- {"jsonrpc":"2.0","result":3,"id":2}`},
		{"zero", `
			--> {"jsonrpc":"2.0","id":3,"method":"count","params":{"n":0,"_meta":{"progressToken":"z"}}}
			<-- {"jsonrpc":"2.0","result":0,"id":3}`},
		{"validated", `
			--> {"jsonrpc":"2.0","id":4,"method":"count","params":{"n":-1}}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"n","rule":"gte","param":"0","message":"n must be at least 0"}]},"id":4}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wiretest.Serve(t, server(t), tt.transcript, nil)
		})
	}
}

func TestCountCancelled(t *testing.T) {
	t.Run("LSP: answered -32800", func(t *testing.T) {
		wiretest.Steps(t, server(t), `
			--> {"jsonrpc":"2.0","id":1,"method":"count","params":{"n":5,"delay_ms":60000,"_meta":{"progressToken":"c"}}}
			<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"c","progress":1,"total":5}}
			--> {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}
			<-- {"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":1}`, nil)
	})
	t.Run("MCP: not answered", func(t *testing.T) {
		wiretest.Steps(t, server(t), `
			--> {"jsonrpc":"2.0","id":1,"method":"count","params":{"n":5,"delay_ms":60000,"_meta":{"progressToken":"c"}}}
			<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"c","progress":1,"total":5}}
			--> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user"}}
			--> {"jsonrpc":"2.0","id":2,"method":"sum","params":[1,2]}
			<-- {"jsonrpc":"2.0","result":3,"id":2}`, nil)
	})
}

// TestSchemas holds what the calculator publishes of its methods: divide's
// b must not be 0, sum takes an array of integers, every method has a
// description and schemas that a JSON Schema 2020-12 validator compiles.
func TestSchemas(t *testing.T) {
	svc := service.New(&calc.Server().Service)
	require.NoError(t, svc.Register("", &calc.Calculator{}))
	for _, m := range svc.Describe() {
		assert.NotEmpty(t, m.Description, m.Name)
		for _, s := range []*schema.Schema{m.Params, m.Result} {
			if s == nil {
				continue
			}
			b, err := json.Marshal(s)
			require.NoError(t, err)
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
			require.NoError(t, err)
			c := jsonschema.NewCompiler()
			require.NoError(t, c.AddResource("mem:///s.json", doc))
			_, err = c.Compile("mem:///s.json")
			assert.NoError(t, err, "%s: %s", m.Name, b)
		}
	}
	schemaOf := func(name string) string {
		m, ok := svc.Method(name)
		require.True(t, ok, name)
		b, err := json.Marshal(m.Params)
		require.NoError(t, err)
		return string(b)
	}
	assert.Equal(t, `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{`+
		`"a":{"description":"the dividend","type":"number"},`+
		`"b":{"description":"the divisor, not zero","type":"number","not":{"const":0}}},`+
		`"required":["b"],"additionalProperties":false}`, schemaOf("divide"))
	assert.Equal(t, `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"array",`+
		`"items":{"type":"integer"}}`, schemaOf("sum"))
}

// The calculator's rpc.discover document validates against the OpenRPC
// meta-schema, and says what divide and sum take.
func TestDiscover(t *testing.T) {
	res, err := server(t).Handle(t.Context(), &rpc.Request{Method: rpc.Discover})
	require.NoError(t, err)
	doc, ok := res.(json.RawMessage)
	require.True(t, ok, "%T", res)
	openrpctest.Validate(t, doc)

	var d struct {
		OpenRPC string `json:"openrpc"`
		Methods []struct {
			Name   string `json:"name"`
			Params []struct {
				Name     string          `json:"name"`
				Required bool            `json:"required"`
				Schema   json.RawMessage `json:"schema"`
			} `json:"params"`
			ParamStructure string          `json:"paramStructure"`
			XParams        json.RawMessage `json:"x-params"`
		} `json:"methods"`
	}
	require.NoError(t, json.Unmarshal(doc, &d))
	assert.Equal(t, "1.3.2", d.OpenRPC)
	params, whole := map[string]string{}, map[string]string{}
	for _, m := range d.Methods {
		whole[m.Name] = string(m.XParams)
		for _, p := range m.Params {
			params[m.Name+" "+p.Name] = fmt.Sprintf("%s %v %s", m.ParamStructure, p.Required, p.Schema)
		}
	}
	// By position, divide takes both a and b; by name, a may be left out:
	// the document offers the named form, whose descriptors say it.
	assert.Equal(t, `by-name true {"description":"the divisor, not zero","not":{"const":0},"type":"number"}`, params["divide b"], "b must not be 0")
	// sum takes any number of integers: params[0], if given, is one, and
	// x-params is the whole array.
	assert.Equal(t, `by-position false {"type":"integer"}`, params["sum item1"], "sum's first integer")
	assert.NotContains(t, params, "sum item2")
	assert.Equal(t, `{"items":{"type":"integer"},"type":"array"}`, whole["sum"], "sum takes an array of integers")
	assert.Empty(t, whole["divide"])
}

// rpc.discover takes no params; the other rpc. names stay reserved.
func TestDiscoverWire(t *testing.T) {
	wiretest.Serve(t, server(t), `
		--> {"jsonrpc":"2.0","method":"rpc.discover","params":[1],"id":1}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"","rule":"count","param":"0","message":"the method takes no params"}]},"id":1}
		--> {"jsonrpc":"2.0","method":"rpc.other","id":2}
		<-- {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":2}
		--> {"jsonrpc":"2.0","method":"rpc.Discover","id":3}
		<-- {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":3}`, nil)
}
