package rpc

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
)

// transportWatch is the context of a lone request that serveAlone runs: the
// call's own (a child of the core's base), which the end of the
// transport's context (an HTTP request's: its client went away) cancels —
// once the call looks. Done, Err and every context derived from it (which
// calls Done) see the transport's end as serveFrame says: the cause wraps
// ErrCancelled and the transport's. Most calls never wait on their
// context, and watching the transport's from the start
// (context.AfterFunc: a registration with it, a closure, a stop) would
// cost each of them about six allocations; Done starts the watch the first
// time it is called, and Err checks the transport's context itself.
type transportWatch struct {
	context.Context // the call's, as core.accept made it
	in              *inbound
	transport       context.Context
	armed           atomic.Bool // Done was called: the watch is started, or the call ended
	mu              sync.Mutex
	stop            func() bool // the watch's, once started
	ended           bool        // the call is answered: no watch any more
}

// watchTransport makes in's context a transportWatch of transport.
func watchTransport(in *inbound, transport context.Context) *transportWatch {
	w := &transportWatch{Context: in.Context, in: in, transport: transport}
	in.Context = w
	return w
}

// Done returns the call's Done channel, starting the watch of the
// transport's context first.
func (w *transportWatch) Done() <-chan struct{} {
	if !w.armed.Load() {
		w.arm()
	}
	return w.Context.Done()
}

// Err returns the call's error, cancelling the call first if the
// transport's context has ended.
func (w *transportWatch) Err() error {
	if err := w.Context.Err(); err != nil {
		return err
	}
	if w.transport.Err() != nil {
		w.gaveUp()
	}
	return w.Context.Err()
}

// arm starts the watch, unless the call has ended.
func (w *transportWatch) arm() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.armed.Load() {
		return
	}
	w.armed.Store(true)
	if !w.ended {
		w.stop = context.AfterFunc(w.transport, w.gaveUp)
	}
}

// gaveUp cancels the call: the transport gave up.
func (w *transportWatch) gaveUp() {
	w.in.cancel(fmt.Errorf("%w: the transport gave up: %w", ErrCancelled, context.Cause(w.transport)))
}

// end stops the watch: the call is answered.
func (w *transportWatch) end() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ended = true
	if w.stop != nil {
		w.stop()
	}
}
