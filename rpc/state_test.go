package rpc

import (
	"math"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The life of an inbound call, and the peer's cancellation at each step: a
// cancel counts while the call is queued (it then never runs) or running
// (the answer becomes the cancellation's), and not once the connection has
// taken the handler's result.
func TestInboundStates(t *testing.T) {
	t.Run("cancelled while queued", func(t *testing.T) {
		var in inbound
		assert.True(t, in.cancelBy(stateCancelledLSP))
		assert.False(t, in.begin(), "a call cancelled while queued never runs")
	})
	t.Run("cancelled while running", func(t *testing.T) {
		var in inbound
		assert.True(t, in.begin())
		assert.False(t, in.cancelBy(stateCancelledMCP))
		assert.False(t, in.cancelBy(stateCancelledLSP), "the first cancellation decides")
		how, noted := in.end()
		assert.Equal(t, stateCancelledMCP, how)
		assert.False(t, noted)
	})
	t.Run("cancelled while running, having notified", func(t *testing.T) {
		var in inbound
		assert.True(t, in.begin())
		in.state.Or(stateNoted) // as send does
		assert.Equal(t, stateRunning, in.phase())
		assert.False(t, in.cancelBy(stateCancelledLSP))
		assert.Equal(t, stateCancelledLSP, in.phase(), "the cancellation counts")
		in.state.Or(stateNoted) // a second notification
		how, noted := in.end()
		assert.Equal(t, stateCancelledLSP, how)
		assert.True(t, noted, "the notification is remembered through the cancellation")
		assert.Equal(t, stateDone, in.state.Load())
	})
	t.Run("cancelled after the result was taken", func(t *testing.T) {
		var in inbound
		assert.True(t, in.begin())
		in.state.Or(stateNoted)
		how, noted := in.end()
		assert.Equal(t, stateRunning, how)
		assert.True(t, noted)
		assert.False(t, in.cancelBy(stateCancelledLSP))
		assert.Equal(t, stateDone, in.state.Load(), "the answer stands")
	})
	t.Run("racing", func(t *testing.T) {
		for range 1000 {
			var in inbound
			in.begin()
			var wg sync.WaitGroup
			var end int32
			var noted, queued bool
			wg.Go(func() { // as send does
				in.notifyMu.Lock()
				if in.state.Load() != stateDone {
					in.state.Or(stateNoted)
				}
				in.notifyMu.Unlock()
			})
			wg.Go(func() { end, noted = in.end() })
			wg.Go(func() { queued = in.cancelBy(stateCancelledLSP) })
			wg.Wait()
			assert.False(t, queued)
			assert.Contains(t, []int32{stateRunning, stateCancelledLSP}, end)
			_ = noted // either: the notification came before the end, or was refused after it
			assert.Equal(t, stateDone, in.state.Load())
		}
	})
}

// A bound of math.MaxInt (none, in effect) must not overflow into a
// negative bound for the reading on while a call awaits.
func TestWorkQueueBoundsDoNotOverflow(t *testing.T) {
	for _, bytes := range []int{10, math.MaxInt} {
		q := newWorkQueue(1, bytes, func() bool { return true })
		for i := range 16 {
			if err := q.push(work{size: 1}); err != nil {
				t.Fatalf("MaxQueueBytes %d: push %d of 16 while awaiting: %v", bytes, i+1, err)
			}
		}
		if err := q.push(work{size: 1}); err != errQueueFull {
			t.Fatalf("MaxQueueBytes %d: push 17 while awaiting: %v, want errQueueFull", bytes, err)
		}
	}
}
