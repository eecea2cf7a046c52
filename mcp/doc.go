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
// JSON-RPC batches are served in 2025-03-26 alone, the one revision that
// has them ("MCP implementations MAY support sending JSON-RPC batches, but
// MUST support receiving JSON-RPC batches"), and never with initialize in
// them ("The initialize request MUST NOT be part of a JSON-RPC batch"). In
// the others (2024-11-05, before batches came; 2025-06-18, which removed
// them, and later) each request of a batch is refused with -32600 Invalid
// Request, its data's reason saying why: a batch is not a message of
// those revisions. A request of a batch is judged by its own revision,
// like any request.
//
// # Changes to the tools
//
// Tools registered or removed while connections serve them are announced
// as notifications/tools/list_changed (the capability tools.listChanged,
// in every revision): to each initialized legacy session (from its
// notifications/initialized on, as the lifecycle has it: before, the
// server sends nothing but log messages, and what changed is told then;
// nothing of the sort precedes the initialize response), and, in
// 2026-07-28, on each subscriptions/listen whose notifications filter asks
// for toolsListChanged. A listen is acknowledged first
// (notifications/subscriptions/acknowledged, with the part of the filter
// the server honors: toolsListChanged; promptsListChanged,
// resourcesListChanged and resourceSubscriptions when it has prompts and
// resources), and each of its messages
// carries its id in _meta's io.modelcontextprotocol/subscriptionId. It
// stays open, holding one of the connection's rpc.Options.Concurrency
// slots, until the client cancels it (notifications/cancelled: no
// answer), or the server ends it: when the connection's input ends (on
// stdio, the client's way to stop the server), with notifications/cancelled
// naming it and then its completion result (resultType "complete", the
// subscriptionId in _meta), or when the connection shuts down, with the
// completion result. A listen that asks for nothing the server honors is
// answered at once, after its acknowledgment.
//
// # Resources, prompts and completion
//
// [Server.AddResources] adds resources: a static one has a URI, a
// template (RFC 6570 levels 1 and 2: {name}, whose value holds no "/",
// and {+name}) serves every URI that matches it, and a Go function reads
// either, returning text or bytes (blob, base64) with their MIME type.
// resources/list and resources/templates/list page as tools/list does
// (by URI, and by template text; Options.PageSize each), resources/read
// serves the static resource of that URI, else the first template, in
// the order of their text, that matches it. A URI nothing serves (or
// whose Read returns [ErrResourceNotFound]) is -32002 Resource not found
// in the legacy revisions, -32602 in 2026-07-28, its data {"uri": ...}.
// A legacy session subscribes to resources (resources/subscribe and
// unsubscribe); a modern client names them in subscriptions/listen's
// resourceSubscriptions; [Server.ResourceUpdated] tells both
// (notifications/resources/updated).
//
// [Server.RegisterPrompts] makes the methods of a value prompts, named and
// documented as tools are; a prompt's arguments are the fields of its one
// struct parameter, all strings, their descriptions from jsonschema tags
// and required when validate:"required"; prompts/get binds and validates
// them as tools' arguments are, a missing one answered -32602. A prompt
// returns a string (one user message) or a [PromptResult] of messages of
// any [Content]: text, image, audio, embedded resource, resource link.
// [Server.SetCompletion] answers completion/complete for the arguments of
// the prompts and the variables of the templates, the request checked
// against them first.
//
// The capabilities say what the server has: completions with a
// CompletionFunc, prompts and resources (with listChanged, and subscribe)
// once any were added (removing them all leaves empty lists); a method of
// a feature the server does not have is -32601. Resources added or removed, and prompts registered or removed,
// while serving are announced as tools are
// (notifications/resources/list_changed, notifications/prompts/list_changed),
// to legacy sessions, and to modern listens that asked for them
// (resourcesListChanged, promptsListChanged).
//
// What a peer sends costs a bounded amount: a cursor one binary search; a
// URI at most [MaxURI] bytes (longer is -32602), one map lookup, a search
// for each template's literal text, and one linear match per template
// whose literal text the URI holds in order; a session's subscriptions, and a listen's
// resourceSubscriptions, at most [MaxSubscriptions]; the notifications a
// session is owed while it does not read, one per list and per resource
// it still subscribes to; a completion result at most [MaxCompletions] values,
// the others counted in total and said by hasMore.
//
// # Streamable HTTP
//
// [Server.NewHTTPHandler] serves a Server over MCP's Streamable HTTP, on one
// endpoint, for both eras; each request is served by an rpc.HTTPHandler, so
// that its rules are those of every JSON-RPC request over HTTP: JSON or
// Server-Sent Events as Accept allows, 403 for an Origin neither on
// loopback nor in rpc.Options.AllowedOrigins (DNS rebinding), 405 for a
// method other than POST, GET and DELETE, 406, 413, 415, 503 after Close, each with a
// JSON-RPC error body. The era of a POST is its MCP-Protocol-Version header:
// 2026-07-28 is the modern one; a legacy revision, or none (2025-03-26 is
// then assumed, as the specification says), the legacy one; any other
// value is refused 400 with -32022 UnsupportedProtocolVersion listing the
// revisions served.
//
// Legacy (2025-03-26 to 2025-11-25): a POST of initialize opens a session,
// its id (MCP-Session-Id: 26 characters of base32, 130 bits from
// crypto/rand) on the response that holds the InitializeResult (an
// initialize that fails opens none). Every other request names it:
// without the header, 400; with an id that is not a live session's
// (unknown, idle past HTTPOptions.SessionIdle, or deleted), 404. Each
// session has its own connection handler; the client's notifications and
// responses are answered 202, a body that is neither a request nor one of
// those (malformed, invalid) 400 with its JSON-RPC error. DELETE ends a session (204), cancelling its
// calls under way. At most HTTPOptions.MaxSessions sessions live at once:
// an initialize past it, once the idle ones are ended, is answered 503,
// and no live session is ended for it; a session that sends nothing after
// its initialize lives HTTPOptions.InitIdle (30s), not SessionIdle. A
// session's requests run at most HTTPOptions.SessionConcurrency at once
// (a batch's calls each), all sessions' and the stateless ones at most
// rpc.Options.Concurrency; as many more of a session's wait, with their
// client or without it, and one past that is answered 503, -32002
// ServerBusy, with a Retry-After.
//
// A legacy session's event streams (2025-11-25, SEP-1699): a GET (Accept
// allowing text/event-stream) opens the session's server stream, which
// carries what the server sends outside any request (the list_changed
// of tools, prompts and resources, the updates of the resources it
// subscribed to, the records of [Server.Logger]); what comes while none is
// open waits for the next one. One
// GET stream per session at a time: another GET takes it over from there on
// (a GET MUST get an event stream or 405; the official SDKs answer 409,
// which locks out a client whose connection died unnoticed). A POST answered with events, and the server
// stream, give each event an id "S-N" (S the stream's number, unique in the
// handler; N the event's, in its stream), and, in a session of 2025-11-25,
// start with a priming event (an id, the retry field of HTTPOptions.Retry,
// empty data). A client that goes away does not cancel its request
// ("Disconnection SHOULD NOT be interpreted as the client cancelling its
// request": notifications/cancelled does that); its events, the answer
// included, are held, and a GET with Last-Event-ID gets those after that id,
// then the rest of the stream, taking the stream over from the connection
// that wrote it, if any. A stream is held as long as the session lives (a
// write that succeeded may not have reached the client), within bounds
// (HTTPOptions.ReplayBytes per stream, 32 KiB, four times that per
// session, their bookkeeping counted; the oldest go first, never a POST's answer); a Last-Event-ID that
// names no event held (malformed, another session's, a stream forgotten) is
// answered 400, one whose following events are no longer held 410 Gone. A
// tool may close its POST's connection before its answer with
// [CloseStream] (polling); the server never does so by itself.
//
// What a POST of a legacy session gets: a notification or a response,
// 202; a request, in a session of 2025-11-25 from a client whose Accept
// allows text/event-stream, an event stream, its priming event written
// at once, then what its call sends, then its answer, so that every
// answer is resumable (a client whose connection drops before it gets it
// with GET and Last-Event-ID); plain JSON where the client accepts JSON
// alone (or sends no Accept), in the older revisions when its call sends
// nothing before its answer (an answer that a client that goes away does
// not get), and with HTTPOptions.PreferJSON, which trades that
// resumability for fewer bytes and allocations.
//
// Modern (2026-07-28): stateless, POST only; a session id is ignored and
// none is issued. A request's Mcp-Method header must equal its method, its
// Mcp-Name (plain or "=?base64?...?=") the name of a tools/call (the uri of
// resources/read, the name of prompts/get), and _meta's protocol version
// the header's: otherwise 400 with -32020 HeaderMismatch. So must the
// Mcp-Param-{Name} header of each argument of a tools/call that its tool
// mirrors (a field tagged mcp:"header=Name", x-mcp-header in its
// inputSchema; a string, an integer or a boolean, reached from the root by
// properties alone, or registration fails): present exactly when the
// argument is present and not null, and equal to it once decoded (an
// integer compared as a number, within ±(2^53-1)); a header for an
// argument the tool does not mirror is not looked at. A request whose
// _meta lacks a required field (the version, the client's capabilities),
// or has a malformed one, is 400 with -32602, and one whose tool needs a
// capability the client did not declare 400 with -32021. A method the
// revision does not have is 404 with -32601. Each request is served by an
// rpc.HTTPHandler of its own, so that requests of different clients share
// no ids in flight and no cancellation; together they hold at most
// rpc.Options.Concurrency slots.
//
// What a modern POST gets: a notification, 202; a request from a client
// whose Accept allows text/event-stream, an event stream, even when its
// call sends nothing before its answer (then the answer's event alone;
// no priming event and no ids: 2026-07-28 has no resumption), opened once
// the call has run HTTPOptions.KeepAlive with nothing to send, its
// keep-alive comments from then on, so that a long call's connection is
// never idle for longer (proxies cut idle connections; nginx's
// proxy_read_timeout is 60 s); plain JSON where the client accepts JSON
// alone (or */*, or sends no Accept), with HTTPOptions.PreferJSON, and
// for an error that answers the request before anything else is sent (so
// that its status is the protocol's: 400 for -32602 and -32021).
//
// An event stream carries X-Accel-Buffering: no, and a comment (":") every
// HTTPOptions.KeepAlive. [Server.ListenAndServe] and [MainHTTP] serve on
// loopback unless the address names another host.
//
// # Calling the client
//
// A tool asks its client with [CreateMessage] (sampling/createMessage) and
// [Elicit] (elicitation/create, a form of typed fields), only when the
// client declared the capability (otherwise the error wraps
// [ErrClientCapability], and nothing is sent). In a legacy session the
// request is sent at once and the tool waits for the answer as long as
// its context lets it: on a stream connection as a call of the rpc.Conn
// (a tool that gives up sends notifications/cancelled; the late answer is
// dropped); over Streamable HTTP as an event of the response to the
// tools/call, the client POSTing its response in the session (answered
// 202, and routed to the waiting call; a response to no request waiting
// is dropped; in 2025-03-26, the one revision with batches, an array of
// responses too). In 2026-07-28 a server sends no request: the error wraps
// [ErrInputRequired], the tool returns it, the call is answered with
// resultType "input_required" and the request in inputRequests, and the
// client's retry, carrying the answer in inputResponses, runs the tool
// again, which gets it. A tool (or a prompt, or a resource's Read) that
// asks several questions at once, under keys of its own, or keeps state
// between rounds, returns an [InputRequired] itself, and reads the retry
// with [InputResponse] and [RequestState]; the state is sealed by the
// server (HMAC-SHA256, bound to the tool and its arguments, expiring after
// [InputStateTTL]), and a retry whose requestState fails that check is
// refused with -32602 before the tool runs. A 2026-07-28 request whose
// tool needs a capability the client did not declare is answered
// MissingRequiredClientCapability (-32021), the capability named in
// data.requiredCapabilities.
//
// # Results and errors
//
// A tool's result is sent as a tools/call result. A struct (the tool then
// has an outputSchema) is sent as structuredContent and as a text block
// holding the same JSON; a string as a text block; any other value as a
// text block of its JSON; a [*ToolResult] as it is (a nil one without
// content). A returned error, and a panic, are results with isError true
// and the error's text (a panic's stack goes to the log, never to the
// peer). Arguments that fail binding or
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
