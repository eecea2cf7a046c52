// Package toolrpc is a framework for JSON-RPC 2.0 over newline-delimited
// JSON, above all on stdin and stdout: the wire of tool servers that AI
// agents, editors and scripts spawn and talk to (MCP servers are the
// best-known kind).
//
// # The front door
//
// A tool server is a Go value whose exported methods are its RPC methods;
// its main function is three lines:
//
//	type Calculator struct{}
//
//	func (Calculator) Sum(xs []int) int { ... }
//
//	func main() {
//		toolrpc.Main(Calculator{})
//	}
//
// [Main] registers the values, checking every method (one that cannot be
// served is reported, and the program exits 1 with the reason on standard
// error); serves them on standard input and output with the default
// middleware stack (panics recovered, one record per call, progress,
// trace ids); keeps whatever else writes to standard output off the
// protocol; sends every record the framework writes to one logger, on
// standard error; and shuts down gracefully on SIGINT or SIGTERM.
//
// A [Server] configures it: a namespace, the logger, method names and
// validation, the connection's limits, more middleware. [Serve] does what
// Main does for a program that does more than serve, and [Server.Handler]
// gives the handler itself, for another connection or a test.
//
// # The packages underneath
//
// The work is done by packages that can be used without this one, for
// what the front door does not cover; each one's documentation holds its
// part of the contract:
//
//   - [github.com/toolrpc/toolrpc/rpc]: the connection — [rpc.Serve],
//     [rpc.ServeStdio], [rpc.Conn] (both ends: a client too, and
//     [rpc.StartProcess]), [rpc.Handler], notifications, cancellation, the
//     errors a handler returns ([rpc.Error]); and the wire contract: what
//     a connection answers to each line it reads;
//   - [github.com/toolrpc/toolrpc/service]: plain Go values as RPC methods,
//     with params binding and validation;
//   - [github.com/toolrpc/toolrpc/middleware]: recovery, progress, logging,
//     correlation, timeouts;
//   - [github.com/toolrpc/toolrpc/schema]: JSON Schema from Go types and
//     validate tags;
//   - [github.com/toolrpc/toolrpc/codec]: the wire format underneath —
//     frames, message classification, encoding.
//
// Nothing in them imports this package. This package also holds the
// end-to-end tests; README.md is the front door and docs/ the tour, a page a topic.
package toolrpc
