package toolotel_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/goleak"

	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/middleware"
	toolotel "github.com/toolrpc/toolrpc/otel"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The trace context of the tests' callers.
const (
	traceID     = "4bf92f3577b34da6a3ce929d0e0e4736"
	parentID    = "00f067aa0ba902b7"
	traceparent = "00-" + traceID + "-" + parentID + "-01"
	// The trace context of an HTTP request's headers.
	hdrTraceID     = "0af7651916cd43dd8448eb211c80319c"
	hdrParentID    = "b7ad6b7169203331"
	hdrTraceparent = "00-" + hdrTraceID + "-" + hdrParentID + "-01"
)

// Calc is the JSON-RPC service of the tests.
type Calc struct{}

// Add returns a + b.
func (Calc) Add(p struct{ A, B int }) int { return p.A + p.B }

// Trace returns the call's trace id as package middleware knows it.
func (Calc) Trace(ctx context.Context) string { return middleware.TraceID(ctx) }

// Tools are the MCP tools of the tests.
type Tools struct{}

// AddParams are add's arguments.
type AddParams struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

// Add returns a + b.
func (Tools) Add(p AddParams) float64 { return p.A + p.B }

// Fail fails: an isError result.
func (Tools) Fail() (string, error) { return "", io.ErrUnexpectedEOF }

// span is what a test asserts of a span.
type span struct {
	Name   string
	Kind   trace.SpanKind
	Attrs  map[string]any
	Status codes.Code
	Desc   string
	Parent string // "<trace id>-<span id>" of a remote parent, "" for a root span
	Links  []string
	Events []string
}

// spanOf is what a test asserts of s.
func spanOf(s sdktrace.ReadOnlySpan) span {
	out := span{Name: s.Name(), Kind: s.SpanKind(), Attrs: map[string]any{}, Status: s.Status().Code, Desc: s.Status().Description}
	for _, kv := range s.Attributes() {
		out.Attrs[string(kv.Key)] = kv.Value.AsInterface()
	}
	if p := s.Parent(); p.IsValid() {
		out.Parent = p.TraceID().String() + "-" + p.SpanID().String()
		if !p.IsRemote() {
			out.Parent = "local"
		}
	}
	for _, l := range s.Links() {
		out.Links = append(out.Links, l.SpanContext.TraceID().String()+"-"+l.SpanContext.SpanID().String())
	}
	for _, e := range s.Events() {
		out.Events = append(out.Events, e.Name)
	}
	return out
}

// recorder is a tracer provider whose ended spans the test reads.
func recorder(t *testing.T) (*sdktrace.TracerProvider, *tracetest.SpanRecorder) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	t.Cleanup(func() { require.NoError(t, tp.Shutdown(context.Background())) })
	return tp, sr
}

// ended returns the spans sr recorded, in the order they ended.
func ended(sr *tracetest.SpanRecorder) []span {
	var out []span
	for _, s := range sr.Ended() {
		out = append(out, spanOf(s))
	}
	return out
}

// serve serves the lines in over rpc.Serve, one message at a time in order,
// and returns what it wrote, line by line.
func serve(t *testing.T, h rpc.Handler, in string, opts *rpc.Options) []string {
	t.Helper()
	var o rpc.Options
	if opts != nil {
		o = *opts
	}
	o.Sequential = true
	o.Logger = slog.New(slog.DiscardHandler)
	var out bytes.Buffer
	require.NoError(t, rpc.Serve(context.Background(), strings.NewReader(in), &out, h, &o))
	return lines(out.String())
}

func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func calc(t *testing.T) *service.Service {
	svc := service.New(nil)
	require.NoError(t, svc.Register("", Calc{}))
	return svc
}

