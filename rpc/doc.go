// Package rpc is the connection layer of toolrpc: a symmetric JSON-RPC 2.0
// endpoint over newline-delimited JSON (or LSP's Content-Length framing,
// [FramingLSP]) on any [io.Reader] and [io.Writer]
// (standard input and output, a pipe, a socket, a [bytes.Buffer]).
//
// [Serve] answers a peer's requests with a [Handler] until the input ends;
// [ServeStdio] does so on the process's standard input and output, for a
// tool server. A [Conn] is the connection itself, and both of its ends: it
// answers the peer's requests and routes the peer's responses to calls of
// its own ([Conn.Call], [Conn.Notify], [Conn.Batch]). [StartProcess] starts
// a tool server as a child process and connects to it.
//
// A handler fails a call with an [Error] (a [Code], a message, data), made
// by [NewError] or [Errorf]; the codes toolrpc uses are constants of this
// package ([InvalidParams], [MethodNotFound], ...). The package knows
// nothing of reflection or validation: package
// [github.com/toolrpc/toolrpc/service] builds a Handler from plain Go
// values, and package [github.com/toolrpc/toolrpc/middleware] wraps
// Handlers. Package [github.com/toolrpc/toolrpc/codec] is the wire
// format underneath.
//
// The rest of this comment is the wire contract: what a connection writes
// for what it reads. Where the specification leaves a choice, toolrpc takes
// the strict reading. In the transcripts, --> is a line the peer sends and
// <-- the line it gets back; they are lines of the module's transcript
// tests.
//
// # Framing
//
// A frame is one line: the bytes up to '\n', without a '\r' just before it
// (see [codec.Reader]). Empty and white-space-only lines are skipped; a last
// line without '\n' at the end of the input is a frame. There is no hidden
// line-length limit: [Options.MaxFrameSize] bounds a frame (see Limits).
//
// Everything written is one line of compact JSON and a '\n', its members in
// the specification's order: "jsonrpc", then "result" or "error", then
// "id". Lines written by concurrent handlers never interleave. A result is
// encoded with encoding/json without HTML escaping; a [json.RawMessage]
// result is validated and compacted, and one that is not valid JSON is an
// internal error, never written.
//
// With [Options.Framing] set to [FramingLSP], for a server or a client
// whose peer speaks the Language Server Protocol's base protocol, a frame
// is instead one message after its header block: "Content-Length: N",
// other headers (ignored), an empty line, then exactly N bytes, read
// bounded (see [codec.NewLSPReader]); everything written is
// "Content-Length: N\r\n\r\n" and the N bytes of the same compact JSON,
// no newline after. Every other rule below holds as it is, a message for
// a line. A header block that cannot be read (no Content-Length, one that
// is not a decimal number, two that disagree, a header line that is not a
// header, longer than 1 KiB or beyond 32 in a block, input that ends
// inside a message) is answered ParseError with id null, and the reader
// resynchronises: it skips to the next "Content-Length:" (any case), the
// start of the next header block. A body longer than MaxFrameSize is
// answered as a line is, and skipped as it is read.
//
//	--> Content-Length: ten\r\n\r\n{"jsonrpc":"2.0","method":"sum","params":[1],"id":1}
//	<-- Content-Length: 75\r\n\r\n{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}
//
// # Requests and notifications
//
// A request needs "jsonrpc": "2.0", a string "method", an "id" (when
// present) that is a string, a number or null, and "params" (when present)
// that is an object or an array; it has no other members. Escapes are
// decoded: "2\u002e0" is 2.0, "s\u0075m" is sum. A valid request goes to
// the Handler as a [Request].
//
// The id is echoed byte for byte, and ids are compared as raw tokens: 1,
// 1.0 and "1" are three ids; 0 and "" are ids like any other. "id": null
// is a request, answered with id null.
//
//	--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":12345678901234567890}
//	<-- {"jsonrpc":"2.0","result":1,"id":12345678901234567890}
//
// A valid request without "id" is a notification, and is never answered,
// not even with an error: its Handler's result is dropped, its error logged
// at Warn unless it is MethodNotFound (a peer may send notifications a
// server ignores).
//
// Method names beginning with "rpc." ([ReservedPrefix]) are reserved: a
// request for one is answered MethodNotFound (-32601) without reaching the
// Handler, except [Discover] (rpc.discover, OpenRPC's discovery). A
// connection with a nil Handler answers every request MethodNotFound.
//
// # Invalid input
//
// A line that is not valid JSON is answered ParseError (-32700), id null.
// That includes invalid UTF-8 (RFC 8259 section 8.1: no silent U+FFFD), a
// byte order mark, and anything but white space after the value.
//
//	--> {"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":2
//	<-- {"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}
//
// Valid JSON that is not a valid request is answered InvalidRequest
// (-32600), with the specification's message "Invalid Request" and data
// {"reason": "..."} naming the rule broken (a [codec.InvalidRequestData]). The
// reason is a fixed phrase of toolrpc's, a limit's value at most, never text
// the peer sent: "a request must be a JSON object", "jsonrpc must be the
// string 2.0", "method is required", "method must be a string", "id must be
// a string, a number or null", "params must be an object or an array", "a
// request has no members but jsonrpc, method, params and id", "id given
// more than once" (and so for the other members), and those of a batch and
// of the limits below. The answer goes to the request's id when that id is
// valid, else to null; an "id" given twice is answered to null (which one
// was meant cannot be told). An invalid message without an id is answered
// too, to null. The reason is logged at Debug, with the id.
//
//	--> {"jsonrpc":"2.0","method":"sum","params":null,"id":3}
//	<-- {"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"params must be an object or an array"}},"id":3}
//	--> 42
//	<-- {"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"a request must be a JSON object"}},"id":null}
//
// A response the peer sends (an object with "result" or "error" and no
// "method") is never answered, valid or not: it goes to the call of ours it
// answers (see Calling the peer), and one that answers no call of ours is
// logged at Warn and dropped.
//
// # Batches
//
// A batch is answered by one array, on one line, in the order of its
// entries (the specification allows any). Each entry is handled as if it
// came alone: a request gets its answer, an invalid entry its InvalidRequest
// (to its id, or null), a notification or a response nothing. A batch that
// gets no answer at all (notifications only) is answered by nothing at all.
//
//	--> [{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},{"jsonrpc":"2.0","method":"notify_hello","params":[7]},{"foo":"boo"}]
//	<-- [{"jsonrpc":"2.0","result":7,"id":"1"},{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"jsonrpc must be the string 2.0"}},"id":null}]
//
// The batch as a whole gets one error object, not an array, when it is
// empty ([] is InvalidRequest, reason "a batch must not be empty"), when it
// is not valid JSON anywhere (ParseError), or when it passes a limit
// ([Options.MaxBatch], [Options.MaxDepth]). A batch nested in a batch is an
// entry that is not an object.
//
// The requests of a batch run concurrently, as requests that come alone do;
// its notifications are handled in order. Its ids are in flight until its
// array is handed to the writer, just before it is written.
//
// # Ids in flight
//
// A request whose id is that of a request read and not yet answered (alone
// or in a batch, the same batch included) is answered InvalidRequest, to
// that id, reason "id already in use by a request in flight": a response or
// a cancellation could not tell the two apart. An id is free again once its
// answer is handed to the writer, just before it is written; a batch's ids
// once the batch's answer is.
//
// # Concurrency and order
//
// Requests run concurrently, up to [Options.Concurrency] at once, and each
// is answered when its handler returns. [Options.Sequential] handles one
// message at a time, so that answers come in the order of the requests.
// Notifications are handled one at a time, in arrival order: a
// notification's handler returns before any later message is dispatched.
//
// # A call's notifications
//
// While it runs, a handler may send notifications to the peer with
// [Notify]. They are written before the call's response, in the order
// Notify was called; once the response is written, Notify sends nothing and
// returns [ErrAnswered]. Notify waits for room in an output the peer does
// not read only as long as its context lets it: then it returns the
// context's error, and nothing of that notification is written. (Progress
// reports are such notifications: see
// [github.com/toolrpc/toolrpc/middleware.ReportProgress].)
//
//	--> {"jsonrpc":"2.0","method":"probe.progress","id":1}
//	<-- {"jsonrpc":"2.0","method":"progress","params":{"done":1,"total":2}}
//	<-- {"jsonrpc":"2.0","method":"progress","params":{"done":2,"total":2}}
//	<-- {"jsonrpc":"2.0","result":"done","id":1}
//
// # Cancellation
//
// The peer cancels a request of its own with one of two notifications,
// which the connection handles itself, as soon as it reads them (ahead of
// the work queued before them), and which never reach the Handler:
//
//   - [CancelRequest], the Language Server Protocol's $/cancelRequest
//     {"id": X}: X is answered RequestCancelled (-32800), whatever its
//     handler returns.
//   - [CancelledNotification], the Model Context Protocol's
//     notifications/cancelled {"requestId": X}: X is not answered at all
//     ([CancelledSilently] tells middleware so).
//
// A request still queued is then never run; a running one has its context
// cancelled, with the cause [ErrCancelled]. Ids are matched as raw tokens
// (1.0 does not cancel 1). A cancellation of an id not in flight (unknown,
// or already answered: once the connection has taken the handler's result,
// that answer stands) or without a valid id is ignored. In a batch, the
// cancelled entry gets the -32800 entry or none; a cancellation later in
// the same batch cancels an earlier entry. A request (with an id) for
// either method is an ordinary request, for the Handler.
//
//	--> {"jsonrpc":"2.0","method":"probe.wait","id":1}
//	--> {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}
//	<-- {"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":1}
//
// # Errors
//
// A handler's error is answered as follows (see [Handler], and [ErrorFor],
// which tells middleware the code):
//
//   - an [Error], or an error wrapping one ([errors.As]): that error object,
//     code, message and data, as they are (data that cannot be encoded
//     makes it an InternalError that says so);
//   - a context error once the call's context was cancelled:
//     RequestCancelled if the peer cancelled it, ServerShuttingDown if a
//     shutdown did;
//   - any other error: InternalError (-32603), data {"exception": "<its Go
//     type>", "message": "<its text>"} (a [codec.InternalErrorData]);
//   - a panic (recovered, its stack logged, never written): InternalError
//     naming the panic value's type ([PanicError]);
//   - a result that cannot be encoded: InternalError naming the result's
//     type.
//
// A handler that returns errors.New("disk full"):
//
//	--> {"jsonrpc":"2.0","method":"probe.fail","id":1}
//	<-- {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"*errors.errorString","message":"disk full"}},"id":1}
//
// The codes toolrpc answers with, and their messages:
//
//   - -32700 "Parse error" ([ParseError]): the line is not valid JSON;
//   - -32600 "Invalid Request" ([InvalidRequest]): the envelope is wrong,
//     the batch is empty, a limit was passed, or the id is in flight;
//   - -32601 "Method not found" ([MethodNotFound]);
//   - -32602 "Invalid params" ([InvalidParams]): package service, when the
//     params do not fit the method;
//   - -32603 "Internal error" ([InternalError]);
//   - -32000 "Server shutting down" ([ServerShuttingDown]): the request was
//     read, but the connection shut down before it was answered;
//   - -32001 "Request timed out" ([RequestTimeout]): the middleware's
//     Timeout;
//   - -32002 "Server busy" ([ServerBusy]): see [Options.QueueSize];
//   - -32800 "Request cancelled" ([RequestCancelled]): the peer cancelled
//     the request with $/cancelRequest.
//
// # Limits
//
// Every cost a peer can cause is bounded. Each limit has a default and a
// field of [Options]; passing it is answered and the stream goes on, or
// makes the reader wait. Never is the connection dropped.
//
//   - [Options.MaxFrameSize] (64 MiB): a longer line is answered
//     InvalidRequest, id null, reason "frame larger than the limit of N
//     bytes", whatever it holds; it is skipped as it is read, never held.
//   - [Options.MaxBatch] (1000 entries): a longer batch is answered with one
//     InvalidRequest, id null, reason "batch longer than the limit of N
//     entries".
//   - [Options.MaxDepth] (128): a line nesting arrays and objects deeper
//     (the envelope counts: a request with object params is 2 deep) is
//     answered InvalidRequest, id null, reason "nested more than N levels
//     deep", even when what follows the limit is not valid JSON; a response
//     to a call of ours that deep (valid JSON, a result or an error, no
//     method) is not answered but fails that call with [ErrBadResponse].
//   - [Options.Concurrency] (64): further requests wait in the queue.
//   - [Options.QueueSize] (1024 messages) and [Options.MaxQueueBytes]
//     (256 MiB): when the queue is full the reader stops reading until
//     there is room; while a call of ours awaits the peer's response, it
//     reads on, up to 16 times both, then answers requests ServerBusy.
//   - [Options.MaxPendingCalls] (4096): calls of ours wait for a slot.
//   - The output: once 4 MiB wait to be written ([codec.DefaultMaxPending]),
//     responses wait for the peer to read; [Notify] and our calls wait no
//     longer than their contexts.
//
// A line over a MaxFrameSize of 100 bytes:
//
//	--> {"jsonrpc":"2.0","method":"sum","params":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],"id":2}
//	<-- {"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"frame larger than the limit of 100 bytes"}},"id":null}
//
// An error answer or a log record repeats at most [codec.MaxEcho] bytes of
// a string the peer sent (a method name, an id, a member name); a
// response's id is always whole.
//
// # The end of a connection
//
// At the end of the input, the connection stops reading, lets the calls
// read so far run and answers them, then [Serve] returns nil. When reading
// fails, the same, and Serve returns an error wrapping the reader's; a
// partial line before it is dropped.
//
// When the connection's context is done, [Conn.Close] is called, or writing
// fails, it shuts down: it stops reading, answers ServerShuttingDown (-32000)
// every request read and not yet started (as long as the output works), and
// cancels the context of every running call with the cause [ErrShutdown]; a
// handler that then returns its context's error is answered
// ServerShuttingDown too. Handlers get [Options.ShutdownGrace] (5 s) to
// return; after it the connection finishes anyway, and a late handler's
// answer is dropped. Serve (and [Conn.Wait])
// returns the context's cause, an error wrapping the write's, or, after
// Close, nil.
//
//	--> {"jsonrpc":"2.0","method":"probe.wait","id":1}
//	    (the context is cancelled)
//	<-- {"jsonrpc":"2.0","error":{"code":-32000,"message":"Server shutting down"},"id":1}
//
// Nothing is written after [Conn.Wait] returns, but the rest of a write
// already blocked in the operating system: the connection writes at most
// 32 KiB at a time, and starts no write once the grace period is over.
//
// # Calling the peer
//
// [Conn.Call] sends a request with an id of the connection's own and waits
// for its response; [Conn.Notify] sends a notification; [Conn.Batch] sends
// several as one array on one line. An error response is an [Error] with
// the code, message and data (a [json.RawMessage]) it came with;
// a response that breaks the specification fails the call with an error
// wrapping [ErrBadResponse].
//
// When the call's context ends first, Call returns its error at once. A
// request no write had taken yet is never sent; one sent, or being
// written (always whole), is followed by a cancellation, [Options.CancelNotification] ($/cancelRequest by default),
// which never makes the caller wait, and the late response is dropped. When
// the connection ends first, every call waiting and every later one fails
// with the same error, which wraps [ErrClosed], says what happened and
// wraps the cause.
//
// Responses are routed as soon as they are read, never queued behind
// requests: a handler can call its own caller ([ConnFromContext]), in
// sequential mode too. A response with id null (the peer could not read a
// request of ours) fails, when it is an error, every batch under way, or,
// with none, the call under way if there is just one; otherwise it is
// logged and dropped. A call made with a context from [WithProgress] asks
// for progress: its params carry _meta.progressToken, and each
// notifications/progress with that token ([ProgressNotification]) goes to
// the caller; progress for no call of ours goes to the Handler.
//
// # Logging
//
// The connection logs to [Options.Logger] (default [log/slog.Default],
// standard error), never to its output: invalid input at Debug, unexpected
// responses and failed notification handlers at Warn, panics with their
// stack and write failures at Error. [LoggerFromContext] gives handlers and
// middleware the same logger.
//
// # Over HTTP
//
// [HTTPHandler] serves a Handler over HTTP on the same dispatch core as
// [Conn]: the rules above hold for the message or batch a POST carries,
// with the ids in flight and the concurrency bound shared by all requests.
// What belongs to one stream does not: the notifications of different
// POSTs run concurrently, the queue's bounds (QueueSize, MaxQueueBytes) and
// Sequential do not apply, and a client that goes away cancels its calls.
// Its doc comment gives the status of each case (200, 202, 403, 405, 415,
// 406, 413, 400, 408, 503) and how a client that accepts text/event-stream
// gets its calls' notifications. [HTTPClient] is the client side.
package rpc
