// Command calculator is a tool server on stdin and stdout, built from the
// methods of one Go struct. It answers the examples of section 7 of the
// JSON-RPC 2.0 specification:
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

	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// Calculator's exported methods are the server's methods, named in
// snake_case (GetData is get_data).
type Calculator struct {
	log *slog.Logger
}

// SubtractParams are subtract's params, by name or by position.
type SubtractParams struct {
	Minuend    float64 `json:"minuend"`
	Subtrahend float64 `json:"subtrahend"`
}

// Subtract returns minuend - subtrahend.
func (c *Calculator) Subtract(p SubtractParams) float64 { return p.Minuend - p.Subtrahend }

// Sum adds any number of integers.
func (c *Calculator) Sum(xs []int) int {
	total := 0
	for _, x := range xs {
		total += x
	}
	return total
}

// GetData returns the specification's sample data.
func (c *Calculator) GetData() []any { return []any{"hello", 5} }

// DivideParams are divide's params; b must not be zero.
type DivideParams struct {
	A float64 `json:"a"`
	B float64 `json:"b" validate:"ne=0"`
}

// Divide returns a / b.
func (c *Calculator) Divide(p DivideParams) float64 { return p.A / p.B }

// Update, NotifyHello and NotifySum are the specification's notifications:
// they are logged.
func (c *Calculator) Update(xs []int) { c.log.Info("update", "values", xs) }

// NotifyHello logs its argument.
func (c *Calculator) NotifyHello(n int) { c.log.Info("notify_hello", "n", n) }

// NotifySum logs the sum of its arguments.
func (c *Calculator) NotifySum(xs []int) { c.log.Info("notify_sum", "sum", c.Sum(xs)) }

func run(ctx context.Context) error {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	svc := service.New(&service.Options{Names: service.SnakeCase, Logger: logger})
	if err := svc.Register("", &Calculator{log: logger}); err != nil {
		return err
	}
	if fi, err := os.Stdin.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		fmt.Fprintln(os.Stderr, `calculator: reading JSON-RPC from stdin, one request per line; try: {"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`)
	}
	return rpc.Serve(ctx, os.Stdin, os.Stdout, svc, &rpc.Options{Logger: logger})
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "calculator:", err)
		os.Exit(1)
	}
}
