// Package toolrpc is a framework for JSON-RPC 2.0 over newline-delimited
// JSON, above all on stdin and stdout: the wire of tool servers that AI
// agents, editors and scripts spawn and talk to (MCP servers are the
// best-known kind).
//
// The work is done by its packages:
//
//   - codec: the wire — frames, message classification, encoding, errors;
//   - rpc: the connection — Serve, Conn, Handler, notifications, cancellation;
//   - service: plain Go values as RPC methods, with params binding and
//     validation;
//   - middleware: recovery, progress, logging, correlation, timeouts.
//
// This package holds the end-to-end tests and the documentation that ties
// them together; see README.md.
package toolrpc
