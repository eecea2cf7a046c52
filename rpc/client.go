package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/toolrpc/toolrpc/codec"
)

// ErrBadResponse is wrapped by the error of a call whose response breaks
// the specification (both result and error, an error that is not an error
// object...).
var ErrBadResponse = errors.New("rpc: malformed response")

// outbound is a call of ours waiting for its response.
type outbound struct {
	id       int64         // its id (the token is the number in decimal)
	done     chan struct{} // closed when the response (or the end) came
	result   []byte        // the raw result, when answered with one
	err      error         // the error, when answered with one or failed
	progress *progressQueue
	batch    *outBatch // the batch it was sent in, or nil
}

// outBatch is a batch of ours with calls still waiting.
type outBatch struct {
	calls   []*outbound
	waiting int // the calls still pending; at 0 the batch leaves Conn.outBatches
}

// Why a connection is lost, said by the error every call of ours then
// fails with (ErrClosed wraps them).
var (
	errInputEnded  = fmt.Errorf("the input ended: %w", io.EOF)
	errCloseCalled = errors.New("Close was called")
)

// slots bounds the calls of ours waiting for a response
// (Options.MaxPendingCalls). A batch takes a slot per call all at once, or
// waits holding none: two batches each holding part of what they need
// would wait for each other for ever. Conn.mu guards it.
type slots struct {
	max     int
	used    atomic.Int64  // written under Conn.mu; read without it by the queue
	waiting []*slotWaiter // in arrival order
}

// slotWaiter is a call or a batch waiting for slots.
type slotWaiter struct {
	n       int
	ready   chan struct{} // closed when granted, or when the connection is lost
	granted bool
}

// take takes n slots if they are free, reporting whether it did.
func (s *slots) take(n int) bool {
	if int(s.used.Load())+n > s.max {
		return false
	}
	s.used.Add(int64(n))
	return true
}

// release frees n slots and grants them to the waiters that now fit,
// oldest first.
func (s *slots) release(n int) {
	s.used.Add(int64(-n))
	if len(s.waiting) == 0 {
		return
	}
	kept := s.waiting[:0]
	for _, w := range s.waiting {
		if s.take(w.n) {
			w.granted = true
			close(w.ready)
		} else {
			kept = append(kept, w)
		}
	}
	clear(s.waiting[len(kept):])
	s.waiting = kept
}

// leave removes w from the waiters, if it is there.
func (s *slots) leave(w *slotWaiter) {
	if i := slices.Index(s.waiting, w); i >= 0 {
		s.waiting = slices.Delete(s.waiting, i, i+1)
	}
}

// wakeAll ends every wait (the connection is lost).
func (s *slots) wakeAll() {
	for _, w := range s.waiting {
		close(w.ready)
	}
	clear(s.waiting)
	s.waiting = s.waiting[:0]
}

// finish records how a call ended, once.
func (o *outbound) finish(result []byte, err error) {
	o.result, o.err = result, err
	close(o.done)
}

// Progress is a progress report the peer sent for a call of ours, in the
// Model Context Protocol's notifications/progress.
type Progress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"` // 0 when unknown
	Message  string  `json:"message,omitempty"`
}

type progressKey struct{}

