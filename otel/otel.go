// Package toolotel traces toolrpc servers with OpenTelemetry: [Middleware]
// makes one SERVER span for each call a connection serves (each entry of a
// batch is a call of its own, and so a span of its own), a notification's
// included, with the trace context its caller sent as the span's parent.
//
// It lives in a module of its own, github.com/toolrpc/toolrpc/otel, so that
// the core module does not depend on OpenTelemetry. Its package name is
// toolotel, not otel: a program that traces imports
// go.opentelemetry.io/otel as otel too, and the two would collide in every
// file that uses both.
//
// # Semantic conventions
//
// The spans follow the OpenTelemetry semantic conventions v1.44.0: the
// registry's attribute names, and for a JSON-RPC call the JSON-RPC server
// span (docs/rpc/json-rpc.md) with its name from docs/rpc/rpc-spans.md.
// The MCP server span (with [Options].MCP) is the one of docs/gen-ai/mcp.md
// as v1.41.0 defines it, the last release that holds it before the GenAI
// conventions moved to a repository of their own. The error code is
// rpc.response.status_code, the name both releases give it (the
// conventions' main branch has since renamed it rpc.status_code, in no
// release yet). All of these are in
// Development or Release Candidate status: their names may change, and
// this package with them.
//
// A JSON-RPC call's span, kind SERVER:
//
//   - name: the method when [Options].Methods recognizes it, else "jsonrpc"
//     (the conventions' {rpc.system.name});
//   - rpc.system.name "jsonrpc", jsonrpc.protocol.version "2.0" (the
//     conventions ask for it when it is not 1.0);
//   - rpc.method, only with Options.Methods (the conventions make it
//     opt-in, since a peer may send any method name): the method, or
//     "_OTHER" with rpc.method_original for a method Methods does not
//     recognize;
//   - jsonrpc.request.id: the id, a string's without its quotes (none for a
//     notification or a null id);
//   - over HTTP: server.address and server.port (of the request's Host, the
//     address the client used), network.peer.address and
//     network.peer.port (its RemoteAddr).
//
// An MCP call's span, kind SERVER:
//
//   - name: "{mcp.method.name} {target}", the target the tool's name for
//     tools/call and the prompt's for prompts/get, else "{mcp.method.name}";
//   - mcp.method.name; gen_ai.tool.name and gen_ai.operation.name
//     "execute_tool" for tools/call; gen_ai.prompt.name for prompts/get;
//     mcp.resource.uri for resources/read, resources/subscribe and
//     resources/unsubscribe; jsonrpc.request.id for a request;
//   - mcp.protocol.version where known: the MCP-Protocol-Version header,
//     the 2026-07-28 era's _meta "io.modelcontextprotocol/protocolVersion",
//     or, on a stream connection, the version its initialize agreed on;
//   - mcp.session.id: a Streamable HTTP session's Mcp-Session-Id;
//   - over HTTP: network.transport "tcp", network.protocol.name "http",
//     network.protocol.version, client.address and client.port.
//
// Both end the same way. A call answered with an error object gets
// rpc.response.status_code and error.type, both the code as a decimal string
// ("-32602"), and status Error with the error's message; an MCP tools/call
// answered with an isError result gets error.type "tool_error" and status
// Error. A call the peer cancelled with notifications/cancelled (answered
// with nothing, MCP's rule) gets error.type "cancelled", status Error and
// an event "toolrpc.cancelled". A call answered with a result gets none of
// these, and status Unset.
//
// A tool name, prompt name or resource URI longer than [MaxTarget] bytes is
// left out (a peer may send any): the span is named by its method alone.
//
// # Trace context
//
// The span's parent is, first, the trace context of the request's
// params._meta (traceparent, tracestate and baggage, the MCP conventions'
// place: the conventions' MCP server span SHOULD take its parent from
// there, since one HTTP request may carry many calls and one call be
// retried over many); else the span already in the call's context (an HTTP
// server instrumentation's, such as otelhttp's in front of the handler);
// else, when the call came over HTTP, the trace context of its headers.
// When params._meta gives the parent and the transport has a trace context
// of its own, the span links to it. Baggage follows the same order.
//
// A peer's trace context is read through [Options].Propagator (default:
// W3C Trace Context and Baggage), each value bounded: a traceparent longer
// than [MaxTraceparent] bytes, a tracestate longer than [MaxTracestate], a
// baggage or any other propagator's value longer than [MaxBaggage] is
// dropped before the propagator sees it, and a malformed one is ignored by
// it. Either way the call is served as one with no trace context: its span
// is a root span, never an error.
//
// # Logs
//
// The span's trace id is the call's trace id for package middleware
// ([middleware.WithTraceID]): the trace_id of every record Logging and
// Recover write for the call, wherever they sit in the chain, is the
// span's. [LogHandler] adds the span's span_id (and its trace_id) to the
// records made with a context inside the span.
//
// # Metrics
//
// With [Options].MeterProvider, each call a span is made of is measured
// too (see docs/otel.md for the tables):
//
//   - [MetricRPCDuration], rpc.server.call.duration (v1.44.0), for a
//     JSON-RPC call, a notification's included: a histogram in seconds
//     with the conventions' bucket boundaries; rpc.system.name "jsonrpc",
//     rpc.method (the method [Options].Methods recognizes, else "_OTHER",
//     always "_OTHER" without Methods), and on an error rpc.response.status_code
//     and error.type as on the span;
//   - [MetricMCPDuration], mcp.server.operation.duration (v1.41.0), for an
//     MCP request or notification instead: mcp.method.name (a method none
//     of the conventions' well-known ones is "_OTHER" unless it was
//     answered with a result), gen_ai.operation.name, gen_ai.tool.name or
//     gen_ai.prompt.name only for a call answered with a result (a refused
//     one's name is the peer's, of any cardinality), mcp.protocol.version
//     only for a revision package mcp speaks, the network attributes over
//     HTTP, and rpc.response.status_code and error.type as on the span;
//   - [MetricActiveCalls], toolrpc.server.active_calls, an UpDownCounter
//     of toolrpc's own in {call} (the conventions define none): the calls
//     being served, with rpc.system.name "jsonrpc" for JSON-RPC, no
//     attribute for MCP.
//
// Each attribute's values are bounded, so that a peer cannot grow the
// number of series; the attribute sets met are kept, up to [MaxSets], so
// that recording a call's duration allocates nothing.
//
// # Not here yet
//
// Client spans, and progress reports as span events: middleware
// cannot see a report (ReportProgress sends it through rpc.Notify, which
// has no hook), so a span holds none.
package toolotel

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolrpc/toolrpc/middleware"
	"github.com/toolrpc/toolrpc/rpc"
)

