package mcp

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/toolrpc/toolrpc/internal/shutdown"
	"github.com/toolrpc/toolrpc/rpc"
)

// Serve serves s on one connection, reading r and writing w, as rpc.Serve
// does (see it for when it returns). opts may be nil.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer, opts *rpc.Options) error {
	if s.empty() {
		return errNoTools
	}
	return rpc.Serve(withPeer(ctx, &clientPeer{}), r, w, s.Handler(), streamOptions(opts))
}

// ServeStdio serves s on the process's standard input and output, as
// rpc.ServeStdio does: whatever else writes to standard output goes to
// standard error. opts may be nil.
func (s *Server) ServeStdio(ctx context.Context, opts *rpc.StdioOptions) error {
	if s.empty() {
		return errNoTools
	}
	var o rpc.StdioOptions
	if opts != nil {
		o = *opts
	}
	o.Options = *streamOptions(&o.Options)
	return rpc.ServeStdio(withPeer(ctx, &clientPeer{}), s.Handler(), &o)
}

// streamOptions are opts for a stream connection of a Server: a call of
// its tools to the client (CreateMessage, Elicit) whose context ends is
// cancelled with notifications/cancelled, MCP's, unless opts say
// otherwise.
func streamOptions(opts *rpc.Options) *rpc.Options {
	var o rpc.Options
	if opts != nil {
		o = *opts
	}
	if o.CancelNotification == "" {
		o.CancelNotification = rpc.CancelledNotification
	}
	return &o
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
	s, err := serverOf(values)
	if err == nil {
		err = s.serveMain()
	}
	exitOn(err)
}

// Main is [Main] for a Server made with options, its tools registered: it
// serves s on standard input and output until the input ends or SIGINT or
// SIGTERM comes, and returns; a failure to serve is written to standard
// error and exits 1.
func (s *Server) Main() { exitOn(s.serveMain()) }

// exitOn writes err, if not nil, to standard error, and exits 1.
func exitOn(err error) {
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", filepath.Base(os.Args[0]), err)
		os.Exit(1)
	}
}

// serveMain is Server.Main but for the exit: nil when a signal ended it.
func (s *Server) serveMain() error {
	ctx, stop := shutdown.OnSignal(context.Background(), nil)
	defer stop()
	if err := s.ServeStdio(ctx, nil); !shutdown.Ended(err) {
		return err
	}
	return nil
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
