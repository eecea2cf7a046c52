// Package rpchttp is the seam between rpc's HTTP serving and the
// transports of this module built on it (mcp's Streamable HTTP): what rpc
// judges before it reads a body (Gate), and how a transport has rpc serve
// a body it has read, learning what it needs of the response as rpc makes
// it — never by reading rpc's bytes back.
//
//	transport (mcp.HTTPHandler)          rpc.HTTPHandler
//	  Gate.Screen, Gate.ReadBody   ──►   the same rules as ServeHTTP's
//	  Server.Serve(&Exchange{...}) ──►   dispatch core, one reply
//	  Hook.Header(h, Start)        ◄──   before the header: result? error?
//	  Sink.Event / Sink.Answer     ◄──   the events and the answer, typed
//
// rpc.NewHTTPHandler, given a Handler that is a Binder, hands it the
// Binding: the Gate made from its Options and its Serve. Nothing here is
// part of the module's API.
package rpchttp

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/toolrpc/toolrpc/codec"
)

// A Binder is a Handler given to rpc.NewHTTPHandler that wants to serve
// bodies it read itself: NewHTTPHandler calls BindHTTP once, before it
// returns.
type Binder interface {
	BindHTTP(Binding)
}

// A Binding is what rpc.NewHTTPHandler gives a Binder.
type Binding struct {
	// Gate applies the handler's rules before a body (its Options:
	// MaxFrameSize, MaxQueueBytes, AllowedOrigins).
	Gate *Gate
	// Server is the handler, as the transport uses it.
	Server Server
}

// A Server is rpc's HTTPHandler as a transport built on it uses it.
type Server interface {
	// Serve serves an exchange as ServeHTTP serves a request, its body
	// already read (and screened): it returns once the response is
	// finished.
	Serve(x *Exchange)
	// Call sends the client the request method with params (a JSON
	// object or array, or nil) on the event stream of the call ctx
	// belongs to, registered among the handler's calls to its clients
	// (rpc's registry, a Conn's), and waits for the response that Deliver
	// hands it, or for ctx to end. sent reports whether the request was
	// sent; if not, err says why.
	Call(ctx context.Context, method string, params json.RawMessage) (result json.RawMessage, sent bool, err error)
	// Deliver hands a client's response (one JSON-RPC response, which
	// the transport read from a request of the client's) to the call
	// waiting for it, read as a stream connection reads one, and reports
	// whether a call was waiting: a response to a call that ended, to an
	// id never sent, or a second one, reaches none.
	Deliver(response []byte) bool
	// Waiting returns how many calls wait for a response.
	Waiting() int
}

// An Exchange is one request a transport has rpc serve.
type Exchange struct {
	// Ctx ends the calls of Body (nil: R's context). A transport whose
	// requests outlive their connections (MCP's legacy sessions, where
	// "disconnection SHOULD NOT be interpreted as the client cancelling
	// its request") passes a context that outlives R's.
	Ctx context.Context
	// W is where the response goes, unless Sink is set.
	W http.ResponseWriter
	// R is the request: its Accept says what the response may be.
	R *http.Request
	// Body is R's body, read.
	Body []byte
	// Hook, when not nil, is told of the response before its header is
	// written on W.
	Hook Hook
	// KeepAlive, when positive, is the interval of the comments
	// (sse.KeepAlive) written on an event stream on W that is quiet.
	KeepAlive time.Duration
	// Sink, when not nil, takes the response instead of W: the events
	// and the answer as messages, for the transport to hold and write.
	Sink Sink
	// Lender, when not nil, is told when a call of Body waits for its
	// client's response (Server.Call), to lend what the call holds of
	// the transport's bounds meanwhile.
	Lender Lender
}

// A Lender lends what a call holds of a transport's bounds while the call
// waits for its client: MCP's legacy sessions give back the call's slot of
// the handler's concurrency, since a call waiting for a client that may be
// gone for minutes runs nothing, and would otherwise keep others out that
// long. Its methods are called concurrently by the calls of an exchange.
type Lender interface {
	// Lend is called as a call starts to wait; it reports whether it
	// lent anything, for Reclaim to take back.
	Lend() bool
	// Reclaim is called as the wait of a call Lend lent for ends; it
	// returns once the call may go on: its share taken back, or ctx
	// ended (the call then ends without it, and the transport counts it
	// out).
	Reclaim(ctx context.Context)
}

// A Hook is told of a response before its header is written.
type Hook interface {
	// Header is called once, before the response's header is written,
	// with the header (to add to) and what starts the response; it
	// returns the status to write, or 0 for rpc's own (200, or 202 when
	// nothing is answered).
	Header(h http.Header, s Start) int
}

// Start is what starts a response, as rpc makes it.
type Start struct {
	// Events: the response is an event stream.
	Events bool
	// Answered: the response starts with the answer of a lone request,
	// as its handler made it (a result, or the error Err).
	Answered bool
	// Err is the error of that answer; nil for a result.
	Err *codec.Error
}

// Result reports whether the response starts with a lone request's
// result.
func (s Start) Result() bool { return s.Answered && s.Err == nil }

// A Sink takes a response in place of a ResponseWriter: a transport that
// holds what the calls answer beyond the request's connection (MCP's
// legacy sessions, for resumption). Its methods are called in the order of
// the response, never at the same time.
type Sink interface {
	// Event takes a message of the response's event stream (one line,
	// valid until Event returns), in order: a call's notifications and
	// requests, then the answer. The first opens the stream; a nil line
	// opens it with no message (Options.EventStreamAfter).
	Event(line []byte)
	// Answer takes a response that is no event stream, once: status and
	// the JSON answer (one line, valid until Answer returns), or nil for
	// none (202).
	Answer(status int, line []byte)
}
