package calc_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolrpc/toolrpc/examples/calculator/calc"
	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
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
