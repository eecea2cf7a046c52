// Command mcp is a Model Context Protocol server whose tools are the
// methods of one Go struct (package tools): add, count (with progress),
// sleep (cancellable) and stats (validated, with a structured result). It
// speaks the legacy revisions (initialize) and the modern one (2026-07-28,
// server/discover) alike, on stdin and stdout by default:
//
//	echo '{"jsonrpc":"2.0","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}},"id":1}' | go run ./examples/mcp
//
// or over MCP's Streamable HTTP with -http ADDR (loopback when ADDR has no
// host):
//
//	go run ./examples/mcp -http :8080
package main

import (
	"flag"

	"github.com/toolrpc/toolrpc/examples/mcp/tools"
	"github.com/toolrpc/toolrpc/mcp"
)

func main() {
	addr := flag.String("http", "", "serve over Streamable HTTP at this address (\":8080\": loopback) instead of stdio")
	flag.Parse()
	if *addr != "" {
		mcp.MainHTTP(*addr, tools.Tools{})
		return
	}
	mcp.Main(tools.Tools{})
}