// WithProgress returns a context whose calls (Conn.Call, Conn.Batch) ask
// the peer for progress reports: a progress token goes into the call's
// params._meta.progressToken, and each notifications/progress for that
// token is passed to fn, in the calling goroutine, before Call returns.
// Progress needs named params (an object, or none).
func WithProgress(ctx context.Context, fn func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// progressQueue holds the reports of one call until its caller takes them.
type progressQueue struct {
	fn      func(Progress)
	mu      sync.Mutex
	reports []Progress
	ready   chan struct{} // signalled (capacity 1) when reports were added
}

// maxQueuedReports bounds the reports held for a caller that does not take
// them: older ones are dropped, the latest kept.
const maxQueuedReports = 1024

func (q *progressQueue) add(p Progress) {
	q.mu.Lock()
	if len(q.reports) == maxQueuedReports {
		q.reports = append(q.reports[:0], q.reports[1:]...)
	}
	q.reports = append(q.reports, p)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// deliver passes the queued reports to the callback.
func (q *progressQueue) deliver() {
	q.mu.Lock()
	reports := q.reports
	q.reports = nil
	q.mu.Unlock()
	for _, p := range reports {
		q.fn(p)
	}
}

// Call calls method on the peer with params (encoded with encoding/json:
// an object, an array, or nil for none) and decodes the result into result
// (a pointer; nil discards it).
//
// An error response comes back as a *codec.Error (errors.As) with its code,
// message and data intact. When ctx ends first — while Call waits for a
// slot (Options.MaxPendingCalls), for room in a blocked output, or for the
// response — Call returns ctx.Err() at once: a request not yet taken for
// writing is never sent; one already sent or being written is followed by
// a cancellation (Options.CancelNotification), which never waits, and its
// response is dropped when it comes. When the connection ends first, the
// error wraps ErrClosed and says why (see ErrClosed).
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	o := c.newOutbound(ctx)
	buf := getBuffer()
	line, err := c.appendCall(*buf, o, method, params)
	*buf = line
	if err == nil {
		err = c.register(ctx, o)
	}
	var sent codec.Ticket
	if err == nil {
		if sent, err = c.send(ctx, line); err != nil {
			c.forgetOutbound(o)
		}
	}
	putBuffer(buf)
	if err != nil {
		return err
	}
	if err := c.await(ctx, o); err != nil {
		if c.forgetOutbound(o) {
			c.cancelSent(sent, o)
		}
		return err
	}
	return decodeResult(o, result)
}

// newOutbound makes a call of ours, with its progress queue if ctx asks
// for progress.
func (c *Conn) newOutbound(ctx context.Context) *outbound {
	o := &outbound{id: c.nextID.Add(1), done: make(chan struct{})}
	if fn, ok := ctx.Value(progressKey{}).(func(Progress)); ok && fn != nil {
		o.progress = &progressQueue{fn: fn, ready: make(chan struct{}, 1)}
	}
	return o
}

// register adds calls to the pending ones once it has a slot for each,
// waiting for the slots, all at once, as long as ctx lets it. The calls
// of a batch (their batch set) make it one of c.outBatches.
func (c *Conn) register(ctx context.Context, calls ...*outbound) error {
	n := len(calls)
	c.mu.Lock()
	if err := c.lost; err != nil {
		c.mu.Unlock()
		return err
	}
	if !c.slots.take(n) {
		w := &slotWaiter{n: n, ready: make(chan struct{})}
		c.slots.waiting = append(c.slots.waiting, w)
		c.mu.Unlock()
		select {
		case <-w.ready:
		case <-ctx.Done():
		}
		c.mu.Lock()
		c.slots.leave(w)
		err := c.lost
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			if w.granted {
				c.slots.release(n)
			}
			c.mu.Unlock()
			return err
		}
	}
	for _, o := range calls {
		c.pending[o.id] = o
	}
	if b := calls[0].batch; b != nil {
		b.waiting = n
		c.outBatches[b] = struct{}{}
	}
	c.mu.Unlock()
	c.queue.wake() // a reader waiting for room may now read on
	return nil
}

// send writes a line of ours (its '\n' is appended). With a context that
// can end, the line is handed to the writer (codec.Writer.Enqueue), which
// waits for room no longer than ctx and never writes in this goroutine: a
// blocked output cannot hold the caller past ctx. The Ticket lets the line
// be withdrawn while no write has taken it.
func (c *Conn) send(ctx context.Context, line []byte) (codec.Ticket, error) {
	if ctx.Done() == nil {
		return codec.Ticket{}, c.writeErr(line)
	}
	return c.queueLine(ctx, line)
}

// queueLine hands a line (its '\n' is appended) to the writer
// (codec.Writer.Enqueue), as send does with a context that can end.
func (c *Conn) queueLine(ctx context.Context, line []byte) (codec.Ticket, error) {
	t, err := c.w.Enqueue(ctx, append(line, '\n'))
	if err != nil && err == ctx.Err() {
		return t, err
	}
	return t, c.wrote(err)
}

// appendCall encodes the request of o, with its progress token if any.
func (c *Conn) appendCall(dst []byte, o *outbound, method string, params any) ([]byte, error) {
	var tokBuf [20]byte
	tok := strconv.AppendInt(tokBuf[:0], o.id, 10)
	if o.progress == nil {
		return codec.AppendRequest(dst, tok, method, params)
	}
	raw, err := codec.AppendValue(nil, params)
	if err != nil {
		return dst, err
	}
	if raw, err = withProgressToken(raw, string(tok)); err != nil {
		return dst, err
	}
	return codec.AppendRequest(dst, tok, method, json.RawMessage(raw))
}

