package mcp

import (
	"context"
	"log/slog"
	"net"

	"github.com/toolrpc/toolrpc/internal/listen"
	"github.com/toolrpc/toolrpc/internal/shutdown"
	"github.com/toolrpc/toolrpc/rpc"
)

// ListenAndServe serves s over MCP's Streamable HTTP ([HTTPHandler]) on
// the TCP address addr, every path being the MCP endpoint. An address
// without a host (":8080") is served on the loopback interface only
// ("0.0.0.0:8080" on every interface), as the specification advises a
// local server to ("servers SHOULD bind only to localhost"). See
// [Server.ServeListener] for the rest. opts may be nil.
func (s *Server) ListenAndServe(ctx context.Context, addr string, opts *HTTPOptions) error {
	if s.empty() {
		return errNoTools
	}
	ln, err := listen.TCP(addr)
	if err != nil {
		return err
	}
	return s.ServeListener(ctx, ln, opts)
}

// ServeListener serves s over MCP's Streamable HTTP on the connections ln
// accepts, and closes ln when it returns. The HTTP server bounds slow
// clients (see [rpc.ServeListener]) and logs through opts.RPC.Logger
// (slog.Default() when nil), which also gets, at Info, the address
// served. When ctx ends, new requests are answered 503, the sessions end,
// the calls under way are cancelled and get opts.RPC.ShutdownGrace to
// answer; ServeListener then returns context.Cause(ctx), or the error
// that ended serving.
func (s *Server) ServeListener(ctx context.Context, ln net.Listener, opts *HTTPOptions) error {
	if s.empty() {
		_ = ln.Close()
		return errNoTools
	}
	var o HTTPOptions
	if opts != nil {
		o = *opts
	}
	if o.RPC.Logger == nil {
		o.RPC.Logger = slog.Default()
	}
	o.RPC.Logger.Info("mcp: serving Streamable HTTP", "address", "http://"+ln.Addr().String())
	return rpc.ServeListener(ctx, ln, s.NewHTTPHandler(context.WithoutCancel(ctx), &o), &o.RPC)
}

// MainHTTP is [Main] over Streamable HTTP: it registers the tools of
// values with New(nil), serves them with ListenAndServe at addr until
// SIGINT or SIGTERM comes (a second one ends the process at once), and
// returns, for the program to exit 0. A value that cannot be served, or a
// failure to serve, is written to standard error and exits 1.
func MainHTTP(addr string, values ...any) {
	s, err := serverOf(values)
	if err == nil {
		err = s.mainHTTP(addr)
	}
	exitOn(err)
}

// MainHTTP is [MainHTTP] for a Server made with options, its tools
// registered: it serves s with ListenAndServe at addr until SIGINT or
// SIGTERM comes, and returns; a failure to serve is written to standard
// error and exits 1.
func (s *Server) MainHTTP(addr string) { exitOn(s.mainHTTP(addr)) }

// mainHTTP is Server.MainHTTP but for the exit.
func (s *Server) mainHTTP(addr string) error {
	ctx, stop := shutdown.OnSignal(context.Background(), nil)
	defer stop()
	if err := s.ListenAndServe(ctx, addr, nil); !shutdown.Ended(err) {
		return err
	}
	return nil
}
