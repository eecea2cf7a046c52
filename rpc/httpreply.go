package rpc

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/internal/rpchttp"
	"github.com/toolrpc/toolrpc/internal/sse"
)

// httpReply is the replier of one HTTP request: what its calls answer and
// notify goes on its response, until finish. Its calls only queue events:
// a goroutine of the response's own, started with the first, writes them
// (see writer), and finish waits for it. A transport's exchange adds a
// hook told what starts the response before its header is written, and
// keep-alive comments; or, with a sink, takes the events and the answer
// as messages, in the calls' goroutines (a sink never blocks), instead of
// a ResponseWriter.
type httpReply struct {
	mu        sync.Mutex
	w         http.ResponseWriter
	r         *http.Request // the request, for its calls (HTTPRequest, and its context's values)
	h         *HTTPHandler
	ext       *replyExt     // a transport's exchange, or nil (see exchangeReply)
	json, sse bool          // what the client accepts
	streaming bool          // the response is an event stream
	done      bool          // finished: the response is no longer ours
	started   bool          // the event stream's header is written (by the writer, then finish)
	events    []byte        // events queued, for writeEvents
	room      chan struct{} // closed when events are taken, if a notify waits for room
	wake      chan struct{} // tells the writer of events queued; closed by finish
	written   chan struct{} // closed when the writer returns
	answer    *[]byte       // the answer, for a JSON response: a pooled buffer (getBuffer)
	failed    bool          // a write failed (Options.WriteTimeout): notifications fail
	// (the bools together: the struct fills the 128-byte size class)

	// With Options.EventStreamAfter, for a client that accepts events: an
	// answer that is not an error coming first is an event, and the
	// stream opens when opener fires (framed starts it).
	opener *time.Timer
}

// replyExt is what a transport's exchange adds to a reply (see
// rpchttp.Exchange): the exchange, and what starts the response, for its
// hook (the handler's outcome of a lone request, see outcome, kept if its
// answer comes first). Guarded by the reply's mu.
type replyExt struct {
	x     *rpchttp.Exchange
	start rpchttp.Start
}

// exchangeReply is the reply of an exchange and its extension, in one
// allocation: the reply of a plain request holds none.
type exchangeReply struct {
	httpReply
	ext replyExt
}

// newHTTPReply makes the reply of a request to s on w, of x when not nil.
func newHTTPReply(s *HTTPHandler, w http.ResponseWriter, r *http.Request, x *rpchttp.Exchange, json, sse bool) *httpReply {
	if x == nil {
		return &httpReply{w: w, r: r, h: s, json: json, sse: sse}
	}
	xr := &exchangeReply{ext: replyExt{x: x}}
	xr.httpReply = httpReply{w: w, r: r, h: s, ext: &xr.ext, json: json, sse: sse}
	return &xr.httpReply
}

// sink is x's sink, if any.
func (o *httpReply) sink() rpchttp.Sink {
	if o.ext == nil {
		return nil
	}
	return o.ext.x.Sink
}

// streamAfter is Options.EventStreamAfter for this response: 0 unless the
// client accepts events.
func (o *httpReply) streamAfter() time.Duration {
	if !o.sse {
		return 0
	}
	return o.h.streamAfter
}

// maxQueuedEvents is how many bytes of events a response holds for a
// client that reads slowly before its calls' notifications wait for room
// (no longer than their context).
const maxQueuedEvents = 64 << 10

func (o *httpReply) reply(line []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if x := o.ext; x != nil && x.start.Answered && (o.streaming || x.start.Err == nil && isError(line)) {
		// Not what starts the response; or a result that could not be
		// encoded, answered InternalError.
		x.start = rpchttp.Start{}
	}
	switch {
	case o.done:
	case o.streaming || !o.json || o.streamAfter() > 0 && !isError(line):
		o.queue(line)
	default:
		if o.answer == nil {
			o.answer = getBuffer()
		}
		*o.answer = append((*o.answer)[:0], line...)
	}
}

func (o *httpReply) replyString(id []byte, s string) {
	line, err := codec.AppendResponse(nil, id, s)
	if err != nil { // a string always encodes; kept for the contract
		o.h.log.Error("rpc: result cannot be encoded", "error", err)
		return
	}
	o.reply(line)
}

// replyStringIn leaves the line to be made whole: a response's body is.
func (o *httpReply) replyStringIn([]byte, jsonx.StringIn) bool { return false }

// notify queues the line as an event of the response.
func (o *httpReply) notify(ctx context.Context, line []byte) error {
	return o.queueNotice(ctx, line)
}

