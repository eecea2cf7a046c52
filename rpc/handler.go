package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/toolrpc/toolrpc/internal/jsonx"
)

// A Handler answers the requests and notifications a connection receives.
//
// Handle is called once per request or notification, in a goroutine of the
// connection, with a context that is cancelled when the peer cancels the
// request or the connection shuts down. For a request, the result (encoded
// with encoding/json, a json.RawMessage passed through after validation) or
// the error is sent back; for a notification both are ignored, an error
// being logged (at Warn) unless it is MethodNotFound: a notification no
// method handles is not a failure.
//
// An error that is or wraps an *Error is sent as that error object. A
// context error after the call's context ended becomes RequestCancelled or
// ServerShuttingDown, whichever ended it. Any other error is an
// InternalError whose data names the error's Go type and holds its message.
// A panic is recovered and answered like an error of the panic value's type.
type Handler interface {
	Handle(ctx context.Context, req *Request) (result any, err error)
}

// HandlerFunc adapts a function to a Handler.
type HandlerFunc func(ctx context.Context, req *Request) (any, error)

// Handle calls f(ctx, req).
func (f HandlerFunc) Handle(ctx context.Context, req *Request) (any, error) { return f(ctx, req) }

// Request is a request or notification received from the peer. Its fields
// must not be modified; they stay valid after the handler returns.
type Request struct {
	// ID is the request's id token exactly as it came (a JSON string, number
	// or null), or nil for a notification.
	ID json.RawMessage
	// Method is the method name.
	Method string
	// Params is the params object or array, as it came, or nil when absent.
	Params json.RawMessage
	// Meta is the "_meta" member of object params, as it came, or nil. It is
	// the protocol's metadata (progress tokens, trace context), not a param.
	Meta json.RawMessage
}

// IsNotification reports whether the request has no id, and so gets no
// response.
func (r *Request) IsNotification() bool { return r.ID == nil }

// Errors the connection reports.
var (
	// ErrClosed is wrapped by the error of every call of ours (Call,
	// Notify, Batch) once no response can come any more: our input ended
	// or failed, our output failed, Close was called, or the connection's
	// context ended. The error says which, and wraps the cause (an EPIPE
	// from the output, say, is found with errors.Is); every call after
	// that fails with the same error.
	ErrClosed = errors.New("rpc: connection closed")
	// ErrAnswered is returned by Notify for a call whose response has been
	// written: a notification on behalf of a call never follows its response.
	ErrAnswered = errors.New("rpc: call already answered")
	// ErrNoCall is returned by Notify for a context that belongs to no call
	// of a connection.
	ErrNoCall = errors.New("rpc: context belongs to no call")
	// ErrNoStream is returned by Send for a call whose transport cannot
	// carry a message before its response: an HTTP client that does not
	// accept an event stream (text/event-stream).
	ErrNoStream = errors.New("rpc: the call's response cannot carry messages before it")
	// ErrCancelled is the cause of a call's context when the peer cancelled
	// the call (see context.Cause).
	ErrCancelled = errors.New("rpc: cancelled by the peer")
	// ErrShutdown is the cause of a call's context when the connection shut
	// down while the call ran.
	ErrShutdown = errors.New("rpc: connection shutting down")
)

type callKey struct{}

// callFrom returns the inbound call a handler's context belongs to.
func callFrom(ctx context.Context) *inbound {
	in, _ := ctx.Value(callKey{}).(*inbound)
	return in
}

// HTTPRequest returns the HTTP request whose body carried the call ctx
// belongs to (served by an [HTTPHandler], or a transport built on one,
// such as MCP's Streamable HTTP), or nil for a call of a stream
// connection or for a ctx of no call. Read its Header, RemoteAddr, TLS
// and the values of its context (which ctx's Value finds too: what a
// net/http middleware put there reaches the handler); not its Body, which
// the handler has read, and nothing of it may be changed.
func HTTPRequest(ctx context.Context) *http.Request {
	if in := callFrom(ctx); in != nil {
		return in.out.request()
	}
	return nil
}

