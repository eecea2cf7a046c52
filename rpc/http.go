package rpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolrpc/toolrpc/codec"
)

// HTTPHandler serves JSON-RPC 2.0 over HTTP: each POST carries one message
// or one batch in its body, answered on that request's response by the
// same dispatch core as a stream [Conn], so that every rule is the
// stream's: ids in flight (shared by all the requests the handler serves:
// a cancellation in one reaches a call of another), the concurrency bound
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
	maxFrame int
	maxBatch int
	maxDepth int
	grace    time.Duration
	origins  []string // Options.AllowedOrigins
	hosts    []string // Options.AllowedHosts
	maxHeld  int64    // Options.MaxQueueBytes: the bytes of bodies served at once
	held     atomic.Int64
	decoders sync.Pool // *codec.Decoder, for ServeHTTP

	streamAfter time.Duration // Options.EventStreamAfter

	mu      sync.Mutex
	serving sync.WaitGroup // the requests in ServeHTTP, until Close
	closed  bool
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
		maxFrame: positiveOr(o.MaxFrameSize, codec.DefaultMaxFrameSize),
		maxBatch: o.MaxBatch,
		maxDepth: o.MaxDepth,
		grace:    positiveOr(o.ShutdownGrace, DefaultShutdownGrace),
		origins:  slices.Clone(o.AllowedOrigins),
		hosts:    slices.Clone(o.AllowedHosts),
		maxHeld:  int64(positiveOr(o.MaxQueueBytes, DefaultMaxQueueBytes)),
	}
	s.streamAfter = max(o.EventStreamAfter, 0)
	return s
}

// ServeHTTP answers one request; see HTTPHandler.
func (s *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.Screen(w, r) {
		return
	}
	body, held, ok := s.readHeld(w, r)
	if !ok {
		return
	}
	defer s.release(held)
	s.ServeBody(r.Context(), w, r, body)
}

// ServeBody answers r, whose body a transport read with ReadBody (and
// holds until ServeBody returns), as ServeHTTP answers it, its body not
// read again; the calls of body end with ctx instead of r's context.
// ServeHTTP passes r's context: a client that goes away cancels its
// calls. A transport whose requests outlive their connections (MCP's
// Streamable HTTP, where "disconnection SHOULD NOT be interpreted as the
// client cancelling its request") passes a context that outlives r's, and
// a w that holds what the calls answer for the client's return; the calls
// then end with their answer, a cancellation, or Close. ServeBody reads
// r's Accept headers before it serves.
func (s *HTTPHandler) ServeBody(ctx context.Context, w http.ResponseWriter, r *http.Request, body []byte) {
	json, sse := accepted(r.Header.Values("Accept"))
	// Counted in once the body is read: Close waits for calls, never for
	// a slow client's upload.
	if !s.enter() {
		httpRefuse(w, http.StatusServiceUnavailable, "the server is shutting down")
		return
	}
	defer s.serving.Done()
	out := &httpReply{w: w, json: json, sse: sse, log: s.log}
	if sse {
		out.streamAfter = s.streamAfter
	}
	dec, _ := s.decoders.Get().(*codec.Decoder)
	if dec == nil {
		dec = &codec.Decoder{MaxDepth: s.maxDepth, MaxBatch: s.maxBatch}
	}
	s.core.serveFrame(ctx, dec, body, out)
	out.finish()
	s.decoders.Put(dec) // its messages' room kept: no allocation for the next
}

// hold counts n bytes of bodies in, unless that passes the bound: a body
// alone is always taken, as the stream's queue always takes a message.
func (s *HTTPHandler) hold(n int64) bool {
	if v := s.held.Add(n); v > s.maxHeld && v != n {
		s.held.Add(-n)
		return false
	}
	return true
}

// release counts n bytes of bodies out.
func (s *HTTPHandler) release(n int64) { s.held.Add(-n) }

// httpBusy answers a request that the bound on bodies held refuses: 503,
// ServerBusy, id null, with a Retry-After.
func httpBusy(w http.ResponseWriter) {
	line := errorLine(nil, NewError(codec.ServerBusy, "").WithData(codec.InvalidRequestData{Reason: "too many request bodies are being served: try again"}))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", "1")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write(append(line, '\n'))
}