// ScopeName is the instrumentation scope of the spans: the name this
// package asks its TracerProvider for a Tracer by.
const ScopeName = "github.com/toolrpc/toolrpc/otel"

// The bounds of a peer's trace context: a value longer than its bound is
// dropped unread, and the call is served as one without it.
const (
	// MaxTraceparent is the longest traceparent read: 55 bytes, a W3C
	// Trace Context version 00 traceparent's length.
	MaxTraceparent = 55
	// MaxTracestate is the longest tracestate read: 512 bytes, the length
	// W3C Trace Context asks every vendor to propagate at least.
	MaxTracestate = 512
	// MaxBaggage is the longest baggage read, 8192 bytes (the W3C
	// Baggage limit), and of any other value a propagator asks for.
	MaxBaggage = 8192
	// MaxTarget is the longest tool name, prompt name or resource URI put
	// in a span (MCP's tool names are at most 128 characters).
	MaxTarget = 128
)

// Options configure Middleware. A nil *Options, and every zero field, means
// the documented default.
type Options struct {
	// TracerProvider makes the spans. Default: otel.GetTracerProvider(),
	// the global one.
	TracerProvider trace.TracerProvider
	// MeterProvider makes the metrics (see the package's documentation).
	// Default: otel.GetMeterProvider(), the global one.
	MeterProvider metric.MeterProvider
	// Propagator reads the caller's trace context from params._meta and
	// from HTTP headers. Default: W3C Trace Context and Baggage
	// (propagation.TraceContext and propagation.Baggage).
	Propagator propagation.TextMapPropagator
	// Filter says whether a call gets a span: false serves it untraced (its
	// trace context is not read either). Default: every call.
	Filter func(ctx context.Context, req *rpc.Request) bool
	// MCP makes the spans MCP's (the conventions' MCP server span): for a
	// handler of package mcp. Default: JSON-RPC's.
	MCP bool
	// Methods recognizes a JSON-RPC call's method: a recognized one names
	// its span and is its rpc.method; any other is rpc.method "_OTHER". For
	// a service.Service svc:
	//
	//	Methods: func(m string) bool { _, ok := svc.Method(m); return ok }
	//
	// Default: nil, no rpc.method and every span named "jsonrpc" (the
	// conventions make rpc.method opt-in, since a peer may send any name).
	// Not used with MCP.
	Methods func(method string) bool
}

