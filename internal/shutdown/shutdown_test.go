//go:build unix

package shutdown

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// The first signal is announced, then cancels the context with a cause
// that says which signal came and is context.Canceled too.
func TestOnSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			announced := make(chan os.Signal, 1)
			ctx, stop := OnSignal(context.Background(), func(s os.Signal) { announced <- s })
			defer stop()
			require.NoError(t, syscall.Kill(os.Getpid(), sig))
			<-ctx.Done()
			assert.Equal(t, os.Signal(sig), <-announced)
			cause := context.Cause(ctx)
			assert.Equal(t, Signalled{sig}, cause)
			assert.ErrorIs(t, cause, context.Canceled)
			assert.True(t, Ended(fmt.Errorf("served: %w", cause)))
			stop()
			stop() // a second stop does nothing
		})
	}
}

// Without a signal, stop ends the watch and cancels the context with no
// cause of a signal; the parent's end ends it too.
func TestStopAndParent(t *testing.T) {
	ctx, stop := OnSignal(context.Background(), func(os.Signal) { t.Error("announced without a signal") })
	stop()
	<-ctx.Done()
	assert.False(t, Ended(context.Cause(ctx)))
	assert.False(t, Ended(nil))
	assert.False(t, Ended(errors.New("other")))

	parent, cancel := context.WithCancel(context.Background())
	ctx, stop = OnSignal(parent, nil)
	defer stop()
	cancel()
	<-ctx.Done()
	assert.ErrorIs(t, context.Cause(ctx), context.Canceled)
	assert.False(t, Ended(context.Cause(ctx)))
}
