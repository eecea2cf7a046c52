package toolrpc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/toolrpc/toolrpc/middleware"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// Server serves the methods of Go values as a tool server on the process's
// standard input and output ([Server.Main], [Server.Serve]), or over HTTP
// ([Server.MainHTTP], [Server.ListenAndServe]). Its fields are optional:
// the zero Server serves with the documented defaults, and is what the
// functions [Serve] and [Main] use.
//
// For another transport, or to test a tool server in the same process,
// [Server.Handler] gives the handler that Serve serves.
type Server struct {
	// Namespace, when not empty, prefixes every method name with it and a
	// dot: with "calc", Divide is served as calc.divide.
	Namespace string

	// Logger receives every record the framework writes: the
	// connection's, each call's (middleware.Logging), each panic's with
	// its stack (middleware.Recover), the registration's warnings and the
	// shutdown's. Handlers log through it with [rpc.LoggerFromContext].
	// When it is nil, RPC.Logger, or else Service.Logger, takes its place
	// for everything; with none of them set, slog.Default(), which writes
	// to standard error.
	Logger *slog.Logger

	// Service configures how the values' methods are served: their names
	// (Names: service.SnakeCase gives get_data; the default, getData),
	// their validation, unknown members, methods that cannot be served.
	Service service.Options

	// RPC configures the connection: its limits, its concurrency, the
	// grace period handlers get at shutdown.
	RPC rpc.Options

	// Info is what rpc.discover says of the server (see
	// [service.Service.ServeDiscover]). Default: the program's name as the
	// title, its module's version as the version ("(devel)" when unknown).
	Info service.Info

	// NoDiscover turns rpc.discover off: it is then answered
	// MethodNotFound like any other rpc. name.
	NoDiscover bool

	// Middleware wraps the methods inside the default stack
	// (middleware.Default), the first outermost: middleware.Timeout, say.
	Middleware []middleware.Middleware
}

// Serve serves the methods of values on standard input and output with a
// zero [Server]: see [Server.Serve].
func Serve(ctx context.Context, values ...any) error {
	return new(Server).Serve(ctx, values...)
}

// Main serves the methods of values on standard input and output with a
// zero [Server] until the input ends or a signal comes, and exits 1 with
// the reason if it cannot: see [Server.Main]. It is the whole main
// function of a tool server:
//
//	func main() {
//		toolrpc.Main(&Calculator{})
//	}
func Main(values ...any) {
	new(Server).Main(values...)
}

// Main is the main function of a tool server: it serves values with
// s.Serve and a background context, and returns when the input ends or a
// signal ended serving, so that the program exits 0. If Serve fails — a
// value that cannot be served, standard output closed by the peer — Main
// writes the error to standard error, prefixed with the program's name,
// and exits 1.
func (s *Server) Main(values ...any) {
	if err := s.Serve(context.Background(), values...); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", filepath.Base(os.Args[0]), err)
		os.Exit(1)
	}
}

// Serve serves the exported methods of values (see
// [service.Service.Register]) as JSON-RPC 2.0 methods on the process's
// standard input and output, through the default middleware stack
// ([middleware.Default]).
//
// Before reading anything, it registers every value: a value that cannot
// be served, or no value at all, is an error, returned at once. It then
// serves as [rpc.ServeStdio] does: standard output belongs to the
// protocol, and whatever else writes there (a stray fmt.Println) goes to
// standard error. When standard input is a terminal, Serve first logs the
// methods it serves, at Info level, for the person typing.
//
// Serve returns nil at the end of the input, once every request read has
// been answered. The first SIGINT or SIGTERM starts a graceful shutdown:
// the calls under way are cancelled and get RPC.ShutdownGrace to return,
// and Serve returns nil. A second signal then has its default effect
// (unless the program listens for it too): it ends the process. When ctx
// is done, Serve shuts down the same way and returns context.Cause(ctx);
// when writing fails, that error.
func (s *Server) Serve(ctx context.Context, values ...any) error {
	h, methods, err := s.handler(values)
	if err != nil {
		return err
	}
	logger := s.logger()
	if stdinIsTerminal() {
		logger.Info("toolrpc: reading JSON-RPC 2.0 requests from standard input, one per line", "methods", methods)
	}
	return s.serve(ctx, logger, func(ctx context.Context, o rpc.Options) error {
		return rpc.ServeStdio(ctx, h, &rpc.StdioOptions{Options: o})
	})
}

// Handler returns the handler that [Server.Serve] serves: the exported
// methods of values, registered as Serve registers them, wrapped in
// s.Middleware and the default stack. It is for serving them on another
// connection than standard input and output (with [rpc.Serve] or
// [rpc.NewConn]), and for testing a tool server in the same process.
//
// Registration warnings go to s.Logger (see its fallbacks); the calls'
// records, like the handlers' own ([rpc.LoggerFromContext]), go to the
// logger of the connection that serves them: give it s.Logger
// (rpc.Options.Logger) for one logger, as Serve does.
func (s *Server) Handler(values ...any) (rpc.Handler, error) {
	h, _, err := s.handler(values)
	return h, err
}

// handler builds the handler of values, and returns the names of their
// methods.
func (s *Server) handler(values []any) (rpc.Handler, []string, error) {
	if len(values) == 0 {
		return nil, nil, errors.New("toolrpc: no value to serve")
	}
	opts := s.Service
	opts.Logger = s.givenLogger()
	svc := service.New(&opts)
	for _, v := range values {
		if err := svc.Register(s.Namespace, v); err != nil {
			return nil, nil, err
		}
	}
	if !s.NoDiscover {
		svc.ServeDiscover(s.info())
	}
	// The middleware logs through each call's connection, whose logger
	// Serve sets: handlers reach the same logger (rpc.LoggerFromContext).
	mw := append([]middleware.Middleware{middleware.Default(nil)}, s.Middleware...)
	return middleware.Chain(mw...)(svc), svc.Methods(), nil
}

// info is s.Info, with its defaults.
func (s *Server) info() service.Info {
	info := s.Info
	if info.Title == "" {
		info.Title = filepath.Base(os.Args[0])
	}
	if info.Version == "" {
		info.Version = "(devel)"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
			info.Version = bi.Main.Version
		}
	}
	return info
}

// givenLogger is the logger the user set, or nil.
func (s *Server) givenLogger() *slog.Logger {
	switch {
	case s.Logger != nil:
		return s.Logger
	case s.RPC.Logger != nil:
		return s.RPC.Logger
	}
	return s.Service.Logger
}

// logger is the one logger of everything Serve starts.
func (s *Server) logger() *slog.Logger {
	if l := s.givenLogger(); l != nil {
		return l
	}
	return slog.Default()
}

// grace is the shutdown grace period of the connection.
func (s *Server) grace() time.Duration {
	if s.RPC.ShutdownGrace > 0 {
		return s.RPC.ShutdownGrace
	}
	return rpc.DefaultShutdownGrace
}

// stdinIsTerminal reports whether standard input looks like a terminal: a
// character device other than the null device.
func stdinIsTerminal() bool {
	fi, err := os.Stdin.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(fi, null)
}
