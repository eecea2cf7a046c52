package mcp_test

import (
	"testing"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/middleware"
	"github.com/toolrpc/toolrpc/service"
)

// BenchmarkToolsCall is one tools/call of add at a time (a modern
// request: no initialize needed), against the same method called as plain
// JSON-RPC through service and the default middleware.
func BenchmarkToolsCall(b *testing.B) {
	b.Run("mcp", func(b *testing.B) {
		s := mcp.New(&mcp.Options{Name: "kit", Version: "1.0.0"})
		if err := s.Register("", fuzzKit{}); err != nil {
			b.Fatal(err)
		}
		wiretest.BenchRoundTrip(b, s.Handler(),
			`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}},"id":1}`,
			`{"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"3"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":1}`)
	})
	b.Run("jsonrpc", func(b *testing.B) {
		svc := service.New(nil)
		if err := svc.Register("", fuzzKit{}); err != nil {
			b.Fatal(err)
		}
		wiretest.BenchRoundTrip(b, middleware.Default(nil)(svc),
			`{"jsonrpc":"2.0","method":"add","params":{"a":1,"b":2},"id":1}`,
			`{"jsonrpc":"2.0","result":3,"id":1}`)
	})
}
