package mcp

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/internal/option"
	"github.com/toolrpc/toolrpc/internal/rpchttp"
	"github.com/toolrpc/toolrpc/internal/sse"
	"github.com/toolrpc/toolrpc/rpc"
)

// The event streams of a legacy session (2025-11-25, Streamable HTTP:
// "Listening for Messages from the Server", "Resumability and
// Redelivery").
//
// A POST whose answer is an event stream, and the session's server stream
// (GET), are each a stream of events with ids "S-N": S the stream's
// number, unique in the handler (so that an id of another session names
// no stream of this one), N the event's number in its stream. The events
// are held, within bounds, as long as the session lives (a write that
// succeeded may not have reached the client): a client that loses a connection resumes the stream
// with GET and Last-Event-ID, and gets the events after that id, then the
// rest of the stream (its answer included). A stream is written on one
// connection at a time: a resumption takes it over from the connection
// writing it, if any.

// The defaults of [HTTPOptions] for event streams.
const (
	// DefaultRetry is the reconnection delay an event stream tells its
	// client (the retry field).
	DefaultRetry = time.Second
	// DefaultReplayBytes is the most bytes of events a stream holds for a
	// resumption.
	DefaultReplayBytes = 32 << 10
	// DefaultInitIdle is how long a legacy session lives after its
	// initialize with no other request.
	DefaultInitIdle = 30 * time.Second
	// DefaultDetached is how long a legacy session's calls run once their
	// POST's connection is gone (HTTPOptions.Detached).
	DefaultDetached = 2 * time.Minute
)

// sseEvent is one event of a stream, as written.
type sseEvent struct {
	n    uint64
	wire []byte
}

// eventStream is one event stream of a session, as held for resumption:
// plain data (the connection writing it is the session's local state,
// streams.conns); guarded by the session's streams.mu.
type eventStream struct {
	no     uint64
	events []sseEvent // held, oldest first
	bytes  int        // of events
	next   uint64     // the number of the next event
	sent   uint64     // the events before it were given to a connection
	over   bool       // its last event is in: nothing comes after it
	cut    bool       // CloseStream: its connection ends once it has written what is in
}

// sseConn is a connection writing a stream, from pos.
type sseConn struct {
	pos  uint64
	wake chan struct{} // events came (capacity 1)
	gone chan struct{} // closed when it no longer writes the stream
}

// eventLog is what a legacy session holds of its event streams for its
// client's resumption (Last-Event-ID), within the bounds of ReplayBytes:
// the part of the session's transport state that must survive a
// connection, plain data that a shared store could hold (see the design
// note in streamable.go). Guarded by streams.mu.
type eventLog struct {
	held     map[uint64]*eventStream // the streams held, by number
	overs    []uint64                // the streams held that are over, in the order they ended
	serverNo uint64                  // the server stream's number (GET), once needed; 0 before
	bytes    int                     // held by all streams
	mem      int                     // bytes, with what holding them costs (eventCost, streamCost)
}

// streams are a legacy session's event streams: the events held (the
// eventLog, durable), and what serves them here (local: the connections
// writing them, the POSTs under way, the goroutines of their calls).
type streams struct {
	h *HTTPHandler
	c *session

	mu sync.Mutex
	eventLog
	conns   map[uint64]*sseConn    // the connection writing each stream, if any, by number
	byID    map[string]*postWriter // the POSTs under way, by request id
	queued  int                    // requests and batches running or waiting for a slot
	closed  bool
	ctx     context.Context // the POSTs' calls are served on: cancelled when the session ends
	cancel  context.CancelFunc
	done    chan struct{}  // closed when the session ends
	serving sync.WaitGroup // the POSTs' calls under way
}

func newStreams(h *HTTPHandler, c *session) *streams {
	sts := &streams{h: h, c: c, conns: map[uint64]*sseConn{}, byID: map[string]*postWriter{}, done: make(chan struct{})}
	sts.held = map[uint64]*eventStream{}
	sts.ctx, sts.cancel = context.WithCancel(context.Background())
	return sts
}

