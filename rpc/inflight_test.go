package rpc

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// With every id hashing alike, the set still tells ids apart: by their raw
// tokens, through the chain.
func TestInflightSetCollisions(t *testing.T) {
	s := newInflightSet()
	s.hash = func([]byte) uint64 { return 7 }
	call := func(id string) *inbound { return &inbound{req: Request{ID: []byte(id)}} }
	a, b, c := call(`1`), call(`"1"`), call(`1.0`)
	for _, in := range []*inbound{a, b, c} {
		assert.True(t, s.add(in))
	}
	assert.False(t, s.add(call(`"1"`)), "an id in flight")
	assert.Same(t, b, s.get([]byte(`"1"`)))
	assert.Nil(t, s.get([]byte(`2`)))

	s.remove(b) // from the middle of the chain
	assert.Nil(t, s.get([]byte(`"1"`)))
	assert.Same(t, a, s.get([]byte(`1`)))
	assert.Same(t, c, s.get([]byte(`1.0`)))
	s.remove(c) // the head
	s.remove(c) // again: nothing
	assert.Same(t, a, s.get([]byte(`1`)))
	s.remove(a)
	assert.Empty(t, s.m)
	assert.True(t, s.add(call(`"1"`)), "free again")
}
