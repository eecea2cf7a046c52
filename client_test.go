package toolrpc_test

import (
	"context"
	"log/slog"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

// calculatorBinary builds the calculator, for the client to run it as a
// real child process.
func calculatorBinary(t *testing.T) string {
	t.Helper()
	return binary(t, "./examples/calculator")
}

// startCalculator starts the calculator and returns the client; its stderr
// lines (the server's logs) are kept in logs.
func startCalculator(t *testing.T, logs *wiretest.Buffer) *rpc.Process {
	t.Helper()
	var stderr *slog.Logger
	if logs != nil {
		stderr = slog.New(slog.NewTextHandler(logs, nil))
	}
	p, err := rpc.StartProcess(context.Background(), exec.Command(calculatorBinary(t)), nil,
		&rpc.ProcessOptions{Options: rpc.Options{Logger: wiretest.Quiet()}, Stderr: stderr})
	require.NoError(t, err)
	return p
}

func TestClientAgainstCalculatorProcess(t *testing.T) {
	p := startCalculator(t, nil)
	defer func() { require.NoError(t, p.Close(), "the calculator exits 0") }()
	ctx := context.Background()

	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 1000 / 16 {
				var diff float64
				if assert.NoError(t, p.Call(ctx, "subtract", map[string]int{"minuend": i, "subtrahend": g}, &diff)) {
					assert.Equal(t, float64(i-g), diff)
				}
			}
		})
	}
	wg.Wait()

	var data []any
	require.NoError(t, p.Call(ctx, "get_data", nil, &data))
	assert.Equal(t, []any{"hello", float64(5)}, data)
}

func TestProgressCallbacksThroughAProcess(t *testing.T) {
	p := startCalculator(t, nil)
	defer p.Close()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			n := 2 + g
			var got []rpc.Progress
			ctx := rpc.WithProgress(context.Background(), func(pr rpc.Progress) { got = append(got, pr) })
			var result int
			if !assert.NoError(t, p.Call(ctx, "count", map[string]int{"n": n, "delay_ms": 1}, &result)) {
				return
			}
			assert.Equal(t, n, result)
			want := make([]rpc.Progress, n)
			for i := range want {
				want[i] = rpc.Progress{Progress: float64(i + 1), Total: float64(n)}
			}
			assert.Equal(t, want, got, "exactly this call's reports, in order, before Call returns")
		})
	}
	wg.Wait()
}

func TestCancelThroughAProcess(t *testing.T) {
	var logs wiretest.Buffer
	p := startCalculator(t, &logs)
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	var once sync.Once
	ctx = rpc.WithProgress(ctx, func(rpc.Progress) { once.Do(func() { close(started) }) })
	errs := make(chan error, 1)
	go func() { errs <- p.Call(ctx, "count", map[string]int{"n": 10, "delay_ms": 60000}, nil) }()
	<-started
	cancel()
	// context.Canceled, not the server's -32800: Call returned at once, not
	// when the answer came (and count would run for a minute more).
	require.ErrorIs(t, wiretest.Receive(t, errs, "the cancelled call"), context.Canceled)

	// The server's handler saw its context cancelled: its call is logged
	// as answered -32800.
	wiretest.WaitUntil(t, &logs, "the server to log the cancelled call", func(s string) bool {
		return containsAll(s, "method=count", "code=-32800")
	})
	var sum int
	require.NoError(t, p.Call(context.Background(), "sum", []int{1, 2}, &sum))
	assert.Equal(t, 3, sum)
}

func TestKillingTheServerFailsPendingCalls(t *testing.T) {
	p := startCalculator(t, nil)
	const n = 8
	started := make(chan struct{}, n)
	errs := make(chan error, n)
	for range n {
		go func() {
			var once sync.Once
			ctx := rpc.WithProgress(context.Background(), func(rpc.Progress) { once.Do(func() { started <- struct{}{} }) })
			errs <- p.Call(ctx, "count", map[string]int{"n": 5, "delay_ms": 60000}, nil)
		}()
	}
	for range n {
		<-started
	}
	require.NoError(t, p.Kill())
	for range n { // each would wait a minute for count, were it not failed
		assert.ErrorIs(t, wiretest.Receive(t, errs, "a pending call to fail"), rpc.ErrClosed)
	}
	var exit *exec.ExitError
	assert.ErrorAs(t, p.Close(), &exit)
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
