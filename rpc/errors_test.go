package rpc_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/toolrpc/toolrpc/rpc"
)

// A handler answers with an error object by returning an [rpc.Error]: its
// code, message and data go out as they are; any other error is an
// InternalError naming its Go type.
func ExampleNewError() {
	divide := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		switch string(req.Params) {
		case "[1,0]":
			return nil, rpc.NewError(rpc.InvalidParams, "b must not be 0")
		case "[]":
			return nil, rpc.NewError(rpc.InvalidParams, "").WithData(map[string]int{"want": 2, "got": 0})
		case "[1]":
			return nil, fmt.Errorf("dividing: %w", rpc.Errorf(-1001, "%d param of 2", 1))
		}
		return nil, errors.New("not implemented")
	})
	in := strings.NewReader(`{"jsonrpc":"2.0","method":"divide","params":[1,0],"id":1}
{"jsonrpc":"2.0","method":"divide","params":[],"id":2}
{"jsonrpc":"2.0","method":"divide","params":[1],"id":3}
{"jsonrpc":"2.0","method":"divide","params":[4,2],"id":4}
`)
	var out bytes.Buffer
	if err := rpc.Serve(context.Background(), in, &out, divide, &rpc.Options{Sequential: true}); err != nil {
		panic(err)
	}
	fmt.Print(out.String())
	// Output:
	// {"jsonrpc":"2.0","error":{"code":-32602,"message":"b must not be 0"},"id":1}
	// {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":{"got":0,"want":2}},"id":2}
	// {"jsonrpc":"2.0","error":{"code":-1001,"message":"1 param of 2"},"id":3}
	// {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"*errors.errorString","message":"not implemented"}},"id":4}
}
