// Command mcp is a Model Context Protocol server on stdin and stdout whose
// tools are the methods of one Go struct (package tools): add, count (with
// progress), sleep (cancellable) and stats (validated, with a structured
// result). It speaks the legacy revisions (initialize) and the modern one
// (2026-07-28, server/discover) alike:
//
//	echo '{"jsonrpc":"2.0","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}},"id":1}' | go run ./examples/mcp
package main

import (
	"github.com/toolrpc/toolrpc/examples/mcp/tools"
	"github.com/toolrpc/toolrpc/mcp"
)

func main() {
	mcp.Main(tools.Tools{})
}
