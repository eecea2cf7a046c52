package rpc

import (
	"context"
	"fmt"
	"math"

	"github.com/toolrpc/toolrpc/codec"
)

// serveFrame answers one frame, a message or a batch, for a
// request/response transport (an HTTP POST carries one): through out go
// the notifications its calls send and then its answer — a response, the
// array answering a batch, or nothing for notifications alone. Frames may
// be served concurrently.
//
// When ctx ends (the transport gave up: its client went away), the
// contexts of the frame's calls are cancelled as by the peer (their cause
// wraps ErrCancelled and ctx's cause), and those
// not started are settled without running; serveFrame returns once the
// frame is answered, or once ctx has ended and no call runs in its own
// goroutine (its notifications run there: one that ignores its context
// holds it). out must then drop what it is still given, and frame, which
// the calls still running read, must stay as it is.
//
// Every rule of the stream holds, for they are the core's: ids in flight
// (shared with the other frames the core serves: a duplicate id is
// answered InvalidRequest, a cancellation in one frame reaches a call of
// another), the concurrency bound (requests run in the core's workers; the
// core of a request/response transport is not sequential), the reserved
// names, the error mapping, a call's notifications before its answer. A
// lone message is carried as a batch of one, whose answer is written as
// it is: a long string result is then copied rather than written in
// pieces.
//
// The transport stops the core (beginStop, stop, cancelCalls) and, only
// once every serveFrame has returned, closes its workers (closeJobs, then
// running.Wait): a frame still being started would send on a closed
// channel.
func (s *core) serveFrame(ctx context.Context, dec *codec.Decoder, frame []byte, out replier) {
	dec.MaxBatch = min(dec.MaxBatch, math.MaxInt32) // a batch entry's slot is an int32
	msgs, isBatch := dec.Decode(frame)
	defer clear(msgs) // the decoder keeps its messages: let go of the frame
	b := newBatch(len(msgs), out)
	b.single = !isBatch
	b.done = make(chan struct{})
	b.giveUp = ctx.Done()
	b.fill(s, msgs, func(m *codec.Message, b *batch) work { return s.accept(m, b, out, nil) })
	// From the moment ctx ends, every call of the frame is cancelled, those
	// running in this goroutine (its notifications) too.
	cancelAll := func() {
		cause := fmt.Errorf("%w: the transport gave up: %w", ErrCancelled, context.Cause(ctx))
		for _, in := range b.calls {
			in.cancel(cause)
		}
	}
	stop := context.AfterFunc(ctx, cancelAll)
	switch {
	case s.stopping.Load():
		s.refuse(work{batch: b}, codec.ServerShuttingDown, out)
	case b.single && len(b.calls) == 1 && !s.inline(b.calls[0]) && s.trySlot():
		// A lone request and a free slot: it runs here, with no hand-off
		// to a worker, within the concurrency bound all the same.
		s.run(b.calls[0])
		<-s.sem
		b.add(s, -1, nil)
	default:
		s.startBatch(b)
	}
	select {
	case <-b.done:
		stop()
	case <-ctx.Done():
		cancelAll() // stop would race the AfterFunc it stops
	}
}
