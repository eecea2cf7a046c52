package rpc

import (
	"sync"
	"sync/atomic"

	"github.com/toolrpc/toolrpc/codec"
)

// batch gathers the answers to one batch, and writes them as one array, in
// the order of the batch's entries, once the last is in.
type batch struct {
	out     replier    // where the array goes
	calls   []*inbound // its requests and notifications, in order
	reqs    []*inbound // its requests, for workers to claim (see claim)
	next    atomic.Int32
	mu      sync.Mutex
	arena   []byte // the answers so far, back to back, as they came
	answers []span // by entry: where its answer is in arena (none: empty)
	pending int    // answers still to come, plus one until dispatched
	// single is set for a lone message carried as a batch of one (see
	// serveFrame): its answer goes out as it is, not in an array.
	single bool
	done   chan struct{}   // closed once answered, when not nil (see serveFrame)
	giveUp <-chan struct{} // closed when its requests need no answer any more (see serveFrame); nil on a stream
}

// span is a part of a batch's arena.
type span struct{ at, end int }

// newBatch makes the batch of n entries answered through out.
func newBatch(n int, out replier) *batch {
	return &batch{out: out, answers: make([]span, n), pending: 1}
}

// record copies the answer of entry slot (nil: none) into the arena; b.mu
// is held, or the batch is not yet shared.
func (b *batch) record(slot int, line []byte) {
	if line != nil {
		at := len(b.arena)
		b.arena = append(b.arena, line...)
		b.answers[slot] = span{at, len(b.arena)}
	}
}

// givenUp reports whether the batch's transport has given it up (see
// serveFrame): its requests not started are then never run.
func (b *batch) givenUp() bool {
	select {
	case <-b.giveUp: // a nil channel (a stream's batch) is never ready
		return true
	default:
		return false
	}
}

// claim returns the next request of the batch no worker has taken, or nil.
// The specification lets a batch's entries run in any order and with any
// parallelism: workers take them one after another, so that a batch of
// quick calls is not handed out call by call, while slow calls spread over
// as many workers as the batch was offered to.
func (b *batch) claim() *inbound {
	if i := int(b.next.Add(1)) - 1; i < len(b.reqs) {
		return b.reqs[i]
	}
	return nil
}

// add records the answer of entry slot (nil: none; slot < 0: only release
// the dispatch count) and writes the array after the last answer. The
// answer is copied: line may be reused when add returns.
func (b *batch) add(s *core, slot int, line []byte) {
	b.mu.Lock()
	if slot >= 0 {
		b.record(slot, line)
	}
	b.pending--
	last := b.pending == 0
	b.mu.Unlock()
	if !last {
		return
	}
	// The batch's ids are in flight until its answer is written.
	s.inflight.removeAll(b.calls)
	if b.done != nil {
		defer close(b.done)
	}
	if b.single {
		if a := b.answers[0]; a.end > a.at {
			b.out.reply(b.arena[a.at:a.end])
		}
		return
	}
	buf := getBuffer()
	defer putBuffer(buf)
	out := append(*buf, '[')
	for _, a := range b.answers {
		if a.end > a.at {
			if len(out) > 1 {
				out = append(out, ',')
			}
			out = append(out, b.arena[a.at:a.end]...)
		}
	}
	*buf = out
	if len(out) > 1 {
		b.out.reply(append(out, ']'))
	}
}

// fill makes the entries of a batch of msgs: answers for the invalid ones,
// calls for the rest (see core.accept). It returns the memory they hold
// beyond the frame's bytes.
func (b *batch) fill(s *core, msgs []codec.Message, accept func(*codec.Message, *batch) work) (size int) {
	for i := range msgs {
		w := accept(&msgs[i], b)
		switch {
		case w.line != nil:
			b.record(i, w.line)
		case w.in != nil:
			w.in.slot = int32(i) // MaxBatch is at most math.MaxInt32 (see NewConn, serveFrame)
			b.calls = append(b.calls, w.in)
			if w.in.req.ID != nil {
				b.pending++
			}
			size += w.size
		}
	}
	return size
}
