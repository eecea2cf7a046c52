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
// With -framing lsp it serves standard input and output with the Language
// Server Protocol's framing (each message after a "Content-Length: N"
// header block) instead of one message per line, for an editor's or
// vscode-jsonrpc's client:
//
//	printf 'Content-Length: 54\r\n\r\n{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1}' | go run ./examples/calculator -framing lsp
//
// Logs go to stderr; on stdio it exits 0 at the end of its input, once
// everything it read is answered; either way it shuts down gracefully on
// SIGINT or SIGTERM.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/toolrpc/toolrpc/examples/calculator/calc"
	"github.com/toolrpc/toolrpc/rpc"
)

func main() {
	addr := flag.String("http", "", "serve JSON-RPC over HTTP at `ADDR` (host:port) instead of standard input and output")
	framing := flag.String("framing", "newline", "how messages are delimited on standard input and output: `newline` (one per line) or lsp (Content-Length headers)")
	flag.Parse()
	s := calc.Server()
	switch *framing {
	case "newline":
	case "lsp":
		s.RPC.Framing = rpc.FramingLSP
	default:
		usage(fmt.Sprintf("-framing %q: want newline or lsp", *framing))
	}
	if *addr != "" {
		if s.RPC.Framing != rpc.FramingNewline {
			usage("-framing is for standard input and output, not -http")
		}
		s.MainHTTP(*addr, &calc.Calculator{})
		return
	}
	s.Main(&calc.Calculator{})
}

// usage reports a bad command line and exits 2, as package flag does.
func usage(problem string) {
	fmt.Fprintln(os.Stderr, "calculator:", problem)
	flag.Usage()
	os.Exit(2)
}
