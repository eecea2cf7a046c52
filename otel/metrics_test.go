package toolotel_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/middleware"
	toolotel "github.com/toolrpc/toolrpc/otel"
	"github.com/toolrpc/toolrpc/rpc"
)

// The bucket boundaries the conventions give the two histograms.
var (
	rpcBounds = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}
	mcpBounds = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}
)

// meterReader is a meter provider whose metrics the test collects.
func meterReader(t *testing.T) (*sdkmetric.MeterProvider, *sdkmetric.ManualReader) {
	r := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r))
	t.Cleanup(func() { require.NoError(t, mp.Shutdown(context.Background())) })
	return mp, r
}

// collect returns the metrics of the package's scope.
func collect(t *testing.T, r *sdkmetric.ManualReader) []metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, r.Collect(context.Background(), &rm))
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name == toolotel.ScopeName {
			return sm.Metrics
		}
	}
	return nil
}

// assertMetrics asserts got is want, in the order the instruments were
// made: exact names, descriptions, units, kinds, attribute sets and values.
func assertMetrics(t *testing.T, want, got []metricdata.Metrics) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		metricdatatest.AssertEqual(t, want[i], got[i], metricdatatest.IgnoreTimestamp(), metricdatatest.IgnoreExemplars())
	}
}

// point is a histogram data point of the durations ds (in seconds) with
// the attributes kv.
func point(bounds []float64, kv []attribute.KeyValue, ds ...float64) metricdata.HistogramDataPoint[float64] {
	p := metricdata.HistogramDataPoint[float64]{Attributes: attribute.NewSet(kv...), Bounds: bounds,
		BucketCounts: make([]uint64, len(bounds)+1), Count: uint64(len(ds))}
	lo, hi := ds[0], ds[0]
	for _, d := range ds {
		p.Sum += d
		b := 0
		for b < len(bounds) && d > bounds[b] {
			b++
		}
		p.BucketCounts[b]++
		lo, hi = min(lo, d), max(hi, d)
	}
	p.Min, p.Max = metricdata.NewExtrema(lo), metricdata.NewExtrema(hi)
	return p
}

// histogram is the metric name of the points.
func histogram(name, desc string, points ...metricdata.HistogramDataPoint[float64]) metricdata.Metrics {
	return metricdata.Metrics{Name: name, Description: desc, Unit: "s",
		Data: metricdata.Histogram[float64]{Temporality: metricdata.CumulativeTemporality, DataPoints: points}}
}

// active is toolrpc.server.active_calls with the attributes kv, its value n.
func active(n int64, kv ...attribute.KeyValue) metricdata.Metrics {
	return metricdata.Metrics{Name: "toolrpc.server.active_calls", Description: "The number of calls being served.", Unit: "{call}",
		Data: metricdata.Sum[int64]{Temporality: metricdata.CumulativeTemporality,
			DataPoints: []metricdata.DataPoint[int64]{{Attributes: attribute.NewSet(kv...), Value: n}}}}
}

const (
	rpcDesc = "Measures the duration of an incoming Remote Procedure Call (RPC)."
	mcpDesc = "MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent."
)

// sleeper makes each call last d of the bubble's fake time.
func sleeper(d time.Duration) middleware.Middleware {
	return func(next rpc.Handler) rpc.Handler {
		return rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
			time.Sleep(d)
			return next.Handle(ctx, req)
		})
	}
}

func kvs(kv ...string) []attribute.KeyValue {
	var out []attribute.KeyValue
	for i := 0; i < len(kv); i += 2 {
		out = append(out, attribute.String(kv[i], kv[i+1]))
	}
	return out
}

