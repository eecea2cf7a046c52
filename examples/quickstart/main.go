// Command quickstart is the tool server of the README's quick start.
package main

import "github.com/toolrpc/toolrpc"

// Calculator's exported methods are the server's methods: divide and sum.
type Calculator struct{}

// DivideParams are divide's params, by name ({"a": 1, "b": 2}) or by
// position ([1, 2]).
type DivideParams struct {
	A float64 `json:"a"`
	B float64 `json:"b" validate:"ne=0"`
}

// Divide returns a / b; params with b = 0 are refused before it is called.
func (Calculator) Divide(p DivideParams) float64 { return p.A / p.B }

// Sum adds up any number of integers: [1, 2, 3].
func (Calculator) Sum(xs []int) int {
	total := 0
	for _, x := range xs {
		total += x
	}
	return total
}

func main() {
	toolrpc.Main(Calculator{})
}
