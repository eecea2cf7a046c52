package toolotel

import (
	"context"
	"slices"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
)

// The metrics' names.
const (
	// MetricRPCDuration is the duration of a JSON-RPC call: the
	// conventions' rpc.server.call.duration, a histogram in seconds.
	MetricRPCDuration = "rpc.server.call.duration"
	// MetricMCPDuration is the duration of an MCP request or notification
	// (with [Options].MCP): the conventions' mcp.server.operation.duration,
	// a histogram in seconds.
	MetricMCPDuration = "mcp.server.operation.duration"
	// MetricActiveCalls is the number of calls being served: an
	// UpDownCounter of toolrpc's own, in {call}, since the conventions
	// define none for RPC or MCP.
	MetricActiveCalls = "toolrpc.server.active_calls"
)

// Explicit bucket boundaries, in seconds, the conventions give: those of
// rpc.server.call.duration (v1.44.0) and of mcp.server.operation.duration
// (v1.41.0).
var (
	rpcBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}
	mcpBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}
)

// mcpMethods are the well-known values of mcp.method.name (the
// conventions v1.41.0): a method among them is always its own value on a
// metric; any other only when the call was answered with a result.
var mcpMethods = map[string]bool{
	"completion/complete": true, "elicitation/create": true, "initialize": true, "logging/setLevel": true,
	"notifications/cancelled": true, "notifications/initialized": true, "notifications/message": true,
	"notifications/progress": true, "notifications/prompts/list_changed": true,
	"notifications/resources/list_changed": true, "notifications/resources/updated": true,
	"notifications/roots/list_changed": true, "notifications/tools/list_changed": true, "ping": true,
	"prompts/get": true, "prompts/list": true, "resources/list": true, "resources/read": true,
	"resources/subscribe": true, "resources/templates/list": true, "resources/unsubscribe": true,
	"roots/list": true, "sampling/createMessage": true, "tools/call": true, "tools/list": true,
}

// meters are a Middleware's instruments.
type meters struct {
	mcp      bool
	duration metric.Float64Histogram
	active   metric.Int64UpDownCounter
	// activeSet is the active calls' one attribute set.
	activeSet []metric.AddOption
	// sets are the duration's attribute sets met so far, at most MaxSets.
	mu   sync.RWMutex
	sets map[setKey][]metric.RecordOption
	// versions are the MCP revisions package mcp speaks: the only values
	// of mcp.protocol.version on a metric.
	versions map[string]bool
}

// newMeters makes the instruments of a Middleware. An error making one is
// reported to the global error handler; the SDK returns a usable
// instrument all the same.
func newMeters(meter metric.Meter, isMCP bool) *meters {
	m := &meters{mcp: isMCP, versions: map[string]bool{}, sets: map[setKey][]metric.RecordOption{}}
	var err error
	if isMCP {
		m.duration, err = meter.Float64Histogram(MetricMCPDuration, metric.WithUnit("s"),
			metric.WithDescription("MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent."),
			metric.WithExplicitBucketBoundaries(mcpBuckets...))
		m.activeSet = []metric.AddOption{metric.WithAttributeSet(attribute.NewSet())}
		for _, v := range mcp.Versions() {
			m.versions[v] = true
		}
	} else {
		m.duration, err = meter.Float64Histogram(MetricRPCDuration, metric.WithUnit("s"),
			metric.WithDescription("Measures the duration of an incoming Remote Procedure Call (RPC)."),
			metric.WithExplicitBucketBoundaries(rpcBuckets...))
		m.activeSet = []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(keyRPCSystem.String("jsonrpc")))}
	}
	if err != nil {
		otel.Handle(err)
	}
	m.active, err = meter.Int64UpDownCounter(MetricActiveCalls, metric.WithUnit("{call}"),
		metric.WithDescription("The number of calls being served."))
	if err != nil {
		otel.Handle(err)
	}
	return m
}

// record records the call's duration d, with attributes of bounded
// cardinality: taken from its span's starting attributes (attrs) and its
// outcome, per the package's documentation.
func (m *meters) record(ctx context.Context, d time.Duration, req *rpc.Request, attrs []attribute.KeyValue, out outcome) {
	var key setKey
	kv := key.kv[:0]
	if !m.mcp {
		method := "_OTHER"
		for _, a := range attrs {
			if a.Key == keyRPCMethod {
				method = a.Value.AsString()
			}
		}
		kv = append(kv, keyRPCSystem.String("jsonrpc"), keyRPCMethod.String(method))
	} else {
		// answered: with a result, by a handler that knows the method.
		answered := len(req.ID) > 0 && out.code == "" && out.errorType != "cancelled"
		method := req.Method
		if !mcpMethods[method] && !answered {
			method = "_OTHER"
		}
		kv = append(kv, keyMCPMethod.String(method))
		version := out.version
		for _, a := range attrs {
			switch a.Key {
			case keyToolName, keyPromptName:
				if answered {
					kv = append(kv, a)
				}
			case keyMCPProtocol:
				if version == "" {
					version = a.Value.AsString()
				}
			case keyOperation, keyNetTransport, keyNetProtocol, keyNetProtoVersion:
				kv = append(kv, a)
			}
		}
		if m.versions[version] {
			kv = append(kv, keyMCPProtocol.String(version))
		}
	}
	if out.code != "" {
		kv = append(kv, keyRPCStatus.String(out.code))
	}
	if out.errorType != "" {
		kv = append(kv, keyErrorType.String(out.errorType))
	}
	key.n = len(kv)
	m.duration.Record(ctx, d.Seconds(), m.options(&key)...)
}

// MaxSets is the most attribute sets of a duration histogram a Middleware
// keeps made, so that a call whose attributes were seen before records
// its duration without allocating; a set past it is made for each call.
// The attributes are of bounded cardinality (see the package's
// documentation): a server meets few sets.
const MaxSets = 1024

// setKey is a duration's attributes, in the order record appends them.
type setKey struct {
	n  int
	kv [10]attribute.KeyValue // record appends 8 at most
}

// options are the record options of the attributes of key.
func (m *meters) options(key *setKey) []metric.RecordOption {
	m.mu.RLock()
	opts, ok := m.sets[*key]
	m.mu.RUnlock()
	if ok {
		return opts
	}
	opts = []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(slices.Clone(key.kv[:key.n])...))}
	m.mu.Lock()
	if len(m.sets) < MaxSets {
		m.sets[*key] = opts
	}
	m.mu.Unlock()
	return opts
}