// A JSON-RPC service's rpc.server.call.duration: one measurement a call, a
// notification's and each batch entry's included, its rpc.method the
// method Methods recognizes, else _OTHER; an error's code its
// rpc.response.status_code and error.type. In fake time, each call lasting 10 ms
// (the Add of a batch's entry 25 ms), the durations are exact.
func TestMetricsJSONRPC(t *testing.T) {
	const in = `{"jsonrpc":"2.0","method":"add","params":{"A":1,"B":2},"id":1}
{"jsonrpc":"2.0","method":"add","params":{"A":"x"},"id":2}
{"jsonrpc":"2.0","method":"add","params":{"A":1,"B":2}}
[{"jsonrpc":"2.0","method":"add","params":{"A":1,"B":2},"id":3},{"jsonrpc":"2.0","method":"nope","id":4}]
`
	sys := attribute.String("rpc.system.name", "jsonrpc")
	tests := []struct {
		name    string
		methods bool
		want    []metricdata.HistogramDataPoint[float64]
	}{{
		name:    "Methods",
		methods: true,
		want: []metricdata.HistogramDataPoint[float64]{
			point(rpcBounds, append(kvs("rpc.method", "add"), sys), 0.01, 0.01, 0.01),
			point(rpcBounds, append(kvs("rpc.method", "add", "rpc.response.status_code", "-32602", "error.type", "-32602"), sys), 0.01),
			point(rpcBounds, append(kvs("rpc.method", "_OTHER", "rpc.response.status_code", "-32601", "error.type", "-32601"), sys), 0.01),
		},
	}, {
		name: "no Methods: every method _OTHER",
		want: []metricdata.HistogramDataPoint[float64]{
			point(rpcBounds, append(kvs("rpc.method", "_OTHER"), sys), 0.01, 0.01, 0.01),
			point(rpcBounds, append(kvs("rpc.method", "_OTHER", "rpc.response.status_code", "-32602", "error.type", "-32602"), sys), 0.01),
			point(rpcBounds, append(kvs("rpc.method", "_OTHER", "rpc.response.status_code", "-32601", "error.type", "-32601"), sys), 0.01),
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tp, _ := recorder(t)
				mp, r := meterReader(t)
				svc := calc(t)
				opts := &toolotel.Options{TracerProvider: tp, MeterProvider: mp}
				if tt.methods {
					opts.Methods = func(m string) bool { _, ok := svc.Method(m); return ok }
				}
				h := middleware.Chain(toolotel.Middleware(opts), sleeper(10*time.Millisecond), middleware.Default(nil))(svc)
				out := serve(t, h, in, nil)
				require.Len(t, out, 3)
				assertMetrics(t, []metricdata.Metrics{
					histogram("rpc.server.call.duration", rpcDesc, tt.want...),
					active(0, sys),
				}, collect(t, r))
			})
		})
	}
}

