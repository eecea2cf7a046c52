// Command mcp is a Model Context Protocol server whose tools are the
// methods of one Go struct (package tools): add, count (with progress),
// sleep (cancellable), stats (validated, with a structured result) and
// whoami (the caller). It speaks the legacy revisions (initialize) and the
// modern one (2026-07-28, server/discover) alike, on stdin and stdout by
// default:
//
//	echo '{"jsonrpc":"2.0","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}},"id":1}' | go run ./examples/mcp
//
// or over MCP's Streamable HTTP with -http ADDR (loopback when ADDR has no
// host):
//
//	go run ./examples/mcp -http :8080
//
// With -issuer and -resource (the two together) it is an OAuth 2.1
// protected resource over Streamable HTTP (at -http, default
// 127.0.0.1:8080): every request needs a JWT access token of the
// authorization server -issuer, for -resource (its audience), with the
// scope mcp; stats needs stats too (protected.go):
//
//	go run ./examples/mcp -issuer https://auth.example.com -resource http://127.0.0.1:8080/mcp
package main

import (
	"cmp"
	"flag"
	"fmt"
	"os"

	"github.com/toolrpc/toolrpc/examples/mcp/tools"
	"github.com/toolrpc/toolrpc/mcp"
)

func main() {
	addr := flag.String("http", "", "serve over Streamable HTTP at this address (\":8080\": loopback) instead of stdio")
	issuer := flag.String("issuer", "", "with -resource: accept the JWT access tokens of this authorization server alone (its issuer URL)")
	resource := flag.String("resource", "", "with -issuer: this server's URL, as clients call it, which tokens must be issued for")
	flag.Parse()
	switch {
	case (*issuer == "") != (*resource == ""):
		fmt.Fprintln(os.Stderr, "mcp: -issuer and -resource go together")
		flag.Usage()
		os.Exit(2)
	case *issuer != "":
		serveProtected(cmp.Or(*addr, "127.0.0.1:8080"), *issuer, *resource)
	case *addr != "":
		mcp.MainHTTP(*addr, tools.Tools{})
	default:
		mcp.Main(tools.Tools{})
	}
}
