package rpc_test

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

// tinyRequests is an input of n tiny requests with distinct ids, alone on
// their lines or in batches of batch, made as it is read (so the input
// itself holds no memory). It waits for start, if not nil, before the
// first byte.
type tinyRequests struct {
	n, batch int
	start    chan struct{}
	sent     int
	pending  []byte
}

func (g *tinyRequests) Read(p []byte) (int, error) {
	if g.start != nil {
		<-g.start
		g.start = nil
	}
	if len(g.pending) == 0 {
		if g.sent >= g.n {
			return 0, io.EOF
		}
		g.pending = g.pending[:0]
		if g.batch > 0 {
			g.pending = append(g.pending, '[')
		}
		for i := 0; g.sent < g.n && (i == 0 || i < g.batch); i++ {
			if i > 0 {
				g.pending = append(g.pending, ',')
			}
			g.pending = fmt.Appendf(g.pending, `{"jsonrpc":"2.0","method":"m","id":%d}`, g.sent)
			g.sent++
		}
		if g.batch > 0 {
			g.pending = append(g.pending, ']')
		}
		g.pending = append(g.pending, '\n')
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	return n, nil
}

// liveHeap is the live heap after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// The memory a connection holds for the messages it read stays under the
// bound docs/limits.md states ("Memory"): (Concurrency + 3) messages of at most MaxFrameSize
// (and MaxBatch entries of decodedEntry bytes), plus the queue's
// MaxQueueBytes, 16 times that while a call of ours awaits the peer. The
// input is the costliest kind for its size: tiny requests, each far larger
// decoded than its 40 bytes of frame, behind a handler that never returns.
// Counting only frame bytes, the queue held ten times its bound. Once the
// flood is answered, the connection lets go of the room it took.
func TestQueueMemoryIsBounded(t *testing.T) {
	const (
		maxFrame     = 64 << 10
		concurrency  = 1
		decodedEntry = 400     // docs/limits.md's figure for a message's decoded form
		fixedBuffers = 1 << 20 // the reader's buffer, the decoder's storage
	)
	tests := []struct {
		name       string
		batch      int  // entries per batch; 0: requests alone on their lines
		awaiting   bool // a call of ours awaits the peer: the queue reads on to 16x
		queueBound int  // what the queue may hold
		n          int  // requests sent: more than the queue takes (and, held as before, past the bound)
	}{
		{"requests alone", 0, false, 2 << 20, 20_000},
		{"batches of 1000", 1000, false, 2 << 20, 20_000},
		{"requests alone, awaiting", 0, true, 2 << 20, 20_000},
		{"batches of 1000, awaiting", 1000, true, 2 << 20, 20_000},
		{"a flood of requests alone", 0, false, 16 << 20, 40_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				opts := rpc.Options{Logger: quiet, MaxFrameSize: maxFrame, Concurrency: concurrency, MaxQueueBytes: tt.queueBound}
				if tt.awaiting {
					opts.MaxQueueBytes /= 16
				}
				if tt.batch == 0 {
					opts.QueueSize = 1 << 20 // the bytes are the bound, not the count
				}
				release := make(chan struct{})
				h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
					<-release
					return nil, nil
				})
				in := &tinyRequests{n: tt.n, batch: tt.batch, start: make(chan struct{})}
				before := liveHeap()
				c := rpc.NewConn(context.Background(), in, io.Discard, h, &opts)
				called := make(chan error, 1)
				if tt.awaiting {
					go func() { called <- c.Call(context.Background(), "never_answered", nil, nil) }()
				}
				synctest.Wait() // the call, if any, awaits the peer
				close(in.start)
				synctest.Wait() // the reader is stopped by the full queue, or at the end of the input
				held := int64(liveHeap()) - int64(before)

				perMessage := max(tt.batch, 1) * decodedEntry
				bound := int64(tt.queueBound + (concurrency+3)*(maxFrame+perMessage) + fixedBuffers)
				t.Logf("%d requests read: live heap %.2f MiB, bound %.2f MiB", in.sent, mib(held), mib(bound))
				assert.LessOrEqual(t, held, bound, "the live heap passed the bound")
				assert.Greater(t, held, int64(tt.queueBound/2), "the queue held less than half its bound: the count of its bytes is far off")

				close(release)
				if tt.awaiting {
					assert.ErrorIs(t, <-called, rpc.ErrClosed)
				}
				require.NoError(t, c.Wait())
				left := int64(liveHeap()) - int64(before)
				t.Logf("once every request is answered: %.2f MiB held", mib(left))
				assert.Less(t, left, int64(fixedBuffers), "the connection kept the room the flood took")
				runtime.KeepAlive(c)
			})
		})
	}
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// A connection remembers the method names it has seen, to make no string
// per request; it remembered names of any length, so that 256 requests
// with distinct 64 KiB names pinned 16 MiB for the connection's life.
func TestLongMethodNamesAreNotKept(t *testing.T) {
	const names, long = 300, 64 << 10
	p := wiretest.NewPipe(nil, nil)
	before := liveHeap()
	go func() {
		name := []byte(strings.Repeat("m", long))
		for i := range names {
			copy(name, fmt.Sprintf("%08d", i))
			if err := p.Write(fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"%s","id":%d}`+"\n", name, i)); err != nil {
				return
			}
		}
	}()
	for range names {
		line, err := p.ReadLine()
		require.NoError(t, err)
		require.Contains(t, string(line), `"code":-32601`)
	}
	held := int64(liveHeap()) - int64(before)
	t.Logf("after %d requests with %d-byte names: %.2f MiB held", names, long, mib(held))
	assert.Less(t, held, int64(2<<20), "the connection holds the names it saw")
	p.Close(t)
}
