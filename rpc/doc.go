// Package rpc is the connection layer of toolrpc: a JSON-RPC 2.0 endpoint,
// both server and client, over newline-delimited JSON (or LSP's
// Content-Length framing) on any [io.Reader] and [io.Writer], and over
// HTTP.
//
// A tool server answers its peer's requests with a [Handler]:
//
//	h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
//		if req.Method != "hello" {
//			return nil, rpc.NewError(rpc.MethodNotFound, "")
//		}
//		return "hello, world", nil
//	})
//	err := rpc.ServeStdio(ctx, h, nil)
//
// Most servers do not write a Handler by hand: package
// [github.com/toolrpc/toolrpc/service] makes one from plain Go methods,
// package [github.com/toolrpc/toolrpc/middleware] wraps one, and package
// [github.com/toolrpc/toolrpc/codec] is the wire format underneath.
//
// # The parts
//
// Serving a stream:
//   - [Serve] answers requests read from r until the input ends;
//     [ServeStdio] does so on standard input and output, keeping stray
//     writes to os.Stdout off the protocol.
//   - [Conn] is the connection itself, and both of its ends: it answers
//     the peer's requests and routes the peer's responses to calls of its
//     own ([Conn.Call], [Conn.Notify], [Conn.Batch]). [NewConn] starts
//     one; [Options] configures it.
//   - [StartProcess] starts a tool server as a child process and connects
//     to it ([Process]).
//
// Inside a handler, from its context:
//   - [Notify] and [Send] write to the peer before the call's response
//     (progress, a request of the server's own);
//   - [RequestFromContext], [ConnFromContext], [LoggerFromContext],
//     [InputEnded], [InBatch], [CancelledSilently] tell what the call is
//     and where it runs;
//   - [NewError] and [Errorf] make the [Error] a call fails with (a
//     [Code], a message, data); [ErrorFor] tells what an error becomes on
//     the wire.
//
// Over HTTP: [HTTPHandler] serves a Handler on the same dispatch core
// (one request or batch per POST, notifications as an event stream for a
// client that accepts one); [HTTPClient] is the client side;
// [ServeListener] serves a Handler on a listener.
//
// As a client: [Conn.Call] with a context from [WithProgress] receives the
// call's progress; a context that ends cancels the call at the peer.
//
// # The rules
//
// Every wire rule, with the lines it is answered with, is in
// docs/wire.md: framing, requests and notifications, invalid input (-32700
// with id null; -32600 naming the rule broken in data.reason), batches, ids
// in flight, a call's notifications (always before its response),
// cancellation in both styles ($/cancelRequest answered -32800,
// notifications/cancelled answered nothing), the errors a handler's error
// becomes, and the end of a connection (-32000 for what was read and not
// answered). Where the specification leaves a choice, toolrpc takes the
// strict reading, listed there with the test that holds each. Two examples:
//
//	--> {"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":2
//	<-- {"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}
//	--> {"jsonrpc":"2.0","method":"sum","params":null,"id":3}
//	<-- {"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"params must be an object or an array"}},"id":3}
//
// Every cost a peer can cause is bounded (docs/limits.md): a frame's size
// ([Options.MaxFrameSize]), a batch's length, nesting, the requests running
// and queued, our calls pending, the output waiting. Passing a bound is
// answered and the stream goes on, or makes the reader wait; never is the
// connection dropped. Logs go to [Options.Logger] (standard error by
// default), never to the output.
//
// # Inside
//
// One dispatch core (core.go, call.go, inflight.go, workers.go, queue.go,
// batch.go, errormap.go) serves both transports: the stream [Conn]
// (conn.go, stream.go, frame.go, readwait.go, stdio*.go) and HTTP (http.go,
// httpreply.go, httpserve.go, with internal/rpchttp and internal/sse).
// Calls of ours, on every transport, are one registry (pending.go, route.go,
// client.go, batchcall.go, progress.go, httpcalls.go, httpclient.go); child
// processes process*.go. docs/architecture.md draws the layers.
package rpc
