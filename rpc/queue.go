package rpc

import (
	"errors"
	"math"
	"sync"
)

// Errors of workQueue.push.
var (
	errQueueFull    = errors.New("rpc: queue full")
	errQueueStopped = errors.New("rpc: queue stopped")
)

// workQueue holds the messages read and not yet dispatched, in order. The
// reader pushes, the dispatcher pops.
//
// It is bounded, in items and in bytes: a push waits while size items, or
// items holding maxBytes bytes of memory (work.size: their frames and their
// decoded form), wait, which stops the reader (backpressure). An empty
// queue always takes an item, whatever its size. But while a call of
// ours awaits the peer's response, the response may be behind the peer's
// requests in the input: the reader must read on to find it, and a push
// then goes past the bounds, up to awaitingFactor (16) times them.
type workQueue struct {
	mu       sync.Mutex
	cond     sync.Cond
	items    []work
	head     int
	bytes    int         // the memory the items waiting hold (work.size)
	size     int         // the soft bound on items
	hard     int         // the bound on items while awaiting
	maxBytes int         // the soft bound on bytes
	hardMax  int         // the bound on bytes while awaiting
	waiting  func() bool // whether a call of ours awaits a response
	closed   bool        // no more pushes: the reader is done
	stopped  bool        // shutting down: nothing waits any more
	idle     bool        // the dispatcher waits in pop on an empty queue
}

// idleAndEmpty reports whether nothing is queued and the dispatcher waits
// for work: the reader may then start a request itself, with nothing
// ahead of it to keep order with. Only the reader pushes, so the answer
// holds until it pushes again.
func (q *workQueue) idleAndEmpty() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.idle && q.len() == 0 && !q.stopped
}

// awaitingFactor is how far past its bounds the queue goes while a call of
// ours awaits the peer.
const awaitingFactor = 16

func newWorkQueue(size, maxBytes int, awaiting func() bool) *workQueue {
	q := &workQueue{size: size, hard: beyond(size), maxBytes: maxBytes, hardMax: beyond(maxBytes), waiting: awaiting}
	q.cond.L = &q.mu
	return q
}

// beyond is n times awaitingFactor, or math.MaxInt if that overflows (a
// bound of math.MaxInt means none).
func beyond(n int) int {
	if n > math.MaxInt/awaitingFactor {
		return math.MaxInt
	}
	return n * awaitingFactor
}

func (q *workQueue) len() int { return len(q.items) - q.head }

// push adds w, waiting for room. It returns errQueueFull when even the
// bound for awaiting is reached, and errQueueStopped once the queue is
// stopped; w was not added then.
func (q *workQueue) push(w work) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.stopped && q.len() > 0 && (q.len() >= q.size || q.bytes+w.size > q.maxBytes) {
		if q.waiting() {
			if q.len() >= q.hard || q.bytes+w.size > q.hardMax {
				return errQueueFull
			}
			break
		}
		q.cond.Wait()
	}
	if q.stopped {
		return errQueueStopped
	}
	if q.head > 0 && len(q.items) == cap(q.items) {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	q.items = append(q.items, w)
	q.bytes += w.size
	q.cond.Broadcast()
	return nil
}

// pop takes the next item, waiting for one. It returns false once the
// queue is closed and empty, or stopped.
func (q *workQueue) pop() (work, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.stopped && q.len() == 0 && !q.closed {
		q.idle = true
		q.cond.Wait()
		q.idle = false
	}
	if q.stopped || q.len() == 0 {
		return work{}, false
	}
	w := q.items[q.head]
	q.items[q.head] = work{}
	q.head++
	q.bytes -= w.size
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
		if cap(q.items) > keepQueueCap {
			q.items = nil // a flood is over: let go of its room
		}
	}
	q.cond.Broadcast()
	return w, true
}

// keepQueueCap is the most room for items a queue keeps once it is empty.
const keepQueueCap = DefaultQueueSize

// drain takes every item left.
func (q *workQueue) drain() []work {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := append([]work(nil), q.items[q.head:]...)
	clear(q.items)
	q.items, q.head, q.bytes = q.items[:0], 0, 0
	return out
}

// close marks the end of the pushes.
func (q *workQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

// stop wakes every waiter for good.
func (q *workQueue) stop() {
	q.mu.Lock()
	q.stopped = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

// wake lets a waiting push look again (a call of ours started waiting).
func (q *workQueue) wake() {
	q.mu.Lock()
	q.cond.Broadcast()
	q.mu.Unlock()
}
