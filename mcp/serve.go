package mcp

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/toolrpc/toolrpc/rpc"
)

// Serve serves s on one connection, reading r and writing w, as rpc.Serve
// does (see it for when it returns). opts may be nil.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer, opts *rpc.Options) error {
	if s.empty() {
		return errNoTools
	}
	return rpc.Serve(ctx, r, w, s.Handler(), opts)
}

// ServeStdio serves s on the process's standard input and output, as
// rpc.ServeStdio does: whatever else writes to standard output goes to
// standard error. opts may be nil.
func (s *Server) ServeStdio(ctx context.Context, opts *rpc.StdioOptions) error {
	if s.empty() {
		return errNoTools
	}
	return rpc.ServeStdio(ctx, s.Handler(), opts)
}

// Main is the whole main function of an MCP server on standard input and
// output: it registers the tools of values with New(nil) (Register, with no
// namespace), serves them with ServeStdio until the input ends or SIGINT
// or SIGTERM comes (a second signal ends the process at once), and
// returns, for the program to exit 0. A value that cannot be served, or a
// failure to serve, is written to standard error and exits 1.
//
//	func main() {
//		mcp.Main(Tools{})
//	}
func Main(values ...any) {
	if err := serveMain(values); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", filepath.Base(os.Args[0]), err)
		os.Exit(1)
	}
}

// serveMain is Main but for the exit.
func serveMain(values []any) error {
	s, err := serverOf(values)
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	return s.ServeStdio(ctx, nil)
}

// serverOf is a Server of the tools of values, for the front doors.
func serverOf(values []any) (*Server, error) {
	s := New(nil)
	for _, v := range values {
		if err := s.Register("", v); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// signalContext is a context that SIGINT or SIGTERM ends; a second signal
// has its default effect. stop releases it.
func signalContext() (ctx context.Context, stop context.CancelFunc) {
	ctx, stop = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second signal has its default effect
	}()
	return ctx, stop
}
