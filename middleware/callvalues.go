package middleware

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/toolrpc/toolrpc/rpc"
)

// Values middleware keep for a call.
//
// A middleware that keeps a value for each call (Correlation its trace id,
// Progress the reports so far) would wrap the call's context in one of its
// own, as context.WithValue does: an allocation per middleware per call.
// withCallValue does that job for all of them in one allocation per call:
// the first to keep a value for a request makes a callContext, the next
// ones add theirs to it. It knows nothing of what they keep: each
// middleware has its own key, sets up only what is the same for every call
// (conf), and mints the rest on first use (callValue), since most calls
// never log nor report.

// callSlots is how many values a callContext holds: those of Correlation
// and Progress, and a trace id given with WithTraceID by middleware inside
// them. A middleware finding no room makes another.
const callSlots = 3

// callContext is a call's context with the values middleware keep for it,
// each under its key. A value added to it is seen through every context
// made from it, those of the middleware outside the one that added it
// included.
type callContext struct {
	context.Context
	req *rpc.Request // the call the values belong to

	// n slots are in use. A slot is written once, before n counts it (so
	// that Value reads keys without locking); its val, when minted.
	n     atomic.Int32
	slots [callSlots]callSlot
	mu    sync.Mutex // guards adding a slot, and minting a val
}

// callSlot is one value of a call.
type callSlot struct {
	key  any // the middleware's key: a type of its own
	conf any // what the middleware set up, the same for every call
	val  any // minted on first use, then kept
}

// callContextKey finds the innermost callContext of a context.
type callContextKey struct{}

// Value returns c itself for callContextKey and for the key of each of its
// values (see callValue), else the parent's value.
func (c *callContext) Value(key any) any {
	if key == (callContextKey{}) || c.slot(key) != nil {
		return c
	}
	return c.Context.Value(key)
}

// slot returns the last slot with key, or nil.
func (c *callContext) slot(key any) *callSlot {
	for i := c.n.Load() - 1; i >= 0; i-- {
		if c.slots[i].key == key {
			return &c.slots[i]
		}
	}
	return nil
}

// withCallValue returns a context that carries, for the call req, a value
// under key: made by the mint function of callValue from req and conf when
// first asked for. The value is added to the innermost callContext of ctx
// when that belongs to req (not to a request a middleware copied, nor to
// the call of a handler that called another with its context) and has
// room; else ctx is wrapped in a new one.
func withCallValue(ctx context.Context, req *rpc.Request, key, conf any) context.Context {
	if c, _ := ctx.Value(callContextKey{}).(*callContext); c != nil && c.req == req && c.add(key, conf) {
		return ctx
	}
	c := &callContext{Context: ctx, req: req}
	c.slots[0] = callSlot{key: key, conf: conf}
	c.n.Store(1)
	return c
}

// add gives key a slot in c with conf, and reports whether there was room.
func (c *callContext) add(key, conf any) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.n.Load()
	if n == callSlots {
		return false
	}
	c.slots[n] = callSlot{key: key, conf: conf}
	c.n.Store(n + 1)
	return true
}

// callValue returns the value under key of the call ctx belongs to (of the
// innermost call that has one), minting it with mint(req, conf) on first
// use; nil if no middleware keeps one under key.
func callValue(ctx context.Context, key any, mint func(req *rpc.Request, conf any) any) any {
	c, _ := ctx.Value(key).(*callContext)
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.slot(key)
	if s.val == nil {
		s.val = mint(c.req, s.conf)
	}
	return s.val
}
