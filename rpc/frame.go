package rpc

import (
	"context"
	"fmt"
	"math"

	"github.com/toolrpc/toolrpc/codec"
)

// framer is a replier told of each frame serveFrame decodes, before any
// of its messages is served: an HTTP reply opens its event stream early
// only for a frame that holds a request (Options.EventStreamAfter).
type framer interface {
	framed(msgs []codec.Message)
}

// An outcomeTeller is a replier told, before the answer of a request whose
// handler returned, what the handler answered (err: nil for a result): an
// HTTP reply tells a transport's hook what starts its response, typed,
// rather than have it read the bytes back (see rpchttp.Start).
type outcomeTeller interface {
	outcome(in *inbound, err error)
}

// serveFrame answers one frame, a message or a batch, for a
// request/response transport (an HTTP POST carries one): through out go
// the notifications its calls send and then its answer — a response, the
// array answering a batch, or nothing for notifications alone. Frames may
// be served concurrently.
//
// When ctx ends (the transport gave up: its client went away), the
// contexts of the frame's calls are cancelled as by the peer (their cause
// wraps ErrCancelled and ctx's cause) — a lone request's once it looks at
// its context (see transportWatch) — and those not started are settled
// without running; serveFrame returns once the
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
// lone request, when a slot of the concurrency bound is free, runs in the
// calling goroutine (serveAlone); any other lone message is carried as a
// batch of one, whose answer is written as it is.
//
// The transport stops the core (beginStop, stop, cancelCalls) and, only
// once every serveFrame has returned, closes its workers (closeJobs, then
// running.Wait): a frame still being started would send on a closed
// channel.
func (s *core) serveFrame(ctx context.Context, dec *codec.Decoder, frame []byte, out replier) {
	dec.MaxBatch = min(dec.MaxBatch, math.MaxInt32) // a batch entry's slot is an int32
	msgs, isBatch := dec.Decode(frame)
	if f, ok := out.(framer); ok {
		f.framed(msgs)
	}
	defer func() {
		clear(msgs) // the decoder keeps its messages: let go of the frame
		if cap(msgs) > maxKeptMessages {
			*dec = codec.Decoder{MaxDepth: dec.MaxDepth, MaxBatch: dec.MaxBatch} // and of a long batch's slice
		}
	}()
	if !isBatch && msgs[0].Kind == codec.Request && !s.sequential && !s.stopping.Load() && s.trySlot() {
		// A lone request and a free slot: it runs here, with no hand-off
		// to a worker, within the concurrency bound all the same.
		s.serveAlone(ctx, &msgs[0], out)
		<-s.sem
		return
	}
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

// maxKeptMessages is the most messages a decoder given to serveFrame keeps
// room for once it returns (a transport may pool its decoders).
const maxKeptMessages = 16

// serveAlone answers a lone request in the calling goroutine, which holds
// a slot of the concurrency bound for it: no batch, no hand-off, nothing
// to wait for but the call. ctx's end cancels it as serveFrame says, once
// it looks (see transportWatch).
func (s *core) serveAlone(ctx context.Context, m *codec.Message, out replier) {
	w := s.accept(m, nil, out, nil)
	if w.in == nil { // refused: its id is in flight
		out.reply(w.line)
		return
	}
	if ctx.Err() != nil { // given up already: never run, as in a batch
		s.refuseCall(w.in, codec.RequestCancelled)
		return
	}
	watch := watchTransport(w.in, ctx)
	s.run(w.in)
	watch.end()
}
