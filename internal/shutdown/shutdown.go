// Package shutdown is the one signal path of the module's front doors
// (toolrpc.Server.Serve and ServeHTTP, mcp.Main and MainHTTP): a context
// that the first SIGINT or SIGTERM cancels, so that the server shuts down
// gracefully, after which a second signal has its default effect and ends
// the process at once.
package shutdown

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Signalled is the cause of a context that a signal cancelled. It is
// context.Canceled too (errors.Is), as signal.NotifyContext's cause is.
type Signalled struct{ Signal os.Signal }

// Error says which signal came.
func (e Signalled) Error() string { return "received " + e.Signal.String() }

// Is reports whether target is context.Canceled.
func (e Signalled) Is(target error) bool { return target == context.Canceled }

// OnSignal returns a copy of parent that the first SIGINT or SIGTERM
// cancels, with a [Signalled] as its cause. From that signal on, both have
// their default effect again: a second one ends the process. announce, if
// not nil, is called with the signal before the context is cancelled (to
// log the shutdown). stop releases the signals and waits for the watch to
// end: once it returns, announce is not called any more. Call it once the
// context is no longer needed; calls after the first do nothing.
func OnSignal(parent context.Context, announce func(os.Signal)) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ended := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case sig := <-sigs:
			// From now on, the signal has its default effect.
			signal.Stop(sigs)
			if announce != nil {
				announce(sig)
			}
			cancel(Signalled{sig})
		case <-ended:
		}
	}()
	return ctx, sync.OnceFunc(func() {
		signal.Stop(sigs)
		close(ended)
		<-watched
		cancel(nil)
	})
}

// Ended reports whether err says that a signal ended the serve that
// returned it (it is or wraps a [Signalled]): a clean end, as asked.
func Ended(err error) bool {
	_, ok := errors.AsType[Signalled](err)
	return ok
}
