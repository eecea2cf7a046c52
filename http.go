package toolrpc

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/toolrpc/toolrpc/internal/listen"
	"github.com/toolrpc/toolrpc/rpc"
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
// over HTTP ([rpc.HTTPHandler]) on the TCP address addr, on the loopback
// interface only when addr names no host (":8080"; "0.0.0.0:8080" listens
// on every interface). See [Server.ServeListener] for the rest.
func (s *Server) ListenAndServe(ctx context.Context, addr string, values ...any) error {
	h, methods, err := s.handler(values) // before the port is taken
	if err != nil {
		return err
	}
	ln, err := listen.TCP(addr)
	if err != nil {
		return err
	}
	return s.serveHTTP(ctx, ln, h, methods)
}

// ServeListener serves the methods of values, registered and wrapped as
// [Server.Serve] does, over HTTP on the connections ln accepts, and
// closes ln when it returns. The HTTP server bounds slow clients (see
// [rpc.ServeListener]) and logs through s.Logger, which also gets, at
// Info, the address served.
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
		return rpc.ServeListener(ctx, ln, rpc.NewHTTPHandler(ctx, h, &o), &o)
	})
}
