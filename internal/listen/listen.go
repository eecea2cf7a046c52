// Package listen holds how toolrpc's servers listen for HTTP: on the
// loopback interface unless told otherwise.
package listen

import (
	"fmt"
	"net"
)

// TCP listens on the TCP address addr, for an HTTP server's ListenAndServe
// (toolrpc's and mcp's). An address without a host (":8080") listens on
// the loopback interface only, unlike net/http's, which listens on every
// interface: a server is reachable from other machines only when addr
// names a host that makes it so ("0.0.0.0:8080").
func TCP(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("rpc: the address %q: %w", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, fmt.Errorf("rpc: %w", err)
	}
	return ln, nil
}
