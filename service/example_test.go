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
