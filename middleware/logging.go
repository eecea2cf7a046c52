package middleware

import (
	"context"
	"log/slog"
	"time"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/callattrs"
	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/rpc"
)

// LoggingOptions configure Logging. A nil *LoggingOptions, and every zero
// field, means the documented default.
type LoggingOptions struct {
	// Logger receives the records. Default: the logger of each call's
	// connection (rpc.LoggerFromContext), slog.Default() unless
	// rpc.Options.Logger says otherwise.
	Logger *slog.Logger
	// ResultLevel is the level of the record of a call answered with a
	// result (or a notification handled without error). Default:
	// slog.LevelDebug, so that a healthy server logs nothing at the usual
	// Info level and pays nothing for it; set slog.LevelInfo for an access
	// log of every call.
	ResultLevel slog.Leveler
}

// Logging writes one record per call, when it ends: its method, id (absent
// for a notification), trace id (see Correlation), duration and outcome —
// "result"; "error" with the code the call is answered with, the message,
// and the cause (the error the handler returned, when it is not that
// error object itself: the text behind an InternalError); "cancelled" for
// a call the peer cancelled with rpc.CancelledNotification, which is
// answered with nothing; or "panic" for a panic on its way out. opts may
// be nil.
//
// The level says how it went: ResultLevel for a result; Info for a call
// the caller cancelled or the shutdown cut short; Debug for a notification
// no method handles (peers send notifications a server may ignore, such as
// MCP's notifications/initialized); Warn for any other error the caller
// can act on (invalid params, unknown method, the application's own
// codes...); Error for an internal error or a panic. A level the logger's
// handler does not enable costs nearly nothing.
func Logging(opts *LoggingOptions) Middleware {
	var o LoggingOptions
	if opts != nil {
		o = *opts
	}
	logger := o.Logger
	resultLevel := slog.LevelDebug
	if o.ResultLevel != nil {
		resultLevel = o.ResultLevel.Level()
	}
	return func(next rpc.Handler) rpc.Handler {
		return rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (result any, err error) {
			start := time.Now()
			panicked := true
			defer func() {
				if panicked {
					record(ctx, logger, req, start, slog.LevelError, slog.String("outcome", "panic"))
				}
			}()
			result, err = next.Handle(ctx, req)
			panicked = false
			if ctx.Err() != nil && rpc.CancelledSilently(ctx) {
				record(ctx, logger, req, start, slog.LevelInfo, slog.String("outcome", "cancelled"))
				return result, err
			}
			// What the wire says, even where the handler's return is not
			// its answer (a call the peer cancelled with $/cancelRequest).
			switch e := rpc.ErrorFor(ctx, err); {
			case e == nil:
				record(ctx, logger, req, start, resultLevel, slog.String("outcome", "result"))
			default:
				level := errorLevel(e.Code)
				if e.Code == codec.MethodNotFound && req.IsNotification() {
					level = slog.LevelDebug
				}
				outcome := []slog.Attr{slog.String("outcome", "error"),
					slog.Int("code", int(e.Code)), slog.String("error", e.Message)}
				if err != nil && err != error(e) {
					outcome = append(outcome, slog.Any("cause", err))
				}
				record(ctx, logger, req, start, level, outcome...)
			}
			return result, err
		})
	}
}

// errorLevel is the level of the record of a call answered with code.
func errorLevel(code codec.Code) slog.Level {
	switch code {
	case codec.InternalError:
		return slog.LevelError
	case codec.RequestCancelled, codec.ServerShuttingDown:
		return slog.LevelInfo
	}
	return slog.LevelWarn
}

func record(ctx context.Context, logger *slog.Logger, req *rpc.Request, start time.Time, level slog.Level, outcome ...slog.Attr) {
	logger = loggerFor(ctx, logger)
	if !logger.Enabled(ctx, level) {
		return
	}
	msg := "rpc call"
	if req.IsNotification() {
		msg = "rpc notification"
	}
	var buf [8]slog.Attr // on the stack: 3 of the call, the duration, 4 of the outcome at most
	attrs := append(appendCallAttrs(ctx, buf[:0], req), slog.Duration("duration", time.Since(start)))
	logger.LogAttrs(ctx, level, msg, append(attrs, outcome...)...)
}

// appendCallAttrs appends to attrs the log attributes that say which call
// a record is about: its method, its id (but for a notification), its
// trace id (if it has one, see [Correlation]), and what its request's
// context says of it (behind auth.ResourceServer.Require, the caller's
// subject and client id: never a token).
func appendCallAttrs(ctx context.Context, attrs []slog.Attr, req *rpc.Request) []slog.Attr {
	attrs = append(attrs, slog.String("method", jsonx.Echo(req.Method)))
	if req.ID != nil {
		attrs = append(attrs, slog.String("id", jsonx.Echo(req.ID)))
	}
	if id := TraceID(ctx); id != "" {
		attrs = append(attrs, slog.String("trace_id", id))
	}
	return callattrs.Append(ctx, attrs) // the caller's, behind auth.ResourceServer.Require
}