// jsonrpcAttrs are the attributes of every JSON-RPC span, with more.
func jsonrpcAttrs(kv ...any) map[string]any {
	m := map[string]any{"rpc.system.name": "jsonrpc", "jsonrpc.protocol.version": "2.0"}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// Over stdio, a plain JSON-RPC service: each call, each batch entry and each
// notification is a SERVER span, a child of the traceparent in its
// params._meta, a root span without one or with one malformed or too long.
func TestJSONRPCStdio(t *testing.T) {
	tests := []struct {
		name    string
		methods bool // Options.Methods: the service's
		in      string
		out     []string
		spans   []span
	}{{
		name: "a call with a traceparent: its child",
		in:   `{"jsonrpc":"2.0","method":"add","params":{"A":1,"B":2,"_meta":{"traceparent":"` + traceparent + `"}},"id":1}`,
		out:  []string{`{"jsonrpc":"2.0","result":3,"id":1}`},
		spans: []span{{Name: "jsonrpc", Kind: trace.SpanKindServer, Attrs: jsonrpcAttrs("jsonrpc.request.id", "1"),
			Parent: traceID + "-" + parentID}},
	}, {
		name:    "Methods: the method names the span",
		methods: true,
		in:      `{"jsonrpc":"2.0","method":"add","params":{"A":1,"B":2},"id":"req-7"}`,
		out:     []string{`{"jsonrpc":"2.0","result":3,"id":"req-7"}`},
		spans: []span{{Name: "add", Kind: trace.SpanKindServer,
			Attrs: jsonrpcAttrs("jsonrpc.request.id", "req-7", "rpc.method", "add")}},
	}, {
		name:    "Methods: an unknown method is _OTHER, answered with an error",
		methods: true,
		in:      `{"jsonrpc":"2.0","method":"nope","id":2}`,
		out:     []string{`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":2}`},
		spans: []span{{Name: "jsonrpc", Kind: trace.SpanKindServer, Status: codes.Error, Desc: "Method not found",
			Attrs: jsonrpcAttrs("jsonrpc.request.id", "2", "rpc.method", "_OTHER", "rpc.method_original", "nope",
				"rpc.response.status_code", "-32601", "error.type", "-32601")}},
	}, {
		name: "invalid params: the code",
		in:   `{"jsonrpc":"2.0","method":"add","params":{"A":"x"},"id":3}`,
		out:  []string{`{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"A","rule":"type","param":"integer","message":"expected an integer, got a string"}]},"id":3}`},
		spans: []span{{Name: "jsonrpc", Kind: trace.SpanKindServer, Status: codes.Error, Desc: "Invalid params",
			Attrs: jsonrpcAttrs("jsonrpc.request.id", "3", "rpc.response.status_code", "-32602", "error.type", "-32602")}},
	}, {
		name: "a notification: no request id",
		in:   `{"jsonrpc":"2.0","method":"add","params":{"A":1,"B":2,"_meta":{"traceparent":"` + traceparent + `"}}}`,
		spans: []span{{Name: "jsonrpc", Kind: trace.SpanKindServer, Attrs: jsonrpcAttrs(),
			Parent: traceID + "-" + parentID}},
	}, {
		name:  "a null id: no request id",
		in:    `{"jsonrpc":"2.0","method":"add","params":{"A":1,"B":2},"id":null}`,
		out:   []string{`{"jsonrpc":"2.0","result":3,"id":null}`},
		spans: []span{{Name: "jsonrpc", Kind: trace.SpanKindServer, Attrs: jsonrpcAttrs()}},
	}, {
		name:    "a batch: a span per entry",
		methods: true,
		in: `[{"jsonrpc":"2.0","method":"add","params":{"A":1,"B":2,"_meta":{"traceparent":"` + traceparent + `"}},"id":1},` +
			`{"jsonrpc":"2.0","method":"nope","id":2}]`,
		out: []string{`[{"jsonrpc":"2.0","result":3,"id":1},{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":2}]`},
		spans: []span{{Name: "add", Kind: trace.SpanKindServer, Attrs: jsonrpcAttrs("jsonrpc.request.id", "1", "rpc.method", "add"),
			Parent: traceID + "-" + parentID}, {Name: "jsonrpc", Kind: trace.SpanKindServer, Status: codes.Error, Desc: "Method not found",
			Attrs: jsonrpcAttrs("jsonrpc.request.id", "2", "rpc.method", "_OTHER", "rpc.method_original", "nope",
				"rpc.response.status_code", "-32601", "error.type", "-32601")}},
	}}
	bad := []struct{ name, meta string }{
		{"malformed traceparent", `{"traceparent":"00-` + traceID + `-` + parentID + `"}`},
		{"all-zero trace id", `{"traceparent":"00-00000000000000000000000000000000-` + parentID + `-01"}`},
		{"traceparent over 55 bytes", `{"traceparent":"01-` + traceID + `-` + parentID + `-01-` + strings.Repeat("a", 8) + `"}`},
		{"traceparent not a string", `{"traceparent":7}`},
		{"_meta not an object", `[1]`},
	}
	for _, b := range bad {
		tests = append(tests, struct {
			name    string
			methods bool
			in      string
			out     []string
			spans   []span
		}{
			name:  b.name + ": a root span",
			in:    `{"jsonrpc":"2.0","method":"add","params":{"A":1,"B":2,"_meta":` + b.meta + `},"id":1}`,
			out:   []string{`{"jsonrpc":"2.0","result":3,"id":1}`},
			spans: []span{{Name: "jsonrpc", Kind: trace.SpanKindServer, Attrs: jsonrpcAttrs("jsonrpc.request.id", "1")}},
		})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tp, sr := recorder(t)
			svc := calc(t)
			opts := &toolotel.Options{TracerProvider: tp}
			if tt.methods {
				opts.Methods = func(m string) bool { _, ok := svc.Method(m); return ok }
			}
			h := middleware.Chain(toolotel.Middleware(opts), middleware.Default(nil))(svc)
			assert.Equal(t, tt.out, serve(t, h, tt.in+"\n", nil))
			assert.Equal(t, tt.spans, ended(sr))
		})
	}
}

