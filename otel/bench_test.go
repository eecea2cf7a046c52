package toolotel_test

import (
	"context"
	"encoding/json"
	"testing"

	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	toolotel "github.com/toolrpc/toolrpc/otel"
	"github.com/toolrpc/toolrpc/rpc"
)

// BenchmarkMiddleware is the cost of a call through Middleware, its handler
// doing nothing: with no SDK at all, with the trace SDK alone (the meter a
// no-op), and with the trace and metric SDKs. The difference between the
// last two is what the metrics cost a call.
func BenchmarkMiddleware(b *testing.B) {
	calls := []struct {
		name string
		mcp  bool
		req  *rpc.Request
	}{
		{"jsonrpc", false, &rpc.Request{Method: "add", Params: json.RawMessage(`{"A":1,"B":2}`), ID: json.RawMessage(`1`)}},
		{"jsonrpc error", false, &rpc.Request{Method: "nope", ID: json.RawMessage(`1`)}},
		{"mcp tools/call", true, &rpc.Request{Method: "tools/call", Params: json.RawMessage(`{"name":"add","arguments":{"a":1,"b":2}}`), ID: json.RawMessage(`1`)}},
	}
	providers := []struct {
		name   string
		tracer func() trace.TracerProvider
		meter  func() metric.MeterProvider
	}{
		{"off", func() trace.TracerProvider { return tracenoop.NewTracerProvider() }, func() metric.MeterProvider { return metricnoop.NewMeterProvider() }},
		{"span", func() trace.TracerProvider { return sdktrace.NewTracerProvider() }, func() metric.MeterProvider { return metricnoop.NewMeterProvider() }},
		{"span+meter", func() trace.TracerProvider { return sdktrace.NewTracerProvider() }, func() metric.MeterProvider {
			return sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		}},
	}
	for _, c := range calls {
		for _, p := range providers {
			b.Run(c.name+"/"+p.name, func(b *testing.B) {
				opts := &toolotel.Options{TracerProvider: p.tracer(), MeterProvider: p.meter(), MCP: c.mcp}
				if !c.mcp {
					opts.Methods = func(m string) bool { return m == "add" }
				}
				h := toolotel.Middleware(opts)(rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
					if req.Method == "nope" {
						return nil, rpc.NewError(rpc.MethodNotFound, "")
					}
					return json.RawMessage(`3`), nil
				}))
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					if _, err := h.Handle(ctx, c.req); err != nil && c.req.Method != "nope" {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
