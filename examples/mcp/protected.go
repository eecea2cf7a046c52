package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"syscall"

	"github.com/toolrpc/toolrpc/auth"
	"github.com/toolrpc/toolrpc/auth/jwt"
	"github.com/toolrpc/toolrpc/examples/mcp/tools"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
)

// serveProtected serves the tools over Streamable HTTP at addr (loopback
// when it has no host) as an OAuth 2.1 protected resource, its tokens JWTs
// of issuer for resource, until SIGINT or SIGTERM comes (a second one ends
// the process at once). If it cannot serve, it says why and exits 1.
func serveProtected(addr, issuer, resource string) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop) // from the first signal on, the next one ends the process
	// The verifier fetches the authorization server's keys at the first
	// token, not now: the server starts while its authorization server is
	// down (its requests are then answered 503).
	verifier, err := jwt.NewVerifier(&jwt.Options{Issuer: issuer})
	if err == nil {
		err = serve(ctx, addr, issuer, resource, verifier)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "mcp:", err)
		os.Exit(1)
	}
}

// serve serves the protected tools at addr until ctx ends.
func serve(ctx context.Context, addr, issuer, resource string, verifier auth.Verifier) error {
	// The calls end when ServeListener closes h, at ctx's end, after a
	// grace to answer; not at once with ctx.
	h, err := protected(context.WithoutCancel(ctx), issuer, resource, verifier)
	if err != nil {
		return err
	}
	if host, port, err := net.SplitHostPort(addr); err == nil && host == "" {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		_ = h.Close()
		return err
	}
	slog.Info("mcp: serving Streamable HTTP, protected", "address", "http://"+ln.Addr().String(), "resource", resource, "issuer", issuer)
	return rpc.ServeListener(ctx, ln, h, nil)
}

// protected is the HTTP handler of the tools as a protected resource:
// the tools at resource's path, behind a resource server that needs the
// scope mcp of every request (and mcp.Server the scopes of each tool), and
// the protected resource metadata, through which clients find issuer.
// Close it to end its sessions.
func protected(ctx context.Context, issuer, resource string, verifier auth.Verifier) (rpc.ClosableHandler, error) {
	s := mcp.New(nil)
	if err := s.Register("", tools.Tools{}); err != nil {
		return nil, err
	}
	rs, err := auth.NewResourceServer(&auth.Options{
		Resource:             resource,
		AuthorizationServers: []string{issuer},
		Verifier:             verifier,
		Scopes:               []string{"mcp"},                        // every request's
		ScopesSupported:      append([]string{"mcp"}, s.Scopes()...), // and the tools' (stats)
	})
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(resource) // NewResourceServer checked it
	if err != nil {
		return nil, err
	}
	h := s.NewHTTPHandler(ctx, nil)
	mux := http.NewServeMux()
	mux.Handle(rs.MetadataPath(), rs.Metadata())
	if rs.MetadataPath() != auth.WellKnownPath {
		mux.Handle(auth.WellKnownPath, rs.Metadata()) // for clients that look there alone
	}
	mux.Handle(cmp.Or(u.Path, "/"), rs.Require(h))
	return struct {
		http.Handler // the mux's ServeHTTP
		io.Closer    // and h's Close
	}{mux, h}, nil
}