// A tracestate over MaxTracestate bytes is dropped, the traceparent kept; one
// within it reaches the span's parent. Baggage over MaxBaggage is dropped.
func TestTraceContextBounds(t *testing.T) {
	tests := []struct {
		name, tracestate, baggage string
		wantState, wantBaggage    string
	}{
		{"within the bounds", "rojo=00f067aa0ba902b7", "user=alice", "rojo=00f067aa0ba902b7", "user=alice"},
		{"tracestate over 512 bytes", "a=" + strings.Repeat("b", 511), "user=alice", "", "user=alice"},
		{"baggage over 8 KiB", "rojo=1", "user=" + strings.Repeat("x", 8188), "rojo=1", ""},
		{"malformed baggage", "rojo=1", "=,=", "rojo=1", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sr := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
			defer func() { require.NoError(t, tp.Shutdown(context.Background())) }()
			var seen string
			h := toolotel.Middleware(&toolotel.Options{TracerProvider: tp})(rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
				seen = baggage.FromContext(ctx).String()
				return true, nil
			}))
			meta, err := json.Marshal(map[string]string{"traceparent": traceparent, "tracestate": tt.tracestate, "baggage": tt.baggage})
			require.NoError(t, err)
			out := serve(t, h, `{"jsonrpc":"2.0","method":"m","params":{"_meta":`+string(meta)+`},"id":1}`+"\n", nil)
			assert.Equal(t, []string{`{"jsonrpc":"2.0","result":true,"id":1}`}, out)
			spans := sr.Ended()
			require.Len(t, spans, 1)
			assert.Equal(t, traceID, spans[0].Parent().TraceID().String())
			assert.Equal(t, tt.wantState, spans[0].Parent().TraceState().String())
			assert.Equal(t, tt.wantBaggage, seen)
		})
	}
}

// The span's trace id is the one Logging logs and middleware.TraceID
// returns, whether the tracer sits outside the default stack or inside it,
// the traceparent's or a new one; LogHandler adds the span id to the
// handler's records.
func TestLogCorrelation(t *testing.T) {
	for _, inside := range []bool{false, true} {
		for _, meta := range []string{`,"_meta":{"traceparent":"` + traceparent + `"}`, ``} {
			t.Run(map[bool]string{false: "outside", true: "inside"}[inside]+map[string]string{"": ", no traceparent"}[meta], func(t *testing.T) {
				tp, sr := recorder(t)
				var logs safeBuffer
				logger := slog.New(toolotel.LogHandler(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
				tracer := toolotel.Middleware(&toolotel.Options{TracerProvider: tp})
				stack := middleware.Chain(tracer, middleware.Default(logger))
				if inside {
					stack = middleware.Chain(middleware.Default(logger), tracer)
				}
				h := stack(rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
					logger.InfoContext(ctx, "inside")
					return middleware.TraceID(ctx), nil
				}))
				out := serve(t, h, `{"jsonrpc":"2.0","method":"m","params":{"x":1`+meta+`},"id":1}`+"\n", nil)
				spans := sr.Ended()
				require.Len(t, spans, 1)
				id, sid := spans[0].SpanContext().TraceID().String(), spans[0].SpanContext().SpanID().String()
				if meta != "" {
					assert.Equal(t, traceID, id)
				}
				assert.Equal(t, []string{`{"jsonrpc":"2.0","result":"` + id + `","id":1}`}, out)
				recs := logs.records(t)
				require.Len(t, recs, 2)
				assert.Equal(t, "inside", recs[0]["msg"])
				assert.Equal(t, id, recs[0]["trace_id"])
				assert.Equal(t, sid, recs[0]["span_id"])
				assert.Equal(t, "rpc call", recs[1]["msg"])
				assert.Equal(t, id, recs[1]["trace_id"])
				if !inside { // Logging runs inside the span
					assert.Equal(t, sid, recs[1]["span_id"])
				}
			})
		}
	}
}

