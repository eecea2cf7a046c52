package calc_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolrpc/toolrpc/examples/calculator/calc"
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
		`"a":{"description":"the dividend","type":["number","null"]},`+
		`"b":{"description":"the divisor, not zero","type":"number","not":{"const":0}}},`+
		`"required":["b"],"additionalProperties":false}`, schemaOf("divide"))
	assert.Equal(t, `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"array",`+
		`"items":{"type":["integer","null"],"minimum":-9223372036854775808,"maximum":9223372036854775807}}`, schemaOf("sum"))
}
