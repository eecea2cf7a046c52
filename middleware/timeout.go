package middleware

import (
	"context"
	"errors"
	"time"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/rpc"
)

// Timeout gives each call's context a deadline d from its start. A call
// still running at the deadline has its context cancelled, and is answered
// RequestTimeout (-32001) with data {"timeout": "<d>"}, whatever its
// handler returns.
//
// The handler runs in the connection's goroutine, as without Timeout, so
// the connection's concurrency bound still holds. A handler that ignores
// its context cannot be stopped: its call is answered when it returns.
func Timeout(d time.Duration) Middleware {
	return func(next rpc.Handler) rpc.Handler {
		return rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
			tctx, cancel := context.WithTimeoutCause(ctx, d, errTimedOut)
			defer cancel()
			result, err := next.Handle(tctx, req)
			if errors.Is(context.Cause(tctx), errTimedOut) && ctx.Err() == nil {
				return nil, rpc.NewError(codec.RequestTimeout, "").WithData(map[string]string{"timeout": d.String()})
			}
			return result, err
		})
	}
}

var errTimedOut = errors.New("middleware: call timed out")
