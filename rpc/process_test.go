package rpc_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

// childProcess is the test binary run as a child process, in one of these
// modes:
//   - serve: a tool server on stdin/stdout (the arith handler), which
//     writes a line to stderr first and exits 0 at the end of its input;
//   - exit3: reads its input to the end, then exits with status 3;
//   - crash: exits with status 3 at once;
//   - stubborn: ignores the end of its input and never exits by itself;
//   - stderr-flood: writes a line of floodBytes bytes to stderr, between
//     two short ones;
//   - stderr-json: writes slog JSON records to stderr, and a plain line;
//   - close-stdout: reads one request, closes its stdout, and exits 0 at the
//     end of its input;
//   - orphan, orphan-answer: reads one request (orphan-answer answers it),
//     starts a descendant that holds its stdout and stderr open as long as
//     file descriptor 3 is open (mode hold), and exits with status 1.
func childProcess(mode string) int {
	switch mode {
	case "stderr-flood":
		w := bufio.NewWriter(os.Stderr)
		w.WriteString("before\n")
		for range floodBytes / len(xs) {
			w.Write(xs)
		}
		w.WriteString("\nafter\n")
		if err := w.Flush(); err != nil {
			return 1
		}
		return 0
	case "stderr-json":
		log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{
			Level: slog.LevelDebug,
			ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey && len(groups) == 0 {
					a.Value = slog.TimeValue(childTime)
				}
				return a
			},
		}))
		log.Warn("disk low", "free", 42, slog.Group("req", "id", "a1", "n", 7), "tags", []string{"x", "y"})
		log.Debug("below the parent's level")
		fmt.Fprintln(os.Stderr, "plain text")
		return 0
	case "close-stdout":
		in := bufio.NewReader(os.Stdin)
		if _, err := in.ReadBytes('\n'); err != nil {
			return 2
		}
		_ = os.Stdout.Close()
		_, _ = io.Copy(io.Discard, in)
		return 0
	case "orphan", "orphan-answer":
		line, err := bufio.NewReader(os.Stdin).ReadBytes('\n')
		if err != nil {
			return 2
		}
		if mode == "orphan-answer" {
			var req struct{ ID json.RawMessage }
			_ = json.Unmarshal(line, &req)
			fmt.Printf(`{"jsonrpc":"2.0","result":3,"id":%s}`+"\n", req.ID)
		}
		hold := child("hold")
		hold.Stdout, hold.Stderr = os.Stdout, os.Stderr
		hold.ExtraFiles = []*os.File{os.NewFile(3, "hold")}
		if err := hold.Start(); err != nil {
			return 2
		}
		return 1
	case "hold":
		_, _ = io.Copy(io.Discard, os.NewFile(3, "hold"))
		return 0
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

// child is the test binary as a child process in mode (see childProcess).
// Built with -race, it exits without the race runtime's 1 s pause.
func child(mode string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "TOOLRPC_TEST_PROCESS="+mode,
		"GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
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

// floodBytes is the length of the line the stderr-flood child writes.
const floodBytes = 32 << 20

// childTime is the time of the records the stderr-json child writes.
var childTime = time.Date(2001, 2, 3, 4, 5, 6, 7e6, time.UTC)

// stderrLog returns a logger writing JSON lines to w, for the records of a
// process's standard error: the pid's value is "N", and the record's time
// is "now" unless it is the child's own (childTime).
func stderrLog(w io.Writer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		switch {
		case len(groups) > 0:
		case a.Key == "pid" && a.Value.Kind() == slog.KindInt64:
			return slog.String("pid", "N")
		case a.Key == slog.TimeKey && a.Value.Kind() == slog.KindTime && !a.Value.Time().Equal(childTime):
			return slog.String(slog.TimeKey, "now")
		}
		return a
	}}))
}

// A line of the tool server's stderr over the cap is cut to the cap, and
// its record says how many bytes were dropped; the rest of the line is
// skipped as it is read, never held, and the next line is forwarded.
func TestProcessStderrLineIsCapped(t *testing.T) {
	for _, limit := range []int{0, 1000} {
		t.Run(fmt.Sprintf("MaxStderrLine=%d", limit), func(t *testing.T) {
			var logs wiretest.Buffer
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			p, err := rpc.StartProcess(context.Background(), child("stderr-flood"), nil,
				&rpc.ProcessOptions{Options: rpc.Options{Logger: quiet}, Stderr: stderrLog(&logs), MaxStderrLine: limit})
			require.NoError(t, err)
			wiretest.Receive(t, p.Exited(), "the process to exit")
			require.NoError(t, p.Close())
			runtime.ReadMemStats(&after)
			allocated := after.TotalAlloc - before.TotalAlloc
			t.Logf("forwarding a line of %d MiB allocated %.2f MiB in all", floodBytes>>20, float64(allocated)/(1<<20))
			assert.Less(t, allocated, uint64(2<<20), "the line is not held")
			if limit == 0 {
				limit = rpc.DefaultMaxStderrLine
			}
			assert.Equal(t, []string{
				`{"time":"now","level":"INFO","msg":"tool server stderr","pid":"N","line":"before"}`,
				`{"time":"now","level":"INFO","msg":"tool server stderr","pid":"N","line":"` + strings.Repeat("x", limit) +
					`","dropped":` + strconv.Itoa(floodBytes-limit) + `}`,
				`{"time":"now","level":"INFO","msg":"tool server stderr","pid":"N","line":"after"}`,
			}, wiretest.Lines(t, logs.String()))
		})
	}
}

