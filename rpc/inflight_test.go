package rpc

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// With every id hashing alike, the set still tells ids apart: by their raw
// tokens, through the chain.
func TestInflightSetCollisions(t *testing.T) {
	s := newInflightSet(false)
	s.hash = func(replier, []byte) uint64 { return 7 }
	call := func(id string) *inbound { return &inbound{req: Request{ID: []byte(id)}} }
	a, b, c := call(`1`), call(`"1"`), call(`1.0`)
	for _, in := range []*inbound{a, b, c} {
		assert.True(t, s.add(in))
	}
	assert.False(t, s.add(call(`"1"`)), "an id in flight")
	assert.Same(t, b, s.get(nil, []byte(`"1"`)))
	assert.Nil(t, s.get(nil, []byte(`2`)))

	s.remove(b) // from the middle of the chain
	assert.Nil(t, s.get(nil, []byte(`"1"`)))
	assert.Same(t, a, s.get(nil, []byte(`1`)))
	assert.Same(t, c, s.get(nil, []byte(`1.0`)))
	s.remove(c) // the head
	s.remove(c) // again: nothing
	assert.Same(t, a, s.get(nil, []byte(`1`)))
	s.remove(a)
	assert.Empty(t, s.m)
	assert.True(t, s.add(call(`"1"`)), "free again")
}

// A set scoped by request gives each replier ids of its own, even when
// every key collides: the same id of two requests names two calls, and
// each is found, and removed, by its own request alone.
func TestInflightSetScopedByRequest(t *testing.T) {
	for _, collide := range []bool{false, true} {
		s := newInflightSet(true)
		if collide {
			s.hash = func(replier, []byte) uint64 { return 7 }
		}
		r1, r2 := &httpReply{}, &httpReply{}
		a := &inbound{out: r1, req: Request{ID: []byte(`1`)}}
		b := &inbound{out: r2, req: Request{ID: []byte(`1`)}}
		assert.True(t, s.add(a))
		assert.True(t, s.add(b), "the same id, another request")
		assert.False(t, s.add(&inbound{out: r1, req: Request{ID: []byte(`1`)}}), "in flight in its request")
		assert.Same(t, a, s.get(r1, []byte(`1`)))
		assert.Same(t, b, s.get(r2, []byte(`1`)))
		assert.Nil(t, s.get(&httpReply{}, []byte(`1`)), "a third request has none")
		s.remove(a)
		assert.Nil(t, s.get(r1, []byte(`1`)))
		assert.Same(t, b, s.get(r2, []byte(`1`)))
		s.remove(b)
		assert.Empty(t, s.m)
	}
}
