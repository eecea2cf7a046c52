package toolrpc

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
// clients too slow to send a request.
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

// MainHTTP is [Server.Main] over HTTP: it serves values with
// s.ListenAndServe at addr until a signal ends serving, and exits 1 with
// the reason if it cannot.
func (s *Server) MainHTTP(addr string, values ...any) {
	if err := s.ListenAndServe(context.Background(), addr, values...); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", filepath.Base(os.Args[0]), err)
		os.Exit(1)
	}
}

// ListenAndServe serves the methods of values, as [Server.Serve] does,
// over HTTP ([rpc.HTTPHandler]) on the TCP address addr. An address
// without a host (":8080") is served on the loopback interface only,
// unlike net/http's, which listens on every interface: a tool server is
// reachable from other machines only when addr names a host that makes it
// so ("0.0.0.0:8080"). See [Server.ServeListener] for the rest.
func (s *Server) ListenAndServe(ctx context.Context, addr string, values ...any) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("toolrpc: the address %q: %w", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	h, methods, err := s.handler(values) // before the port is taken
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return fmt.Errorf("toolrpc: %w", err)
	}
	return s.serveHTTP(ctx, ln, h, methods)
}

// ServeListener serves the methods of values, registered and wrapped as
// [Server.Serve] does, over HTTP on the connections ln accepts, and
// closes ln when it returns. The HTTP server bounds slow clients
// ([HTTPReadHeaderTimeout], [HTTPReadTimeout], [HTTPIdleTimeout]) and logs
// through s.Logger, which also gets, at Info, the address served.
//
// The first SIGINT or SIGTERM, or the end of ctx, starts a graceful
// shutdown: new requests are answered 503, the calls under way are
// cancelled and get RPC.ShutdownGrace to answer, then ServeListener
// returns: nil after a signal, context.Cause(ctx) when ctx ended, or the
// error that ended serving.
func (s *Server) ServeListener(ctx context.Context, ln net.Listener, values ...any) error {
	h, methods, err := s.handler(values)
	if err != nil {
		_ = ln.Close()
		return err
	}
	return s.serveHTTP(ctx, ln, h, methods)
}

// serveHTTP serves h, whose methods are methods, on ln.
func (s *Server) serveHTTP(ctx context.Context, ln net.Listener, h rpc.Handler, methods []string) error {
	logger := s.logger()
	logger.Info("toolrpc: serving JSON-RPC 2.0 over HTTP", "address", "http://"+ln.Addr().String(), "methods", methods)
	return s.serve(ctx, logger, func(ctx context.Context, o rpc.Options) error {
		hh := rpc.NewHTTPHandler(ctx, h, &o)
		srv := &http.Server{
			Handler:           hh,
			ReadHeaderTimeout: HTTPReadHeaderTimeout,
			ReadTimeout:       HTTPReadTimeout,
			IdleTimeout:       HTTPIdleTimeout,
			ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		}
		served := make(chan error, 1)
		go func() { served <- srv.Serve(ln) }()
		select {
		case err := <-served:
			_ = hh.Close()
			return err
		case <-ctx.Done():
		}
		// The handler first: it cancels the calls under way, whose
		// requests then finish, which the server's shutdown waits for.
		closed := make(chan struct{})
		go func() {
			_ = hh.Close()
			close(closed)
		}()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.grace())
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			_ = srv.Close()
		}
		<-closed
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return context.Cause(ctx)
	})
}
