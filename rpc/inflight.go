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
type inflightSet struct {
	mu   sync.Mutex
	hash func(id []byte) uint64
	m    map[uint64]*inbound
	peak int // the most entries m has held: a map never gives back its room
}

// keepInflightRoom is the most entries' room the set keeps when it holds
// far fewer (a sixteenth): past it, the map is made anew.
const keepInflightRoom = 4096

func newInflightSet() inflightSet {
	seed := maphash.MakeSeed()
	return inflightSet{
		hash: func(id []byte) uint64 { return maphash.Bytes(seed, id) },
		m:    map[uint64]*inbound{},
	}
}

// get returns the request whose id is the token id, or nil.
func (s *inflightSet) get(id []byte) *inbound {
	h := s.hash(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	for in := s.m[h]; in != nil; in = in.next {
		if bytes.Equal(in.req.ID, id) {
			return in
		}
	}
	return nil
}

// add adds in, unless a request with the same id is there; it reports
// whether it added it.
func (s *inflightSet) add(in *inbound) bool {
	h := s.hash(in.req.ID)
	s.mu.Lock()
	defer s.mu.Unlock()
	head := s.m[h]
	for other := head; other != nil; other = other.next {
		if bytes.Equal(other.req.ID, in.req.ID) {
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
	h := s.hash(in.req.ID)
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