// safeBuffer is a bytes.Buffer for concurrent writers.
type safeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) records(t *testing.T) []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, l := range lines(s.b.String()) {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m))
		out = append(out, m)
	}
	return out
}

// Over stdio, an MCP server: initialize's span holds the version agreed on,
// which the later calls' spans hold too; tools/call is named by its tool;
// an isError result is a tool_error.
func TestMCPStdio(t *testing.T) {
	tp, sr := recorder(t)
	s := mcp.New(&mcp.Options{Name: "t", Middleware: []middleware.Middleware{toolotel.Middleware(&toolotel.Options{TracerProvider: tp, MCP: true})}})
	require.NoError(t, s.Register("", Tools{}))
	in := `{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":0}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"traceparent":"` + traceparent + `"}},"id":1}
{"jsonrpc":"2.0","method":"tools/call","params":{"name":"fail","arguments":{}},"id":"two"}
{"jsonrpc":"2.0","method":"tools/call","params":{"name":"` + strings.Repeat("x", 129) + `"},"id":3}
{"jsonrpc":"2.0","method":"nope","id":4}
`
	var out bytes.Buffer
	require.NoError(t, s.Serve(context.Background(), strings.NewReader(in), &out, &rpc.Options{Sequential: true, Logger: slog.New(slog.DiscardHandler)}))
	got := lines(out.String())
	require.Len(t, got, 5)
	assert.Equal(t, `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"3"}]},"id":1}`, got[1])
	assert.Contains(t, got[2], `"isError":true`)
	const v = "2025-06-18"
	assert.Equal(t, []span{
		{Name: "initialize", Kind: trace.SpanKindServer, Attrs: map[string]any{"mcp.method.name": "initialize", "jsonrpc.request.id": "0", "mcp.protocol.version": v}},
		{Name: "notifications/initialized", Kind: trace.SpanKindServer, Attrs: map[string]any{"mcp.method.name": "notifications/initialized", "mcp.protocol.version": v}},
		{Name: "tools/call add", Kind: trace.SpanKindServer, Parent: traceID + "-" + parentID, Attrs: map[string]any{
			"mcp.method.name": "tools/call", "jsonrpc.request.id": "1", "mcp.protocol.version": v,
			"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "add"}},
		{Name: "tools/call fail", Kind: trace.SpanKindServer, Status: codes.Error, Desc: "tool_error", Attrs: map[string]any{
			"mcp.method.name": "tools/call", "jsonrpc.request.id": "two", "mcp.protocol.version": v,
			"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "fail", "error.type": "tool_error"}},
		{Name: "tools/call", Kind: trace.SpanKindServer, Status: codes.Error, Desc: "Unknown tool: " + strings.Repeat("x", 129), Attrs: map[string]any{
			"mcp.method.name": "tools/call", "jsonrpc.request.id": "3", "mcp.protocol.version": v,
			"gen_ai.operation.name": "execute_tool", "rpc.response.status_code": "-32602", "error.type": "-32602"}},
		{Name: "nope", Kind: trace.SpanKindServer, Status: codes.Error, Desc: "Method not found", Attrs: map[string]any{
			"mcp.method.name": "nope", "jsonrpc.request.id": "4", "mcp.protocol.version": v,
			"rpc.response.status_code": "-32601", "error.type": "-32601"}},
	}, ended(sr))
}

// The 2026-07-28 era: each call says its version in _meta.
func TestMCPModern(t *testing.T) {
	tp, sr := recorder(t)
	s := mcp.New(&mcp.Options{Name: "t", Middleware: []middleware.Middleware{toolotel.Middleware(&toolotel.Options{TracerProvider: tp, MCP: true})}})
	require.NoError(t, s.Register("", Tools{}))
	in := `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"traceparent":"` + traceparent + `"}},"id":1}` + "\n"
	var out bytes.Buffer
	require.NoError(t, s.Serve(context.Background(), strings.NewReader(in), &out, &rpc.Options{Logger: slog.New(slog.DiscardHandler)}))
	assert.Contains(t, out.String(), `"text":"3"`)
	assert.Equal(t, []span{{Name: "tools/call add", Kind: trace.SpanKindServer, Parent: traceID + "-" + parentID, Attrs: map[string]any{
		"mcp.method.name": "tools/call", "jsonrpc.request.id": "1", "mcp.protocol.version": "2026-07-28",
		"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "add"}}}, ended(sr))
}

// Over HTTP (rpc.NewHTTPHandler): the traceparent header is the parent of a
// call without one in _meta; with one in _meta, that is the parent and the
// header's the span's link.
func TestHTTP(t *testing.T) {
	tests := []struct {
		name, body string
		spans      func(host, port, peer string, peerPort int64) []span
	}{{
		name: "the header's trace context",
		body: `{"jsonrpc":"2.0","method":"add","params":{"A":1,"B":2},"id":1}`,
	}, {
		name: "_meta's, linked to the header's",
		body: `{"jsonrpc":"2.0","method":"add","params":{"A":1,"B":2,"_meta":{"traceparent":"` + traceparent + `"}},"id":1}`,
	}}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tp, sr := recorder(t)
			svc := calc(t)
			h := middleware.Chain(toolotel.Middleware(&toolotel.Options{TracerProvider: tp,
				Methods: func(m string) bool { _, ok := svc.Method(m); return ok }}), middleware.Default(nil))(svc)
			hh := rpc.NewHTTPHandler(context.Background(), h, &rpc.Options{Logger: slog.New(slog.DiscardHandler)})
			defer func() { require.NoError(t, hh.Close()) }()
			ts := httptest.NewServer(hh)
			defer ts.Close()
			req, err := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(tt.body))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Traceparent", hdrTraceparent)
			resp, err := ts.Client().Do(req)
			require.NoError(t, err)
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.NoError(t, resp.Body.Close())
			assert.Equal(t, `{"jsonrpc":"2.0","result":3,"id":1}`, strings.TrimSpace(string(body)))
			spans := ended(sr)
			require.Len(t, spans, 1)
			s := spans[0]
			// The addresses are the test server's and its client's.
			assert.Equal(t, "127.0.0.1", s.Attrs["server.address"])
			assert.Equal(t, "127.0.0.1", s.Attrs["network.peer.address"])
			assert.NotZero(t, s.Attrs["server.port"])
			assert.NotZero(t, s.Attrs["network.peer.port"])
			for _, k := range []string{"server.address", "server.port", "network.peer.address", "network.peer.port"} {
				delete(s.Attrs, k)
			}
			want := span{Name: "add", Kind: trace.SpanKindServer, Attrs: jsonrpcAttrs("jsonrpc.request.id", "1", "rpc.method", "add"),
				Parent: hdrTraceID + "-" + hdrParentID}
			if i == 1 {
				want.Parent, want.Links = traceID+"-"+parentID, []string{hdrTraceID + "-" + hdrParentID}
			}
			assert.Equal(t, want, s)
		})
	}
}

// A call the peer cancels: with notifications/cancelled it is answered with
// nothing, and its span says "cancelled"; with $/cancelRequest it is
// answered RequestCancelled, and its span has that code. The connection
// handles the cancelling notification itself: no handler sees it, and it
// has no span.
func TestCancelled(t *testing.T) {
	tests := []struct {
		method string
		out    []string
		call   span
	}{{
		method: rpc.CancelledNotification,
		call: span{Name: "jsonrpc", Kind: trace.SpanKindServer, Status: codes.Error, Desc: "cancelled by the caller",
			Attrs: jsonrpcAttrs("jsonrpc.request.id", "1", "error.type", "cancelled"), Events: []string{"toolrpc.cancelled"}},
	}, {
		method: rpc.CancelRequest,
		out:    []string{`{"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":1}`},
		call: span{Name: "jsonrpc", Kind: trace.SpanKindServer, Status: codes.Error, Desc: "Request cancelled",
			Attrs: jsonrpcAttrs("jsonrpc.request.id", "1", "rpc.response.status_code", "-32800", "error.type", "-32800")},
	}}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			tp, sr := recorder(t)
			started := make(chan struct{})
			h := toolotel.Middleware(&toolotel.Options{TracerProvider: tp})(rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
				close(started)
				<-ctx.Done()
				return nil, ctx.Err()
			}))
			pr, pw := io.Pipe()
			var out safeBuffer
			done := make(chan error, 1)
			go func() {
				done <- rpc.Serve(context.Background(), pr, &out, h, &rpc.Options{Logger: slog.New(slog.DiscardHandler)})
			}()
			_, err := io.WriteString(pw, `{"jsonrpc":"2.0","method":"wait","id":1}`+"\n")
			require.NoError(t, err)
			<-started
			_, err = io.WriteString(pw, `{"jsonrpc":"2.0","method":"`+tt.method+`","params":{"requestId":1,"id":1}}`+"\n")
			require.NoError(t, err)
			require.NoError(t, pw.Close())
			require.NoError(t, <-done)
			out.mu.Lock()
			assert.Equal(t, tt.out, lines(out.b.String()))
			out.mu.Unlock()
			spans := ended(sr)
			assert.Equal(t, []span{tt.call}, spans)
		})
	}
}

