package mcp

import (
	"bytes"
	"cmp"
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolrpc/toolrpc/codec"
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
)

// sseEvent is one event of a stream, as written.
type sseEvent struct {
	n    uint64
	wire []byte
}

// eventStream is one event stream of a session; its state is guarded by
// the session's streams.mu.
type eventStream struct {
	no     uint64
	events []sseEvent // held, oldest first
	bytes  int        // of events
	next   uint64     // the number of the next event
	sent   uint64     // the events before it were given to a connection
	over   bool       // its last event is in: nothing comes after it
	cut    bool       // CloseStream: its connection ends once it has written what is in
	conn   *sseConn   // the connection writing it, if any
}

// sseConn is a connection writing a stream, from pos.
type sseConn struct {
	pos  uint64
	wake chan struct{} // events came (capacity 1)
	gone chan struct{} // closed when it no longer writes the stream
}

// streams are a legacy session's event streams.
type streams struct {
	h *HTTPHandler
	c *session

	mu      sync.Mutex
	held    map[uint64]*eventStream // the streams held, by number
	overs   []*eventStream          // the streams held that are over, in the order they ended
	byID    map[string]*postWriter  // the POSTs under way, by request id
	server  *eventStream            // the server stream (GET), once needed
	bytes   int                     // held by all streams
	mem     int                     // bytes, with what holding them costs (eventCost, streamCost)
	queued  int                     // requests and batches running or waiting for a slot
	closed  bool
	ctx     context.Context // the POSTs' calls are served on: cancelled when the session ends
	cancel  context.CancelFunc
	done    chan struct{}  // closed when the session ends
	serving sync.WaitGroup // the POSTs' calls under way
}

func newStreams(h *HTTPHandler, c *session) *streams {
	ss := &streams{h: h, c: c, held: map[uint64]*eventStream{}, byID: map[string]*postWriter{}, done: make(chan struct{})}
	ss.ctx, ss.cancel = context.WithCancel(context.Background())
	return ss
}

// Done is closed when the session ends.
func (ss *streams) Done() <-chan struct{} { return ss.done }

