package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

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
type outBatch struct{ calls []*outbound }

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
// message and data intact. When ctx ends first, Call tells the peer (see
// Options.CancelNotification), returns ctx.Err() at once, and drops the
// response when it comes. When the connection ends first, the error
// wraps ErrClosed and says why.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	o, err := c.newOutbound(ctx)
	if err != nil {
		return err
	}
	buf := getBuffer()
	line, err := c.appendCall(*buf, o, method, params)
	*buf = line
	if err == nil {
		err = c.writeErr(line)
	}
	putBuffer(buf)
	if err != nil {
		c.forgetOutbound(o)
		return err
	}
	if err := c.await(ctx, o); err != nil {
		return err
	}
	return decodeResult(o, result)
}

// newOutbound registers a new call, with its progress queue if ctx asks
// for progress.
func (c *Conn) newOutbound(ctx context.Context) (*outbound, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case c.callSlots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.done:
		return nil, ErrClosed
	}
	o := &outbound{id: c.nextID.Add(1), done: make(chan struct{})}
	if fn, ok := ctx.Value(progressKey{}).(func(Progress)); ok && fn != nil {
		o.progress = &progressQueue{fn: fn, ready: make(chan struct{}, 1)}
	}
	c.mu.Lock()
	if c.lost != nil {
		c.mu.Unlock()
		<-c.callSlots
		return nil, c.lost
	}
	c.pending[o.id] = o
	c.mu.Unlock()
	c.queue.wake() // a reader waiting for room may now read on
	return o, nil
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
			c.abandon(o)
			return ctx.Err()
		}
	}
}

// abandon stops waiting for o and tells the peer to cancel it.
func (c *Conn) abandon(o *outbound) {
	if !c.forgetOutbound(o) {
		return
	}
	tok := json.RawMessage(strconv.FormatInt(o.id, 10))
	var params any
	if c.cancelMethod == CancelledNotification {
		params = map[string]json.RawMessage{"requestId": tok}
	} else {
		params = map[string]json.RawMessage{"id": tok}
	}
	_ = c.Notify(context.Background(), c.cancelMethod, params)
}

// forgetOutbound removes o from the pending calls, reporting whether it was
// there (a response or the end may have taken it first).
func (c *Conn) forgetOutbound(o *outbound) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending[o.id] != o {
		return false
	}
	c.dropLocked(o.id)
	c.abandoned.add(o.id)
	return true
}

// dropLocked removes the call id from the pending calls and frees its
// slot; c.mu is held.
func (c *Conn) dropLocked(id int64) {
	delete(c.pending, id)
	<-c.callSlots
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
		c.dropLocked(o.id)
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
	for _, o := range c.pending {
		if o.batch != nil {
			failed = append(failed, o)
		}
	}
	if len(failed) == 0 && len(c.pending) == 1 {
		for _, o := range c.pending {
			failed = append(failed, o)
		}
	}
	for _, o := range failed {
		c.dropLocked(o.id)
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
// token it carries, reporting whether there was one.
func (c *Conn) routeProgress(params []byte) bool {
	id, ours := ourID(codec.Member(params, "progressToken"))
	if !ours {
		return false
	}
	c.mu.Lock()
	o := c.pending[id]
	c.mu.Unlock()
	if o == nil || o.progress == nil {
		return false
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
// with an error that wraps ErrClosed and cause.
func (c *Conn) failPending(cause error) {
	err := ErrClosed
	if cause != nil && !errors.Is(cause, ErrClosed) {
		err = fmt.Errorf("%w: %w", ErrClosed, cause)
	}
	c.mu.Lock()
	if c.lost == nil {
		c.lost = err
	}
	pending := c.pending
	c.pending = map[int64]*outbound{}
	for range pending {
		<-c.callSlots
	}
	c.mu.Unlock()
	for _, o := range pending {
		o.finish(nil, err)
	}
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
// peer is told to cancel every call), the connection ended, or an entry
// cannot be encoded; the entries still waiting then get that error too.
func (c *Conn) Batch(ctx context.Context, calls []BatchCall) error {
	if len(calls) == 0 {
		return errors.New("rpc: an empty batch is invalid")
	}
	if len(calls) > cap(c.callSlots) {
		return fmt.Errorf("rpc: a batch of %d calls is more than Options.MaxPendingCalls (%d)", len(calls), cap(c.callSlots))
	}
	outs := make([]*outbound, len(calls))
	ob := &outBatch{}
	fail := func(err error) error {
		for i, o := range outs {
			if o != nil {
				c.forgetOutbound(o)
				calls[i].Err = err
			}
		}
		return err
	}
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
			var o *outbound
			if o, err = c.newOutbound(ctx); err == nil {
				o.batch, outs[i] = ob, o
				ob.calls = append(ob.calls, o)
				line, err = c.appendCall(line, o, bc.Method, bc.Params)
			}
		}
		if err != nil {
			*buf = line
			return fail(err)
		}
	}
	line = append(line, ']')
	*buf = line
	if err := c.writeErr(line); err != nil {
		return fail(err)
	}
	for i, o := range outs {
		if o == nil {
			continue
		}
		if err := c.await(ctx, o); err != nil {
			for _, rest := range outs[i:] {
				if rest != nil {
					c.abandon(rest)
				}
			}
			return fail(err)
		}
		calls[i].Err = decodeResult(o, calls[i].Result)
	}
	return nil
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
