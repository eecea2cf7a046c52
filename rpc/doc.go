// Package rpc is the connection layer of toolrpc: a symmetric JSON-RPC 2.0
// endpoint over newline-delimited JSON on any io.Reader and io.Writer
// (stdin and stdout, a pipe, a socket, a bytes.Buffer).
//
// Serve answers a peer's requests with a Handler until the input ends. Conn
// is the connection itself: it reads, classifies (package codec) and
// dispatches messages, handles cancellation, lets handlers send
// notifications while they run (Notify), and shuts down cleanly.
//
// The package knows nothing of reflection or validation: package service
// builds Handlers from plain Go structs, and package middleware wraps them.
package rpc
