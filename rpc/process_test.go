package rpc_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

// childProcess is the test binary run as a child process, in one of these
// modes:
//   - serve: a tool server on stdin/stdout (the arith handler), which
//     writes a line to stderr first and exits 0 at the end of its input;
//   - exit3: reads its input to the end, then exits with status 3;
//   - crash: exits with status 3 at once;
//   - stubborn: ignores the end of its input and never exits by itself.
func childProcess(mode string) int {
	switch mode {
	case "serve":
		fmt.Fprintln(os.Stderr, "child: serving")
		if err := rpc.Serve(context.Background(), os.Stdin, os.Stdout, newArith(), &rpc.Options{Logger: quiet}); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			return 1
		}
		fmt.Fprintln(os.Stderr, "child: input ended")
		return 0
	case "exit3":
		_ = rpc.Serve(context.Background(), os.Stdin, os.Stdout, nil, &rpc.Options{Logger: quiet})
		return 3
	case "crash":
		return 3
	case "stubborn":
		_ = rpc.Serve(context.Background(), os.Stdin, os.Stdout, nil, &rpc.Options{Logger: quiet})
		select {}
	case "stdio", "stdio-keep":
		err := rpc.ServeStdio(context.Background(), stray, &rpc.StdioOptions{Options: rpc.Options{Logger: quiet}, KeepStdout: mode == "stdio-keep"})
		if err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			return 1
		}
		fmt.Println("after serving, stdout is stdout again")
		return 0
	}
	return 2
}

// stray is a tool that writes to standard output every way a program can.
var stray = rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
	fmt.Println("stray println")
	_, _ = syscall.Write(1, []byte("stray write to fd 1\n"))
	cmd := exec.Command("sh", "-c", "echo stray subprocess")
	cmd.Stdout = os.Stdout
	if err := cmd.Run(); err != nil {
		return nil, err
	}
	return "ok", nil
})

func child(mode string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "TOOLRPC_TEST_PROCESS="+mode)
	return cmd
}

func TestProcess(t *testing.T) {
	var logs wiretest.Buffer
	p, err := rpc.StartProcess(context.Background(), child("serve"), nil,
		&rpc.ProcessOptions{Options: rpc.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))}})
	require.NoError(t, err)
	var sum int
	require.NoError(t, p.Call(context.Background(), "add", []int{40, 2}, &sum))
	assert.Equal(t, 42, sum)

	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 1000 / 16 {
				var got int
				if assert.NoError(t, p.Call(context.Background(), "add", []int{g, i}, &got)) {
					assert.Equal(t, g+i, got)
				}
			}
		})
	}
	wg.Wait()

	require.NoError(t, p.Close(), "exit status 0")
	require.NoError(t, p.Close(), "Close is idempotent")
	assert.Contains(t, logs.String(), `line="child: serving"`, "stderr goes to the logger line by line")
	assert.Contains(t, logs.String(), `line="child: input ended"`)
	assert.Contains(t, logs.String(), "tool server exited")
	assert.ErrorIs(t, p.Call(context.Background(), "add", []int{1, 2}, nil), rpc.ErrClosed)
}

func TestProcessExitStatus(t *testing.T) {
	p, err := rpc.StartProcess(context.Background(), child("exit3"), nil, &rpc.ProcessOptions{Options: rpc.Options{Logger: quiet}})
	require.NoError(t, err)
	var exit *exec.ExitError
	require.ErrorAs(t, p.Close(), &exit)
	assert.Equal(t, 3, exit.ExitCode())
}

func TestProcessThatExitsByItself(t *testing.T) {
	p, err := rpc.StartProcess(context.Background(), child("crash"), nil, &rpc.ProcessOptions{Options: rpc.Options{Logger: quiet}})
	require.NoError(t, err)
	wiretest.Receive(t, p.Exited(), "the process to exit")
	var exit *exec.ExitError
	require.ErrorAs(t, p.ExitErr(), &exit, "known before Close")
	assert.Equal(t, 3, exit.ExitCode())
	assert.ErrorIs(t, p.Call(context.Background(), "add", []int{1, 2}, nil), rpc.ErrClosed)
	require.ErrorAs(t, p.Close(), &exit, "Close says the same")
	assert.Equal(t, 3, exit.ExitCode())
}

func TestProcessKilledAfterGrace(t *testing.T) {
	p, err := rpc.StartProcess(context.Background(), child("stubborn"), nil,
		&rpc.ProcessOptions{Options: rpc.Options{Logger: quiet}, Grace: 50 * time.Millisecond})
	require.NoError(t, err)
	err = p.Close() // stubborn never exits by itself: Close returning at all is the kill
	assert.ErrorContains(t, err, "killed after a grace period of 50ms")
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, "signal: killed", exit.String())
}