// awaitRead returns at once: the client reads the events of a stream one
// at a time.
func (o *httpReply) awaitRead(context.Context) {}

// queueNotice is notify: it queues a notification line of a call as an
// event, waiting for room no longer than ctx.
func (o *httpReply) queueNotice(ctx context.Context, line []byte) error {
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
	case o.failed:
		return errNotRead
	case !o.sse:
		return nil // the client takes the answer alone
	}
	o.queue(line)
	return nil
}

// unboundedAnswer is the longest JSON answer written with no deadline:
// it fits in the connection's buffers, whether the client reads or not.
const unboundedAnswer = 64 << 10

// errNotRead is what a call's notification gets once its response could
// not be written: the client went away, or did not read it within
// Options.WriteTimeout.
var errNotRead = fmt.Errorf("%w: the response could not be written to the client", ErrClosed)

// put writes b on the response, within Options.WriteTimeout when bounded
// (an event stream's writes, and an answer too long to fit in the
// connection's buffers: a short one never waits on the client), and
// flushes it; a write that fails marks the reply failed.
func (o *httpReply) put(b []byte, bounded bool) error {
	if bounded && o.h.writeTime > 0 {
		if d := deadlinerOf(o.w); d != nil {
			_ = d.SetWriteDeadline(time.Now().Add(o.h.writeTime))
		}
	}
	rc := http.NewResponseController(o.w)
	_, err := o.w.Write(b)
	if err == nil {
		err = rc.Flush()
	}
	if err != nil {
		o.mu.Lock()
		o.failed = true
		if o.room != nil { // notifications waiting for room: errNotRead
			close(o.room)
			o.room = nil
		}
		o.mu.Unlock()
	}
	return err
}

// clearDeadline ends the write deadline put set (bounded) on the
// response's connection, which serves the next request too.
func (o *httpReply) clearDeadline(bounded bool) {
	if bounded && o.h.writeTime > 0 {
		if d := deadlinerOf(o.w); d != nil {
			_ = d.SetWriteDeadline(time.Time{})
		}
	}
}

// writeDeadliner is a ResponseWriter that can bound its writes (net/http's
// own can).
type writeDeadliner interface{ SetWriteDeadline(time.Time) error }

// deadlinerOf is w, or the ResponseWriter it wraps (Unwrap, as
// http.ResponseController follows it), that can bound its writes; nil
// when none can (a recorder): http.ResponseController would make an
// error of that each time.
func deadlinerOf(w http.ResponseWriter) writeDeadliner {
	for {
		switch v := w.(type) {
		case writeDeadliner:
			return v
		case interface{ Unwrap() http.ResponseWriter }:
			w = v.Unwrap()
		default:
			return nil
		}
	}
}

func (o *httpReply) logger() *slog.Logger { return o.h.log }

// request is the HTTP request whose body carried the calls.
func (o *httpReply) request() *http.Request { return o.r }

// outcome is told, before a call's answer is replied, what its handler
// answered (err: nil for a result): for a lone request, what starts the
// response if its answer comes first (see reply), for x's hook.
func (o *httpReply) outcome(in *inbound, err error) {
	if o.ext == nil || o.ext.x.Hook == nil || in.batch != nil && !in.batch.single {
		return
	}
	e := ErrorFor(in, err)
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.streaming {
		o.ext.start = rpchttp.Start{Answered: true, Err: e}
	}
}

// inputEnded is nil: each request is its own input, and a client that goes
// away cancels its calls.
func (o *httpReply) inputEnded() <-chan struct{} { return nil }

// sendable is ErrNoStream unless the call is a request whose client takes
// an event stream: a notification's POST is answered 202 at once.
func (o *httpReply) sendable(request bool) error {
	if !o.sse || !request {
		return ErrNoStream
	}
	return nil
}

// isError reports whether line, a response the core encoded, is an error.
func isError(line []byte) bool {
	return bytes.HasPrefix(line, errorPrefix)
}

// errorPrefix is how the core's error responses start (codec.AppendErrorResponse).
var errorPrefix = []byte(`{"jsonrpc":"2.0","error":`)

// framed starts opener, with Options.EventStreamAfter, when the frame of
// msgs holds a request: a frame of notifications and responses alone is
// answered 202.
func (o *httpReply) framed(msgs []codec.Message) {
	after := o.streamAfter()
	if after <= 0 {
		return
	}
	for i := range msgs {
		if msgs[i].Kind == codec.Request {
			o.opener = time.AfterFunc(after, o.open)
			return
		}
	}
}

