package toolrpc

import (
	"context"
	"log/slog"
	"os"

	"github.com/toolrpc/toolrpc/internal/shutdown"
	"github.com/toolrpc/toolrpc/rpc"
)

// serve runs a connection (run) with the connection's options, logging to
// logger, and a context that the first shutdown signal cancels (see
// internal/shutdown). It returns nil when a signal ended it, else what run
// returned.
func (s *Server) serve(ctx context.Context, logger *slog.Logger, run func(context.Context, rpc.Options) error) error {
	o := s.RPC
	o.Logger = logger
	ctx, stop := shutdown.OnSignal(ctx, func(sig os.Signal) {
		logger.Info("toolrpc: shutting down", "signal", sig.String(), "grace", s.grace())
	})
	err := run(ctx, o)
	stop()
	if shutdown.Ended(err) {
		return nil
	}
	return err
}
