package rpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/toolrpc/toolrpc/internal/option"
)

// pendingCalls is the outbound side of a connection: the calls of ours
// waiting for the peer's responses, and why none can come any more once
// the connection is lost. Its lock is its own: the inbound side (core)
// never takes it.
type pendingCalls struct {
	log          *slog.Logger
	cancelMethod string       // see Options.CancelNotification
	nextID       atomic.Int64 // the last id of ours
	dropped      dropped      // the responses to no call of ours, for their records

	mu        sync.Mutex
	pending   map[int64]*outbound    // by id
	slots     slots                  // a slot per pending call (Options.MaxPendingCalls); used tells the queue a call awaits
	batches   map[*outBatch]struct{} // batches of ours with calls pending
	abandoned abandonedIDs           // calls of ours we stopped waiting for
	lost      error                  // set when no response can come any more: why, wrapping ErrClosed
}

// init readies p for a connection with the options o.
func (p *pendingCalls) init(log *slog.Logger, o *Options) {
	p.log = log
	p.cancelMethod = o.CancelNotification
	if p.cancelMethod != CancelledNotification {
		p.cancelMethod = CancelRequest
	}
	p.pending = make(map[int64]*outbound)
	p.batches = make(map[*outBatch]struct{})
	p.slots.max = option.PositiveOr(o.MaxPendingCalls, DefaultMaxPendingCalls)
}

// awaiting reports whether a call of ours awaits a response.
func (p *pendingCalls) awaiting() bool { return p.slots.used.Load() > 0 }

// outbound is a call of ours waiting for its response.
type outbound struct {
	id       int64         // its id (the token is the number in decimal)
	done     chan struct{} // closed when the response (or the end) came
	result   []byte        // the raw result, when answered with one
	err      error         // the error, when answered with one or failed
	progress *progressQueue
	batch    *outBatch // the batch it was sent in, or nil
}

// outBatch is a batch of ours with calls still waiting.
type outBatch struct {
	calls   []*outbound
	waiting int // the calls still pending; at 0 the batch leaves pendingCalls.batches
}

// settled reports whether o has ended.
func (o *outbound) settled() bool {
	select {
	case <-o.done:
		return true
	default:
		return false
	}
}

// finish records how a call ended, once.
func (o *outbound) finish(result []byte, err error) {
	o.result, o.err = result, err
	close(o.done)
}

// Why a connection is lost, said by the error every call of ours then
// fails with (ErrClosed wraps them).
var (
	errInputEnded  = fmt.Errorf("the input ended: %w", io.EOF)
	errCloseCalled = errors.New("Close was called")
)

// newCall makes a call of ours, with its progress queue if ctx asks
// for progress.
func (p *pendingCalls) newCall(ctx context.Context) *outbound {
	return newOutbound(ctx, p.nextID.Add(1))
}

// newOutbound makes the call of ours with the id given, with its progress
// queue if ctx asks for progress (see WithProgress).
func newOutbound(ctx context.Context, id int64) *outbound {
	o := &outbound{id: id, done: make(chan struct{})}
	if fn, ok := ctx.Value(progressKey{}).(func(Progress)); ok && fn != nil {
		o.progress = &progressQueue{fn: fn, ready: make(chan struct{}, 1)}
	}
	return o
}

// register adds calls to the pending ones once it has a slot for each,
// waiting for the slots, all at once, as long as ctx lets it. The calls
// of a batch (their batch set) make it one of p.batches.
func (p *pendingCalls) register(ctx context.Context, calls ...*outbound) error {
	n := len(calls)
	p.mu.Lock()
	if err := p.lost; err != nil {
		p.mu.Unlock()
		return err
	}
	if !p.slots.take(n) {
		w := &slotWaiter{n: n, ready: make(chan struct{})}
		p.slots.waiting = append(p.slots.waiting, w)
		p.mu.Unlock()
		select {
		case <-w.ready:
		case <-ctx.Done():
		}
		p.mu.Lock()
		p.slots.leave(w)
		err := p.lost
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			if w.granted {
				p.slots.release(n)
			}
			p.mu.Unlock()
			return err
		}
	}
	for _, o := range calls {
		p.pending[o.id] = o
	}
	if b := calls[0].batch; b != nil {
		b.waiting = n
		p.batches[b] = struct{}{}
	}
	p.mu.Unlock()
	return nil
}

// forget removes o from the pending calls, reporting whether it was
// there (a response or the end may have taken it first).
func (p *pendingCalls) forget(o *outbound) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pending[o.id] != o {
		return false
	}
	p.dropLocked(o)
	p.abandoned.add(o.id)
	return true
}

// dropLocked removes o from the pending calls and frees its slot; p.mu is
// held.
func (p *pendingCalls) dropLocked(o *outbound) {
	delete(p.pending, o.id)
	if b := o.batch; b != nil {
		if b.waiting--; b.waiting == 0 {
			delete(p.batches, b)
		}
	}
	p.slots.release(1)
}

// fail ends every call of ours still waiting, and every later one,
// with an error that wraps ErrClosed and cause, which says why. The first
// cause stands: every call fails the same way.
func (p *pendingCalls) fail(cause error) {
	p.mu.Lock()
	err := p.loseLocked(cause)
	pending := p.pending
	p.pending = map[int64]*outbound{}
	clear(p.batches)
	p.slots.used.Add(int64(-len(pending)))
	p.slots.wakeAll()
	p.mu.Unlock()
	for _, o := range pending {
		o.finish(nil, err)
	}
}

// lose records why the connection is lost, unless a reason already was.
func (p *pendingCalls) lose(cause error) {
	p.mu.Lock()
	p.loseLocked(cause)
	p.mu.Unlock()
}

// loseLocked records why the connection is lost, unless a reason already
// was, and returns the error every call of ours fails with from now on;
// p.mu is held.
func (p *pendingCalls) loseLocked(cause error) error {
	if p.lost == nil {
		p.lost = ErrClosed
		if cause != nil && !errors.Is(cause, ErrClosed) {
			p.lost = fmt.Errorf("%w: %w", ErrClosed, cause)
		}
	}
	return p.lost
}

// lostErr is why the connection is lost (wrapping ErrClosed), or nil.
func (p *pendingCalls) lostErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lost
}

// closedErr is the error of a call of ours once the connection is lost.
func (p *pendingCalls) closedErr() error {
	if err := p.lostErr(); err != nil {
		return err
	}
	return ErrClosed
}

// ourID reads a token as an id of ours: a positive decimal integer as
// strconv.AppendInt writes it.
func ourID(tok []byte) (int64, bool) {
	if len(tok) == 0 || len(tok) > 18 || tok[0] == '0' {
		return 0, false
	}
	var n int64
	for _, c := range tok {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// abandonedIDs remembers the ids of the last calls we stopped waiting for,
// so that their late responses are dropped quietly. Ids are never reused,
// so each is in the ring at most once.
type abandonedIDs struct {
	ring [256]int64
	next int
	set  map[int64]bool
}

func (a *abandonedIDs) add(id int64) {
	if a.set == nil {
		a.set = map[int64]bool{}
	}
	delete(a.set, a.ring[a.next])
	a.ring[a.next] = id
	a.set[id] = true
	a.next = (a.next + 1) % len(a.ring)
}

func (a *abandonedIDs) has(id int64) bool { return a.set[id] }