// Attribute keys of the semantic conventions v1.44.0 used here.
const (
	keyRPCSystem       = attribute.Key("rpc.system.name")
	keyRPCMethod       = attribute.Key("rpc.method")
	keyRPCMethodOrig   = attribute.Key("rpc.method_original")
	keyRPCStatus       = attribute.Key("rpc.response.status_code")
	keyJSONRPCVersion  = attribute.Key("jsonrpc.protocol.version")
	keyJSONRPCID       = attribute.Key("jsonrpc.request.id")
	keyErrorType       = attribute.Key("error.type")
	keyMCPMethod       = attribute.Key("mcp.method.name")
	keyMCPProtocol     = attribute.Key("mcp.protocol.version")
	keyMCPSession      = attribute.Key("mcp.session.id")
	keyMCPResource     = attribute.Key("mcp.resource.uri")
	keyToolName        = attribute.Key("gen_ai.tool.name")
	keyPromptName      = attribute.Key("gen_ai.prompt.name")
	keyOperation       = attribute.Key("gen_ai.operation.name")
	keyServerAddress   = attribute.Key("server.address")
	keyServerPort      = attribute.Key("server.port")
	keyClientAddress   = attribute.Key("client.address")
	keyClientPort      = attribute.Key("client.port")
	keyPeerAddress     = attribute.Key("network.peer.address")
	keyPeerPort        = attribute.Key("network.peer.port")
	keyNetTransport    = attribute.Key("network.transport")
	keyNetProtocol     = attribute.Key("network.protocol.name")
	keyNetProtoVersion = attribute.Key("network.protocol.version")
)

// Middleware makes a SERVER span of each call, per the package's
// documentation, and serves the call with the span in its context (a span
// the handler starts from it is the call span's child). opts may be nil.
func Middleware(opts *Options) middleware.Middleware {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.TracerProvider == nil {
		o.TracerProvider = otel.GetTracerProvider()
	}
	if o.MeterProvider == nil {
		o.MeterProvider = otel.GetMeterProvider()
	}
	if o.Propagator == nil {
		o.Propagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	}
	tracer := o.TracerProvider.Tracer(ScopeName)
	m := newMeters(o.MeterProvider.Meter(ScopeName), o.MCP)
	return func(next rpc.Handler) rpc.Handler {
		// The protocol version a stream connection's initialize agreed
		// on: each connection of package mcp has a handler of its own.
		var agreed atomic.Pointer[string]
		return rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
			if o.Filter != nil && !o.Filter(ctx, req) {
				return next.Handle(ctx, req)
			}
			hr := rpc.HTTPRequest(ctx)
			ctx, link := extract(ctx, o.Propagator, req, hr)
			name, attrs := o.start(req, hr, &agreed)
			so := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...)}
			if link.IsValid() {
				so = append(so, trace.WithLinks(trace.Link{SpanContext: link}))
			}
			ctx, span := tracer.Start(ctx, name, so...)
			defer span.End()
			if sc := span.SpanContext(); sc.HasTraceID() {
				ctx = middleware.WithTraceID(ctx, req, sc.TraceID())
			}
			if m.active.Enabled(ctx) {
				m.active.Add(ctx, 1, m.activeSet...)
				defer m.active.Add(ctx, -1, m.activeSet...)
			}
			timed := m.duration.Enabled(ctx)
			var began time.Time
			if timed {
				began = time.Now()
			}
			result, err := next.Handle(ctx, req)
			out := o.end(ctx, span, req, hr, result, err, &agreed)
			if timed {
				m.record(ctx, time.Since(began), req, attrs, out)
			}
			return result, err
		})
	}
}

