package rpc

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/option"
	"github.com/toolrpc/toolrpc/internal/rpchttp"
)

// HTTPHandler serves JSON-RPC 2.0 over HTTP: each POST carries one message
// or one batch in its body, answered on that request's response by the
// same dispatch core as a stream [Conn], so that every rule is the
// stream's: ids in flight (each request's own, so that independent
// clients never meet: a cancellation reaches the calls of its own request,
// and a client cancels a call by ending its request), the concurrency bound
// (Options.Concurrency, for all of them together), the reserved names,
// the error mapping, a call's notifications before its response.
//
// What a request gets:
//   - a response, or a batch's array: 200, application/json;
//   - nothing to answer (notifications alone): 202 Accepted, no body;
//   - a client that accepts text/event-stream (Accept) gets the
//     notifications its calls send ([Notify], progress) as Server-Sent
//     Events, each "data: MESSAGE", then the answer as the last event; one
//     that accepts application/json too gets plain JSON when its calls
//     send no notification (unless Options.EventStreamAfter). A client that accepts only application/json
//     gets the answer alone: its calls' notifications are dropped. What a
//     notification's handler notifies is always dropped: it has no
//     response to precede;
//   - a method other than POST: 405 (Allow: POST); a body that is not
//     application/json (one Content-Type, charset UTF-8 if any): 415; an
//     Accept that allows neither application/json nor text/event-stream:
//     406 (each judged by its most specific range, q=0 refusing; */*
//     allows JSON, text/* events; a malformed range is ignored, and an
//     empty Accept allows nothing); a body, or a Content-Length, longer
//     than Options.MaxFrameSize: 413; a body that cannot be read (shorter
//     than its Content-Length): 400, or 408 when the server's ReadTimeout
//     ends it; after Close: 503; an Origin header (a browser's page)
//     that is neither on loopback nor in Options.AllowedOrigins: 403
//     (DNS rebinding). Each with a JSON-RPC error body,
//     InvalidRequest with id null, whose data.reason says which rule.
//
// A client that goes away (the request's context ends) cancels the calls
// of its request as the peer would (their context's cause wraps
// ErrCancelled and the request's; a lone request's context sees it when
// the call looks: its Done, its Err, a context derived from it); those
// still waiting for a worker never run, and what the others answer is
// dropped. Options' Logger,
// MaxFrameSize, MaxBatch, MaxDepth, Concurrency, ShutdownGrace and
// AllowedOrigins apply, and MaxQueueBytes bounds the bytes of the bodies
// served at once (a request past it is answered 503, ServerBusy, with a
// Retry-After; one alone is always served); the others are the stream's
// (Sequential too: requests run in the workers, within Concurrency).
//
// Slow clients are bounded by the http.Server's ReadHeaderTimeout,
// ReadTimeout and WriteTimeout, which an http.Server serving this handler
// should set. Events are written by a goroutine of the response's own,
// never by the calls': a client that reads its events slowly holds up no
// worker, and its calls' notifications wait, no longer than their context,
// while 64 KiB of events are queued for it.
type HTTPHandler struct {
	core     *core
	log      *slog.Logger
	gate     rpchttp.Gate // the rules before a body: Origin, method, media types, size, bodies held
	maxBatch int
	maxDepth int
	grace    time.Duration
	decoders sync.Pool // *codec.Decoder, for ServeHTTP

	streamAfter time.Duration // Options.EventStreamAfter
	writeTime   time.Duration // Options.WriteTimeout; 0: none

	mu      sync.Mutex
	serving sync.WaitGroup // the requests in ServeHTTP, until Close
	closed  bool
	calls   *pendingCalls // the calls to its clients of a transport bound to it (httpcalls.go), once one is made
}

