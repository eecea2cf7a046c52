package rpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
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
//     send no notification. A client that accepts only application/json
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
// ErrCancelled and the request's); those still waiting for a worker never
// run, and what the others answer is dropped. Options' Logger,
// MaxFrameSize, MaxBatch, MaxDepth, Concurrency and ShutdownGrace apply;
// the others are the stream's (Sequential too: requests run in the
// workers, within Concurrency).
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
	return &HTTPHandler{
		core:     newCore(ctx, h, log, &o),
		log:      log,
		maxFrame: positiveOr(o.MaxFrameSize, codec.DefaultMaxFrameSize),
		maxBatch: o.MaxBatch,
		maxDepth: o.MaxDepth,
		grace:    positiveOr(o.ShutdownGrace, DefaultShutdownGrace),
		origins:  slices.Clone(o.AllowedOrigins),
	}
}

// ServeHTTP answers one request; see HTTPHandler.
func (s *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.originAllowed(r.Header.Values("Origin")) {
		httpRefuse(w, http.StatusForbidden, "the Origin is not allowed")
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		httpRefuse(w, http.StatusMethodNotAllowed, "the method must be POST")
		return
	}
	if !isJSON(r.Header.Values("Content-Type")) {
		httpRefuse(w, http.StatusUnsupportedMediaType, "the body must be application/json")
		return
	}
	json, sse := accepted(r.Header.Values("Accept"))
	if !json && !sse {
		httpRefuse(w, http.StatusNotAcceptable, "Accept must allow application/json or text/event-stream")
		return
	}
	if r.ContentLength > int64(s.maxFrame) {
		s.refuseTooLarge(w) // the body is not read
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(s.maxFrame)))
	var maxBytes *http.MaxBytesError
	var netErr net.Error
	switch {
	case errors.As(err, &maxBytes):
		s.refuseTooLarge(w)
		return
	case errors.As(err, &netErr) && netErr.Timeout():
		s.log.Debug("rpc: reading a request body timed out", "error", err)
		httpRefuse(w, http.StatusRequestTimeout, "the body was not received in time")
		return
	case err != nil:
		// The client is gone (then nobody reads this), or its body is
		// shorter than its Content-Length.
		s.log.Debug("rpc: reading a request body failed", "error", err)
		httpRefuse(w, http.StatusBadRequest, "the body could not be read")
		return
	}
	// Counted in once the body is read: Close waits for calls, never for
	// a slow client's upload.
	if !s.enter() {
		httpRefuse(w, http.StatusServiceUnavailable, "the server is shutting down")
		return
	}
	defer s.serving.Done()
	out := &httpReply{w: w, json: json, sse: sse, log: s.log}
	dec := codec.Decoder{MaxDepth: s.maxDepth, MaxBatch: s.maxBatch}
	s.core.serveFrame(r.Context(), &dec, body, out)
	out.finish()
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

// isJSON reports whether the Content-Type headers (values) say
// application/json: one header, one well-formed media type, and no charset
// other than UTF-8, JSON's (RFC 8259).
func isJSON(values []string) bool {
	if len(values) != 1 {
		return false
	}
	t, params, err := mime.ParseMediaType(values[0])
	if err != nil || t != "application/json" {
		return false
	}
	cs, ok := params["charset"]
	return !ok || strings.EqualFold(cs, "utf-8")
}

// accepted reads Accept headers: whether application/json and whether
// text/event-stream may answer. No Accept header accepts anything, and
// gets JSON. Each type is judged by the most specific media range that
// matches it (RFC 9110, 12.5.1): application/json, then application/*,
// then */* for JSON; text/event-stream, then text/* for events (*/* alone
// asks for no event stream: it gets JSON). A range whose q is 0 refuses
// its type; a malformed range, or one with a malformed q, is ignored.
func accepted(values []string) (json, sse bool) {
	if len(values) == 0 {
		return true, false
	}
	// The q of the most specific range seen for each type, and how
	// specific it was (0: none seen).
	var jsonRank, sseRank int
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			t, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			ok, valid := qAccepts(params)
			if !valid {
				continue
			}
			rank := 3
			switch t {
			case "application/json", "text/event-stream":
			case "application/*", "text/*":
				rank = 2
			case "*/*":
				rank = 1
			default:
				continue
			}
			switch t {
			case "application/json", "application/*", "*/*":
				if rank > jsonRank {
					jsonRank, json = rank, ok
				}
			}
			switch t {
			case "text/event-stream", "text/*":
				if rank > sseRank {
					sseRank, sse = rank, ok
				}
			}
		}
	}
	return json, sse
}

// qAccepts reads a media range's q parameter (RFC 9110, 12.4.2): whether
// it accepts (a q of 1 when absent), and whether q is well formed.
func qAccepts(params map[string]string) (accepts, valid bool) {
	q, ok := params["q"]
	if !ok {
		return true, true
	}
	if len(q) == 0 || len(q) > 5 || !(q[0] == '0' || q[0] == '1') || (len(q) > 1 && q[1] != '.') {
		return false, false
	}
	for _, c := range q[min(2, len(q)):] {
		if c < '0' || c > '9' || (q[0] == '1' && c != '0') {
			return false, false
		}
	}
	return strings.Trim(q, "0.") != "", true
}

