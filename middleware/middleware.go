package middleware

import (
	"context"
	"log/slog"

	"github.com/toolrpc/toolrpc/internal/recovery"
	"github.com/toolrpc/toolrpc/rpc"
)

// Middleware wraps a handler in another.
type Middleware func(rpc.Handler) rpc.Handler

// Chain composes middleware: Chain(a, b, c)(h) is a(b(c(h))), so the first
// is outermost (sees each call first and its outcome last).
func Chain(mws ...Middleware) Middleware {
	return func(h rpc.Handler) rpc.Handler {
		for i := len(mws) - 1; i >= 0; i-- {
			h = mws[i](h)
		}
		return h
	}
}

// Default is the stack for servers: [Recover], then [Logging], then
// [Progress] (each with its defaults: errors logged, results at Debug
// level, MCP's notifications/progress), all inside [Correlation], so that
// every record, the panic's included, carries the call's trace id.
// Correlation runs no code of the handler's and cannot panic; Recover is
// outermost of everything else. A nil logger means each call's connection's
// logger ([rpc.LoggerFromContext]: rpc.Options.Logger, or [slog.Default],
// which writes to stderr).
func Default(logger *slog.Logger) Middleware {
	return Chain(Correlation(), Recover(logger), Logging(&LoggingOptions{Logger: logger}), Progress(nil))
}

// loggerFor is logger, or when it is nil the logger of the connection the
// call ctx belongs to.
func loggerFor(ctx context.Context, logger *slog.Logger) *slog.Logger {
	if logger == nil {
		return rpc.LoggerFromContext(ctx)
	}
	return logger
}

// Recover turns a panic in the handler into an InternalError whose data
// names the panic value's type and holds its message; the stack goes to
// logger (nil: the connection's, see [rpc.LoggerFromContext]), never to
// the wire, and the connection keeps serving. A panic in a notification's
// handler is logged the same way; a notification is never answered.
//
// The connection recovers every panic of a call, once, whether Recover is
// there or not (a call has one recover); Recover tells it how to answer
// one beneath it: in its record, with the request's trace id (see
// [Correlation]). Called outside a connection, a handler's panic is not
// recovered.
func Recover(logger *slog.Logger) Middleware {
	answer := func(ctx context.Context, arg, v any, stack []byte) (any, error) {
		var buf [5]slog.Attr // on the stack
		attrs := append(appendCallAttrs(ctx, buf[:0], arg.(*rpc.Request)), slog.Any("panic", v), slog.String("stack", string(stack)))
		loggerFor(ctx, logger).LogAttrs(ctx, slog.LevelError, "rpc: handler panicked", attrs...)
		return nil, recovery.ErrDefault // InternalError, naming v's type
	}
	return func(next rpc.Handler) rpc.Handler {
		return rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
			placed := recovery.On(ctx, answer, req)
			result, err := next.Handle(ctx, req)
			placed.Restore()
			return result, err
		})
	}
}