// Screen judges r by the rules HTTPHandler applies before it reads a body,
// answers r when it breaks one, and reports whether it broke none: an
// Origin that is not allowed (403), a method other than POST and the
// methods given (405, with Allow), and for a POST a Content-Type other
// than application/json (415), an Accept that allows neither JSON nor
// events (406), a Content-Length over MaxFrameSize (413). A transport
// that serves more than HTTPHandler on one endpoint (MCP's Streamable
// HTTP: DELETE too) screens with it, reads a POST's body with ReadBody,
// and has it served with ServeHTTP, or serves it otherwise.
func (s *HTTPHandler) Screen(w http.ResponseWriter, r *http.Request, methods ...string) bool {
	if !s.originAllowed(r.Header.Values("Origin")) {
		httpRefuse(w, http.StatusForbidden, "the Origin is not allowed")
		return false
	}
	if !s.hostAllowed(r.Host, localAddr(r)) {
		httpRefuse(w, http.StatusForbidden, "the Host is not allowed")
		return false
	}
	if r.Method != http.MethodPost {
		if slices.Contains(methods, r.Method) {
			return true
		}
		w.Header().Set("Allow", strings.Join(append([]string{http.MethodPost}, methods...), ", "))
		httpRefuse(w, http.StatusMethodNotAllowed, "the method must be "+strings.Join(append([]string{http.MethodPost}, methods...), " or "))
		return false
	}
	if !isJSON(r.Header.Values("Content-Type")) {
		httpRefuse(w, http.StatusUnsupportedMediaType, "the body must be application/json")
		return false
	}
	if json, sse := accepted(r.Header.Values("Accept")); !json && !sse {
		httpRefuse(w, http.StatusNotAcceptable, "Accept must allow application/json or text/event-stream")
		return false
	}
	if r.ContentLength > int64(s.maxFrame) {
		s.refuseTooLarge(w) // the body is not read
		return false
	}
	return true
}

// ReadBody reads r's body, at most MaxFrameSize bytes, counting it among
// the bodies being served until release is called (Options.MaxQueueBytes:
// a body of a known length is counted before it is read, one of an
// unknown length once it is), and reports whether it could; when it could
// not, it has answered r: 503 ServerBusy past the bound, 413 for a longer
// body, 408 when the server's ReadTimeout ended it, 400 when it could not
// be read (shorter than its Content-Length, the client gone).
func (s *HTTPHandler) ReadBody(w http.ResponseWriter, r *http.Request) (body []byte, release func(), ok bool) {
	body, held, ok := s.readHeld(w, r)
	if !ok {
		return nil, nil, false
	}
	return body, func() { s.release(held) }, true
}

// readHeld is ReadBody, returning the bytes counted in (for release)
// rather than a function: ServeHTTP's, without the closure.
func (s *HTTPHandler) readHeld(w http.ResponseWriter, r *http.Request) (body []byte, held int64, ok bool) {
	held = r.ContentLength
	if held >= 0 && !s.hold(held) {
		httpBusy(w)
		return nil, 0, false
	}
	body, ok = s.readBody(w, r)
	switch {
	case !ok && held >= 0:
		s.release(held)
		return nil, 0, false
	case !ok:
		return nil, 0, false
	case held < 0:
		held = int64(len(body))
		if !s.hold(held) {
			httpBusy(w)
			return nil, 0, false
		}
	}
	return body, held, true
}

// readBody reads r's body; see ReadBody. A short body of a known length
// within the limit is read into a buffer of that length, with no limiting
// reader (net/http's body ends there); a longer one grows as it comes, so
// that a client that announces much and sends little is not given it all
// at once.
func (s *HTTPHandler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if n := r.ContentLength; n >= 0 && n <= min(int64(s.maxFrame), presizedBody) {
		body := make([]byte, n)
		if _, err := io.ReadFull(r.Body, body); err != nil {
			return nil, s.bodyFailed(w, err)
		}
		return body, true
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(s.maxFrame)))
	if err == nil {
		return body, true
	}
	return nil, s.bodyFailed(w, err)
}

// presizedBody is the longest body of a known length read into a buffer
// made to measure before it comes.
const presizedBody = 64 << 10

// bodyFailed answers a request whose body could not be read (err), and
// returns false.
func (s *HTTPHandler) bodyFailed(w http.ResponseWriter, err error) bool {
	var maxBytes *http.MaxBytesError // here: errors.As makes them escape
	var netErr net.Error
	switch {
	case errors.As(err, &maxBytes):
		s.refuseTooLarge(w)
	case errors.As(err, &netErr) && netErr.Timeout():
		s.log.Debug("rpc: reading a request body timed out", "error", err)
		httpRefuse(w, http.StatusRequestTimeout, "the body was not received in time")
	default:
		// The client is gone (then nobody reads this), or its body is
		// shorter than its Content-Length.
		s.log.Debug("rpc: reading a request body failed", "error", err)
		httpRefuse(w, http.StatusBadRequest, "the body could not be read")
	}
	return false
}

// refuseTooLarge answers a request whose body is over the frame limit.
func (s *HTTPHandler) refuseTooLarge(w http.ResponseWriter) {
	httpRefuse(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("frame larger than the limit of %d bytes", s.maxFrame))
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

// httpRefuse answers a request that is not served with status and an
// InvalidRequest naming the rule it broke.
func httpRefuse(w http.ResponseWriter, status int, reason string) {
	line := errorLine(nil, invalidRequest(reason))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(line, '\n'))
}
