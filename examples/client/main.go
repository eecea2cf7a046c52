// Command client talks to a tool server running as a child process: it
// builds and starts the calculator (examples/calculator), calls it, sends
// a batch, follows a long call's progress, and cancels another.
//
//	go run ./examples/client
//
// Any other tool server can be given as arguments instead:
//
//	go run ./examples/client -- /path/to/server --its-flags
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	"github.com/toolrpc/toolrpc/rpc"
)

func main() {
	flag.Parse()
	if err := run(context.Background(), os.Stdout, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		os.Exit(1)
	}
}

// run talks to the server that args start (none: the calculator, built for
// the occasion), reporting to out.
func run(ctx context.Context, out io.Writer, args []string) error {
	if len(args) == 0 {
		dir, err := os.MkdirTemp("", "toolrpc-client")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		bin := filepath.Join(dir, "calculator")
		fmt.Fprintln(out, "building the calculator...")
		if b, err := exec.Command("go", "build", "-o", bin, "github.com/toolrpc/toolrpc/examples/calculator").CombinedOutput(); err != nil {
			return fmt.Errorf("building the calculator: %v\n%s", err, b)
		}
		args = []string{bin}
	}
	// Our logs, and the server's (its stderr, line by line), go to our
	// stderr, warnings and worse only.
	stderr := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	server, err := rpc.StartProcess(ctx, exec.Command(args[0], args[1:]...), nil,
		&rpc.ProcessOptions{Options: rpc.Options{Logger: stderr}})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "started %s (pid %d)\n", filepath.Base(args[0]), server.Pid())

	// A call.
	var diff float64
	if err := server.Call(ctx, "subtract", []int{42, 23}, &diff); err != nil {
		return err
	}
	fmt.Fprintf(out, "subtract [42, 23] = %v\n", diff)

	// A batch: one line out, one line back; each entry has its own outcome.
	var sum int
	var data []any
	var quotient float64
	batch := []rpc.BatchCall{
		{Method: "sum", Params: []int{1, 2, 4}, Result: &sum},
		{Method: "notify_hello", Params: []int{7}, Notification: true},
		{Method: "get_data", Result: &data},
		{Method: "divide", Params: map[string]int{"a": 1, "b": 0}, Result: &quotient},
	}
	if err := server.Batch(ctx, batch); err != nil {
		return err
	}
	fmt.Fprintf(out, "batch: sum = %d, get_data = %v, divide by zero: %s\n", sum, data, describe(batch[3].Err))

	// A call that reports progress: each report reaches the callback, in
	// this goroutine, before Call returns.
	progress := rpc.WithProgress(ctx, func(p rpc.Progress) {
		fmt.Fprintf(out, "  count: %v of %v\n", p.Progress, p.Total)
	})
	var counted int
	if err := server.Call(progress, "count", map[string]int{"n": 3, "delay_ms": 50}, &counted); err != nil {
		return err
	}
	fmt.Fprintf(out, "count returned %d\n", counted)

	// A long call, cancelled once it has started: the server is told
	// ($/cancelRequest) and Call returns at once.
	long, cancel := context.WithCancel(ctx)
	var once sync.Once
	long = rpc.WithProgress(long, func(p rpc.Progress) {
		once.Do(func() {
			fmt.Fprintf(out, "  long count: %v of %v, cancelling\n", p.Progress, p.Total)
			cancel()
		})
	})
	err = server.Call(long, "count", map[string]int{"n": 1000, "delay_ms": 60000}, nil)
	cancel()
	fmt.Fprintf(out, "long count: %v\n", err)

	// Close: the server's input ends, it exits on its own.
	if err := server.Close(); err != nil {
		return fmt.Errorf("the server did not exit cleanly: %w", err)
	}
	fmt.Fprintln(out, "the server exited with status 0")
	return nil
}

func describe(err error) string {
	var e *rpc.Error
	if errors.As(err, &e) {
		return fmt.Sprintf("error %d %q, data %s", e.Code, e.Message, e.Data)
	}
	return fmt.Sprint(err)
}
