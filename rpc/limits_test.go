package rpc_test

import (
	"context"

	"io"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

// TestMaxPendingCalls runs in a synctest bubble: the third call's 50 ms
// pass only once every goroutine is blocked, so it has surely found both
// slots taken, and it is never late by the machine's chance.
func TestMaxPendingCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := newArith()
		p := wiretest.NewPair(a, nil, nil, &rpc.Options{MaxPendingCalls: 2})
		defer p.Close(t)
		block, cancelBlock := context.WithCancel(context.Background())
		defer cancelBlock()
		for range 2 {
			go func() { _ = p.Client.Call(block, "block", nil, nil) }()
			<-a.started
		}
		// Both slots are taken: a third call waits, as long as its context lets it.
		short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		assert.ErrorIs(t, p.Client.Call(short, "add", []int{1, 2}, nil), context.DeadlineExceeded)
		// A slot frees: the next call goes through.
		cancelBlock()
		for range 2 { // the server's handlers end only when told
			wiretest.Receive(t, a.cancelled, "the server to be told a call was cancelled")
		}
		var sum int
		require.NoError(t, p.Client.Call(context.Background(), "add", []int{1, 2}, &sum))
		assert.Equal(t, 3, sum)
		assert.ErrorContains(t, p.Client.Batch(context.Background(), make([]rpc.BatchCall, 3)), "more than Options.MaxPendingCalls")
		notes := []rpc.BatchCall{{Method: "note", Params: []int{1}, Notification: true}, {Method: "add", Params: []int{1, 2}},
			{Method: "note", Params: []int{2}, Notification: true}}
		require.NoError(t, p.Client.Batch(context.Background(), notes), "notifications take no slot")
		assert.NoError(t, notes[1].Err)
	})
}

// endlessLine is a line of n bytes of 'x' and its newline, made on the fly.
type endlessLine struct{ n int64 }

func (e *endlessLine) Read(p []byte) (int, error) {
	if e.n < 0 {
		return 0, io.EOF
	}
	if e.n == 0 {
		e.n--
		p[0] = '\n'
		return 1, nil
	}
	k := copy(p[:min(int64(len(p)), e.n)], xs)
	e.n -= int64(k)
	return k, nil
}

var xs = []byte(strings.Repeat("x", 64<<10))

// A 1 GiB line over the frame limit is answered and skipped within a few
// MiB of memory, and the next line is served.
func TestSkippingAGigabyteLine(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 1 GiB")
	}
	in := io.MultiReader(&endlessLine{n: 1 << 30}, strings.NewReader(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`+"\n"))
	var out wiretest.Buffer
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	require.NoError(t, rpc.Serve(context.Background(), in, &out, newArith(), &rpc.Options{Logger: quiet, MaxFrameSize: 1 << 20}))
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("skipping 1 GiB allocated %.1f MiB in all", float64(allocated)/(1<<20))
	assert.Less(t, allocated, uint64(8<<20), "more than a few MiB to skip the line")
	assert.Equal(t, []string{
		`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"frame larger than the limit of 1048576 bytes"}},"id":null}`,
		`{"jsonrpc":"2.0","result":3,"id":1}`,
	}, wiretest.Lines(t, out.String()))
}
