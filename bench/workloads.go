package main

import (
	"strconv"
)

// Workload shapes.
const (
	pipelineDepth = 10000 // calls in flight in the pipelined workload
	batchSize     = 100   // calls per batch line
	sumA, sumB    = 20, 22
	sumResult     = "42"
	echoSize      = 1 << 20 // the echo payload: 1 MiB
)

type kind int

const (
	kindPingpong  kind = iota // one call in flight, positional params
	kindNamed                 // the same, named params
	kindPipelined             // pipelineDepth calls in flight, matched by id
	kindBatch                 // batchSize calls per line
	kindEcho                  // a 1 MiB string echoed, one call in flight
	kindLine                  // one huge echo line, timed once per round
)

// A workload is one column of the report.
type workload struct {
	key        string // for flags and benchmark names
	title      string
	kind       kind
	callsPerOp int // what one testing.B op is worth in calls
	lineSize   int // kindLine: the request line's size, '\n' included
	// mcp: an MCP workload, tools/call after initialize (kindPingpong: the
	// tool add; kindEcho: the tool echo), run by the MCP contestants only.
	mcp bool
	// http: an HTTP workload, sum POSTed over loopback TCP (kindPingpong),
	// run by the HTTP contestants only, by clients concurrent clients,
	// each on a keep-alive connection of its own with one call in flight.
	http    bool
	clients int
}

var workloads = []*workload{
	{key: "pingpong", title: "ping-pong (positional)", kind: kindPingpong, callsPerOp: 1},
	{key: "named", title: "ping-pong (named)", kind: kindNamed, callsPerOp: 1},
	{key: "pipelined", title: "pipelined (10,000 in flight)", kind: kindPipelined, callsPerOp: 1},
	{key: "batch", title: "batch of 100 (per call)", kind: kindBatch, callsPerOp: batchSize},
	{key: "echo1MiB", title: "echo 1 MiB", kind: kindEcho, callsPerOp: 1},
	{key: "line16MiB", title: "16 MiB line", kind: kindLine, callsPerOp: 1, lineSize: 16 << 20},
	{key: "line64MiB", title: "64 MiB line", kind: kindLine, callsPerOp: 1, lineSize: 64 << 20},
	{key: "mcp-add", title: "MCP: tools/call of add", kind: kindPingpong, callsPerOp: 1, mcp: true},
	{key: "mcp-echo1MiB", title: "MCP: tools/call of echo, 1 MiB", kind: kindEcho, callsPerOp: 1, mcp: true},
	{key: "http-sum", title: "HTTP: sum, one call in flight", kind: kindPingpong, callsPerOp: 1, http: true, clients: 1},
	{key: "http-sum16", title: "HTTP: sum, 16 concurrent clients", kind: kindPingpong, callsPerOp: 1, http: true, clients: 16},
}

func workloadByKey(key string) *workload {
	for _, w := range workloads {
		if w.key == key {
			return w
		}
	}
	return nil
}

// timed reports whether the workload is measured with testing.Benchmark
// (the others are single calls, timed).
func (w *workload) timed() bool { return w.kind != kindLine }

// sumParams returns the params of a sum call, positional or named.
func sumParams(named bool) []byte {
	a, b := strconv.Itoa(sumA), strconv.Itoa(sumB)
	if named {
		return []byte(`{"a":` + a + `,"b":` + b + `}`)
	}
	return []byte(`[` + a + `,` + b + `]`)
}

// echoParams returns the positional params of an echo call.
func echoParams(q []byte) []byte {
	p := make([]byte, 0, len(q)+2)
	p = append(p, '[')
	p = append(p, q...)
	return append(p, ']')
}

// The MCP workloads' requests. A legacy session opens with initialize
// (protocolVersion 2025-11-25) and notifications/initialized; a modern
// (2026-07-28, stateless) request carries its revision and the client's
// capabilities in params._meta instead.
const (
	mcpVersion     = "2025-11-25"
	mcpInitID      = "1"
	mcpInitialize  = `{"jsonrpc":"2.0","id":` + mcpInitID + `,"method":"initialize","params":{"protocolVersion":"` + mcpVersion + `","capabilities":{},"clientInfo":{"name":"bench","version":"1.0.0"}}}` + "\n"
	mcpInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
	mcpModernMeta  = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
)

// mcpCallParams returns the params of a tools/call of tool with args (a
// JSON object), with the modern _meta when modern.
func mcpCallParams(tool string, args []byte, modern bool) []byte {
	p := make([]byte, 0, len(args)+len(mcpModernMeta)+64)
	p = append(p, `{"name":"`...)
	p = append(p, tool...)
	p = append(p, `","arguments":`...)
	p = append(p, args...)
	if modern {
		p = append(p, mcpModernMeta...)
	}
	return append(p, '}')
}
