//go:build unix

package toolrpc_test

import (
	"errors"
	"os/exec"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The first SIGINT or SIGTERM shuts the server down gracefully: the call
// under way is cancelled and answered, and the program exits 0.
func TestMainShutsDownOnASignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			c := start(t, "probe")
			c.send(t, `{"jsonrpc":"2.0","method":"wait","id":1}`)
			assert.Equal(t, `{"jsonrpc":"2.0","method":"started"}`, c.read(t))
			require.NoError(t, c.cmd.Process.Signal(sig))
			assert.Equal(t, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Server shutting down"},"id":1}`, c.read(t))
			c.awaitLog(t, `"msg":"toolrpc: shutting down","signal":"`+sig.String()+`"`)
			stdout, _, err := c.rest(t)
			assert.NoError(t, err, "a shutdown on a signal is a clean end")
			assert.Empty(t, stdout, "nothing after the answer")
		})
	}
}

// A second signal ends the program at once, while a handler that ignores
// its context holds the shutdown up.
func TestMainEndsOnASecondSignal(t *testing.T) {
	c := start(t, "patient") // a grace period of an hour
	c.send(t, `{"jsonrpc":"2.0","method":"stubborn","id":1}`)
	assert.Equal(t, `{"jsonrpc":"2.0","method":"started"}`, c.read(t))
	require.NoError(t, c.cmd.Process.Signal(syscall.SIGTERM))
	c.awaitLog(t, `"msg":"toolrpc: shutting down"`)
	require.NoError(t, c.cmd.Process.Signal(syscall.SIGTERM))
	_, _, err := c.rest(t)
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "the program was ended: %v", err)
	status := exit.Sys().(syscall.WaitStatus)
	assert.True(t, status.Signaled() && status.Signal() == syscall.SIGTERM, "ended by the signal: %v", status)
}

// Without a second signal, the grace period ends the shutdown: the program
// exits 0 without the stubborn handler's answer.
func TestMainShutdownEndsWithTheGracePeriod(t *testing.T) {
	c := start(t, "impatient") // a grace period of a nanosecond
	c.send(t, `{"jsonrpc":"2.0","method":"stubborn","id":1}`)
	assert.Equal(t, `{"jsonrpc":"2.0","method":"started"}`, c.read(t))
	require.NoError(t, c.cmd.Process.Signal(syscall.SIGTERM))
	c.awaitLog(t, "handlers still running after the shutdown grace period")
	stdout, _, err := c.rest(t)
	assert.NoError(t, err)
	assert.Empty(t, stdout, "the late answer is dropped")
}