// RequestFromContext returns the request whose handler ctx was given to, or
// nil if ctx belongs to no call.
func RequestFromContext(ctx context.Context) *Request {
	if in := callFrom(ctx); in != nil {
		return &in.req
	}
	return nil
}

// CancelledSilently reports whether, while its handler runs, the call ctx
// belongs to was cancelled by the peer with CancelledNotification: such a
// call gets no response at all, whatever the handler returns (the Model
// Context Protocol's rule). Middleware uses it to record the call as
// cancelled rather than by what its handler returned.
func CancelledSilently(ctx context.Context) bool {
	in := callFrom(ctx)
	return in != nil && in.phase() == stateCancelledMCP
}

// InBatch reports whether the call ctx belongs to came as an entry of a
// batch (a protocol that forbids batches refuses its entries with it).
func InBatch(ctx context.Context) bool {
	in := callFrom(ctx)
	return in != nil && in.batch != nil && !in.batch.single
}

// InputEnded returns a channel closed once the peer can send nothing more
// to the connection whose call ctx belongs to: its input ended, failed, or
// the connection shut down. A call that waits on the peer rather than on
// work of its own (a subscription that answers when something changes)
// ends then, for no cancellation can come any more and the connection
// waits for its calls before it finishes. It returns nil (a channel never
// closed) for a call of a transport whose requests are inputs of their
// own ([HTTPHandler]: a client that goes away cancels its calls), or for a
// ctx that belongs to no call.
func InputEnded(ctx context.Context) <-chan struct{} {
	if in := callFrom(ctx); in != nil {
		return in.out.inputEnded()
	}
	return nil
}

// ConnFromContext returns the connection whose handler ctx was given to, or
// nil if ctx belongs to no call or to a call of another transport than a
// stream connection ([HTTPHandler]).
func ConnFromContext(ctx context.Context) *Conn {
	if in := callFrom(ctx); in != nil {
		c, _ := in.out.(*Conn)
		return c
	}
	return nil
}

// Notify sends a notification to the peer on behalf of the call ctx belongs
// to. It is written before that call's response; once the response has been
// written, Notify sends nothing and returns ErrAnswered. params must encode
// to a JSON object or array, or be nil.
//
// Notify returns once the notification is queued for writing. Like
// Conn.Notify, it waits for room in a blocked output only as long as ctx
// lets it, and never writes in the calling goroutine: once ctx is done
// (the call cancelled, its deadline passed, the connection shutting
// down), it returns ctx.Err() and nothing of the notification is written.
//
// Notify returns ErrNoCall if ctx belongs to no call. To notify the peer
// independently of any call, use Conn.Notify.
func Notify(ctx context.Context, method string, params any) error {
	in := callFrom(ctx)
	if in == nil {
		return ErrNoCall
	}
	return in.notify(ctx, method, params)
}

// Send writes message, a JSON-RPC message its caller built whole (a
// request of its own to the peer, whose response it routes itself: MCP's
// server-to-client requests over HTTP), to the peer on behalf of the call
// ctx belongs to, as Notify writes a notification: before that call's
// response, never after it (ErrAnswered), waiting for room no longer than
// ctx. message must be one JSON object; it is written compacted, on one
// line. Over HTTP it is an event of the call's response, and Send fails
// with ErrNoStream when the client accepts no event stream: a message
// Notify would drop is never dropped silently here. It returns ErrNoCall
// if ctx belongs to no call.
func Send(ctx context.Context, message json.RawMessage) error {
	in := callFrom(ctx)
	if in == nil {
		return ErrNoCall
	}
	if err := in.out.sendable(in.req.ID != nil); err != nil {
		return err
	}
	buf := getBuffer()
	defer putBuffer(buf)
	line, err := jsonx.AppendValue(*buf, message) // checked (UTF-8 too) and compacted
	*buf = line
	if err != nil || len(line) == 0 || line[0] != '{' {
		return errors.New("rpc: Send takes one JSON object")
	}
	return in.send(ctx, line)
}