// ourID reads a token as an id of ours: a positive decimal integer as
// strconv.AppendInt writes it.
func ourID(tok []byte) (int64, bool) {
	if len(tok) == 0 || len(tok) > 18 || tok[0] == '0' {
		return 0, false
	}
	var n int64
	for _, c := range tok {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// withProgressToken sets _meta.progressToken in the params object raw (or
// makes one when raw is null). The token is the call's id, unique among the
// calls under way.
func withProgressToken(raw []byte, token string) ([]byte, error) {
	member := `"progressToken":` + token
	switch {
	case string(raw) == "null":
		return []byte(`{"_meta":{` + member + `}}`), nil
	case raw[0] != '{':
		return nil, errors.New("rpc: progress needs named params (an object)")
	}
	meta := codec.Member(raw, "_meta")
	if meta == nil {
		if bytes.Equal(raw, []byte("{}")) {
			return []byte(`{"_meta":{` + member + `}}`), nil
		}
		return append([]byte(`{"_meta":{`+member+`},`), raw[1:]...), nil
	}
	if meta[0] != '{' || codec.Member(meta, "progressToken") != nil {
		return nil, errors.New("rpc: params._meta must be an object without a progressToken")
	}
	at := cap(raw) - cap(meta) // meta is a subslice of raw: where it starts
	out := append([]byte(nil), raw[:at+1]...)
	out = append(out, member...)
	if !bytes.Equal(meta, []byte("{}")) {
		out = append(out, ',')
	}
	return append(out, raw[at+1:]...), nil
}

// await waits for o's response, delivering its progress reports, or for
// ctx to end.
func (c *Conn) await(ctx context.Context, o *outbound) error {
	var ready chan struct{}
	if o.progress != nil {
		ready = o.progress.ready
	}
	for {
		select {
		case <-o.done:
			if o.progress != nil {
				o.progress.deliver()
			}
			return nil
		case <-ready:
			o.progress.deliver()
		case <-ctx.Done():
			select {
			case <-o.done: // answered at the same moment: take the answer
				continue
			default:
			}
			return ctx.Err()
		}
	}
}

// cancelSent deals with the calls we stopped waiting for, whose request
// line is sent: the line is withdrawn if no write has taken it (the peer
// never sees them), else the peer is told to cancel each.
func (c *Conn) cancelSent(sent codec.Ticket, calls ...*outbound) {
	if len(calls) == 0 || c.w.Withdraw(sent) {
		return
	}
	for _, o := range calls {
		c.cancelRemote(o)
	}
}

// cancelRemote tells the peer to cancel o, whose request it may have read.
// It never waits: the notice is queued (codec.Writer.QueueLine), and
// dropped when the output is far behind (the call then runs to its end on
// the peer's side; its response is dropped here).
func (c *Conn) cancelRemote(o *outbound) {
	var tokBuf [20]byte
	tok := json.RawMessage(strconv.AppendInt(tokBuf[:0], o.id, 10))
	var params any
	if c.cancelMethod == CancelledNotification {
		params = struct {
			RequestID json.RawMessage `json:"requestId"`
		}{tok}
	} else {
		params = struct {
			ID json.RawMessage `json:"id"`
		}{tok}
	}
	line, err := codec.AppendRequest(nil, nil, c.cancelMethod, params)
	if err == nil {
		err = c.w.QueueLine(line)
	}
	if err != nil {
		c.log.Debug("rpc: cancellation not sent", "id", o.id, "error", err)
	}
}

// forgetOutbound removes o from the pending calls, reporting whether it was
// there (a response or the end may have taken it first).
func (c *Conn) forgetOutbound(o *outbound) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending[o.id] != o {
		return false
	}
	c.dropLocked(o)
	c.abandoned.add(o.id)
	return true
}

// dropLocked removes o from the pending calls and frees its slot; c.mu is
// held.
func (c *Conn) dropLocked(o *outbound) {
	delete(c.pending, o.id)
	if b := o.batch; b != nil {
		if b.waiting--; b.waiting == 0 {
			delete(c.outBatches, b)
		}
	}
	c.slots.release(1)
}

func decodeResult(o *outbound, result any) error {
	if o.err != nil {
		return o.err
	}
	if result == nil {
		return nil
	}
	if err := json.Unmarshal(o.result, result); err != nil {
		return fmt.Errorf("rpc: decoding the result: %w", err)
	}
	return nil
}

// route hands a response to the call of ours it answers.
func (c *Conn) route(m *codec.Message) {
	if m.ID == nil || string(m.ID) == "null" {
		c.routeUnidentified(m)
		return
	}
	id, ours := ourID(m.ID)
	c.mu.Lock()
	var o *outbound
	if ours {
		o = c.pending[id]
	}
	if o != nil {
		c.dropLocked(o)
	}
	abandoned := o == nil && ours && c.abandoned.has(id)
	c.mu.Unlock()
	switch {
	case o != nil:
		o.finish(responseOf(m))
	case abandoned:
		c.log.Debug("rpc: response to a cancelled call dropped", "id", codec.Echo(m.ID))
	default:
		c.log.Warn("rpc: unexpected response dropped", "id", codec.Echo(m.ID))
	}
}

// responseOf is what a response says: a result or an error.
func responseOf(m *codec.Message) ([]byte, error) {
	if m.Err != nil {
		return nil, fmt.Errorf("%w: %s", ErrBadResponse, m.Err.Message)
	}
	if m.Error != nil {
		var e codec.Error
		if err := json.Unmarshal(m.Error, &e); err != nil {
			// Malformed (a peer that leaves out an empty message, say),
			// but what it does say is kept: errors.As finds the code.
			var partial struct {
				Code    codec.Code      `json:"code"`
				Message string          `json:"message"`
				Data    json.RawMessage `json:"data"`
			}
			if json.Unmarshal(m.Error, &partial) == nil {
				pe := &codec.Error{Code: partial.Code, Message: partial.Message}
				if partial.Data != nil {
					pe.Data = partial.Data
				}
				return nil, fmt.Errorf("%w: %v: %w", ErrBadResponse, err, pe)
			}
			return nil, fmt.Errorf("%w: %v", ErrBadResponse, err)
		}
		return nil, &e
	}
	return m.Result, nil
}

// routeUnidentified handles a response with id null (or none): the peer
// could not read a request of ours — a line over its size limit, say — and
// cannot say which. A well-formed error fails the calls it can only be
// about: every batch under way (a batch is answered as a whole), or, with
// no batch under way, the one call under way if there is just one. Anything
// else — a result, a malformed response, an error that could be any of
// several calls' — is logged and dropped, and those calls end with their
// contexts.
func (c *Conn) routeUnidentified(m *codec.Message) {
	if m.Err != nil || m.Error == nil {
		c.log.Warn("rpc: unexpected response dropped", "id", "null")
		return
	}
	_, err := responseOf(m)
	c.mu.Lock()
	var failed []*outbound
	for b := range c.outBatches { // the batches under way, not every call
		for _, o := range b.calls {
			if c.pending[o.id] == o {
				failed = append(failed, o)
			}
		}
	}
	if len(failed) == 0 && len(c.pending) == 1 {
		for _, o := range c.pending {
			failed = append(failed, o)
		}
	}
	for _, o := range failed {
		c.dropLocked(o)
	}
	c.mu.Unlock()
	if len(failed) == 0 {
		c.log.Warn("rpc: error response with id null dropped", "error", codec.Echo(err.Error()))
	}
	for _, o := range failed {
		o.finish(nil, err)
	}
}

// routeProgress passes a notifications/progress to the call of ours whose
// token it carries, reporting whether the token was one of ours: a report
// for a call of ours that did not ask for progress (a peer may use the
// request's id as the token) or that has ended is dropped, at Debug.
func (c *Conn) routeProgress(params []byte) bool {
	id, ours := ourID(codec.Member(params, "progressToken"))
	if !ours || id > c.nextID.Load() {
		return false // not a token of ours: the Handler's
	}
	c.mu.Lock()
	o := c.pending[id]
	c.mu.Unlock()
	if o == nil || o.progress == nil {
		c.log.Debug("rpc: progress for no call of ours awaiting it dropped", "token", id)
		return true
	}
	var p Progress
	if err := json.Unmarshal(params, &p); err != nil {
		c.log.Debug("rpc: malformed progress dropped", "error", codec.Echo(err.Error()))
		return true
	}
	o.progress.add(p)
	return true
}

// failPending ends every call of ours still waiting, and every later one,
// with an error that wraps ErrClosed and cause, which says why. The first
// cause stands: every call fails the same way.
func (c *Conn) failPending(cause error) {
	c.mu.Lock()
	err := c.loseLocked(cause)
	pending := c.pending
	c.pending = map[int64]*outbound{}
	clear(c.outBatches)
	c.slots.used.Add(int64(-len(pending)))
	c.slots.wakeAll()
	c.mu.Unlock()
	for _, o := range pending {
		o.finish(nil, err)
	}
}

// loseLocked records why the connection is lost, unless a reason already
// was, and returns the error every call of ours fails with from now on;
// c.mu is held.
func (c *Conn) loseLocked(cause error) error {
	if c.lost == nil {
		c.lost = ErrClosed
		if cause != nil && !errors.Is(cause, ErrClosed) {
			c.lost = fmt.Errorf("%w: %w", ErrClosed, cause)
		}
	}
	return c.lost
}

// inputEnded fails the calls of ours waiting: with the input ended (err
// is io.EOF) or failed, no response can come any more.
func (c *Conn) inputEnded(err error) {
	if err == io.EOF {
		c.failPending(errInputEnded)
	} else {
		c.failPending(fmt.Errorf("the input failed: %w", err))
	}
}

// lostErr is why the connection is lost (wrapping ErrClosed), or nil.
func (c *Conn) lostErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lost
}