// Notify sends a notification on the server stream: written to the GET
// connection, or held for the next one. It never waits.
func (ss *streams) Notify(_ context.Context, method string, params any) error {
	line, err := codec.AppendRequest(nil, nil, method, params)
	if err != nil {
		return err
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closed {
		return rpc.ErrClosed
	}
	ss.add(ss.serverStream(), line)
	return nil
}

// serverStream returns the server stream, made when first needed; ss.mu
// is held.
func (ss *streams) serverStream() *eventStream {
	if ss.server == nil {
		ss.server = ss.newStream()
	}
	return ss.server
}

// newStream makes a stream, held; ss.mu is held.
func (ss *streams) newStream() *eventStream {
	st := &eventStream{no: ss.h.streamNo.Add(1), events: make([]sseEvent, 0, 2)} // a POST's: priming, answer
	ss.held[st.no] = st
	ss.mem += streamCost
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
func (ss *streams) primed() bool {
	ss.c.mu.Lock()
	defer ss.c.mu.Unlock()
	return ss.c.negotiated == LatestLegacy
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
// connection writing st; ss.mu is held.
func (ss *streams) add(st *eventStream, line []byte) {
	var id [41]byte
	e := sse.Event{ID: appendID(id[:0], st.no, st.next), Data: line}
	if line == nil {
		e.Retry = ss.h.retry
	}
	wire := sse.AppendEvent(make([]byte, 0, len(line)+48), e)
	st.events = append(st.events, sseEvent{n: st.next, wire: wire})
	st.next++
	st.bytes += len(wire)
	ss.bytes += len(wire)
	ss.mem += cap(wire) + eventCost
	// Past a stream's bound, its oldest go; past the session's, the
	// streams that are over, oldest first, then this one's oldest. The
	// newest event (a POST's answer) is never dropped.
	for st.bytes > ss.h.replay && len(st.events) > 1 {
		ss.drop(st)
	}
	for ss.mem > 4*ss.h.replay {
		victim := ss.oldestOver(st)
		if victim == nil {
			if len(st.events) <= 1 {
				break
			}
			ss.drop(st)
			continue
		}
		ss.forget(victim)
	}
	if st.conn != nil {
		select {
		case st.conn.wake <- struct{}{}:
		default:
		}
	}
}

// drop drops st's oldest event; ss.mu is held.
func (ss *streams) drop(st *eventStream) {
	n, c := len(st.events[0].wire), cap(st.events[0].wire)
	st.events[0] = sseEvent{}
	st.events = st.events[1:]
	st.bytes -= n
	ss.bytes -= n
	ss.mem -= c + eventCost
}

// oldestOver returns the held stream that ended first, other than not, or
// nil; ss.mu is held.
func (ss *streams) oldestOver(not *eventStream) *eventStream {
	for len(ss.overs) > 0 && ss.held[ss.overs[0].no] != ss.overs[0] {
		ss.overs[0] = nil
		ss.overs = ss.overs[1:] // forgotten already
	}
	if len(ss.overs) == 0 || ss.overs[0] == not {
		return nil
	}
	return ss.overs[0]
}

// forget stops holding st; ss.mu is held.
func (ss *streams) forget(st *eventStream) {
	delete(ss.held, st.no)
	ss.bytes -= st.bytes
	ss.mem -= streamCost
	for _, e := range st.events {
		ss.mem -= cap(e.wire) + eventCost
	}
	st.events, st.bytes = nil, 0
	if st.conn != nil {
		close(st.conn.gone)
		st.conn = nil
	}
}

// attach makes a new connection write st from event pos, taking st over
// from the one writing it; ss.mu is held.
func (ss *streams) attach(st *eventStream, pos uint64) *sseConn {
	if st.conn != nil {
		close(st.conn.gone)
	}
	c := &sseConn{pos: pos, wake: make(chan struct{}, 1), gone: make(chan struct{})}
	st.conn = c
	st.cut = false
	return c
}

// take returns the events of st that c has still to write, whether c is
// at st's end, and whether c is to end after writing them (CloseStream);
// ss.mu is held.
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
func (ss *streams) pump(ctx context.Context, w http.ResponseWriter, st *eventStream, c *sseConn) {
	rc := http.NewResponseController(w)
	t := time.NewTicker(ss.h.keepAlive)
	defer t.Stop()
	defer func() { _ = rc.SetWriteDeadline(time.Time{}) }()
	write := func(b []byte) error {
		_ = rc.SetWriteDeadline(time.Now().Add(2 * ss.h.keepAlive)) // not supported by every ResponseWriter
		_, err := w.Write(b)
		if err == nil {
			err = rc.Flush()
		}
		return err
	}
	for {
		ss.mu.Lock()
		var wire []byte
		end, cut := false, false
		select {
		case <-c.gone:
			ss.mu.Unlock()
			return
		default:
			wire, end, cut = st.take(c)
		}
		ss.mu.Unlock()
		if len(wire) > 0 {
			if err := write(wire); err != nil {
				ss.detach(st, c)
				return
			}
		}
		if cut {
			ss.detach(st, c)
			return
		}
		if end {
			// Held still, until the bounds drop it or the session ends:
			// a write that succeeded may not have reached the client.
			ss.detach(st, c)
			return
		}
		select {
		case <-c.wake:
		case <-c.gone:
			return
		case <-ctx.Done():
			ss.detach(st, c)
			return
		case <-t.C:
			if err := write([]byte(sse.KeepAlive)); err != nil {
				ss.detach(st, c)
				return
			}
		}
	}
}

// detach stops c writing st, if it still does.
func (ss *streams) detach(st *eventStream, c *sseConn) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if st.conn == c {
		close(c.gone)
		st.conn = nil
	}
}

// close ends the streams when the session ends: their connections end,
// what they hold is let go, and nothing is added any more. It waits for
// the POSTs' calls, which the session's handler has been closed to end
// (a call that ignores its cancellation is given up on after
// RPC.ShutdownGrace, as rpc.HTTPHandler.Close gives it up).
func (ss *streams) close() {
	ss.mu.Lock()
	ss.closed = true
	for _, st := range ss.held {
		ss.forget(st)
	}
	ss.server = nil
	select {
	case <-ss.done:
	default:
		close(ss.done)
	}
	ss.mu.Unlock()
	ss.cancel() // a call that outlived its handler's Close is given up on
	waited := make(chan struct{})
	go func() {
		ss.serving.Wait()
		close(waited)
	}()
	t := time.NewTimer(positiveOr(ss.h.opts.ShutdownGrace, rpc.DefaultShutdownGrace))
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
				WithData(unsupported{Supported: Versions(), Requested: codec.Echo(versions[0])}))
			return
		case rev.modern:
			w.Header().Set("Allow", http.MethodPost)
			refuse(w, http.StatusMethodNotAllowed, Latest+" has no GET: a request is a POST")
			return
		}
	}
	ss, status, reason := h.session(r.Header.Values(headerSession))
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
		case len(st.events) > 0 && n+1 < st.events[0].n:
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
	ss, ok := c.stream.(*streams)
	if !ok || !ss.primed() {
		return false
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	p := ss.byID[string(req.ID)]
	if p == nil || !p.sse {
		return false
	}
	st := p.begin()
	st.cut = true
	if st.conn != nil {
		select {
		case st.conn.wake <- struct{}{}:
		default:
		}
	}
	return true
}

