// Command calculator is a tool server on stdin and stdout, built from the
// methods of one Go struct (package calc) with the front door of package
// toolrpc. It answers the examples of section 7 of the JSON-RPC 2.0
// specification, a validated divide, and count, which reports progress:
//
//	echo '{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}' | go run ./examples/calculator
//
// Logs go to stderr; it exits 0 at the end of its input, once everything it
// read is answered, and shuts down gracefully on SIGINT or SIGTERM.
package main

import "github.com/toolrpc/toolrpc/examples/calculator/calc"

func main() {
	calc.Server().Main(&calc.Calculator{})
}
