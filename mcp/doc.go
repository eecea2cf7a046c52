// Package mcp serves the methods of Go values as the tools of a Model
// Context Protocol server, on the connections of package rpc.
//
// A tool is a method, registered as package service registers it: its name
// is the method's name (lowerCamelCase by default), its inputSchema the
// JSON Schema of its params, its title and description those of
// [service.Documented], its annotations those of [Annotated]. A method needs
// nothing MCP-specific to be a tool:
//
//	type Tools struct{}
//
//	type AddParams struct {
//		A float64 `json:"a" validate:"required"`
//		B float64 `json:"b" validate:"required"`
//	}
//
//	func (Tools) Add(p AddParams) float64 { return p.A + p.B }
//
//	func main() {
//		mcp.Main(Tools{})
//	}
//
// # Protocol revisions
//
// A [Server] speaks both eras of the protocol on one connection. The
// legacy revisions (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25) open
// with initialize, which negotiates the revision of the connection; the
// modern one (2026-07-28) is stateless: every request carries its revision,
// the client's capabilities and identity in params._meta
// (io.modelcontextprotocol/protocolVersion, .../clientCapabilities,
// .../clientInfo, .../logLevel), and server/discover says what the server
// supports. A request is served by the revision it names in its _meta, or
// else by the one its connection negotiated; a request that has neither is
// refused with -32602 (ping alone is answered before initialize, as the
// legacy revisions allow). What each answer holds follows its revision:
// resultType and the server's identity in _meta on every modern result,
// ttlMs and cacheScope on modern lists, structuredContent, outputSchema
// and title from 2025-06-18, annotations from 2025-03-26.
//
// # Results and errors
//
// A tool's result is sent as a tools/call result. A struct (the tool then
// has an outputSchema) is sent as structuredContent and as a text block
// holding the same JSON; a string as a text block; any other value as a
// text block of its JSON; a [*ToolResult] as it is. A returned error, and a
// panic, are results with isError true and the error's text (a panic's
// stack goes to the log, never to the peer). Arguments that fail binding or
// validation are isError results too, one line per problem with its JSON
// path (MCP 2025-11-25, SEP-1303), or JSON-RPC -32602 errors with
// [Options].InvalidParamsAsErrors. An unknown tool, or params that are not
// a tools/call request, are JSON-RPC -32602 errors.
//
// Progress and cancellation are the connection's: a tool reports progress
// with middleware.ReportProgress (sent when the request's _meta holds a
// progressToken), and a request the peer cancels with
// notifications/cancelled has its context cancelled and gets no answer. A
// tool that logs through [Logger] sends its records to the client too, when
// the client asked for them (logging/setLevel, or _meta's logLevel).
package mcp
