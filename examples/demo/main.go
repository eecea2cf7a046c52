// Command demo shows toolrpc's wire behaviour without any child process:
// each step writes request lines into a bytes.Buffer, serves them on one
// connection, and prints what went in (-->) and what came out (<--).
//
//	go run ./examples/demo
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/toolrpc/toolrpc/codec"
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
		`{"jsonrpc":"2.0","method":"log","params":{"text":"hello"}}`,
	}},
	{"A batch is answered by one array", []string{
		`[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"a"},{"jsonrpc":"2.0","method":"log","params":{"text":"x"}},{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":"b"},{"foo":"boo"}]`,
	}},
	{"A call that reports progress before its response", []string{
		`{"jsonrpc":"2.0","method":"count","params":{"n":2},"id":6}`,
	}},
}

// calculator is the demo's handler, written by hand against rpc.Handler.
func calculator(ctx context.Context, req *rpc.Request) (any, error) {
	switch req.Method {
	case "subtract":
		var p [2]int
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, codec.NewError(codec.InvalidParams, "")
		}
		return p[0] - p[1], nil
	case "sum":
		var xs []int
		if err := json.Unmarshal(req.Params, &xs); err != nil {
			return nil, codec.NewError(codec.InvalidParams, "")
		}
		total := 0
		for _, x := range xs {
			total += x
		}
		return total, nil
	case "log":
		return nil, nil
	case "count":
		var p struct{ N int }
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, codec.NewError(codec.InvalidParams, "")
		}
		for i := 1; i <= p.N; i++ {
			if err := rpc.Notify(ctx, "progress", map[string]int{"progress": i, "total": p.N}); err != nil {
				return nil, err
			}
		}
		return p.N, nil
	}
	return nil, codec.NewError(codec.MethodNotFound, "")
}

func run(out io.Writer) error {
	opts := &rpc.Options{
		Sequential: true, // answers in request order, for a readable transcript
		Logger:     slog.New(slog.DiscardHandler),
	}
	for i, step := range steps {
		if i > 0 {
			fmt.Fprintln(out)
		}
		fmt.Fprintf(out, "# %s\n", step.title)
		in := strings.Join(step.lines, "\n") + "\n"
		var answers bytes.Buffer
		if err := rpc.Serve(context.Background(), strings.NewReader(in), &answers, rpc.HandlerFunc(calculator), opts); err != nil {
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
