package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/rpchttp"
)

// The calls of an HTTPHandler's to its clients, for a transport bound to
// it (rpchttp.Server): a handler's request to the client goes on the
// event stream of the call it serves, and the client's response comes in
// a later request of its own, which the transport delivers. They are
// registered as a Conn's calls are (pendingCalls: the ids, the calls
// waiting, those given up on), so that a response is read the same way on
// both transports.

// pending returns the handler's registry of calls to its clients, made
// when first needed (most handlers never call: a stateless request's).
func (s *HTTPHandler) pending() *pendingCalls {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.calls == nil {
		s.calls = &pendingCalls{}
		s.calls.init(s.log, &Options{})
	}
	return s.calls
}

// Call sends the client the request method with params (a JSON object or
// array, or nil), on the event stream of the call ctx belongs to, and
// waits for its response (Deliver) or for ctx to end; see rpchttp.Server.
func (b *boundHandler) Call(ctx context.Context, method string, params json.RawMessage) (result json.RawMessage, sent bool, err error) {
	p := (*HTTPHandler)(b).pending()
	o := &outbound{id: p.nextID.Add(1), done: make(chan struct{})}
	if err := p.register(ctx, o); err != nil {
		return nil, false, err
	}
	line, err := codec.AppendRequest(nil, strconv.AppendInt(nil, o.id, 10), method, params)
	if err == nil {
		err = Send(ctx, line)
	}
	if err != nil {
		p.forget(o)
		return nil, false, err
	}
	if l := lenderOf(ctx); l != nil && l.Lend() {
		defer l.Reclaim(ctx)
	}
	select {
	case <-o.done:
	case <-ctx.Done():
		if p.forget(o) {
			return nil, true, ctx.Err()
		}
		<-o.done // answered at the same moment: take the answer
	}
	return o.result, true, o.err
}

// lenderOf is the Lender of the exchange of the call ctx belongs to, or
// nil.
func lenderOf(ctx context.Context) rpchttp.Lender {
	in := callFrom(ctx)
	if in == nil {
		return nil
	}
	if r, ok := in.out.(*httpReply); ok && r.ext != nil {
		return r.ext.x.Lender
	}
	return nil
}

// Deliver hands a client's response to the call of the handler's waiting
// for it, read as a Conn reads a response (its depth bounded by
// Options.MaxDepth, its error object checked), and reports whether one
// was; see rpchttp.Server.
func (b *boundHandler) Deliver(response []byte) bool {
	s := (*HTTPHandler)(b)
	s.mu.Lock()
	p := s.calls
	s.mu.Unlock()
	if p == nil {
		return false
	}
	dec := codec.Decoder{MaxDepth: s.maxDepth}
	msgs, isBatch := dec.Decode(bytes.Clone(response)) // the body's buffer is the transport's
	if isBatch || len(msgs) != 1 || msgs[0].Kind != codec.Response {
		return false
	}
	return p.deliver(&msgs[0])
}

// Waiting returns how many calls wait for their clients' responses; see
// rpchttp.Server.
func (b *boundHandler) Waiting() int {
	s := (*HTTPHandler)(b)
	s.mu.Lock()
	p := s.calls
	s.mu.Unlock()
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.pending)
}