// closedErr is the error of a call of ours once the connection is lost.
func (c *Conn) closedErr() error {
	if err := c.lostErr(); err != nil {
		return err
	}
	return ErrClosed
}

// BatchCall is one entry of a batch: a call, or a notification.
type BatchCall struct {
	Method string
	Params any // an object, an array, or nil
	// Result receives the entry's result (a pointer; nil discards it).
	Result any
	// Notification sends the entry as a notification: no response.
	Notification bool
	// Err is set by Batch: the entry's error (a *codec.Error for an error
	// response), or nil.
	Err error
}

// Batch sends calls as one batch (one array, on one line) and waits for
// every call's response, setting each entry's Result and Err. It returns
// an error only when the batch as a whole fails: the context ended (the
// peer is told to cancel every call; a batch not yet taken for writing is
// never sent), the connection ended, or an entry cannot be encoded; the
// entries still waiting then get that error too.
//
// The batch takes a slot (Options.MaxPendingCalls) for each of its calls
// (notifications take none) all at once: it waits until that many are
// free, holding none meanwhile. A batch with more calls than
// MaxPendingCalls fails at once.
func (c *Conn) Batch(ctx context.Context, calls []BatchCall) error {
	if len(calls) == 0 {
		return errors.New("rpc: an empty batch is invalid")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	n := 0
	for _, bc := range calls {
		if !bc.Notification {
			n++
		}
	}
	if n > c.slots.max {
		return fmt.Errorf("rpc: a batch of %d calls is more than Options.MaxPendingCalls (%d)", n, c.slots.max)
	}
	outs := make([]*outbound, len(calls))
	ob := &outBatch{calls: make([]*outbound, 0, n)}
	buf := getBuffer()
	defer putBuffer(buf)
	line := append((*buf)[:0], '[')
	for i := range calls {
		bc := &calls[i]
		if i > 0 {
			line = append(line, ',')
		}
		var err error
		if bc.Notification {
			line, err = codec.AppendRequest(line, nil, bc.Method, bc.Params)
		} else {
			o := c.newOutbound(ctx)
			o.batch, outs[i] = ob, o
			ob.calls = append(ob.calls, o)
			line, err = c.appendCall(line, o, bc.Method, bc.Params)
		}
		if err != nil {
			*buf = line
			return err
		}
	}
	line = append(line, ']')
	*buf = line
	fail := func(err error) error {
		for i, o := range outs {
			if o != nil {
				c.forgetOutbound(o)
				calls[i].Err = err
			}
		}
		return err
	}
	if n > 0 {
		if err := c.register(ctx, ob.calls...); err != nil {
			return fail(err)
		}
	} else if err := c.lostErr(); err != nil {
		return err
	}
	sent, err := c.send(ctx, line)
	if err != nil {
		return fail(err)
	}
	var lost error
	for i, o := range outs {
		if o == nil {
			continue
		}
		if err := c.await(ctx, o); err != nil {
			var dropped []*outbound
			for j := i; j < len(outs); j++ {
				switch o := outs[j]; {
				case o == nil:
				case c.forgetOutbound(o):
					dropped = append(dropped, o)
					calls[j].Err = err
				default: // answered, or failed, at the same moment
					<-o.done
					calls[j].Err = decodeResult(o, calls[j].Result)
				}
			}
			c.cancelSent(sent, dropped...)
			return err
		}
		calls[i].Err = decodeResult(o, calls[i].Result)
		if lost == nil && errors.Is(o.err, ErrClosed) {
			lost = o.err // the connection ended: the batch as a whole failed
		}
	}
	return lost
}

// abandonedIDs remembers the ids of the last calls we stopped waiting for,
// so that their late responses are dropped quietly. Ids are never reused,
// so each is in the ring at most once.
type abandonedIDs struct {
	ring [256]int64
	next int
	set  map[int64]bool
}

func (a *abandonedIDs) add(id int64) {
	if a.set == nil {
		a.set = map[int64]bool{}
	}
	delete(a.set, a.ring[a.next])
	a.ring[a.next] = id
	a.set[id] = true
	a.next = (a.next + 1) % len(a.ring)
}

func (a *abandonedIDs) has(id int64) bool { return a.set[id] }
