package rpc

import (
	"context"
	"os"
)

// StdioOptions configure [ServeStdio]. A nil *StdioOptions, and every zero
// field, means the documented default.
type StdioOptions struct {
	// Options configure the connection.
	Options
	// KeepStdout leaves the process's standard output as it is: whatever
	// else the program writes there lands in the protocol stream.
	KeepStdout bool
}

// ServeStdio serves h on the process's standard input and output, as
// [Serve] does (see it for when it returns), for a tool server.
//
// Standard output belongs to the protocol. Unless KeepStdout is set,
// ServeStdio writes the protocol to a private duplicate of the process's
// standard output and points the standard output itself (file descriptor
// 1, and so [os.Stdout]) at standard error while it serves: a stray
// fmt.Println in a tool, a write to file descriptor 1, a subprocess that
// inherits standard output, all land on standard error and can never
// corrupt the protocol. When ServeStdio returns, standard output is put
// back. (On systems without dup2, only os.Stdout is redirected.)
//
// A peer that closes the protocol's pipe makes writing fail with EPIPE,
// which ends serving with that error. Logging never ends the server: while
// ServeStdio runs, a write to a closed standard error (or standard output)
// fails with EPIPE and is lost, instead of killing the process with
// SIGPIPE (Go's rule for those two files unless the program asks for the
// signal, which ServeStdio does while it serves; see os/signal).
//
// Standard error is the parent's to read, and is not buffered: once a
// parent that never reads it has let its pipe fill, every write there
// waits, a handler's too (one that logs, or prints). Such a handler is a
// handler that does not return; it does not keep ServeStdio from returning
// when ctx is done, after [Options.ShutdownGrace] (the connection's own
// records then never wait for standard error).
func ServeStdio(ctx context.Context, h Handler, opts *StdioOptions) error {
	var o StdioOptions
	if opts != nil {
		o = *opts
	}
	defer catchSIGPIPE()()
	out := os.Stdout
	if !o.KeepStdout {
		protocol, restore, err := takeStdout()
		if err != nil {
			return err
		}
		defer restore()
		out = protocol
	}
	return Serve(ctx, os.Stdin, out, h, &o.Options)
}
