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
	select {
	case err := <-done:
		assert.ErrorIs(t, err, syscall.EPIPE)
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after its output failed")
	}
	for range 2 {
		select {
		case cause := <-a.cancelled:
			assert.ErrorIs(t, cause, rpc.ErrShutdown)
		case <-time.After(time.Second):
			t.Fatal("a handler's context was not cancelled")
		}
	}
	_ = inW.Close()
}

// slowPipe reads our output a few bytes at a time, slowly, and counts the
// reads.
type slowReader struct {
	r     io.Reader
	reads atomic.Int64
}

func (s *slowReader) Read(p []byte) (int, error) {
	time.Sleep(time.Millisecond)
	s.reads.Add(1)
	return s.r.Read(p[:min(len(p), 64)])
}

// A slow reader of our output: the server neither spins nor drops lines.
func TestSlowReaderOfOurOutput(t *testing.T) {
	outR, outW := io.Pipe()
	inR, inW := io.Pipe()
	c := rpc.NewConn(context.Background(), inR, outW, newArith(), &rpc.Options{Logger: quiet})
	const n = 500
	go func() {
		for i := range n {
			wiretest.Send(t, inW, fmt.Sprintf(`{"jsonrpc":"2.0","method":"echo","params":["%s"],"id":%d}`, strings.Repeat("y", i%100), i))
		}
		_ = inW.Close()
	}()
	var usage0, usage1 syscall.Rusage
	require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &usage0))
	slow := &slowReader{r: outR}
	read := make(chan []byte)
	go func() {
		got, _ := io.ReadAll(slow)
		read <- got
	}()
	require.NoError(t, c.Wait(), "every line was written, slowly")
	_ = outW.Close()
	got := <-read
	require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &usage1))
	lines := wiretest.Lines(t, string(got))
	assert.Len(t, lines, n, "every line arrives")
	for _, l := range lines {
		assert.True(t, strings.HasPrefix(l, `{"jsonrpc":"2.0","result":["`), l)
	}
	cpu := time.Duration(usage1.Utime.Nano()+usage1.Stime.Nano()-usage0.Utime.Nano()-usage0.Stime.Nano()) * time.Nanosecond
	wall := time.Duration(slow.reads.Load()) * time.Millisecond
	t.Logf("%d reads over at least %v of waiting used %v of CPU", slow.reads.Load(), wall, cpu)
	assert.Less(t, cpu, wall/2, "the server spun while its output was slow")
	_ = outR.Close()
}
