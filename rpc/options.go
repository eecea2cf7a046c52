package rpc

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/toolrpc/toolrpc/codec"
)

// Defaults of Options.
const (
	DefaultConcurrency     = 64
	DefaultQueueSize       = 1024
	DefaultMaxQueueBytes   = 256 << 20
	DefaultMaxPendingCalls = 4096
	DefaultShutdownGrace   = 5 * time.Second
	DefaultReadWait        = time.Second
	DefaultMinUploadRate   = 16 << 10
	DefaultWriteTimeout    = 30 * time.Second
)

// Options configure a connection. A nil *Options, and every zero field, means
// the documented default.
type Options struct {
	// Logger receives the connection's logs: invalid input at debug level,
	// unexpected responses and failed notification handlers as warnings,
	// panics (with their stack) and write failures as errors. It is also
	// the logger of every call (LoggerFromContext), through which handlers
	// and middleware given no logger of their own log, so that one logger,
	// set here once, gets every record. Default: slog.Default(), which
	// writes to stderr.
	Logger *slog.Logger

	// Framing is how messages are delimited on the stream, both ways:
	// FramingNewline (the default, one message per line) or FramingLSP
	// (the Language Server Protocol's Content-Length headers). Any other
	// value is refused: the connection does not start (see NewConn).
	Framing codec.Framing
	// MaxFrameSize is the longest line accepted (with FramingLSP, the
	// longest message body), in bytes. A longer one is answered
	// InvalidRequest (id null) and skipped without being held in memory.
	// Default: codec.DefaultMaxFrameSize (64 MiB).
	MaxFrameSize int
	// MaxBatch is the most entries a batch may have; a longer one is
	// answered with one InvalidRequest. Default: codec.DefaultMaxBatch.
	MaxBatch int
	// MaxDepth is the deepest nesting of arrays and objects in a message;
	// a deeper one is answered InvalidRequest. Default:
	// codec.DefaultMaxDepth.
	MaxDepth int

	// Concurrency is the most requests handled at once. Default:
	// DefaultConcurrency.
	Concurrency int
	// Sequential handles one message at a time in arrival order, so that
	// responses are written in the order of the requests. Concurrency is
	// then ignored.
	Sequential bool
	// QueueSize is the most messages read and waiting for a handler. When
	// the queue is full the connection stops reading until there is room —
	// except while a call of ours awaits the peer's response, which may be
	// behind the peer's requests: it then reads on, up to 16 times
	// QueueSize, and answers requests beyond that ServerBusy. Default:
	// DefaultQueueSize.
	QueueSize int
	// MaxQueueBytes bounds the memory the messages waiting in the queue
	// hold, as QueueSize bounds their number: a message counts its frame's
	// bytes plus 400 for its decoded form (a request of 40 bytes costs
	// ten times that once decoded). A message alone in the queue is always
	// taken. Default: DefaultMaxQueueBytes (256 MiB).
	MaxQueueBytes int
	// MaxPendingCalls bounds the calls of ours waiting for the peer's
	// response; a call beyond it waits for one to end, as long as its
	// context lets it. A batch takes one for each of its calls, all at
	// once: it waits, holding none, until that many are free; a batch with
	// more calls than MaxPendingCalls fails at once. Default:
	// DefaultMaxPendingCalls.
	MaxPendingCalls int

	// CancelNotification is the notification sent to the peer when the
	// context of a call of ours ends before its response: CancelRequest
	// (the default: LSP's $/cancelRequest {"id": X}) or
	// CancelledNotification (MCP's notifications/cancelled {"requestId": X}).
	// Any other value is refused: the connection does not start (see
	// NewConn).
	CancelNotification string

	// ShutdownGrace is how long handlers get to return once their contexts
	// are cancelled by a shutdown (the connection's context ended, Close was
	// called, or the output failed). After it the connection finishes
	// anyway; a handler still running then has its response dropped.
	// Default: DefaultShutdownGrace.
	ShutdownGrace time.Duration

	// ReadWait bounds how long the response to a call that notified the
	// peer (Notify, Send: progress) waits, on a stream, for the peer to
	// have read those notifications before it is written, so that the
	// peer reads the response apart from them: see DefaultReadWait for
	// why and where the output can tell (a Unix stream socket or a pipe,
	// on Linux; elsewhere there is no wait). A peer that reads waits only
	// as long as its read takes; one that does not read keeps the call's
	// worker up to ReadWait, after which the response is written anyway.
	// Calls that notify nothing never wait. Default: DefaultReadWait.
	// Negative: never wait. Over HTTP it is ignored: a call's events are
	// read one at a time.
	ReadWait time.Duration

	// AllowedOrigins are the web origins ("https://app.example.com", or
	// "*" for any) whose pages may call an [HTTPHandler]: a request with an
	// Origin header (a browser's) from another origin is refused 403,
	// which defeats DNS rebinding against a server on loopback. Requests
	// without Origin (programs, not browsers) and origins on loopback
	// (http://localhost, http://127.0.0.1, http://[::1], any port) are
	// always allowed. The stream connection ignores it.
	AllowedOrigins []string

	// AllowedHosts are the host names ("tools.example.com", or "*" for
	// any; a port is not compared) an [HTTPHandler] answers to, by the
	// request's Host header. On a connection to a loopback address, Host
	// must name loopback (localhost, 127.0.0.1, [::1]) or one of these,
	// else 403: a web page that rebinds its own name to 127.0.0.1 makes
	// the browser send that name, which defeats DNS rebinding even where
	// the page sends no Origin. On other addresses any Host is answered
	// unless AllowedHosts is set. The stream connection ignores it.
	AllowedHosts []string

	// MinUploadRate is the slowest an [HTTPHandler] lets a request body
	// come, in bytes a second, after a grace of 10 s: a body's bytes must
	// have come by 10 s plus a second per MinUploadRate bytes, and none
	// may be 10 s after the one before, or it is answered 408, so that a
	// client that sends a byte now and then, or much at once and then
	// nothing, holds its connection, its worker and the bytes it sent no
	// longer. The bytes of the bodies
	// being served are counted as they come, never as announced
	// (MaxQueueBytes bounds them). Default: DefaultMinUploadRate (16 KiB/s:
	// a 64 MiB body within 68 minutes); negative: no bound. The stream
	// connection ignores it.
	MinUploadRate int

	// WriteTimeout bounds each write of an [HTTPHandler]'s response (an
	// event, a keep-alive comment, the answer): a client that does not
	// take it within WriteTimeout loses its response, and its calls'
	// further notifications fail (ErrClosed) instead of waiting, so that a
	// client that asks for an event stream and never reads holds no worker
	// for long. Default: DefaultWriteTimeout (30 s); negative: none. The
	// stream connection ignores it.
	WriteTimeout time.Duration

	// EventStreamAfter, when positive, makes an [HTTPHandler] answer a
	// request from a client that accepts text/event-stream as an event
	// stream even when its calls notify nothing (the answer its only
	// event), and open that stream (its header written and flushed) once
	// the request has gone EventStreamAfter with nothing written, so that
	// a long call's connection carries something (a transport's keep-alive
	// comments) before its answer: proxies cut idle connections. An error
	// that answers a request before anything else is written stays plain
	// JSON when the client accepts it (a transport may give it a status of
	// its own). A frame of notifications and responses alone is still
	// answered 202. Zero: a request whose calls notify nothing is answered
	// with plain JSON when the client accepts it. The stream connection
	// ignores it.
	EventStreamAfter time.Duration
}

// check reports an option that holds none of the values it may take.
func (o *Options) check() error {
	if err := checkFraming(o.Framing); err != nil {
		return err
	}
	switch o.CancelNotification {
	case "", CancelRequest, CancelledNotification:
		return nil
	}
	return fmt.Errorf("rpc: Options.CancelNotification is %q: want rpc.CancelRequest (%q) or rpc.CancelledNotification (%q)",
		o.CancelNotification, CancelRequest, CancelledNotification)
}