// extract returns ctx with the caller's trace context (see the package's
// documentation), and the transport's span context the span links to, if
// params._meta gave the parent and the transport has one too.
func extract(ctx context.Context, prop propagation.TextMapPropagator, req *rpc.Request, hr *http.Request) (context.Context, trace.SpanContext) {
	if hr != nil && !trace.SpanContextFromContext(ctx).IsValid() {
		ctx = prop.Extract(ctx, bounded{propagation.HeaderCarrier(hr.Header)})
	}
	transport := trace.SpanContextFromContext(ctx)
	if len(req.Meta) == 0 {
		return ctx, trace.SpanContext{}
	}
	ctx = prop.Extract(ctx, bounded{newMetaCarrier(req.Meta)})
	if parent := trace.SpanContextFromContext(ctx); transport.IsValid() && !parent.Equal(transport) {
		return ctx, transport
	}
	return ctx, trace.SpanContext{}
}

// start returns the span's name and the attributes known when it starts.
func (o *Options) start(req *rpc.Request, hr *http.Request, agreed *atomic.Pointer[string]) (string, []attribute.KeyValue) {
	attrs := make([]attribute.KeyValue, 0, 12)
	if id, ok := requestID(req.ID); ok {
		attrs = append(attrs, keyJSONRPCID.String(id))
	}
	if !o.MCP {
		attrs = append(attrs, keyRPCSystem.String("jsonrpc"), keyJSONRPCVersion.String("2.0"))
		name := "jsonrpc"
		if o.Methods != nil {
			if o.Methods(req.Method) {
				name = req.Method
				attrs = append(attrs, keyRPCMethod.String(req.Method))
			} else {
				attrs = append(attrs, keyRPCMethod.String("_OTHER"), keyRPCMethodOrig.String(req.Method))
			}
		}
		if hr != nil {
			if host, port, ok := hostPort(hr.Host); ok {
				attrs = append(attrs, keyServerAddress.String(host))
				if port > 0 {
					attrs = append(attrs, keyServerPort.Int(port))
				}
			}
			if host, port, ok := hostPort(hr.RemoteAddr); ok {
				attrs = append(attrs, keyPeerAddress.String(host))
				if port > 0 {
					attrs = append(attrs, keyPeerPort.Int(port))
				}
			}
		}
		return name, attrs
	}

	name := req.Method
	attrs = append(attrs, keyMCPMethod.String(req.Method))
	switch req.Method {
	case "tools/call":
		attrs = append(attrs, keyOperation.String("execute_tool"))
		if tool := paramString(req.Params, "name"); tool != "" {
			name += " " + tool
			attrs = append(attrs, keyToolName.String(tool))
		}
	case "prompts/get":
		if prompt := paramString(req.Params, "name"); prompt != "" {
			name += " " + prompt
			attrs = append(attrs, keyPromptName.String(prompt))
		}
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		if uri := paramString(req.Params, "uri"); uri != "" {
			attrs = append(attrs, keyMCPResource.String(uri))
		}
	}
	if v := protocolVersion(req, hr, agreed); v != "" {
		attrs = append(attrs, keyMCPProtocol.String(v))
	}
	if hr != nil {
		if id := hr.Header.Get("Mcp-Session-Id"); id != "" && len(id) <= MaxTarget {
			attrs = append(attrs, keyMCPSession.String(id))
		}
		attrs = append(attrs, keyNetTransport.String("tcp"), keyNetProtocol.String("http"))
		if v := protoVersion(hr); v != "" {
			attrs = append(attrs, keyNetProtoVersion.String(v))
		}
		if host, port, ok := hostPort(hr.RemoteAddr); ok {
			attrs = append(attrs, keyClientAddress.String(host))
			if port > 0 {
				attrs = append(attrs, keyClientPort.Int(port))
			}
		}
	}
	return name, attrs
}

// outcome is how a call ended, as its span and its metrics say it.
type outcome struct {
	// code is the error object's code, "" when there is none.
	code string
	// errorType is the call's error.type, "" for a success.
	errorType string
	// notFound: the call was answered Method not found.
	notFound bool
	// version is the MCP revision initialize's result agreed on.
	version string
}

