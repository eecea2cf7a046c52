package toolrpc

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/toolrpc/toolrpc/rpc"
)

// shutdownSignals start a graceful shutdown.
var shutdownSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// signalled is the cause of a shutdown that a signal started.
type signalled struct{ sig os.Signal }

func (e signalled) Error() string { return "toolrpc: received " + e.sig.String() }

// serve runs a connection (run) with the connection's options, logging to
// logger, and a context that the first shutdown signal cancels. It returns
// nil when a signal ended it, else what run returned.
func (s *Server) serve(ctx context.Context, logger *slog.Logger, run func(context.Context, rpc.Options) error) error {
	o := s.RPC
	o.Logger = logger
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, shutdownSignals...)
	ended := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case sig := <-sigs:
			// From now on, the same signal has its default effect: a
			// second one ends the process.
			signal.Stop(sigs)
			logger.Info("toolrpc: shutting down", "signal", sig.String(), "grace", s.grace())
			cancel(signalled{sig})
		case <-ended:
		}
	}()

	err := run(ctx, o)
	signal.Stop(sigs)
	close(ended)
	<-watched
	if _, ok := errors.AsType[signalled](err); ok {
		return nil
	}
	return err
}
