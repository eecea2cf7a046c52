package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/toolrpc/toolrpc/rpc"
)

// The timeouts of the HTTP server [Server.ServeListener] runs, against
// clients too slow to send a request. There is no write timeout: an event
// stream (a long tool call, subscriptions/listen) lasts as long as its
// call.
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

// ListenAndServe serves s over MCP's Streamable HTTP ([HTTPHandler]) on
// the TCP address addr, every path being the MCP endpoint. An address
// without a host (":8080") is served on the loopback interface only, as
// the specification advises a local server to ("servers SHOULD bind only
// to localhost"): s is reachable from other machines only when addr names
// a host that makes it so ("0.0.0.0:8080"). See [Server.ServeListener]
// for the rest. opts may be nil.
func (s *Server) ListenAndServe(ctx context.Context, addr string, opts *HTTPOptions) error {
	if len(s.cat.Load().names) == 0 {
		return errNoTools
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("mcp: the address %q: %w", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	return s.ServeListener(ctx, ln, opts)
}

// ServeListener serves s over MCP's Streamable HTTP on the connections ln
// accepts, and closes ln when it returns. The HTTP server bounds slow
// clients ([HTTPReadHeaderTimeout], [HTTPReadTimeout], [HTTPIdleTimeout])
// and logs through opts.RPC.Logger (slog.Default() when nil), which also
// gets, at Info, the address served. When ctx ends, new requests are
// answered 503, the sessions end, the calls under way are cancelled and
// get opts.RPC.ShutdownGrace to answer; ServeListener then returns
// context.Cause(ctx), or the error that ended serving.
func (s *Server) ServeListener(ctx context.Context, ln net.Listener, opts *HTTPOptions) error {
	if len(s.cat.Load().names) == 0 {
		_ = ln.Close()
		return errNoTools
	}
	var o HTTPOptions
	if opts != nil {
		o = *opts
	}
	logger := o.RPC.Logger
	if logger == nil {
		logger = slog.Default()
	}
	o.RPC.Logger = logger
	logger.Info("mcp: serving Streamable HTTP", "address", "http://"+ln.Addr().String())
	h := s.NewHTTPHandler(context.WithoutCancel(ctx), &o)
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
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), positiveOr(o.RPC.ShutdownGrace, rpc.DefaultShutdownGrace))
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

// MainHTTP is [Main] over Streamable HTTP: it registers the tools of
// values with New(nil), serves them with ListenAndServe at addr until
// SIGINT or SIGTERM comes (a second one ends the process at once), and
// returns, for the program to exit 0. A value that cannot be served, or a
// failure to serve, is written to standard error and exits 1.
func MainHTTP(addr string, values ...any) {
	if err := mainHTTP(addr, values); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", filepath.Base(os.Args[0]), err)
		os.Exit(1)
	}
}

// mainHTTP is MainHTTP but for the exit.
func mainHTTP(addr string, values []any) error {
	s := New(nil)
	for _, v := range values {
		if err := s.Register("", v); err != nil {
			return err
		}
	}
	ctx, stop := signalContext()
	defer stop()
	err := s.ListenAndServe(ctx, addr, nil)
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