// NewHTTPHandler returns an HTTPHandler answering with h (nil: every
// request is answered MethodNotFound); the calls' contexts hold ctx's
// values. opts may be nil. Close it when done.
func NewHTTPHandler(ctx context.Context, h Handler, opts *Options) *HTTPHandler {
	var o Options
	if opts != nil {
		o = *opts
	}
	o.Sequential = false // each request runs in the workers, within Concurrency
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	s := &HTTPHandler{
		core:     newCore(ctx, h, log, &o),
		log:      log,
		maxBatch: o.MaxBatch,
		maxDepth: o.MaxDepth,
		grace:    option.PositiveOr(o.ShutdownGrace, DefaultShutdownGrace),
	}
	s.gate.Init(log, rpchttp.Limits{
		MaxFrame: option.PositiveOr(o.MaxFrameSize, codec.DefaultMaxFrameSize),
		MaxHeld:  int64(option.PositiveOr(o.MaxQueueBytes, DefaultMaxQueueBytes)),
		Origins:  o.AllowedOrigins,
		Hosts:    o.AllowedHosts,
		MinRate:  uploadRate(o.MinUploadRate),
	})
	s.streamAfter = max(o.EventStreamAfter, 0)
	if o.WriteTimeout >= 0 {
		s.writeTime = option.PositiveOr(o.WriteTimeout, DefaultWriteTimeout)
	}
	if b, ok := h.(rpchttp.Binder); ok { // a transport of this module built on the handler
		// Its requests are one client's (an MCP session's): one id space,
		// and a cancellation in one request reaches a call of another.
		b.BindHTTP(rpchttp.Binding{Gate: &s.gate, Server: (*boundHandler)(s)})
	} else {
		// Each request is its own client's: ids and cancellations stay
		// within it.
		s.core.inflight = newInflightSet(true)
	}
	return s
}

// ServeHTTP answers one request; see HTTPHandler.
func (s *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.gate.Screen(w, r) {
		return
	}
	body, held, ok := s.gate.ReadBody(w, r)
	if !ok {
		return
	}
	defer s.gate.Release(held)
	s.serve(r.Context(), w, r, body, nil)
}

// boundHandler is an HTTPHandler as the transport it is bound to uses it
// (rpchttp.Server).
type boundHandler HTTPHandler

// Serve serves x, whose body a transport read; see rpchttp.Server.
func (b *boundHandler) Serve(x *rpchttp.Exchange) {
	s := (*HTTPHandler)(b)
	ctx := x.Ctx
	if ctx == nil {
		ctx = x.R.Context()
	}
	s.serve(ctx, x.W, x.R, x.Body, x)
}

// serve answers r, whose body is read, on w (or x's Sink); the calls of
// body end with ctx. x, when not nil, is the transport's exchange: its
// hook and sink.
func (s *HTTPHandler) serve(ctx context.Context, w http.ResponseWriter, r *http.Request, body []byte, x *rpchttp.Exchange) {
	json, sse := rpchttp.Accepted(r.Header.Values("Accept"))
	// Counted in once the body is read: Close waits for calls, never for
	// a slow client's upload.
	if !s.enter() {
		if x != nil && x.Sink != nil {
			line, _ := codec.AppendErrorResponse(nil, nil, invalidRequest("the server is shutting down"))
			x.Sink.Answer(http.StatusServiceUnavailable, line)
			return
		}
		rpchttp.Refuse(w, http.StatusServiceUnavailable, "the server is shutting down")
		return
	}
	defer s.serving.Done()
	out := newHTTPReply(s, w, r, x, json, sse)
	dec, _ := s.decoders.Get().(*codec.Decoder)
	if dec == nil {
		dec = &codec.Decoder{MaxDepth: s.maxDepth, MaxBatch: s.maxBatch}
	}
	s.core.serveFrame(ctx, dec, body, out)
	out.finish()
	s.decoders.Put(dec) // its messages' room kept: no allocation for the next
}

// enter counts a request in, unless the handler is closed.
func (s *HTTPHandler) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.serving.Add(1)
	return true
}

// Close shuts the handler down: requests still to come are answered 503,
// calls not yet started ServerShuttingDown, and the contexts of the calls
// under way are cancelled; it returns once they have returned, or after
// Options.ShutdownGrace (their answers are then dropped). Close may be
// called more than once.
func (s *HTTPHandler) Close() error {
	s.mu.Lock()
	first := !s.closed
	s.closed = true
	s.mu.Unlock()
	if !first || !s.core.beginStop() {
		return nil
	}
	s.core.stop()
	s.core.cancelCalls(ErrShutdown)
	done := make(chan struct{})
	go func() {
		s.serving.Wait() // no request hands work to the workers any more
		s.core.closeJobs()
		s.core.running.Wait()
		close(done)
	}()
	t := time.NewTimer(s.grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		s.log.Warn("rpc: handlers still running after the shutdown grace period; their responses are dropped", "grace", s.grace)
	}
	return nil
}

// uploadRate is Options.MinUploadRate as a Gate takes it: 0 for none.
func uploadRate(r int) int {
	if r < 0 {
		return 0
	}
	return option.PositiveOr(r, DefaultMinUploadRate)
}