// open opens the event stream before anything is queued, if nothing was
// written yet (Options.EventStreamAfter).
func (o *httpReply) open() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done || o.streaming || o.answer != nil {
		return
	}
	o.queue(nil)
}

// queue queues line as a Server-Sent Event (nil: none, the stream opened
// before any), for writeEvents; or hands it to x's sink. o.mu is held.
func (o *httpReply) queue(line []byte) {
	o.streaming = true
	if sink := o.sink(); sink != nil {
		sink.Event(line)
		return
	}
	if line != nil {
		o.events = sse.AppendData(o.events, line)
	}
	if o.wake == nil {
		o.wake, o.written = make(chan struct{}, 1), make(chan struct{})
		go o.writer()
	}
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// writer writes the events queued until finish, and the keep-alive
// comments of x, if any, while the stream is quiet.
func (o *httpReply) writer() {
	defer close(o.written)
	if o.ext == nil || o.ext.x.KeepAlive <= 0 {
		for range o.wake {
			o.writeEvents()
		}
		return
	}
	var tick <-chan time.Time // from the header on
	for {
		select {
		case _, ok := <-o.wake:
			if !ok {
				return
			}
			o.writeEvents()
			if tick == nil {
				t := time.NewTicker(o.ext.x.KeepAlive)
				defer t.Stop()
				tick = t.C
			}
		case <-tick:
			if err := o.put([]byte(sse.KeepAlive), true); err != nil {
				tick = make(chan time.Time) // no more
			}
		}
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
	start := o.startOf()
	o.mu.Unlock()
	o.write(events, start)
}

// write writes events, starting the event stream first (start: what
// starts it, for x's hook); in the writer, or in finish once it has
// returned.
func (o *httpReply) write(events []byte, start rpchttp.Start) {
	if len(events) == 0 && o.started {
		return
	}
	if !o.started {
		o.started = true
		sse.SetHeader(o.w.Header())
		start.Events = true
		o.w.WriteHeader(cmp.Or(o.hook(start), http.StatusOK))
	}
	if len(events) == 0 { // none when opened before any (Options.EventStreamAfter)
		_ = http.NewResponseController(o.w).Flush()
		return
	}
	if err := o.put(events, true); err != nil {
		o.h.log.Debug("rpc: writing events failed", "error", err)
	}
}

// hook tells x's hook, if any, what starts the response, and returns the
// status it asks for (0: rpc's own).
func (o *httpReply) hook(start rpchttp.Start) int {
	if o.ext == nil || o.ext.x.Hook == nil {
		return 0
	}
	return o.ext.x.Hook.Header(o.w.Header(), start)
}

// startOf is what starts the response, as known; o.mu is held.
func (o *httpReply) startOf() rpchttp.Start {
	if o.ext == nil {
		return rpchttp.Start{}
	}
	return o.ext.start
}

// finish writes what is left of the response, once the frame is answered
// (or given up on); nothing is written after it.
func (o *httpReply) finish() {
	if o.opener != nil {
		o.opener.Stop() // open, if it runs, finds done
	}
	o.mu.Lock()
	o.done = true
	if o.wake != nil {
		close(o.wake) // nothing is queued any more
	}
	if o.room != nil {
		close(o.room) // notifications waiting for room: ErrAnswered
		o.room = nil
	}
	answer, streaming, start := o.answer, o.streaming, o.startOf()
	o.mu.Unlock()
	switch sink := o.sink(); {
	case sink != nil:
		finishSink(sink, answer, streaming)
	case streaming:
		<-o.written
		o.writeEvents() // what the writer left
		o.clearDeadline(true)
	case answer != nil:
		rpchttp.SetJSON(o.w.Header())
		o.w.WriteHeader(cmp.Or(o.hook(start), http.StatusOK))
		*answer = append(*answer, '\n')
		long := len(*answer) > unboundedAnswer
		_ = o.put(*answer, long)
		o.clearDeadline(long)
		putBuffer(answer) // no reply takes it any more: done is set
	default:
		o.w.WriteHeader(cmp.Or(o.hook(start), http.StatusAccepted))
	}
}

// finishSink ends a response that x's sink takes: its events are in; an
// answer that is none goes to Answer.
func finishSink(sink rpchttp.Sink, answer *[]byte, streaming bool) {
	switch {
	case streaming:
	case answer != nil:
		sink.Answer(http.StatusOK, *answer)
		putBuffer(answer)
	default:
		sink.Answer(http.StatusAccepted, nil)
	}
}