// An MCP server's mcp.server.operation.duration: a notification measured
// too; a tool's name only on a call answered with a result (isError
// included, error.type tool_error), never on one refused (an unknown tool:
// its name is the peer's, of unbounded cardinality); a method answered
// Method not found that is none of the conventions' is _OTHER.
func TestMetricsMCP(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tp, _ := recorder(t)
		mp, r := meterReader(t)
		s := mcp.New(&mcp.Options{Name: "t", Middleware: []middleware.Middleware{
			toolotel.Middleware(&toolotel.Options{TracerProvider: tp, MeterProvider: mp, MCP: true}), sleeper(20 * time.Millisecond)}})
		require.NoError(t, s.Register("", Tools{}))
		in := `{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":0}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}},"id":1}
{"jsonrpc":"2.0","method":"tools/call","params":{"name":"fail","arguments":{}},"id":"two"}
{"jsonrpc":"2.0","method":"tools/call","params":{"name":"zzz","arguments":{}},"id":3}
{"jsonrpc":"2.0","method":"tools/call","params":{"name":"` + strings.Repeat("x", 129) + `"},"id":4}
{"jsonrpc":"2.0","method":"nope","id":5}
{"jsonrpc":"2.0","method":"ping","id":6}
`
		var out bytes.Buffer
		require.NoError(t, s.Serve(context.Background(), strings.NewReader(in), &out, &rpc.Options{Sequential: true, Logger: slog.New(slog.DiscardHandler)}))
		require.Len(t, lines(out.String()), 7)
		v := attribute.String("mcp.protocol.version", "2025-06-18")
		tool := kvs("mcp.method.name", "tools/call", "gen_ai.operation.name", "execute_tool")
		assertMetrics(t, []metricdata.Metrics{
			histogram("mcp.server.operation.duration", mcpDesc,
				point(mcpBounds, append(kvs("mcp.method.name", "initialize"), v), 0.02),
				point(mcpBounds, append(kvs("mcp.method.name", "notifications/initialized"), v), 0.02),
				point(mcpBounds, append(kvs("gen_ai.tool.name", "add"), append(tool, v)...), 0.02),
				point(mcpBounds, append(kvs("gen_ai.tool.name", "fail", "error.type", "tool_error"), append(tool, v)...), 0.02),
				point(mcpBounds, append(kvs("rpc.response.status_code", "-32602", "error.type", "-32602"), append(tool, v)...), 0.02, 0.02),
				point(mcpBounds, append(kvs("mcp.method.name", "_OTHER", "rpc.response.status_code", "-32601", "error.type", "-32601"), v), 0.02),
				point(mcpBounds, append(kvs("mcp.method.name", "ping"), v), 0.02),
			),
			active(0),
		}, collect(t, r))
	})
}

// While a call is served, toolrpc.server.active_calls counts it; when it
// ends, no longer. A filtered call is not measured.
func TestMetricsActiveCalls(t *testing.T) {
	tp, _ := recorder(t)
	mp, r := meterReader(t)
	sys := attribute.String("rpc.system.name", "jsonrpc")
	var during []metricdata.Metrics
	h := toolotel.Middleware(&toolotel.Options{TracerProvider: tp, MeterProvider: mp, Filter: func(_ context.Context, req *rpc.Request) bool {
		return req.Method != "health"
	}})(rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		if req.Method == "m" {
			during = collect(t, r)
		}
		return nil, nil
	}))
	out := serve(t, h, `{"jsonrpc":"2.0","method":"m","id":1}
{"jsonrpc":"2.0","method":"health","id":2}
`, nil)
	require.Len(t, out, 2)
	assertMetrics(t, []metricdata.Metrics{active(1, sys)}, during)
	after := collect(t, r)
	require.Len(t, after, 2)
	assertMetrics(t, []metricdata.Metrics{active(0, sys)}, after[1:])
	h0 := after[0].Data.(metricdata.Histogram[float64])
	require.Len(t, h0.DataPoints, 1, "the filtered call has no measurement")
	assert.Equal(t, uint64(1), h0.DataPoints[0].Count)
	assert.Equal(t, attribute.NewSet(sys, attribute.String("rpc.method", "_OTHER")), h0.DataPoints[0].Attributes)
	assert.Equal(t, rpcBounds, h0.DataPoints[0].Bounds)
	assert.GreaterOrEqual(t, h0.DataPoints[0].Sum, 0.0)
}

// Past MaxSets attribute sets kept, a call is measured all the same.
func TestMetricsPastMaxSets(t *testing.T) {
	mp, r := meterReader(t)
	h := toolotel.Middleware(&toolotel.Options{MeterProvider: mp, Methods: func(string) bool { return true }})(
		rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) { return nil, nil }))
	const n = toolotel.MaxSets + 10
	for i := range n {
		_, err := h.Handle(context.Background(), &rpc.Request{Method: "m" + strconv.Itoa(i%(n-1)), ID: json.RawMessage(`1`)})
		require.NoError(t, err)
	}
	got := collect(t, r)
	require.Len(t, got, 2)
	points := got[0].Data.(metricdata.Histogram[float64]).DataPoints
	require.Len(t, points, n-1)
	var count uint64
	for _, p := range points {
		count += p.Count
	}
	assert.Equal(t, uint64(n), count)
}
