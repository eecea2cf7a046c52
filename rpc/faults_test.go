package rpc_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

// The peer closes its end of our output (EPIPE) while calls run: serving
// returns that error promptly, and every handler's context is cancelled.
func TestWriteFailsWithEPIPE(t *testing.T) {
	a := newArith()
	outR, outW, err := os.Pipe()
	require.NoError(t, err)
	defer outW.Close()
	inR, inW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- rpc.Serve(context.Background(), inR, outW, a, &rpc.Options{Logger: quiet}) }()
	wiretest.Send(t, inW, `{"jsonrpc":"2.0","method":"block","id":1}`)
	<-a.started
	wiretest.Send(t, inW, `{"jsonrpc":"2.0","method":"block","id":2}`)
	<-a.started
	require.NoError(t, outR.Close()) // the peer goes away
	wiretest.Send(t, inW, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":3}`)
	assert.ErrorIs(t, wiretest.Receive(t, done, "Serve to return after its output failed"), syscall.EPIPE)
	for range 2 { // block returns only when its context is cancelled
		assert.ErrorIs(t, wiretest.Receive(t, a.cancelled, "a handler's context to be cancelled"), rpc.ErrShutdown)
	}
	_ = inW.Close()
}

// slowReader reads our output a few bytes at a time, slowly.
type slowReader struct{ r io.Reader }

func (s slowReader) Read(p []byte) (int, error) {
	// A slow peer, the slowness itself (neither set-up awaited nor proof of
	// absence), on the synctest bubble's clock of TestSlowReaderOfOurOutput:
	// each read comes only once everything else is blocked, so lines always
	// wait. What the test asserts holds however long it is.
	time.Sleep(time.Millisecond)
	return s.r.Read(p[:min(len(p), 64)])
}

// countingWriter counts the writes made to w.
type countingWriter struct {
	w      io.Writer
	writes atomic.Int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.w.Write(p)
}

// A slow reader of our output: the server neither drops nor splits lines,
// nor retries its writes (at most one write per line; group commit merges
// lines that wait). In a synctest bubble, where the reader is slower than
// everything else, whatever the machine's load.
func TestSlowReaderOfOurOutput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		outR, outW := io.Pipe()
		inR, inW := io.Pipe()
		out := &countingWriter{w: outW}
		c := rpc.NewConn(context.Background(), inR, out, newArith(), &rpc.Options{Logger: quiet})
		const n = 500
		go func() {
			for i := range n {
				wiretest.Send(t, inW, fmt.Sprintf(`{"jsonrpc":"2.0","method":"echo","params":["%s"],"id":%d}`, strings.Repeat("y", i%100), i))
			}
			_ = inW.Close()
		}()
		read := make(chan []byte)
		go func() {
			got, _ := io.ReadAll(slowReader{outR})
			read <- got
		}()
		require.NoError(t, c.Wait(), "every line was written, slowly")
		_ = outW.Close()
		got := <-read
		lines := wiretest.Lines(t, string(got))
		require.Len(t, lines, n, "every line arrives")
		want := map[string]bool{}
		for i := range n {
			want[fmt.Sprintf(`{"jsonrpc":"2.0","result":["%s"],"id":%d}`, strings.Repeat("y", i%100), i)] = true
		}
		for _, l := range lines {
			assert.True(t, want[l], "an answer that is not one of the calls', or twice: %s", l)
			delete(want, l)
		}
		assert.LessOrEqual(t, out.writes.Load(), int64(n), "writes")
		t.Logf("%d lines in %d writes", n, out.writes.Load())
		_ = outR.Close()
	})
}
