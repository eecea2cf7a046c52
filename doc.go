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
// what the front door does not cover:
//
//   - codec: the wire — frames, message classification, encoding, errors;
//   - rpc: the connection — Serve, ServeStdio, Conn (both ends: a client
//     too, and StartProcess), Handler, notifications, cancellation, and
//     the errors a tool returns (rpc.Error, rpc.NewError and the codes);
//   - service: plain Go values as RPC methods, with params binding and
//     validation;
//   - middleware: recovery, progress, logging, correlation, timeouts.
//
// Nothing in them imports this package. This package also holds the
// end-to-end tests; README.md is the tour.
package toolrpc
