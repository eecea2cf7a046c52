package rpc

import (
	"slices"
	"sync/atomic"
)

// slots bounds the calls of ours waiting for a response
// (Options.MaxPendingCalls). A batch takes a slot per call all at once, or
// waits holding none: two batches each holding part of what they need
// would wait for each other for ever. pendingCalls.mu guards it.
type slots struct {
	max     int
	used    atomic.Int64  // written under pendingCalls.mu; read without it by the queue
	waiting []*slotWaiter // in arrival order
}

// slotWaiter is a call or a batch waiting for slots.
type slotWaiter struct {
	n       int
	ready   chan struct{} // closed when granted, or when the connection is lost
	granted bool
}

// take takes n slots if they are free, reporting whether it did.
func (s *slots) take(n int) bool {
	if int(s.used.Load())+n > s.max {
		return false
	}
	s.used.Add(int64(n))
	return true
}

// release frees n slots and grants them to the waiters that now fit,
// oldest first.
func (s *slots) release(n int) {
	s.used.Add(int64(-n))
	if len(s.waiting) == 0 {
		return
	}
	kept := s.waiting[:0]
	for _, w := range s.waiting {
		if s.take(w.n) {
			w.granted = true
			close(w.ready)
		} else {
			kept = append(kept, w)
		}
	}
	clear(s.waiting[len(kept):])
	s.waiting = kept
}

// leave removes w from the waiters, if it is there.
func (s *slots) leave(w *slotWaiter) {
	if i := slices.Index(s.waiting, w); i >= 0 {
		s.waiting = slices.Delete(s.waiting, i, i+1)
	}
}

// wakeAll ends every wait (the connection is lost).
func (s *slots) wakeAll() {
	for _, w := range s.waiting {
		close(w.ready)
	}
	clear(s.waiting)
	s.waiting = s.waiting[:0]
}
