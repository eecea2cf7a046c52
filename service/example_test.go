package service_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// Greeter is a tool server's whole definition: its exported methods are the
// RPC methods.
type Greeter struct{}

// GreetParams are greet's params, by name or by position.
type GreetParams struct {
	Name  string `json:"name" validate:"required"`
	Times int    `json:"times" validate:"gte=1,lte=3"`
}

// Greet greets Name, Times times.
func (Greeter) Greet(ctx context.Context, p GreetParams) (string, error) {
	return strings.Repeat("hello "+p.Name+"! ", p.Times), nil
}

func ExampleService_Register() {
	svc := service.New(nil)
	if err := svc.Register("", Greeter{}); err != nil {
		panic(err)
	}
	in := strings.NewReader(`{"jsonrpc":"2.0","method":"greet","params":{"name":"ada","times":2},"id":1}
{"jsonrpc":"2.0","method":"greet","params":["bob",1],"id":2}
`)
	// A tool server would serve os.Stdin and os.Stdout.
	var out bytes.Buffer
	_ = rpc.Serve(context.Background(), in, &out, svc, &rpc.Options{Sequential: true})
	fmt.Print(out.String())
	// Output:
	// {"jsonrpc":"2.0","result":"hello ada! hello ada! ","id":1}
	// {"jsonrpc":"2.0","result":"hello bob! ","id":2}
}

// Power takes two parameters: positional params, one value each.
type Power struct{}

// Pow returns base to the power exp.
func (Power) Pow(base float64, exp int) float64 {
	r := 1.0
	for range exp {
		r *= base
	}
	return r
}

// Absent params leave a struct parameter at its zero value, which is then
// validated; a method of several parameters (or of one that is not a
// struct, a slice, a map or a json.RawMessage) needs a value for each, and
// absent params are refused (rule count).
func ExampleService_Register_absentParams() {
	svc := service.New(nil)
	if err := svc.Register("", Greeter{}); err != nil {
		panic(err)
	}
	if err := svc.Register("", Power{}); err != nil {
		panic(err)
	}
	in := strings.NewReader(`{"jsonrpc":"2.0","method":"greet","id":1}
{"jsonrpc":"2.0","method":"pow","id":2}
{"jsonrpc":"2.0","method":"pow","params":[2,10],"id":3}
`)
	var out bytes.Buffer
	_ = rpc.Serve(context.Background(), in, &out, svc, &rpc.Options{Sequential: true})
	fmt.Print(out.String())
	// Output:
	// {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"name","rule":"required","message":"name is required"},{"field":"times","rule":"gte","param":"1","message":"times must be at least 1"}]},"id":1}
	// {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"","rule":"count","param":"2","message":"expected 2 positional params, got 0"}]},"id":2}
	// {"jsonrpc":"2.0","result":1024,"id":3}
}

// A call whose params fail validation is answered -32602, every failing
// field listed by its JSON name, with the rule and its parameter.
func ExampleFieldError() {
	svc := service.New(nil)
	if err := svc.Register("", Greeter{}); err != nil {
		panic(err)
	}
	in := strings.NewReader(`{"jsonrpc":"2.0","method":"greet","params":{"name":"","times":9},"id":1}
{"jsonrpc":"2.0","method":"greet","params":{"name":"ada","times":"twice"},"id":2}
`)
	var out bytes.Buffer
	_ = rpc.Serve(context.Background(), in, &out, svc, &rpc.Options{Sequential: true})
	fmt.Print(out.String())
	// Output:
	// {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"name","rule":"required","message":"name is required"},{"field":"times","rule":"lte","param":"3","message":"times must be at most 3"}]},"id":1}
	// {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"times","rule":"type","param":"integer","message":"expected an integer, got a string"}]},"id":2}
}

func ExampleSnakeCase() {
	fmt.Println(service.SnakeCase("GetHTTPStatus"), service.LowerCamel("GetHTTPStatus"))
	// Output: get_http_status getHTTPStatus
}