// end records on span how the call ended, what the wire says of it, and
// returns it.
func (o *Options) end(ctx context.Context, span trace.Span, req *rpc.Request, hr *http.Request, result any, err error, agreed *atomic.Pointer[string]) (out outcome) {
	if ctx.Err() != nil && rpc.CancelledSilently(ctx) {
		span.AddEvent("toolrpc.cancelled")
		span.SetAttributes(keyErrorType.String("cancelled"))
		span.SetStatus(codes.Error, "cancelled by the caller")
		return outcome{errorType: "cancelled"}
	}
	if e := rpc.ErrorFor(ctx, err); e != nil {
		code := strconv.Itoa(int(e.Code))
		span.SetAttributes(keyRPCStatus.String(code), keyErrorType.String(code))
		span.SetStatus(codes.Error, e.Message)
		return outcome{code: code, errorType: code, notFound: e.Code == rpc.MethodNotFound}
	}
	if !o.MCP {
		return out
	}
	switch req.Method {
	case "tools/call":
		if raw := rawResult(result); bytes.Contains(raw, []byte(`"isError"`)) {
			var r struct {
				IsError bool `json:"isError"`
			}
			if json.Unmarshal(raw, &r) == nil && r.IsError {
				span.SetAttributes(keyErrorType.String("tool_error"))
				span.SetStatus(codes.Error, "tool_error")
				out.errorType = "tool_error"
			}
		}
	case "initialize":
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(rawResult(result), &r) == nil && r.ProtocolVersion != "" && len(r.ProtocolVersion) <= MaxTarget {
			span.SetAttributes(keyMCPProtocol.String(r.ProtocolVersion))
			out.version = r.ProtocolVersion
			if hr == nil {
				agreed.Store(&r.ProtocolVersion)
			}
		}
	}
	return out
}

// rawResult is the JSON of a handler's result.
func rawResult(result any) []byte {
	switch r := result.(type) {
	case nil:
		return nil
	case json.RawMessage:
		return r
	case []byte:
		return r
	}
	b, _ := json.Marshal(result)
	return b
}

// protocolVersion is the MCP revision of the call, where known.
func protocolVersion(req *rpc.Request, hr *http.Request, agreed *atomic.Pointer[string]) string {
	if hr != nil {
		if v := hr.Header.Get("MCP-Protocol-Version"); v != "" && len(v) <= MaxTarget {
			return v
		}
	}
	if v := paramString(req.Meta, "io.modelcontextprotocol/protocolVersion"); v != "" {
		return v
	}
	if hr == nil {
		if v := agreed.Load(); v != nil {
			return *v
		}
	}
	return ""
}

// requestID is the string form of the id token: a string's value, a
// number's text; none for a notification or null.
func requestID(id json.RawMessage) (string, bool) {
	if len(id) == 0 || id[0] == 'n' {
		return "", false
	}
	if id[0] == '"' {
		var s string
		if json.Unmarshal(id, &s) != nil {
			return "", false
		}
		return s, true
	}
	return string(id), true
}

// paramString is the string member name ("name", "uri" or
// "io.modelcontextprotocol/protocolVersion") of the JSON object obj, if it
// has one of at most MaxTarget bytes, else "". The other members are
// scanned, never copied: a tool's arguments may be megabytes.
func paramString(obj json.RawMessage, name string) string {
	if len(obj) == 0 || obj[0] != '{' {
		return ""
	}
	var m struct {
		Name    json.RawMessage `json:"name"`
		URI     json.RawMessage `json:"uri"`
		Version json.RawMessage `json:"io.modelcontextprotocol/protocolVersion"`
	}
	if json.Unmarshal(obj, &m) != nil {
		return ""
	}
	raw := m.Name
	switch name {
	case "uri":
		raw = m.URI
	case "io.modelcontextprotocol/protocolVersion":
		raw = m.Version
	}
	if len(raw) == 0 || raw[0] != '"' || len(raw) > 6*MaxTarget+2 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil || len(s) > MaxTarget {
		return ""
	}
	return s
}

// hostPort splits "host:port" or a bare host; port is 0 when absent.
func hostPort(hp string) (host string, port int, ok bool) {
	if hp == "" {
		return "", 0, false
	}
	h, p, err := net.SplitHostPort(hp)
	if err != nil {
		return hp, 0, true
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 0 || n > 65535 {
		n = 0
	}
	return h, n, h != ""
}

// protoVersion is the HTTP version of r, as the conventions write it:
// "1.1", "2", "3".
func protoVersion(r *http.Request) string {
	switch {
	case r.ProtoMajor == 0:
		return ""
	case r.ProtoMajor >= 2 && r.ProtoMinor == 0:
		return strconv.Itoa(r.ProtoMajor)
	}
	return strconv.Itoa(r.ProtoMajor) + "." + strconv.Itoa(r.ProtoMinor)
}
