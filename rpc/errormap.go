package rpc

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/jsonx"
)

// panicError is a recovered panic: the connection answers it
// InternalError, with the panic value's type as the exception.
type panicError struct{ value any }

func (p *panicError) Error() string { return fmt.Sprintf("panic: %v", p.value) }

// responseLine appends the response to in to dst. Encoding runs user code
// (a MarshalJSON, an Error method) after the handler returned, under
// guard too: a panic there is answered InternalError, naming the panic
// value's type.
func (s *core) responseLine(dst []byte, in *inbound, result any, err error) (line []byte) {
	if v, stack := guard(func() { line = s.encodeResponse(dst, in, result, err) }); stack != nil {
		s.logPanic(in, "rpc: encoding the response panicked", v, stack)
		line = errorLine(in.req.ID, internalError(fmt.Sprintf("%T", v), fmt.Sprint(v)))
	}
	return line
}

// encodeResponse appends the response to in, result or err, to dst; a
// result that cannot be encoded is answered InternalError.
func (s *core) encodeResponse(dst []byte, in *inbound, result any, err error) []byte {
	if err != nil {
		line, _ := codec.AppendErrorResponse(dst, in.req.ID, ErrorFor(in, err))
		return line
	}
	line, encErr := codec.AppendResponse(dst, in.req.ID, result)
	if encErr != nil {
		s.log.Error("rpc: result cannot be encoded", "method", jsonx.Echo(in.req.Method), "error", encErr)
		line, _ = codec.AppendErrorResponse(dst[:0], in.req.ID, internalError(fmt.Sprintf("%T", result), encErr.Error()))
	}
	return line
}

// ErrorFor returns the error object a connection answers with when a
// handler, given ctx, returns err: RequestCancelled, whatever err is, for a
// call the peer cancelled with [CancelRequest] while it ran (that is its
// answer); else the *Error err is or wraps; for a context error once ctx
// was cancelled — context.Canceled, context.DeadlineExceeded, or an error
// wrapping the context's cause (ErrCancelled, ErrShutdown, as
// fmt.Errorf("...: %w", context.Cause(ctx)) makes) — RequestCancelled (the
// peer cancelled) or ServerShuttingDown; for a panic the connection
// recovered, InternalError naming the panic value's type; for any other
// error, InternalError naming its type. For a nil err it returns nil, unless the call is answered
// RequestCancelled as above.
//
// Middleware uses it to know the code a call will be answered with: what
// it logs is what the wire says.
func ErrorFor(ctx context.Context, err error) *Error {
	if in := callFrom(ctx); in != nil && in.phase() == stateCancelledLSP {
		return NewError(codec.RequestCancelled, "")
	}
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) && e != nil {
		return e
	}
	if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, ErrCancelled) || errors.Is(err, ErrShutdown)) {
		switch cause := context.Cause(ctx); {
		case errors.Is(cause, ErrCancelled):
			return NewError(codec.RequestCancelled, "")
		case errors.Is(cause, ErrShutdown):
			return NewError(codec.ServerShuttingDown, "")
		}
	}
	var p *panicError
	if errors.As(err, &p) {
		return internalError(fmt.Sprintf("%T", p.value), fmt.Sprint(p.value))
	}
	// fmt.Sprint, not err.Error(): a nil pointer whose Error method cannot
	// take one is "<nil>", an Error method's panic is named, not raised.
	return internalError(fmt.Sprintf("%T", err), fmt.Sprint(err))
}

// errorLine encodes an error response to id (nil: null).
func errorLine(id []byte, e *Error) []byte {
	line, _ := codec.AppendErrorResponse(nil, id, e)
	return line
}
