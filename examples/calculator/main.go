// Command calculator is a tool server built from the methods of one Go
// struct (package calc) with the front door of package toolrpc. It answers
// the examples of section 7 of the JSON-RPC 2.0 specification, a validated
// divide, and count, which reports progress. By default it serves its
// standard input and output:
//
//	echo '{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}' | go run ./examples/calculator
//
// With -http ADDR it serves JSON-RPC over HTTP instead (ADDR without a
// host is loopback only):
//
//	go run ./examples/calculator -http :8080 &
//	curl -s -H 'Content-Type: application/json' -d '{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1}' localhost:8080
//
// Logs go to stderr; on stdio it exits 0 at the end of its input, once
// everything it read is answered; either way it shuts down gracefully on
// SIGINT or SIGTERM.
package main

import (
	"flag"

	"github.com/toolrpc/toolrpc/examples/calculator/calc"
)

func main() {
	addr := flag.String("http", "", "serve JSON-RPC over HTTP at `ADDR` (host:port) instead of standard input and output")
	flag.Parse()
	if *addr != "" {
		calc.Server().MainHTTP(*addr, &calc.Calculator{})
		return
	}
	calc.Server().Main(&calc.Calculator{})
}
