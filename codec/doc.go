// Package codec is the wire format of toolrpc: JSON-RPC 2.0 messages, one per
// line (newline-delimited JSON), or each after a Content-Length header (the
// Language Server Protocol's framing).
//
// It reads frames, classifies them and writes lines; it knows nothing of
// handlers or connections. Package [github.com/toolrpc/toolrpc/rpc] builds
// on it, and its documentation says what a connection answers to what: a
// tool author needs rpc's names, not this package's.
//
// # Frames
//
// A [Reader] splits its input into frames, one per line. A frame is the
// bytes up to a '\n', without it and without a '\r' just before it. Lines
// that are empty or hold only JSON white space are skipped, however long. A
// last line without '\n' at the end of the input is a frame too. There is
// no limit on a line's length but the maximum frame size given to
// [NewReader] ([DefaultMaxFrameSize], 64 MiB, by default): a longer line is
// a [FrameTooLargeError], skipped while it is read, never held in memory,
// and reading goes on with the next line.
//
// [NewLSPReader] reads the Language Server Protocol's framing instead: a
// header block ("Content-Length: N", other headers ignored, an empty
// line) and exactly N bytes, the frame. Header lines are bounded
// ([MaxHeaderLine], [MaxHeaders]); a body over the limit is skipped as it
// is read; a header block that cannot be read is a [HeaderError], after
// which the Reader skips to the next "Content-Length:". [NewLSPWriter]
// writes each line as such a message, with its Content-Length header
// alone.
//
// # Messages
//
// A [Decoder] classifies each frame into [Message] values of a [Kind]:
// [Request] (it has an id: it must be answered), [Notification] (it has
// none: it is never answered), [Response] (to a request of ours), or
// [Invalid]. Ids, params and results are kept as the raw tokens that came,
// so that an id is echoed byte for byte and compared as it came; the
// "_meta" member of object params is found on the way ([Message.Meta]).
//
// Decoding never fails with a Go error. Every problem is a message of kind
// Invalid that carries the [Error] to answer and the id to answer it to
// (nil: null):
//
//   - a frame that is not valid JSON (invalid UTF-8 included, RFC 8259
//     section 8.1; a byte order mark; anything but white space after the
//     value; a batch broken anywhere): one ParseError, id null;
//   - a frame nested deeper than [Decoder.MaxDepth] ([DefaultMaxDepth],
//     128; the envelope counts), or a batch of more than [Decoder.MaxBatch]
//     entries ([DefaultMaxBatch], 1000), or an empty batch: one
//     InvalidRequest, id null; but a lone frame too deep that is valid JSON
//     shaped as a response (a result or an error, no method) is a malformed
//     [Response] to its id, so that the call it answers fails rather than
//     waits;
//   - valid JSON that is not a valid request object: InvalidRequest, to the
//     id when the id itself is valid and given once, else to null; in a
//     batch, such an entry is one Invalid message among the others.
//
// The message of an InvalidRequest error is the specification's, "Invalid
// Request"; its data, an [InvalidRequestData], says which rule the message broke (params must be an object or an array,
// a batch must not be empty, a limit passed...), in fixed words of
// toolrpc's own, never text the peer sent. A response that breaks the
// specification (both result and error, members it must not have, no valid
// id...) is a Response whose Err says why: it is never answered.
//
// # Writing
//
// [AppendRequest], [AppendResponse] and [AppendErrorResponse] encode one
// message as one line of compact JSON (without its '\n'), its members in
// the specification's order: "jsonrpc", then "method" and "params", or
// "result" or "error", then "id". Values are encoded as compact JSON:
// encoding/json without HTML escaping, an [Appender] appending itself, a
// [json.RawMessage] validated and compacted, so that no line ever holds a
// raw newline. An error object whose data cannot be encoded is written as
// an InternalError that says so.
//
// A [Writer] writes lines to an [io.Writer] from any number of goroutines:
// each line whole, never interleaved with another, in the order the Writer
// took them. Lines that arrive while a write is under way are gathered and
// written together, in writes of at most 32 KiB. [Writer.WriteLine] waits
// while more than [DefaultMaxPending] bytes (4 MiB) are queued. Once the
// underlying writer fails, every later line fails with its error.
//
// # Errors
//
// [Error] is the JSON-RPC error object, and a Go error: its [Code], its
// message (by default the code's own, [Code.String]) and its data. The
// [Code] constants name every code toolrpc uses: the specification's
// ([ParseError], [InvalidRequest], [MethodNotFound], [InvalidParams],
// [InternalError]), the Language Server Protocol's [RequestCancelled], and
// toolrpc's own server errors ([ServerShuttingDown], [RequestTimeout],
// [ServerBusy]). The data of an InternalError toolrpc answers with is an
// [InternalErrorData]: the Go type and the text of the error, panic value
// or result at fault. Package rpc offers the error type, its constructors
// and the constants under its own name, so that a tool never imports codec
// for its errors. An error object read from the wire is decoded
// strictly ([Error.UnmarshalJSON]) and keeps its data as a
// [json.RawMessage].
//
// # What is repeated of the peer
//
// An error answer or a log record repeats at most [MaxEcho] (256) bytes of
// a string the peer sent (a member name, a value, a method name, an id): a
// longer one is cut before a character, and "…" and its length follow. A
// response's id is the exception: it is echoed whole, as the specification
// requires.
package codec
