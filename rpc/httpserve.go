package rpc

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/toolrpc/toolrpc/internal/option"
)

// The timeouts of the HTTP server [ServeListener] runs, against clients
// too slow to send a request. There is no write timeout: an event stream
// (a long call reporting progress) lasts as long as its call.
const (
	// HTTPReadHeaderTimeout bounds the time to read a request's headers.
	HTTPReadHeaderTimeout = 10 * time.Second
	// HTTPReadTimeout bounds the time to read a whole request, body
	// included (64 MiB, the default frame limit, at 5 MB/s).
	HTTPReadTimeout = 2 * time.Minute
	// HTTPIdleTimeout bounds how long a kept-alive connection waits for
	// its next request.
	HTTPIdleTimeout = 2 * time.Minute
)

// A ClosableHandler is an http.Handler whose Close ends what it serves:
// [HTTPHandler], or a transport built on it.
type ClosableHandler interface {
	http.Handler
	Close() error
}

// ServeListener serves h over HTTP on the connections ln accepts, until
// ctx ends or serving fails, and closes ln. The HTTP server bounds slow
// clients ([HTTPReadHeaderTimeout], [HTTPReadTimeout], [HTTPIdleTimeout])
// and logs its errors through opts.Logger (slog.Default() when nil), at
// Warn. When ctx ends, h is closed (an HTTPHandler
// then answers 503 and cancels the calls under way) and the server shuts
// down, waiting for the requests under way no longer than
// opts.ShutdownGrace; ServeListener then returns context.Cause(ctx). When
// serving fails, it closes h and returns the error. opts may be nil.
func ServeListener(ctx context.Context, ln net.Listener, h ClosableHandler, opts *Options) error {
	var o Options
	if opts != nil {
		o = *opts
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.Default()
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: HTTPReadHeaderTimeout,
		ReadTimeout:       HTTPReadTimeout,
		IdleTimeout:       HTTPIdleTimeout,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		_ = h.Close()
		return err
	case <-ctx.Done():
	}
	// The handler first: it cancels the calls under way, whose requests
	// then finish, which the server's shutdown waits for.
	closed := make(chan struct{})
	go func() {
		_ = h.Close()
		close(closed)
	}()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), option.PositiveOr(o.ShutdownGrace, DefaultShutdownGrace))
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		_ = srv.Close()
	}
	<-closed
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return context.Cause(ctx)
}