// wake wakes the connection writing st, if any; sts.mu is held.
func (sts *streams) wake(st *eventStream) {
	if c := sts.conns[st.no]; c != nil {
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
}

// Done is closed when the session ends.
func (sts *streams) Done() <-chan struct{} { return sts.done }

// Notify sends a notification on the server stream: written to the GET
// connection, or held for the next one. It never waits.
func (sts *streams) Notify(_ context.Context, method string, params any) error {
	line, err := codec.AppendRequest(nil, nil, method, params)
	if err != nil {
		return err
	}
	sts.mu.Lock()
	defer sts.mu.Unlock()
	if sts.closed {
		return rpc.ErrClosed
	}
	sts.add(sts.serverStream(), line)
	return nil
}

// serverStream returns the server stream, made when first needed; sts.mu
// is held.
func (sts *streams) serverStream() *eventStream {
	if st := sts.held[sts.serverNo]; st != nil {
		return st
	}
	st := sts.newStream()
	sts.serverNo = st.no
	return st
}

// newStream makes a stream, held; sts.mu is held.
func (sts *streams) newStream() *eventStream {
	st := &eventStream{no: sts.h.streamNo.Add(1), events: make([]sseEvent, 0, 2)} // a POST's: priming, answer
	sts.held[st.no] = st
	sts.mem += streamCost
	return st
}

// What holding events costs beside their bytes, counted in the session's
// bound (four times ReplayBytes), so that many small events or streams
// hold no more memory than few large ones: an event's place in its
// stream (an sseEvent, and half again for the slice's growth) and the
// room its wire was made with; a stream's bookkeeping (the eventStream,
// its places in held and overs).
const (
	eventCost  = 48
	streamCost = 128
)

// primed reports whether the session's streams start with a priming
// event and may be closed before their end: 2025-11-25 (SEP-1699).
func (sts *streams) primed() bool {
	sts.c.mu.Lock()
	defer sts.c.mu.Unlock()
	r, _ := revisionOf(sts.c.state.revision)
	return r.primed
}

// appendID appends the id of event n of stream no.
func appendID(b []byte, no, n uint64) []byte {
	b = strconv.AppendUint(b, no, 10)
	b = append(b, '-')
	return strconv.AppendUint(b, n, 10)
}

// parseEventID parses an event id, as appendID writes it: two decimal
// numbers without sign or leading zero, joined by '-'.
func parseEventID(id string) (no, n uint64, ok bool) {
	a, b, found := strings.Cut(id, "-")
	if !found {
		return 0, 0, false
	}
	no, ok1 := parseUint(a)
	n, ok2 := parseUint(b)
	return no, n, ok1 && ok2
}

// parseUint parses a decimal number as strconv.AppendUint writes it.
func parseUint(s string) (uint64, bool) {
	if s == "" || len(s) > 20 || (s[0] == '0' && len(s) > 1) {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	v, err := strconv.ParseUint(s, 10, 64)
	return v, err == nil
}

// add adds an event whose data is line (nil: the priming event, with the
// retry field) to st, drops what the bounds make it drop, and wakes the
// connection writing st; sts.mu is held.
func (sts *streams) add(st *eventStream, line []byte) {
	var id [41]byte
	e := sse.Event{ID: appendID(id[:0], st.no, st.next), Data: line}
	if line == nil {
		e.Retry = sts.h.retry
	}
	wire := sse.AppendEvent(make([]byte, 0, len(line)+48), e)
	st.events = append(st.events, sseEvent{n: st.next, wire: wire})
	st.next++
	st.bytes += len(wire)
	sts.bytes += len(wire)
	sts.mem += cap(wire) + eventCost
	// Past a stream's bound, its oldest go; past the session's, the
	// streams that are over, oldest first (but those whose connection has
	// still to take their answer), then this one's oldest. The newest
	// event (a POST's answer) is not dropped before a connection has
	// taken it (trimTaken).
	for st.bytes > sts.h.replay && len(st.events) > 1 {
		sts.drop(st)
	}
	for sts.mem > 4*sts.h.replay {
		victim := sts.oldestOver(st)
		if victim == nil {
			if len(st.events) <= 1 {
				break
			}
			sts.drop(st)
			continue
		}
		sts.forget(victim)
	}
	sts.wake(st)
}

// trimTaken drops, past st's bound, the events a connection was given,
// the newest too: an event larger than ReplayBytes is held only until it
// is written (a resumption after that is refused 410, as for any event
// the bound dropped), so that one large answer is not held for the
// session's life; sts.mu is held.
func (sts *streams) trimTaken(st *eventStream) {
	for st.bytes > sts.h.replay && len(st.events) > 0 && st.events[0].n < st.sent {
		sts.drop(st)
	}
}

// drop drops st's oldest event; sts.mu is held.
func (sts *streams) drop(st *eventStream) {
	n, c := len(st.events[0].wire), cap(st.events[0].wire)
	st.events[0] = sseEvent{}
	st.events = st.events[1:]
	st.bytes -= n
	sts.bytes -= n
	sts.mem -= c + eventCost
}

// oldestOver returns the held stream that ended first, other than not and
// other than one whose connection has still to take its last events (its
// answer is not dropped before a connection has taken it: that
// connection's write deadline bounds how long), or nil; sts.mu is held.
func (sts *streams) oldestOver(not *eventStream) *eventStream {
	for len(sts.overs) > 0 && sts.held[sts.overs[0]] == nil {
		sts.overs = sts.overs[1:] // forgotten already
	}
	for _, no := range sts.overs {
		st := sts.held[no]
		switch {
		case st == nil || no == not.no:
		case sts.conns[no] != nil && st.sent < st.next: // being written
		default:
			return st
		}
	}
	return nil
}

// forget stops holding st; sts.mu is held.
func (sts *streams) forget(st *eventStream) {
	delete(sts.held, st.no)
	sts.bytes -= st.bytes
	sts.mem -= streamCost
	for _, e := range st.events {
		sts.mem -= cap(e.wire) + eventCost
	}
	st.events, st.bytes = nil, 0
	if c := sts.conns[st.no]; c != nil {
		close(c.gone)
		delete(sts.conns, st.no)
	}
}

// attach makes a new connection write st from event pos, taking st over
// from the one writing it; sts.mu is held.
func (sts *streams) attach(st *eventStream, pos uint64) *sseConn {
	if c := sts.conns[st.no]; c != nil {
		close(c.gone)
	}
	c := &sseConn{pos: pos, wake: make(chan struct{}, 1), gone: make(chan struct{})}
	sts.conns[st.no] = c
	st.cut = false
	return c
}

// take returns the events of st that c has still to write, whether c is
// at st's end, and whether c is to end after writing them (CloseStream);
// sts.mu is held.
func (st *eventStream) take(c *sseConn) (wire []byte, end, cut bool) {
	for _, e := range st.events {
		if e.n >= c.pos {
			wire = append(wire, e.wire...)
		}
	}
	c.pos = st.next // events dropped before c got them are lost to it
	st.sent = max(st.sent, c.pos)
	return wire, st.over, st.cut && !st.over
}

// pump writes st's events on w as c, with keep-alive comments while it is
// quiet, until st's end, until the client goes
// (ctx), or until c no longer writes st (another connection took it over,
// the stream was closed early, the session ended).
//
// A write that takes longer than twice KeepAlive (a client that stopped
// reading) ends the connection: the client may resume the stream.
func (sts *streams) pump(ctx context.Context, w http.ResponseWriter, st *eventStream, c *sseConn) {
	rc := http.NewResponseController(w)
	t := time.NewTicker(sts.h.keepAlive)
	defer t.Stop()
	defer func() { _ = rc.SetWriteDeadline(time.Time{}) }()
	write := func(b []byte) error {
		_ = rc.SetWriteDeadline(time.Now().Add(2 * sts.h.keepAlive)) // not supported by every ResponseWriter
		_, err := w.Write(b)
		if err == nil {
			err = rc.Flush()
		}
		return err
	}
	for {
		sts.mu.Lock()
		var wire []byte
		end, cut := false, false
		select {
		case <-c.gone:
			sts.mu.Unlock()
			return
		default:
			wire, end, cut = st.take(c)
			sts.trimTaken(st)
		}
		sts.mu.Unlock()
		if len(wire) > 0 {
			if err := write(wire); err != nil {
				sts.detach(st, c)
				return
			}
		}
		if cut {
			sts.detach(st, c)
			return
		}
		if end {
			// Held still, until the bounds drop it or the session ends:
			// a write that succeeded may not have reached the client.
			sts.detach(st, c)
			return
		}
		select {
		case <-c.wake:
		case <-c.gone:
			return
		case <-ctx.Done():
			sts.detach(st, c)
			return
		case <-t.C:
			if err := write([]byte(sse.KeepAlive)); err != nil {
				sts.detach(st, c)
				return
			}
		}
	}
}

// detach stops c writing st, if it still does.
func (sts *streams) detach(st *eventStream, c *sseConn) {
	sts.mu.Lock()
	defer sts.mu.Unlock()
	if sts.conns[st.no] == c {
		close(c.gone)
		delete(sts.conns, st.no)
	}
}

// close ends the streams when the session ends: their connections end,
// what they hold is let go, nothing is added any more, and the Server
// forgets the session (it tells it of no change). It waits for
// the POSTs' calls, which the session's handler has been closed to end
// (a call that ignores its cancellation is given up on after
// RPC.ShutdownGrace, as rpc.HTTPHandler.Close gives it up).
func (sts *streams) close() {
	sts.mu.Lock()
	sts.closed = true
	for _, st := range sts.held {
		sts.forget(st)
	}
	sts.serverNo = 0
	select {
	case <-sts.done:
	default:
		close(sts.done)
	}
	sts.mu.Unlock()
	sts.h.s.forget(sts.c, sts) // after sts.mu: the Server's lock is taken first where both are
	sts.cancel()               // a call that outlived its handler's Close is given up on
	waited := make(chan struct{})
	go func() {
		sts.serving.Wait()
		close(waited)
	}()
	t := time.NewTimer(option.PositiveOr(sts.h.opts.ShutdownGrace, rpc.DefaultShutdownGrace))
	defer t.Stop()
	select {
	case <-waited:
	case <-t.C: // a call that ignores its cancellation: rpc's Close has said so
	}
}

// noBuffering is the value of an event stream's X-Accel-Buffering, which
// tells a proxy (nginx) to pass each event on at once: one slice for all
// streams, never written (net/http only reads it).
var noBuffering = []string{"no"}

// startHeader writes the header of an event stream.
func startHeader(w http.ResponseWriter) {
	hd := w.Header()
	sse.SetHeader(hd)
	hd["X-Accel-Buffering"] = noBuffering
	w.WriteHeader(http.StatusOK)
	_ = http.NewResponseController(w).Flush()
}

// get answers a GET: the session's server stream, or the resumption of a
// stream of its (Last-Event-ID).
func (h *HTTPHandler) get(w http.ResponseWriter, r *http.Request) {
	if !rpchttp.AcceptsEventStream(r.Header.Values("Accept")) {
		refuse(w, http.StatusNotAcceptable, "Accept must allow text/event-stream")
		return
	}
	// MCP-Protocol-Version, when present, is checked as a POST's: a
	// revision served, a legacy one (2026-07-28 has no GET).
	if versions := r.Header.Values(headerVersion); len(versions) > 0 {
		rev, ok := revisionOf(versions[0])
		switch {
		case len(versions) > 1:
			refuse(w, http.StatusBadRequest, "one "+headerVersion+" header at most")
			return
		case !ok:
			fail(w, http.StatusBadRequest, nil, rpc.NewError(UnsupportedProtocolVersion, "Unsupported protocol version").
				WithData(unsupported{Supported: Versions(), Requested: jsonx.Echo(versions[0])}))
			return
		case rev.modern:
			w.Header().Set("Allow", http.MethodPost)
			refuse(w, http.StatusMethodNotAllowed, Latest+" has no GET: a request is a POST")
			return
		}
	}
	ss, status, reason := h.session(r)
	if ss == nil {
		refuse(w, status, reason)
		return
	}
	defer h.release(ss)
	sts := ss.streams
	last := r.Header.Values("Last-Event-ID")
	sts.mu.Lock()
	if sts.closed {
		sts.mu.Unlock()
		refuse(w, http.StatusNotFound, "no such session: initialize opens a new one")
		return
	}
	var st *eventStream
	var c *sseConn
	switch {
	case len(last) > 1:
		sts.mu.Unlock()
		refuse(w, http.StatusBadRequest, "one Last-Event-ID header at most")
		return
	case len(last) == 1:
		no, n, ok := parseEventID(last[0])
		st = sts.held[no]
		switch {
		case !ok || st == nil || n >= st.next:
			sts.mu.Unlock()
			refuse(w, http.StatusBadRequest, "Last-Event-ID names no event of this session's streams held for resumption")
			return
		case n+1 < st.next && (len(st.events) == 0 || n+1 < st.events[0].n):
			sts.mu.Unlock()
			refuse(w, http.StatusGone, "the events after Last-Event-ID are no longer held (bound: ReplayBytes): the stream cannot be resumed")
			return
		}
		c = sts.attach(st, n+1)
	default:
		// A GET while the server stream is open on another connection
		// takes it over from there on, as a resumption does from its id:
		// a GET MUST be answered with an event stream or 405 (2025-11-25,
		// Transports), and a client whose connection died unnoticed must
		// be able to open it again; each event still goes on one stream.
		st = sts.serverStream()
		if sts.primed() {
			sts.add(st, nil)
		}
		c = sts.attach(st, st.sent)
	}
	sts.mu.Unlock()
	startHeader(w)
	sts.pump(r.Context(), w, st, c)
}

// CloseStream closes the connection that the answer of the call ctx
// belongs to is to be written on, without ending its event stream, as
// 2025-11-25 allows a server to (SEP-1699, polling): the client comes back
// after the stream's retry delay with GET and Last-Event-ID, and gets
// what the call sent since, its answer included. The stream starts, with
// its priming event, if it had not. It reports whether it closed one: it
// does only for a tool call of a legacy session over Streamable HTTP that
// negotiated 2025-11-25 and accepts events.
func CloseStream(ctx context.Context) bool {
	c, _ := ctx.Value(sessionKey{}).(*session)
	req := rpc.RequestFromContext(ctx)
	if c == nil || req == nil || req.ID == nil {
		return false
	}
	sts, ok := c.stream.(*streams)
	if !ok || !sts.primed() {
		return false
	}
	sts.mu.Lock()
	defer sts.mu.Unlock()
	p := sts.byID[string(req.ID)]
	if p == nil || !p.sse {
		return false
	}
	st := p.begin()
	st.cut = true
	sts.wake(st)
	return true
}

// sessionKey is the context key of a legacy HTTP session's tool calls.
type sessionKey struct{}

// postWriter takes the response of a POST of a session (an
// rpchttp.Sink): what rpc answers goes into the POST's event stream, for
// the POST's connection while there is one and for a resumption; or, if
// the answer is JSON and no stream began, to the POST's connection.
type postWriter struct {
	sts *streams
	id  string // the request's id token, "" for a batch
	sse bool   // the client accepts events
	x   rpchttp.Exchange
	// Guarded by sts.mu:
	status int
	body   []byte        // a JSON answer, its '\n' appended
	st     *eventStream  // once the answer is an event stream
	wake   chan struct{} // the answer is in, or its event stream began (capacity 1)
	done   bool
	cancel context.CancelCauseFunc // ends the POST's calls
	orphan *time.Timer             // cancels them, once the POST's connection is gone (Detached)
	// The handler's slots (RPC.Concurrency) the POST's calls hold, less
	// those lent by calls waiting for the client (see Lend).
	held atomic.Int64
	h    *HTTPHandler
}

// Lend gives back one of the handler's slots the POST holds, for a call
// that waits for the client's response (rpchttp.Lender): it runs nothing
// meanwhile, and the client may be gone for HTTPOptions.Detached, which
// would keep out everyone's requests that long if a few sessions' calls
// all waited. The session's own slots (SessionConcurrency) stay held: they
// bound how many of its calls wait.
func (p *postWriter) Lend() bool {
	if p.held.Add(-1) < 0 {
		p.held.Add(1)
		return false
	}
	<-p.h.slots
	return true
}

// Reclaim takes a slot of the handler's back for a call whose wait for
// the client ended, waiting for one until ctx ends (rpchttp.Lender).
func (p *postWriter) Reclaim(ctx context.Context) {
	select {
	case p.h.slots <- struct{}{}:
		p.held.Add(1)
	case <-ctx.Done():
	}
}

// errDetached is the cause of the cancellation of calls that ran
// HTTPOptions.Detached past their POST's connection.
var errDetached = errors.New("mcp: the client went away and did not come back within HTTPOptions.Detached")

// detach notes that the POST's connection is gone: its calls, if not
// done, are cancelled after d.
func (p *postWriter) detach(d time.Duration) {
	p.sts.mu.Lock()
	defer p.sts.mu.Unlock()
	if p.done || p.orphan != nil {
		return
	}
	cancel := p.cancel
	p.orphan = time.AfterFunc(d, func() { cancel(errDetached) })
}

// Event adds a message of rpc's event stream (nil: none, the stream
// opened) to the POST's stream, begun first; see rpchttp.Sink.
func (p *postWriter) Event(line []byte) {
	sts := p.sts
	sts.mu.Lock()
	defer sts.mu.Unlock()
	p.begin()
	if line != nil && !sts.closed {
		sts.add(p.st, line)
	}
}

// Answer takes rpc's answer that is no event stream: for the POST's
// connection, or as an event of the stream begun already (a priming
// event, CloseStream); see rpchttp.Sink.
func (p *postWriter) Answer(status int, line []byte) {
	sts := p.sts
	sts.mu.Lock()
	defer sts.mu.Unlock()
	switch {
	case p.st == nil:
		p.status = status
		if line != nil {
			p.body = append(append(p.body[:0], line...), '\n')
		}
	case sts.closed:
	case line != nil:
		sts.add(p.st, line)
	}
}

// begin makes the answer an event stream, starting with the priming
// event when the session's revision has one; sts.mu is held.
func (p *postWriter) begin() *eventStream {
	if p.st == nil {
		p.st = p.sts.newStream()
		if p.sts.primed() {
			p.sts.add(p.st, nil)
		}
		p.signal()
	}
	return p.st
}

// signal wakes postSession.
func (p *postWriter) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// finish marks the answer written.
func (p *postWriter) finish() {
	sts := p.sts
	sts.mu.Lock()
	defer sts.mu.Unlock()
	p.done = true
	if p.orphan != nil {
		p.orphan.Stop()
	}
	p.signal()
	if p.id != "" && sts.byID[p.id] == p {
		delete(sts.byID, p.id)
	}
	if p.st != nil {
		p.st.over = true
		sts.overs = append(sts.overs, p.st.no)
		sts.wake(p.st)
	}
}

// postSession serves a request of a legacy session whose body is read:
// its call runs in a goroutine of the session's, so that the client's
// going away does not cancel it (2025-11-25: "Disconnection SHOULD NOT be
// interpreted as the client cancelling its request"); its answer waits,
// held in its event stream, for the client's resumption, as long as the
// session lives. The held bytes of the body are released (rpchttp.Gate),
// and sts counted out, when the call is done.
func (h *HTTPHandler) postSession(w http.ResponseWriter, r *http.Request, ss *httpSession, env envelope, body []byte, held int64) {
	sts := ss.streams
	accept := r.Header.Values("Accept")
	p := &postWriter{sts: sts, h: h, sse: len(accept) > 0 && rpchttp.AcceptsEventStream(accept), wake: make(chan struct{}, 1)}
	sts.mu.Lock()
	if sts.closed {
		sts.mu.Unlock()
		h.gate.Release(held)
		h.release(ss)
		refuse(w, http.StatusNotFound, "no such session: initialize opens a new one")
		return
	}
	isRequest := env.id != nil && env.method != nil // a response has an id too
	// A request (or a batch) waits for a slot of the session's, then
	// those of the handler's (SessionConcurrency, RPC.Concurrency), or
	// the session's end (its closed handler then refuses it); at most
	// SessionConcurrency wait, with a goroutine each whether their
	// client stays or not: past that, 503.
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	batch := !isRequest && len(trimmed) > 0 && trimmed[0] == '['
	slots := 0 // of the handler's: one a request, up to SessionConcurrency
	switch {
	case isRequest:
		slots = 1
	case batch:
		slots = min(h.batchRequests(body), cap(ss.slots))
	}
	request := slots > 0
	if request && sts.queued >= 2*cap(ss.slots) {
		sts.mu.Unlock()
		h.gate.Release(held)
		h.release(ss)
		busy(w, env.id)
		return
	}
	if isRequest {
		p.id = string(env.id)
		if sts.byID[p.id] == nil {
			sts.byID[p.id] = p
		}
		if p.sse && !h.preferJSON && sts.primed() {
			p.begin() // every answer resumable: its stream's priming event at once
		}
	}
	if request {
		sts.queued++
	}
	var ctx context.Context
	ctx, p.cancel = context.WithCancelCause(sts.ctx)
	sts.serving.Add(1)
	sts.mu.Unlock()
	go func() {
		defer p.cancel(nil)
		defer sts.serving.Done()
		defer h.release(ss)
		defer h.gate.Release(held)
		if request {
			defer func() {
				sts.mu.Lock()
				sts.queued--
				sts.mu.Unlock()
			}()
			select {
			case ss.slots <- struct{}{}:
				defer func() { <-ss.slots }()
				// A batch runs up to SessionConcurrency calls at once
				// (its session's handler's bound): it takes a slot of
				// the handler's for each, one batch at a time.
				p.held.Store(int64(h.takeSlots(slots, sts.done)))
				defer func() {
					for range p.held.Load() {
						<-h.slots
					}
				}()
			case <-sts.done:
			}
		}
		p.x = rpchttp.Exchange{Ctx: ctx, R: r, Body: body, Sink: p, Lender: p} // ended with the session, or Detached after the client
		ss.rpc.Serve(&p.x)
		p.finish()
	}()
	select {
	case <-p.wake: // answered, or its event stream began
	case <-r.Context().Done():
		p.detach(h.detached)
		return
	case <-sts.done: // a call that ignored its cancellation, given up on
		select {
		case <-p.wake:
		default:
			refuse(w, http.StatusNotFound, "the session ended before the request was answered")
			return
		}
	}
	sts.mu.Lock()
	if p.st == nil { // answered at once: JSON, or 202
		status, answer := cmp.Or(p.status, http.StatusOK), p.body
		sts.mu.Unlock()
		if !isRequest && !batch && status == http.StatusOK && len(answer) > 0 {
			// An error for what is not a request (malformed, not a
			// message): 2025-11-25, "If the server cannot accept the
			// input, it MUST return an HTTP error status code".
			status = http.StatusBadRequest
		}
		if len(answer) > 0 {
			rpchttp.SetJSON(w.Header())
		}
		w.WriteHeader(status)
		if len(answer) > 0 {
			_, _ = w.Write(answer)
		}
		return
	}
	if sts.closed { // the session ended since: its streams are let go
		sts.mu.Unlock()
		refuse(w, http.StatusNotFound, "the session ended before the request was answered")
		return
	}
	st, cut := p.st, p.st.cut
	c := sts.attach(st, 0)
	st.cut = cut // CloseStream before the connection began writing
	sts.mu.Unlock()
	startHeader(w)
	sts.pump(r.Context(), w, st, c)
	p.detach(h.detached) // the stream's connection is gone: nothing, if the call is done
}

// takeSlots takes n of the handler's slots (RPC.Concurrency), or fewer
// when done is closed first, and returns how many it took. Batches, which
// take more than one, take theirs one at a time: two never hold each a
// part of what the other waits for.
func (h *HTTPHandler) takeSlots(n int, done <-chan struct{}) int {
	if n > 1 {
		select {
		case h.batchSlots <- struct{}{}:
			defer func() { <-h.batchSlots }()
		case <-done:
			return 0
		}
	}
	for i := range n {
		select {
		case h.slots <- struct{}{}:
		case <-done:
			return i
		}
	}
	return n
}

// batchRequests counts the requests of a batch (the calls it runs).
func (h *HTTPHandler) batchRequests(body []byte) int {
	d := codec.Decoder{MaxDepth: h.opts.MaxDepth, MaxBatch: h.opts.MaxBatch}
	msgs, _ := d.Decode(body)
	n := 0
	for _, m := range msgs {
		if m.Kind == codec.Request {
			n++
		}
	}
	return n
}

// busy answers a request of a session that has too many waiting for a
// slot: 503, ServerBusy answering id (nil: null), with a Retry-After.
func busy(w http.ResponseWriter, id []byte) {
	w.Header().Set("Retry-After", "1")
	fail(w, http.StatusServiceUnavailable, id, rpc.NewError(codec.ServerBusy, "").
		WithData(codec.InvalidRequestData{Reason: "too many requests of the session are waiting: try again"}))
}
