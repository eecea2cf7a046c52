package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/jsonx"
)

// ErrBadResponse is wrapped by the error of a call whose response breaks
// the specification (both result and error, an error that is not an error
// object...).
var ErrBadResponse = errors.New("rpc: malformed response")

// route hands a response to the call of ours it answers.
func (p *pendingCalls) route(m *codec.Message) {
	if m.ID == nil || string(m.ID) == "null" {
		p.routeUnidentified(m)
		return
	}
	id, ours := ourID(m.ID)
	p.mu.Lock()
	var o *outbound
	if ours {
		o = p.pending[id]
	}
	if o != nil {
		p.dropLocked(o)
	}
	abandoned := o == nil && ours && p.abandoned.has(id)
	p.mu.Unlock()
	switch {
	case o != nil:
		o.finish(responseOf(m))
	case abandoned:
		p.log.Debug("rpc: response to a cancelled call dropped", "id", jsonx.Echo(m.ID))
	default:
		p.dropped.log(p.log, "rpc: unexpected response dropped", slog.String("id", jsonx.Echo(m.ID)))
	}
}

// dropped counts the responses a connection (or an HTTPHandler) drops
// because they answer no call of ours, for their log records: the 1st,
// 2nd, 4th, 8th... is logged at Warn, saying how many so far, the others
// at Debug. A peer that sends a million such responses makes 21 Warn
// records, not a million, and the log still says it happened.
type dropped struct{ n atomic.Uint64 }

// log logs one more response dropped, with msg and attr.
func (d *dropped) log(log *slog.Logger, msg string, attr slog.Attr) {
	n := d.n.Add(1)
	level := slog.LevelDebug
	if n&(n-1) == 0 {
		level = slog.LevelWarn
	}
	log.LogAttrs(context.Background(), level, msg, attr, slog.Uint64("dropped", n))
}

// deliver hands a response to the call of ours it answers, as route does,
// and reports whether one was waiting for it: a response to no call is
// left to the caller (a transport that delivers responses it classified
// itself: rpchttp.Server.Deliver), neither logged nor taken for one about
// a request the peer could not read (see routeUnidentified).
func (p *pendingCalls) deliver(m *codec.Message) bool {
	id, ours := ourID(m.ID)
	if !ours {
		return false
	}
	p.mu.Lock()
	o := p.pending[id]
	if o != nil {
		p.dropLocked(o)
	}
	p.mu.Unlock()
	if o == nil {
		return false
	}
	o.finish(responseOf(m))
	return true
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

// eachResponse calls f with each response of a batch's messages, those to
// an id first, then those to null: a batch's answers may come in any
// order, matched by their ids (JSON-RPC 2.0, section 6), so an error to
// id null, which fails the calls still unanswered, is only about those
// the array does not answer otherwise.
func eachResponse(msgs []codec.Message, f func(*codec.Message)) {
	for _, toNull := range []bool{false, true} {
		for i := range msgs {
			if m := &msgs[i]; m.Kind == codec.Response && toNull == (m.ID == nil || string(m.ID) == "null") {
				f(m)
			}
		}
	}
}

// routeUnidentified handles a response with id null (or none): the peer
// could not read a request of ours — a line over its size limit, say — and
// cannot say which. A well-formed error fails the calls it can only be
// about: every batch under way (a batch is answered as a whole), or, with
// no batch under way, the one call under way if there is just one. Anything
// else — a result, a malformed response, an error that could be any of
// several calls' — is logged and dropped, and those calls end with their
// contexts.
func (p *pendingCalls) routeUnidentified(m *codec.Message) {
	if m.Err != nil || m.Error == nil {
		p.dropped.log(p.log, "rpc: unexpected response dropped", slog.String("id", "null"))
		return
	}
	_, err := responseOf(m)
	p.mu.Lock()
	var failed []*outbound
	for b := range p.batches { // the batches under way, not every call
		for _, o := range b.calls {
			if p.pending[o.id] == o {
				failed = append(failed, o)
			}
		}
	}
	if len(failed) == 0 && len(p.pending) == 1 {
		for _, o := range p.pending {
			failed = append(failed, o)
		}
	}
	for _, o := range failed {
		p.dropLocked(o)
	}
	p.mu.Unlock()
	if len(failed) == 0 {
		p.dropped.log(p.log, "rpc: error response with id null dropped", slog.String("error", jsonx.Echo(err.Error())))
	}
	for _, o := range failed {
		o.finish(nil, err)
	}
}

// routeProgress passes a notifications/progress to the call of ours whose
// token it carries, reporting whether the token was one of ours: a report
// for a call of ours that did not ask for progress (a peer may use the
// request's id as the token) or that has ended is dropped, at Debug.
func (p *pendingCalls) routeProgress(params []byte) bool {
	id, ours := ourID(jsonx.Member(params, "progressToken"))
	if !ours || id > p.nextID.Load() {
		return false // not a token of ours: the Handler's
	}
	p.mu.Lock()
	o := p.pending[id]
	p.mu.Unlock()
	if o == nil || o.progress == nil {
		p.log.Debug("rpc: progress for no call of ours awaiting it dropped", "token", id)
		return true
	}
	var report Progress
	if err := json.Unmarshal(params, &report); err != nil {
		p.log.Debug("rpc: malformed progress dropped", "error", jsonx.Echo(err.Error()))
		return true
	}
	o.progress.add(report)
	return true
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
