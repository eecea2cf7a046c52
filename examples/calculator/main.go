// Command calculator is a tool server on stdin and stdout, built from the
// methods of one Go struct (package calc) and the default middleware. It
// answers the examples of section 7 of the JSON-RPC 2.0 specification, a
// validated divide, and count, which reports progress:
//
//	echo '{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}' | go run ./examples/calculator
//
// Logs go to stderr; it exits 0 at the end of its input, once everything it
// read is answered.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/toolrpc/toolrpc/examples/calculator/calc"
	"github.com/toolrpc/toolrpc/middleware"
	"github.com/toolrpc/toolrpc/rpc"
)

func run(ctx context.Context) error {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	svc, err := calc.New(&calc.Calculator{Log: logger})
	if err != nil {
		return err
	}
	if fi, err := os.Stdin.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		fmt.Fprintln(os.Stderr, `calculator: reading JSON-RPC from stdin, one request per line; try: {"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`)
	}
	// ServeStdio keeps stray writes to stdout (a fmt.Println in a tool) off
	// the protocol: they go to stderr.
	return rpc.ServeStdio(ctx, middleware.Default(logger)(svc), &rpc.StdioOptions{Options: rpc.Options{Logger: logger}})
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "calculator:", err)
		os.Exit(1)
	}
}