// A span the handler starts from its context is the call span's child; a
// filtered call has no span.
func TestChildAndFilter(t *testing.T) {
	tp, sr := recorder(t)
	h := toolotel.Middleware(&toolotel.Options{TracerProvider: tp, Filter: func(_ context.Context, req *rpc.Request) bool {
		return req.Method != "health"
	}})(rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		_, s := tp.Tracer("app").Start(ctx, "work")
		s.End()
		return nil, nil
	}))
	out := serve(t, h, `{"jsonrpc":"2.0","method":"m","id":1}
{"jsonrpc":"2.0","method":"health","id":2}
`, nil)
	assert.Equal(t, []string{`{"jsonrpc":"2.0","result":null,"id":1}`, `{"jsonrpc":"2.0","result":null,"id":2}`}, out)
	spans := sr.Ended()
	require.Len(t, spans, 3)
	assert.Equal(t, []string{"work", "jsonrpc", "work"}, []string{spans[0].Name(), spans[1].Name(), spans[2].Name()})
	assert.Equal(t, spans[1].SpanContext().SpanID(), spans[0].Parent().SpanID())
	assert.False(t, spans[2].Parent().IsValid(), "the filtered call's work has no parent")
	assert.Equal(t, []attribute.KeyValue{attribute.String("jsonrpc.request.id", "1"),
		attribute.String("rpc.system.name", "jsonrpc"), attribute.String("jsonrpc.protocol.version", "2.0")}, spans[1].Attributes())
}

