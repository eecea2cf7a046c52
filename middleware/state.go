package middleware

import (
	"context"
	"sync"

	"github.com/toolrpc/toolrpc/rpc"
)

// callState is the per-call state of this package's middleware: one
// allocation per call, however many of them wrap the handler. The
// outermost to see a call makes it, as the call's context; the others
// find it.
type callState struct {
	context.Context
	req *rpc.Request // the call it belongs to

	// See Correlation. The trace id is made when first read: most calls
	// never log, and minting one is not free.
	tracing   bool       // a Correlation middleware gave the call a trace id
	traceLink *callState // the state whose trace id this one shares, or nil
	traceOnce sync.Once
	trace     [16]byte

	progress progressState // see Progress
}

// traceOf returns the call's trace id, making it on first use.
func (s *callState) traceOf() [16]byte {
	for s.traceLink != nil {
		s = s.traceLink
	}
	s.traceOnce.Do(func() { s.trace = traceID(s.req) })
	return s.trace
}

type stateKey struct{}

// Value returns the state itself for stateKey.
func (s *callState) Value(key any) any {
	if key == (stateKey{}) {
		return s
	}
	return s.Context.Value(key)
}

// stateOf returns the innermost state of ctx, or nil.
func stateOf(ctx context.Context) *callState {
	s, _ := ctx.Value(stateKey{}).(*callState)
	return s
}

// outer returns the next state out from s, or nil.
func (s *callState) outer() *callState { return stateOf(s.Context) }

// traced returns the innermost state of ctx that has a trace id, or nil.
func traced(ctx context.Context) *callState { return stateOf(ctx).tracedOut() }

// tracedOut returns s, or the nearest state out from it, that has a trace
// id, or nil.
func (s *callState) tracedOut() *callState {
	for s != nil && !s.tracing {
		s = s.outer()
	}
	return s
}

// reporting returns the innermost state of ctx that a Progress middleware
// set up, or nil.
func reporting(ctx context.Context) *callState {
	s := stateOf(ctx)
	for s != nil && s.progress.opts == nil {
		s = s.outer()
	}
	return s
}

// stateFor returns the state of the call req, and the context to hand the
// next handler: ctx itself when the innermost state is req's, else a new
// state. A request other than the innermost state's — a middleware passed
// on a copy of it, or a handler called another handler with its context —
// gets a state of its own, which keeps the trace id of the states around
// it: the lookups of TraceID and ReportProgress go outward from the
// innermost state to the nearest that has what they need.
func stateFor(ctx context.Context, req *rpc.Request) (*callState, context.Context) {
	if in := stateOf(ctx); in != nil && in.req == req {
		return in, ctx
	}
	s := &callState{Context: ctx, req: req}
	return s, s
}