// sessionKey is the context key of a legacy HTTP session's tool calls.
type sessionKey struct{}

// postWriter takes the response of a POST of a session (an
// rpchttp.Sink): what rpc answers goes into the POST's event stream, for
// the POST's connection while there is one and for a resumption; or, if
// the answer is JSON and no stream began, to the POST's connection.
type postWriter struct {
	ss  *streams
	id  string // the request's id token, "" for a batch
	sse bool   // the client accepts events
	x   rpchttp.Exchange
	// Guarded by ss.mu:
	status int
	body   []byte        // a JSON answer, its '\n' appended
	st     *eventStream  // once the answer is an event stream
	wake   chan struct{} // the answer is in, or its event stream began (capacity 1)
	done   bool
}

// Event adds a message of rpc's event stream (nil: none, the stream
// opened) to the POST's stream, begun first; see rpchttp.Sink.
func (p *postWriter) Event(line []byte) {
	ss := p.ss
	ss.mu.Lock()
	defer ss.mu.Unlock()
	p.begin()
	if line != nil && !ss.closed {
		ss.add(p.st, line)
	}
}

// Answer takes rpc's answer that is no event stream: for the POST's
// connection, or as an event of the stream begun already (a priming
// event, CloseStream); see rpchttp.Sink.
func (p *postWriter) Answer(status int, line []byte) {
	ss := p.ss
	ss.mu.Lock()
	defer ss.mu.Unlock()
	switch {
	case p.st == nil:
		p.status = status
		if line != nil {
			p.body = append(append(p.body[:0], line...), '\n')
		}
	case ss.closed:
	case line != nil:
		ss.add(p.st, line)
	}
}

// begin makes the answer an event stream, starting with the priming
// event when the session's revision has one; ss.mu is held.
func (p *postWriter) begin() *eventStream {
	if p.st == nil {
		p.st = p.ss.newStream()
		if p.ss.primed() {
			p.ss.add(p.st, nil)
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
	ss := p.ss
	ss.mu.Lock()
	defer ss.mu.Unlock()
	p.done = true
	p.signal()
	if p.id != "" && ss.byID[p.id] == p {
		delete(ss.byID, p.id)
	}
	if p.st != nil {
		p.st.over = true
		ss.overs = append(ss.overs, p.st)
		if c := p.st.conn; c != nil {
			select {
			case c.wake <- struct{}{}:
			default:
			}
		}
	}
}

// postSession serves a request of a legacy session whose body is read:
// its call runs in a goroutine of the session's, so that the client's
// going away does not cancel it (2025-11-25: "Disconnection SHOULD NOT be
// interpreted as the client cancelling its request"); its answer waits,
// held in its event stream, for the client's resumption, as long as the
// session lives. The held bytes of the body are released (rpchttp.Gate),
// and ss counted out, when the call is done.
func (h *HTTPHandler) postSession(w http.ResponseWriter, r *http.Request, ss *httpSession, env envelope, body []byte, held int64) {
	sts := ss.streams
	accept := r.Header.Values("Accept")
	p := &postWriter{ss: sts, sse: len(accept) > 0 && rpchttp.AcceptsEventStream(accept), wake: make(chan struct{}, 1)}
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
	sts.serving.Add(1)
	sts.mu.Unlock()
	go func() {
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
				taken := h.takeSlots(slots, sts.done)
				defer func() {
					for range taken {
						<-h.slots
					}
				}()
			case <-sts.done:
			}
		}
		p.x = rpchttp.Exchange{Ctx: sts.ctx, R: r, Body: body, Sink: p} // ended with the session, never by the client
		ss.rpc.Serve(&p.x)
		p.finish()
	}()
	select {
	case <-p.wake: // answered, or its event stream began
	case <-r.Context().Done():
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
		WithData(rpc.InvalidRequestData{Reason: "too many requests of the session are waiting: try again"}))
}