// Over Streamable HTTP, a legacy session: the calls after initialize carry
// the session's id and the version of their MCP-Protocol-Version header,
// and the HTTP transport's attributes.
func TestMCPStreamableHTTP(t *testing.T) {
	tp, sr := recorder(t)
	s := mcp.New(&mcp.Options{Name: "t", Middleware: []middleware.Middleware{toolotel.Middleware(&toolotel.Options{TracerProvider: tp, MCP: true})}})
	require.NoError(t, s.Register("", Tools{}))
	hh := s.NewHTTPHandler(context.Background(), &mcp.HTTPOptions{RPC: rpc.Options{Logger: slog.New(slog.DiscardHandler)}})
	defer func() { require.NoError(t, hh.Close()) }()
	ts := httptest.NewServer(hh)
	defer ts.Close()
	post := func(session, body string) string {
		req, err := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		}
		resp, err := ts.Client().Do(req)
		require.NoError(t, err)
		_, err = io.Copy(io.Discard, resp.Body)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		require.Less(t, resp.StatusCode, 300)
		return resp.Header.Get("Mcp-Session-Id")
	}
	sid := post("", `{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":0}`)
	require.NotEmpty(t, sid)
	post(sid, `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"traceparent":"`+traceparent+`"}},"id":1}`)
	spans := ended(sr)
	require.Len(t, spans, 2)
	for i := range spans {
		assert.Equal(t, "127.0.0.1", spans[i].Attrs["client.address"])
		assert.NotZero(t, spans[i].Attrs["client.port"])
		delete(spans[i].Attrs, "client.address")
		delete(spans[i].Attrs, "client.port")
	}
	http := map[string]any{"network.transport": "tcp", "network.protocol.name": "http", "network.protocol.version": "1.1"}
	with := func(m map[string]any) map[string]any {
		for k, v := range http {
			m[k] = v
		}
		return m
	}
	assert.Equal(t, []span{
		{Name: "initialize", Kind: trace.SpanKindServer, Attrs: with(map[string]any{"mcp.method.name": "initialize", "jsonrpc.request.id": "0", "mcp.protocol.version": "2025-06-18"})},
		{Name: "tools/call add", Kind: trace.SpanKindServer, Parent: traceID + "-" + parentID, Attrs: with(map[string]any{
			"mcp.method.name": "tools/call", "jsonrpc.request.id": "1", "mcp.protocol.version": "2025-06-18", "mcp.session.id": sid,
			"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "add"})},
	}, spans)
}
