package rpc

import (
	"context"
	"math"

	"github.com/toolrpc/toolrpc/codec"
)

// serveFrame answers one frame, a message or a batch, for a
// request/response transport (an HTTP POST carries one): through out go
// the notifications its calls send and then its answer — a response, the
// array answering a batch, or nothing for notifications alone. It returns
// once the frame is answered, or once ctx ends (the transport gave up: its
// client went away): the contexts of the frame's calls are then cancelled,
// with ctx's cause, and out must drop what it is still given.
//
// Every rule of the stream holds, for they are the core's: ids in flight
// (shared with the other frames the core serves: a duplicate id is
// answered InvalidRequest, a cancellation in one frame reaches a call of
// another), the concurrency bound (requests run in the core's workers),
// the reserved names, the error mapping, a call's notifications before its
// answer. A lone message is carried as a batch of one, whose answer is
// written as it is: a long string result is then copied rather than
// written in pieces.
func (s *core) serveFrame(ctx context.Context, dec *codec.Decoder, frame []byte, out replier) {
	dec.MaxBatch = min(dec.MaxBatch, math.MaxInt32) // a batch entry's slot is an int32
	msgs, isBatch := dec.Decode(frame)
	defer clear(msgs) // the decoder keeps its messages: let go of the frame
	b := newBatch(len(msgs), out)
	b.single = !isBatch
	b.done = make(chan struct{})
	b.gone = ctx.Done() // requests waiting for a worker wait no longer
	b.fill(s, msgs, func(m *codec.Message, b *batch) work { return s.accept(m, b, out, nil) })
	if s.stopping.Load() {
		s.refuse(work{batch: b}, codec.ServerShuttingDown, out)
	} else {
		s.startBatch(b)
	}
	select {
	case <-b.done:
	case <-ctx.Done():
		cause := context.Cause(ctx)
		for _, in := range b.calls {
			in.cancel(cause)
		}
	}
}
