// Package mcp serves the methods of Go values as the tools of a Model
// Context Protocol server, on the connections of package rpc.
//
// A tool is a method, registered as package service registers it: its name
// is the method's name (lowerCamelCase by default), its inputSchema the
// JSON Schema of its params, its title and description those of
// [service.Documented], its annotations those of [Annotated], the OAuth
// scopes it needs over protected HTTP those of [Scoped]. A method needs
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
// # The parts
//
// A [Server] holds the tools ([Server.Register], [Server.Remove]), prompts
// ([Server.RegisterPrompts]), resources and templates
// ([Server.AddResources], [Server.ResourceUpdated]) and completion
// ([Server.SetCompletion]), and serves them:
//   - on standard input and output: [Main], [Server.ServeStdio], or
//     [Server.Serve] on any reader and writer;
//   - over Streamable HTTP: [MainHTTP], [Server.ListenAndServe],
//     [Server.NewHTTPHandler] ([HTTPOptions]: sessions, event streams,
//     resumption, keep-alives);
//   - as an rpc.Handler for a transport of your own: [Server.Handler].
//
// Both eras of the protocol are served at once: the legacy revisions
// (2024-11-05 to 2025-11-25) open with initialize, which negotiates the
// revision of the connection or HTTP session; 2026-07-28 is stateless,
// every request carrying its revision and the client's capabilities in
// params._meta, server/discover saying what the server supports. What each
// answer holds follows its revision.
//
// Inside a tool, from its context:
//   - progress: middleware.ReportProgress (sent when the request asks);
//     cancellation is the context's;
//   - logs to the client: [Server.Logger];
//   - questions to the client: [Elicit] (a form of typed fields) and
//     [CreateMessage] (sampling), where the client declared the
//     capability; in 2026-07-28, where the server sends no request, by
//     [InputRequired] rounds ([InputResponse], [RequestState]);
//   - results: a struct (structuredContent, with an outputSchema), a
//     string, any value as JSON text, or a [*ToolResult] of [Content]; an
//     error is an isError result, a panic too.
//
// # The rules
//
// docs/mcp.md is the guide; docs/mcp-rules.md has every rule in full, each
// held by a test: the eras and batches (2025-03-26 alone has them), lists
// that change (notifications/*/list_changed to sessions and to
// subscriptions/listen), resources and templates (RFC 6570 levels 1 and 2),
// prompts, completion, Streamable HTTP (sessions, the status of each case,
// event ids and Last-Event-ID, the headers 2026-07-28 checks: Mcp-Method,
// Mcp-Name, Mcp-Param-*), calling the client in each era, and results and
// errors.
//
// What a peer sends costs a bounded amount: a cursor one binary search, a
// URI at most [MaxURI] bytes, a session's subscriptions at most
// [MaxSubscriptions], a completion at most [MaxCompletions] values; over
// HTTP, sessions, their concurrency, their replay buffers and their idle
// time have the bounds of [HTTPOptions] (docs/limits.md).
//
// # Inside
//
// protocol.go holds the two tables everything reads: the revisions, with
// what each has by name, and the methods (revisions, feature, how served).
// server.go holds the Server, registry.go its copy-on-write catalogs
// (tool.go, prompt.go, resource.go, complete.go); session.go a connection's
// or legacy session's state and dispatch; call.go runs a tool; asking the
// client is ask.go, elicit.go, sampling.go, input.go; Streamable HTTP is
// streamable*.go (its design note in streamable.go); stdio is serve.go.
// docs/architecture.md draws the layers.
package mcp
