package middleware

import (
	"context"

	"github.com/toolrpc/toolrpc/rpc"
)

// callState is the per-call state of this package's middleware: one
// allocation per call, however many of them wrap the handler. The
// outermost to see a call makes it, as the call's context; the others
// find it.
type callState struct {
	context.Context
	req *rpc.Request // the call it belongs to

	trace    [16]byte // see Correlation
	hasTrace bool
	progress progressState // see Progress
}

type stateKey struct{}

// Value returns the state itself for stateKey.
func (s *callState) Value(key any) any {
	if key == (stateKey{}) {
		return s
	}
	return s.Context.Value(key)
}

// stateOf returns the state of the call ctx belongs to, or nil.
func stateOf(ctx context.Context) *callState {
	s, _ := ctx.Value(stateKey{}).(*callState)
	return s
}

// stateFor returns the state of the call req, and the context to hand the
// next handler: ctx itself when the state is already there, else the new
// state. A state found for another request (a handler that called another
// handler with its own context) is not reused.
func stateFor(ctx context.Context, req *rpc.Request) (*callState, context.Context) {
	if s := stateOf(ctx); s != nil && s.req == req {
		return s, ctx
	}
	s := &callState{Context: ctx, req: req}
	return s, s
}
