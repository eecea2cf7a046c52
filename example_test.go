package toolrpc_test

import "github.com/toolrpc/toolrpc"

// Greeter's exported methods are the tool server's methods.
type Greeter struct{}

// GreetParams are greet's params: {"name": "Ada"}.
type GreetParams struct {
	Name string `json:"name" validate:"required"`
}

// Greet says hello to the one named.
func (Greeter) Greet(p GreetParams) string { return "hello, " + p.Name }

// A tool server's whole main function: it serves Greeter's methods on
// standard input and output until the input ends or a signal comes, and
// exits 1 with the reason if it cannot.
func Example() {
	toolrpc.Main(Greeter{})
}
