// Command everything is the Model Context Protocol server the official
// conformance suite (@modelcontextprotocol/conformance) is run against: its
// tools are the suite's fixtures (package fixtures), each a few lines of
// ordinary Go. It serves on stdin and stdout by default, or over MCP's
// Streamable HTTP with -http ADDR (loopback when ADDR has no host):
//
//	go run ./examples/everything -http :3001
//
// One endpoint serves both eras of the protocol: the legacy revisions with
// sessions (initialize, MCP-Session-Id), and 2026-07-28, stateless, with no
// switch to throw: each request is served by the revision it names.
// .ci/conformance runs the suite against it.
package main

import (
	"flag"

	"github.com/toolrpc/toolrpc/examples/everything/fixtures"
)

func main() {
	addr := flag.String("http", "", "serve over Streamable HTTP at this address (\":8080\": loopback) instead of stdio")
	flag.Parse()
	if *addr != "" {
		fixtures.Server().MainHTTP(*addr)
		return
	}
	fixtures.Server().Main()
}