func TestProcessKilledFailsPendingCalls(t *testing.T) {
	p, err := rpc.StartProcess(context.Background(), child("serve"), nil, &rpc.ProcessOptions{Options: rpc.Options{Logger: quiet}})
	require.NoError(t, err)
	const n = 10
	errs := make(chan error, n)
	started := make(chan struct{}, n)
	for range n {
		go func() {
			// block reports progress once it runs: the call is under way.
			var once sync.Once
			ctx := rpc.WithProgress(context.Background(), func(rpc.Progress) { once.Do(func() { started <- struct{}{} }) })
			errs <- p.Call(ctx, "block", map[string]any{}, nil)
		}()
	}
	for range n {
		wiretest.Receive(t, started, "a call to start")
	}
	require.NoError(t, p.Kill())
	for range n { // block never answers: each call fails because the process died
		assert.ErrorIs(t, wiretest.Receive(t, errs, "a pending call to fail"), rpc.ErrClosed)
	}
	err = p.Close()
	var exit *exec.ExitError
	assert.ErrorAs(t, err, &exit, "the exit status says it was killed")
}

func TestStartProcessErrors(t *testing.T) {
	cmd := child("serve")
	cmd.Stdout = os.Stdout
	_, err := rpc.StartProcess(context.Background(), cmd, nil, nil)
	assert.ErrorContains(t, err, "leave them unset")

	_, err = rpc.StartProcess(context.Background(), exec.Command("/no/such/program"), nil, nil)
	assert.ErrorContains(t, err, "starting the process")
}

// A tool's stray writes to standard output never reach the protocol.
func TestServeStdioKeepsStrayOutputOffTheProtocol(t *testing.T) {
	run := func(mode string) (stdout, stderr string) {
		cmd := child(mode)
		cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","method":"tool","id":1}` + "\n")
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		require.NoError(t, cmd.Run(), "stderr: %s", errOut.String())
		return out.String(), errOut.String()
	}
	stdout, stderr := run("stdio")
	assert.Equal(t, `{"jsonrpc":"2.0","result":"ok","id":1}`+"\n"+"after serving, stdout is stdout again\n", stdout)
	for _, s := range []string{"stray println", "stray write to fd 1", "stray subprocess"} {
		assert.Contains(t, stderr, s)
	}

	// The opt-out: everything lands on standard output.
	stdout, _ = run("stdio-keep")
	for _, s := range []string{"stray println", "stray write to fd 1", "stray subprocess", `"result":"ok"`} {
		assert.Contains(t, stdout, s)
	}
}

// Calls, notifications and batches racing the end of a tool server (Kill,
// or Close) either succeed or fail with ErrClosed: never a raw write error
// (broken pipe, file already closed) or anything else, whichever comes
// first of our output failing, our input ending and Close.
func TestCallsRacingTheEndOfAProcess(t *testing.T) {
	ops := []func(ctx context.Context, p *rpc.Process) error{
		func(ctx context.Context, p *rpc.Process) error { return p.Call(ctx, "add", []int{1, 2}, nil) },
		func(ctx context.Context, p *rpc.Process) error { return p.Notify(ctx, "nothing", nil) },
		func(ctx context.Context, p *rpc.Process) error {
			return p.Batch(ctx, []rpc.BatchCall{{Method: "add", Params: []int{1, 2}}, {Method: "nothing", Notification: true}})
		},
	}
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	contexts := []context.Context{context.Background(), cancellable}
	for round := range 6 {
		p, err := rpc.StartProcess(context.Background(), child("serve"), nil, &rpc.ProcessOptions{Options: rpc.Options{Logger: quiet}})
		require.NoError(t, err)
		var succeeded atomic.Int64
		running := make(chan struct{})
		var once sync.Once
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				for i := 0; ; i++ {
					err := ops[(g+i)%len(ops)](contexts[(g+i/3)%2], p)
					if err == nil {
						if succeeded.Add(1) == 100 {
							once.Do(func() { close(running) })
						}
						continue
					}
					if !assert.ErrorIs(t, err, rpc.ErrClosed) {
						return
					}
					// The end is for good: what follows fails the same way.
					for _, op := range ops {
						assert.Equal(t, err, op(context.Background(), p))
					}
					return
				}
			})
		}
		wiretest.Receive(t, running, "calls to run")
		if round%2 == 0 {
			require.NoError(t, p.Kill())
		} else {
			go func() { _ = p.Close() }()
		}
		wg.Wait()
		_ = p.Close()
	}
}

// Close lets what we queued reach the process before its input ends: the
// cancellation of a call just abandoned stops the call there, and the
// process exits by itself (it used to be killed after the grace period,
// still running the call).
func TestProcessCloseDeliversTheCancellation(t *testing.T) {
	p, err := rpc.StartProcess(context.Background(), child("serve"), nil, &rpc.ProcessOptions{Options: rpc.Options{Logger: quiet}})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	ctx = rpc.WithProgress(ctx, func(rpc.Progress) { once.Do(cancel) }) // block is under way: cancel it
	assert.ErrorIs(t, p.Call(ctx, "block", map[string]any{}, nil), context.Canceled)
	require.NoError(t, p.Close(), "the process exits by itself, its call cancelled")
}
