// Package calc is the calculator tool server's whole definition: the
// methods of Calculator, served by examples/calculator and shown by
// examples/demo.
package calc

import (
	"context"
	"encoding/json"
	"time"

	"github.com/toolrpc/toolrpc"
	"github.com/toolrpc/toolrpc/middleware"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// Calculator's exported methods are the server's methods, named in
// snake_case (GetData is get_data).
type Calculator struct{}

// Server is how a Calculator is served: the default stack, and method
// names in snake_case, as the specification's examples call them.
func Server() *toolrpc.Server {
	return &toolrpc.Server{Service: service.Options{Names: service.SnakeCase}}
}

// SubtractParams are subtract's params, by name or by position.
type SubtractParams struct {
	Minuend    float64 `json:"minuend" jsonschema:"the number to subtract from"`
	Subtrahend float64 `json:"subtrahend" jsonschema:"the number to subtract"`
}

// MethodDocs describes the methods, for those who list them (a model
// choosing a tool, an rpc.discover document): see service.Documented.
func (c *Calculator) MethodDocs() map[string]service.MethodDoc {
	return map[string]service.MethodDoc{
		"Subtract": {Description: "Returns minuend - subtrahend. Params by name or by position.", Examples: []service.Example{
			{Name: "by name", Params: json.RawMessage(`{"minuend":42,"subtrahend":23}`), Result: 19.0},
			{Name: "by position", Params: json.RawMessage(`[42,23]`), Result: 19.0},
		}},
		"Sum": {Description: "Adds any number of integers, given as an array.", Examples: []service.Example{
			{Name: "three", Params: json.RawMessage(`[1,2,4]`), Result: 7},
		}},
		"GetData": {Description: "Returns the JSON-RPC 2.0 specification's sample data."},
		"Divide": {Description: "Returns a / b; b must not be zero.", Examples: []service.Example{
			{Name: "halves", Params: json.RawMessage(`{"a":1,"b":2}`), Result: 0.5},
		}},
		"Count":       {Description: "Counts to n, reporting each step as progress, delay_ms apart, and returns n."},
		"Update":      {Description: "Logs the values (the specification's sample notification)."},
		"NotifyHello": {Description: "Logs its argument (the specification's sample notification)."},
		"NotifySum":   {Description: "Logs the sum of its arguments (the specification's sample notification)."},
	}
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
	A float64 `json:"a" jsonschema:"the dividend"`
	B float64 `json:"b" validate:"ne=0" jsonschema:"the divisor, not zero"`
}

// Divide returns a / b.
func (c *Calculator) Divide(p DivideParams) float64 { return p.A / p.B }

// CountParams are count's params.
type CountParams struct {
	N       int `json:"n" validate:"gte=0,lte=1000000" jsonschema:"the number to count to"`
	DelayMS int `json:"delay_ms" validate:"gte=0,lte=60000" jsonschema:"the pause between two steps, in milliseconds"`
}

// Count counts to n, reporting each step as progress (1..n of n), with
// delay_ms between reports, and returns n. It stops when the call is
// cancelled.
func (c *Calculator) Count(ctx context.Context, p CountParams) (int, error) {
	delay := time.Duration(p.DelayMS) * time.Millisecond
	for i := 1; i <= p.N; i++ {
		if err := middleware.ReportProgress(ctx, float64(i), float64(p.N), ""); err != nil {
			return 0, err
		}
		if i == p.N {
			break
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return 0, ctx.Err()
		case <-t.C:
		}
	}
	return p.N, nil
}

// Update, NotifyHello and NotifySum are the specification's notifications:
// they are logged, through the server's logger.
func (c *Calculator) Update(ctx context.Context, xs []int) {
	rpc.LoggerFromContext(ctx).Info("update", "values", xs)
}

// NotifyHello logs its argument.
func (c *Calculator) NotifyHello(ctx context.Context, n int) {
	rpc.LoggerFromContext(ctx).Info("notify_hello", "n", n)
}

// NotifySum logs the sum of its arguments.
func (c *Calculator) NotifySum(ctx context.Context, xs []int) {
	rpc.LoggerFromContext(ctx).Info("notify_sum", "sum", c.Sum(xs))
}
