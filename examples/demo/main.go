// Command demo shows toolrpc's wire behaviour without any child process:
// each step writes request lines into a bytes.Buffer, serves them on one
// connection to the calculator (package calc, with the default middleware),
// and prints what went in (-->) and what came out (<--).
//
//	go run ./examples/demo
package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/toolrpc/toolrpc/examples/calculator/calc"
	"github.com/toolrpc/toolrpc/rpc"
)

// steps are the demo's scenes: a title and the lines sent on one connection.
var steps = []struct {
	title string
	lines []string
}{
	{"A call with positional params", []string{
		`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`,
	}},
	{"A broken JSON line is answered -32700 and the stream goes on", []string{
		`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":2`,
		`{"jsonrpc":"2.0","method":"subtract","params":[10,3],"id":3}`,
	}},
	{"An envelope without a method is answered -32600", []string{
		`{"jsonrpc":"2.0","params":[1,2],"id":4}`,
	}},
	{"An unknown method is answered -32601", []string{
		`{"jsonrpc":"2.0","method":"multiply","params":[6,7],"id":5}`,
	}},
	{"A notification is answered by nothing", []string{
		`{"jsonrpc":"2.0","method":"notify_hello","params":[7]}`,
	}},
	{"A batch is answered by one array", []string{
		`[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"a"},{"jsonrpc":"2.0","method":"notify_hello","params":[7]},{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":"b"},{"foo":"boo"}]`,
	}},
	{"Params that fail validation are answered -32602, field by field", []string{
		`{"jsonrpc":"2.0","method":"divide","params":{"a":1,"b":0},"id":6}`,
	}},
	{"A call that reports progress before its response", []string{
		`{"jsonrpc":"2.0","method":"count","params":{"n":2,"_meta":{"progressToken":"demo"}},"id":7}`,
	}},
}

func run(out io.Writer) error {
	h, err := calc.Server().Handler(&calc.Calculator{})
	if err != nil {
		return err
	}
	opts := &rpc.Options{
		Sequential: true,                          // answers in request order, for a readable transcript
		Logger:     slog.New(slog.DiscardHandler), // the one logger: the calls' records too
	}
	for i, step := range steps {
		if i > 0 {
			fmt.Fprintln(out)
		}
		fmt.Fprintf(out, "# %s\n", step.title)
		in := strings.Join(step.lines, "\n") + "\n"
		var answers bytes.Buffer
		if err := rpc.Serve(context.Background(), strings.NewReader(in), &answers, h, opts); err != nil {
			return err
		}
		for _, line := range step.lines {
			fmt.Fprintf(out, "--> %s\n", line)
		}
		for _, line := range strings.SplitAfter(answers.String(), "\n") {
			if line != "" {
				fmt.Fprintf(out, "<-- %s", line)
			}
		}
	}
	return nil
}

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}
