package rpc

import (
	"bytes"
	"hash/maphash"
	"sync"
)

// inflightSet holds the requests read and not yet answered, by id token:
// ids are compared as the raw tokens they came as. It is keyed by a hash of
// the token, with requests whose ids share a hash chained, so that adding a
// request needs no string made of its id.
//
// A set scoped by request gives each replier (an HTTP request: see
// HTTPHandler) ids of its own: the same id from two clients names two
// calls, and a cancellation reaches only the calls of its own request.
type inflightSet struct {
	mu      sync.Mutex
	hash    func(scope replier, id []byte) uint64 // the key of id in scope
	byReply bool                                  // scoped by request: an id is its replier's
	m       map[uint64]*inbound
	peak    int // the most entries m has held: a map never gives back its room
}

// keepInflightRoom is the most entries' room the set keeps when it holds
// far fewer (a sixteenth): past it, the map is made anew.
const keepInflightRoom = 4096

func newInflightSet(byReply bool) inflightSet {
	seed := maphash.MakeSeed()
	return inflightSet{hash: func(scope replier, id []byte) uint64 { return keyOf(seed, scope, id) }, byReply: byReply, m: map[uint64]*inbound{}}
}

// scope is the replier whose ids out's are, in s: out itself in a set
// scoped by request, else nil (one space for all).
func (s *inflightSet) scope(out replier) replier {
	if s.byReply {
		return out
	}
	return nil
}

// keyOf is the key of id in scope.
func keyOf(seed maphash.Seed, scope replier, id []byte) uint64 {
	h := maphash.Bytes(seed, id)
	if scope != nil {
		h ^= maphash.Comparable(seed, scope)
	}
	return h
}

// get returns the request whose id is the token id among those of out,
// or nil.
func (s *inflightSet) get(out replier, id []byte) *inbound {
	scope := s.scope(out)
	h := s.hash(scope, id)
	s.mu.Lock()
	defer s.mu.Unlock()
	for in := s.m[h]; in != nil; in = in.next {
		if bytes.Equal(in.req.ID, id) && s.scope(in.out) == scope {
			return in
		}
	}
	return nil
}

// add adds in, unless a request with the same id is there (among those
// of its replier, in a set scoped by request); it reports whether it
// added it.
func (s *inflightSet) add(in *inbound) bool {
	scope := s.scope(in.out)
	h := s.hash(scope, in.req.ID)
	s.mu.Lock()
	defer s.mu.Unlock()
	head := s.m[h]
	for other := head; other != nil; other = other.next {
		if bytes.Equal(other.req.ID, in.req.ID) && s.scope(other.out) == scope {
			return false
		}
	}
	in.next = head
	s.m[h] = in
	s.peak = max(s.peak, len(s.m))
	return true
}

// remove removes in, if it is there.
func (s *inflightSet) remove(in *inbound) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.removeLocked(in)
}

// removeAll removes the requests among calls (a batch's entries), under
// one lock.
func (s *inflightSet) removeAll(calls []*inbound) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, in := range calls {
		if in.req.ID != nil {
			s.removeLocked(in)
		}
	}
}

// each calls fn for every request in the set, with the set locked: fn
// must not use the set.
func (s *inflightSet) each(fn func(in *inbound)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, in := range s.m {
		for ; in != nil; in = in.next {
			fn(in)
		}
	}
}

// removeLocked is remove, with s.mu held.
func (s *inflightSet) removeLocked(in *inbound) {
	h := s.hash(s.scope(in.out), in.req.ID)
	var prev *inbound
	for cur := s.m[h]; cur != nil; prev, cur = cur, cur.next {
		if cur != in {
			continue
		}
		switch {
		case prev != nil:
			prev.next = cur.next
		case cur.next != nil:
			s.m[h] = cur.next
		default:
			delete(s.m, h)
			if s.peak > keepInflightRoom && len(s.m) < s.peak/16 {
				s.shrink()
			}
		}
		cur.next = nil
		return
	}
}

// shrink moves the entries into a map of their size, letting go of the
// room a flood of requests left.
func (s *inflightSet) shrink() {
	m := make(map[uint64]*inbound, len(s.m))
	for h, in := range s.m {
		m[h] = in
	}
	s.m, s.peak = m, len(m)
}