// httpRefuse answers a request that is not served with status and an
// InvalidRequest naming the rule it broke.
func httpRefuse(w http.ResponseWriter, status int, reason string) {
	line := errorLine(nil, codec.InvalidRequestError(reason))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(line, '\n'))
}

// httpReply is the replier of one HTTP request: what its calls answer and
// notify goes on its response, until finish. Its calls only queue events:
// a goroutine of the response's own, started with the first, writes them
// (see writer), and finish waits for it.
type httpReply struct {
	mu        sync.Mutex
	w         http.ResponseWriter
	json, sse bool // what the client accepts
	log       *slog.Logger
	streaming bool          // the response is an event stream
	events    []byte        // events queued, for writeEvents
	room      chan struct{} // closed when events are taken, if a notify waits for room
	wake      chan struct{} // tells the writer of events queued; closed by finish
	written   chan struct{} // closed when the writer returns
	answer    []byte        // the answer, for a JSON response
	done      bool          // finished: the response is no longer ours
	started   bool          // the event stream's header is written (by the writer, then finish)
}

// maxQueuedEvents is how many bytes of events a response holds for a
// client that reads slowly before its calls' notifications wait for room
// (no longer than their context).
const maxQueuedEvents = 64 << 10

func (o *httpReply) reply(line []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.done:
	case o.streaming || !o.json:
		o.queue(line)
	default:
		o.answer = append(o.answer[:0], line...)
	}
}

func (o *httpReply) replyString(id []byte, s string) {
	line, err := codec.AppendResponse(nil, id, s)
	if err != nil { // a string always encodes; kept for the contract
		o.log.Error("rpc: result cannot be encoded", "error", err)
		return
	}
	o.reply(line)
}

func (o *httpReply) notify(ctx context.Context, line []byte) error {
	if in := callFrom(ctx); in != nil && in.req.ID == nil {
		// A notification's: it has no response to precede, and a frame
		// of notifications alone is answered 202, with no body.
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for !o.done && o.sse && len(o.events) >= maxQueuedEvents {
		if o.room == nil {
			o.room = make(chan struct{})
		}
		room := o.room
		o.mu.Unlock()
		select {
		case <-room:
			o.mu.Lock()
		case <-ctx.Done():
			o.mu.Lock()
			return ctx.Err()
		}
	}
	switch {
	case o.done:
		return ErrAnswered
	case !o.sse:
		return nil // the client takes the answer alone
	}
	o.queue(line)
	return nil
}

func (o *httpReply) logger() *slog.Logger { return o.log }

// inputEnded is nil: each request is its own input, and a client that goes
// away cancels its calls.
func (o *httpReply) inputEnded() <-chan struct{} { return nil }

// queue queues line as a Server-Sent Event, for writeEvents; o.mu is held.
func (o *httpReply) queue(line []byte) {
	o.streaming = true
	o.events = append(append(append(o.events, "data: "...), line...), "\n\n"...)
	if o.wake == nil {
		o.wake, o.written = make(chan struct{}, 1), make(chan struct{})
		go o.writer()
	}
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// writer writes the events queued until finish.
func (o *httpReply) writer() {
	defer close(o.written)
	for range o.wake {
		o.writeEvents()
	}
}

// writeEvents writes the events queued, in the writer.
func (o *httpReply) writeEvents() {
	o.mu.Lock()
	events := o.events
	o.events = nil
	if o.room != nil {
		close(o.room)
		o.room = nil
	}
	o.mu.Unlock()
	o.write(events)
}

// write writes events, starting the event stream first; in the writer,
// or in finish once it has returned.
func (o *httpReply) write(events []byte) {
	if len(events) == 0 {
		return
	}
	if !o.started {
		o.started = true
		h := o.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		o.w.WriteHeader(http.StatusOK)
	}
	if _, err := o.w.Write(events); err != nil {
		o.log.Debug("rpc: writing events failed", "error", err)
		return
	}
	_ = http.NewResponseController(o.w).Flush()
}

// finish writes what is left of the response, once the frame is answered
// (or given up on); nothing is written after it.
func (o *httpReply) finish() {
	o.mu.Lock()
	o.done = true
	if o.wake != nil {
		close(o.wake) // nothing is queued any more
	}
	if o.room != nil {
		close(o.room) // notifications waiting for room: ErrAnswered
		o.room = nil
	}
	answer, streaming := o.answer, o.streaming
	o.mu.Unlock()
	switch {
	case streaming:
		<-o.written
		o.writeEvents() // what the writer left
	case answer != nil:
		o.w.Header().Set("Content-Type", "application/json")
		o.w.WriteHeader(http.StatusOK)
		_, _ = o.w.Write(append(answer, '\n'))
	default:
		o.w.WriteHeader(http.StatusAccepted)
	}
}

// originAllowed reports whether a request with the Origin headers values
// may be served (see Options.AllowedOrigins). Several Origin headers are
// refused: a browser sends one.
func (s *HTTPHandler) originAllowed(values []string) bool {
	switch len(values) {
	case 0:
		return true
	case 1:
	default:
		return false
	}
	origin := values[0]
	if u, err := url.Parse(origin); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Path == "" {
		switch u.Hostname() {
		case "localhost", "127.0.0.1", "::1":
			return true
		}
	}
	for _, o := range s.origins {
		if o == "*" || strings.EqualFold(o, origin) {
			return true
		}
	}
	return false
}
