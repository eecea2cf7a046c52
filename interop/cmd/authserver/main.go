// Command authserver runs the test authorization server of package
// interop/authserver standalone (zitadel's OpenID provider, in memory, on
// loopback http), for a TypeScript test or a user trying the docs:
//
//	go run ./cmd/authserver -addr 127.0.0.1:9000 -scopes mcp,stats
//
// The first line it writes to stdout is its issuer URL
// (http://127.0.0.1:9000), once it serves; stderr lists the
// pre-registered clients. It serves until SIGINT or SIGTERM, or (unless
// -stdin=false) until its stdin is closed, so that a parent's death
// ends it; it exits 0 then.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/toolrpc/toolrpc/interop/authserver"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "authserver:", err)
		}
		os.Exit(2)
	}
}

// run is main without the process: it serves by args until ctx ends or,
// with -stdin, stdin reaches its end.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("authserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "the address to listen on (a loopback one: the issuer is http)")
	resources := fs.String("resource", "", "the resource indicators (RFC 8707) tokens may be asked for, comma-separated, the first the default audience; empty: any")
	scopes := fs.String("scopes", "mcp", "the scopes clients may ask for beyond openid, profile and offline_access, comma-separated")
	user := fs.String("user", authserver.DefaultUser, "the subject the login approves")
	noRegistration := fs.Bool("no-registration", false, "turn off dynamic client registration (RFC 7591)")
	watchStdin := fs.Bool("stdin", true, "exit when stdin is closed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s, err := authserver.Start(ctx, &authserver.Config{
		Addr: *addr, Resources: split(*resources), Scopes: split(*scopes), User: *user, DisableRegistration: *noRegistration,
	})
	if err != nil {
		return err
	}
	defer func() { _ = s.Close() }()
	if _, err := fmt.Fprintln(stdout, s.Issuer()); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "authserver: serving %s\n"+
		"  client_credentials: client %s, secret %s\n"+
		"  authorization_code + PKCE S256: public client %s, redirect http://127.0.0.1/callback or http://localhost/callback, any port; the login approves %s\n"+
		"  introspection: client %s, secret %s\n",
		s.Issuer(), authserver.MachineClientID, authserver.MachineSecret, authserver.PublicClientID, *user,
		authserver.ResourceServerID, authserver.ResourceServerSecret)
	if *watchStdin {
		go func() {
			_, _ = io.Copy(io.Discard, stdin)
			cancel()
		}()
	}
	<-ctx.Done()
	return s.Close()
}

// split splits a comma-separated list, dropping empty items; nil for
// none.
func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