// A line of the tool server's stderr that is a JSON log record (slog's
// JSONHandler) is forwarded as a record: its time, level, message and
// attributes. Other lines are forwarded as they are, in "line".
func TestProcessStderrJSONRecords(t *testing.T) {
	var logs wiretest.Buffer
	p, err := rpc.StartProcess(context.Background(), child("stderr-json"), nil,
		&rpc.ProcessOptions{Options: rpc.Options{Logger: quiet}, Stderr: stderrLog(&logs)})
	require.NoError(t, err)
	wiretest.Receive(t, p.Exited(), "the process to exit")
	require.NoError(t, p.Close())
	assert.Equal(t, []string{
		`{"time":"2001-02-03T04:05:06.007Z","level":"WARN","msg":"disk low","pid":"N","free":42,"req":{"id":"a1","n":7},"tags":["x","y"]}`,
		`{"time":"now","level":"INFO","msg":"tool server stderr","pid":"N","line":"plain text"}`,
	}, wiretest.Lines(t, logs.String()), "the Debug record is below the parent's level")
}

// The exit of the tool server ends the session, even when a descendant of
// it holds its stdout open: a call waiting fails at once with ErrClosed,
// saying how the process exited (an answer written before the exit is
// still delivered); later calls fail too; and Close leaves no goroutine
// behind, though the descendant still holds the pipes.
func TestProcessExitEndsTheSession(t *testing.T) {
	for _, mode := range []string{"orphan", "orphan-answer"} {
		t.Run(mode, func(t *testing.T) {
			processExitEndsTheSession(t, mode)
			goleak.VerifyNone(t) // the descendant still holds the pipes
		})
	}
}

// processExitEndsTheSession starts the child in mode orphan or
// orphan-answer, whose descendant holds its pipes after it exits, and
// checks that its exit ends the session; TestSoakFailureModes runs it too.
func processExitEndsTheSession(t *testing.T, mode string) {
	holdR, holdW, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { _ = holdW.Close() }) // lets the descendant go
	cmd := child(mode)
	cmd.ExtraFiles = []*os.File{holdR}
	p, err := rpc.StartProcess(context.Background(), cmd, nil, &rpc.ProcessOptions{Options: rpc.Options{Logger: quiet}})
	require.NoError(t, err)
	require.NoError(t, holdR.Close())

	called := make(chan error, 1)
	var sum int
	go func() { called <- p.Call(context.Background(), "add", []int{1, 2}, &sum) }()
	err = wiretest.Receive(t, called, "the call to end")
	var exit *exec.ExitError
	if mode == "orphan-answer" {
		require.NoError(t, err, "the answer written before the exit")
		assert.Equal(t, 3, sum)
	} else {
		assert.ErrorIs(t, err, rpc.ErrClosed)
		assert.ErrorContains(t, err, "exited: exit status 1")
		if assert.ErrorAs(t, err, &exit) {
			assert.Equal(t, 1, exit.ExitCode())
		}
	}
	wiretest.Receive(t, p.Done(), "the connection to end")
	assert.ErrorIs(t, p.Call(context.Background(), "add", []int{1, 2}, nil), rpc.ErrClosed, "a later call")
	require.ErrorAs(t, p.Close(), &exit)
	assert.Equal(t, 1, exit.ExitCode())
}

// A tool server that closes its stdout and lives on can answer nothing
// more: the calls waiting fail, saying so.
func TestProcessClosingItsOutputEndsTheCalls(t *testing.T) {
	p, err := rpc.StartProcess(context.Background(), child("close-stdout"), nil, &rpc.ProcessOptions{Options: rpc.Options{Logger: quiet}})
	require.NoError(t, err)
	err = p.Call(context.Background(), "add", []int{1, 2}, nil)
	assert.ErrorIs(t, err, rpc.ErrClosed)
	assert.ErrorContains(t, err, "closed its standard output")
	require.NoError(t, p.Close(), "it exits 0 at the end of its input")
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
