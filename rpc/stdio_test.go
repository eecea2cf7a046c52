package rpc_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

// stdioChild runs the child process modes of the tests below, reporting
// whether mode is one of them. Neither writes to standard error before or
// after ServeStdio: only what ServeStdio guards is under test.
//   - stdio-log: serves "log", which waits until 10 calls are running,
//     then logs (slog's default logger, to standard error) and prints to
//     standard output (standard error while serving);
//   - stdio-flood: serves "flood", which fills the pipe of standard error
//     (see fillStderr), says so (a notification "full"), then writes one
//     more line there, which blocks for good; and "stop", which cancels
//     the server's context. It exits 0 when ServeStdio returns the
//     cancellation.
func stdioChild(mode string) (code int, ok bool) {
	switch mode {
	case "stdio-log":
		var barrier sync.WaitGroup
		barrier.Add(10)
		h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
			barrier.Done()
			barrier.Wait()
			slog.Info("handling a call", "id", string(req.ID))
			fmt.Println("a stray print")
			return "ok", nil
		})
		if err := rpc.ServeStdio(context.Background(), h, nil); err != nil {
			return 1, true
		}
		return 0, true
	case "stdio-flood":
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		h := rpc.HandlerFunc(func(hctx context.Context, req *rpc.Request) (any, error) {
			switch req.Method {
			case "flood":
				if err := fillStderr(); err != nil {
					return nil, err
				}
				_ = rpc.Notify(hctx, "full", nil)
				_, err := os.Stderr.Write([]byte("blocked for good\n"))
				return nil, err
			case "stop":
				cancel()
				return "stopping", nil
			}
			return nil, nil
		})
		err := rpc.ServeStdio(ctx, h, &rpc.StdioOptions{Options: rpc.Options{ShutdownGrace: time.Millisecond}})
		if err != context.Canceled {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// fillStderr fills the pipe that is standard error, through a
// non-blocking opening of its own (Linux: /proc/self/fd), until it takes
// not one more byte: the next write to standard error blocks.
func fillStderr() error {
	fd, err := syscall.Open("/proc/self/fd/2", syscall.O_WRONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	chunk := make([]byte, 4096)
	for len(chunk) > 0 {
		if _, err := syscall.Write(fd, chunk); err == syscall.EAGAIN {
			chunk = chunk[:len(chunk)/2] // less room than that: smaller writes
		} else if err != nil {
			return err
		}
	}
	return nil
}

// startStdioChild starts the test binary in mode with pipes to its
// standard input and output, and its standard error the write end of a
// pipe whose read end it returns.
func startStdioChild(t *testing.T, mode string) (cmd *exec.Cmd, stdin io.WriteCloser, stdout *bufio.Reader, stderr *os.File) {
	t.Helper()
	cmd = child(mode)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr, errW, err := os.Pipe()
	require.NoError(t, err)
	cmd.Stderr = errW
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() }) // a child left stuck by a failure
	require.NoError(t, errW.Close())             // the child holds the write end
	return cmd, stdin, bufio.NewReader(out), stderr
}

// A parent that closes its end of our standard error: the next record
// logged (or line printed, which lands on standard error while serving)
// killed the process by SIGPIPE, with 10 calls in flight and unanswered.
// Now the records are lost, and the calls answered.
func TestServeStdioOutlivesAClosedStderr(t *testing.T) {
	cmd, stdin, stdout, stderr := startStdioChild(t, "stdio-log")
	require.NoError(t, stderr.Close()) // before the child writes anything there
	for i := range 10 {
		wiretest.Send(t, stdin, fmt.Sprintf(`{"jsonrpc":"2.0","method":"log","id":%d}`, i))
	}
	answered := map[string]bool{}
	for range 10 {
		line, err := stdout.ReadString('\n')
		require.NoError(t, err, "answers so far: %v", answered)
		answered[line] = true
	}
	for i := range 10 {
		assert.True(t, answered[fmt.Sprintf(`{"jsonrpc":"2.0","result":"ok","id":%d}`+"\n", i)], "call %d answered", i)
	}
	require.NoError(t, stdin.Close())
	assert.NoError(t, cmd.Wait(), "the child ends normally at the end of its input")
}

// A parent that never reads our standard error: once its pipe is full,
// whoever writes there waits, a handler too. That wait must not keep the
// server from ending with its context: the connection's own record about
// the handler still running after the grace period blocked on the full
// pipe, and ServeStdio never returned.
func TestServeStdioEndsWithItsContextWhileStderrIsFull(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("fills the pipe through /proc/self/fd")
	}
	cmd, stdin, stdout, stderr := startStdioChild(t, "stdio-flood")
	defer stderr.Close() // held open, never read
	wiretest.Send(t, stdin, `{"jsonrpc":"2.0","method":"flood","id":1}`)
	line, err := stdout.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, `{"jsonrpc":"2.0","method":"full"}`+"\n", line, "standard error is full; the handler blocks writing there")
	wiretest.Send(t, stdin, `{"jsonrpc":"2.0","method":"stop","id":2}`)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	assert.NoError(t, wiretest.Receive(t, exited, "the child to exit once its context is cancelled"))
	_ = stdin.Close()
}
