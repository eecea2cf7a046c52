package rpc

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/jsonx"
)

// httpReply is the replier of one HTTP request: what its calls answer and
// notify goes on its response, until finish. Its calls only queue events:
// a goroutine of the response's own, started with the first, writes them
// (see writer), and finish waits for it.
type httpReply struct {
	mu        sync.Mutex
	w         http.ResponseWriter
	log       *slog.Logger
	json, sse bool          // what the client accepts
	streaming bool          // the response is an event stream
	done      bool          // finished: the response is no longer ours
	started   bool          // the event stream's header is written (by the writer, then finish)
	events    []byte        // events queued, for writeEvents
	room      chan struct{} // closed when events are taken, if a notify waits for room
	wake      chan struct{} // tells the writer of events queued; closed by finish
	written   chan struct{} // closed when the writer returns
	answer    *[]byte       // the answer, for a JSON response: a pooled buffer (getBuffer)
	// (the bools together: the struct stays in the 112-byte size class)

	// Options.EventStreamAfter, for a client that accepts events: an
	// answer that is not an error coming first is an event, and the
	// stream opens when opener fires (framed starts it).
	streamAfter time.Duration
	opener      *time.Timer
}

// jsonContentType is the Content-Type of a JSON answer, one slice for all
// responses, never written (net/http only reads it): Header().Set would
// make one each time.
var jsonContentType = []string{"application/json"}

// maxQueuedEvents is how many bytes of events a response holds for a
// client that reads slowly before its calls' notifications wait for room
// (no longer than their context).
const maxQueuedEvents = 64 << 10

func (o *httpReply) reply(line []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.done:
	case o.streaming || !o.json || o.streamAfter > 0 && !isError(line):
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
		o.log.Error("rpc: result cannot be encoded", "error", err)
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
	if o.streamAfter <= 0 {
		return
	}
	for i := range msgs {
		if msgs[i].Kind == codec.Request {
			o.opener = time.AfterFunc(o.streamAfter, o.open)
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

// queue queues line as a Server-Sent Event, for writeEvents; o.mu is held.
func (o *httpReply) queue(line []byte) {
	o.streaming = true
	if line != nil {
		o.events = append(append(append(o.events, "data: "...), line...), "\n\n"...)
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
	if len(events) == 0 && o.started {
		return
	}
	if !o.started {
		o.started = true
		h := o.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		o.w.WriteHeader(http.StatusOK)
	}
	if len(events) > 0 { // none when opened before any (Options.EventStreamAfter)
		if _, err := o.w.Write(events); err != nil {
			o.log.Debug("rpc: writing events failed", "error", err)
			return
		}
	}
	_ = http.NewResponseController(o.w).Flush()
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
	answer, streaming := o.answer, o.streaming
	o.mu.Unlock()
	switch {
	case streaming:
		<-o.written
		o.writeEvents() // what the writer left
	case answer != nil:
		o.w.Header()["Content-Type"] = jsonContentType
		o.w.WriteHeader(http.StatusOK)
		*answer = append(*answer, '\n')
		_, _ = o.w.Write(*answer)
		putBuffer(answer) // no reply takes it any more: done is set
	default:
		o.w.WriteHeader(http.StatusAccepted)
	}
}
