package rpc

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/internal/recovery"
)

// States of an inbound call. A call moves from queued to running to done;
// the peer's cancellation moves a queued call straight to done, and a
// running one to one of the cancelled states, which the handler's return
// then moves to done.
const (
	stateQueued       int32 = iota
	stateRunning            // the handler runs
	stateCancelledLSP       // the handler runs; answer RequestCancelled
	stateCancelledMCP       // the handler runs; answer nothing
	stateDone               // answered, or being answered

	// stateNoted is added to stateRunning or a cancelled state once the
	// call has written a notification, whose read its response awaits
	// (see replier.awaitRead).
	stateNoted int32 = 1 << 4
)

// inbound is a request or notification from the peer, from the moment it is
// read until it is answered. It is its handler's context too: the embedded
// Context (cancelled with the call, with a cause) and, for callKey, itself.
type inbound struct {
	context.Context
	cancel context.CancelCauseFunc
	out    replier // where its answer and its notifications go
	req    Request
	batch  *batch   // the batch it came in, or nil
	next   *inbound // the next in flight whose id has the same hash

	state atomic.Int32 // see stateQueued
	slot  int32        // its place in the batch

	// notifyMu orders the call's notifications before its response: it is
	// held while one is written, and to mark the call done.
	notifyMu sync.Mutex

	// answer is how a layer of its handler answers a panic beneath it
	// (internal/recovery); used by the call's goroutine alone.
	answer recovery.Set
}

// Value returns the call itself for callKey and recovery.Key; otherwise
// what the transport's context holds (its own first: the call's
// cancellation is its), and then what the context of the HTTP request
// that carried the call holds, so that an ordinary net/http middleware's
// values reach the handler.
func (in *inbound) Value(key any) any {
	switch key {
	case callKey{}, recovery.Key{}:
		return in
	}
	if v := in.Context.Value(key); v != nil {
		return v
	}
	if r := in.out.request(); r != nil {
		return r.Context().Value(key)
	}
	return nil
}

// SwapAnswer puts s in place as the answer to a panic of the call's code,
// returning the one it replaced (recovery.Call).
func (in *inbound) SwapAnswer(s recovery.Set) recovery.Set {
	prev := in.answer
	in.answer = s
	return prev
}

// begin moves a queued call to running, unless it was cancelled first.
func (in *inbound) begin() bool { return in.state.CompareAndSwap(stateQueued, stateRunning) }

// phase is the call's state, without stateNoted.
func (in *inbound) phase() int32 { return in.state.Load() &^ stateNoted }

// end marks a call whose handler returned as done, and returns the state it
// was in (stateRunning, or how the peer cancelled it while it ran) and
// whether it wrote a notification.
func (in *inbound) end() (how int32, noted bool) {
	in.notifyMu.Lock()
	defer in.notifyMu.Unlock()
	s := in.state.Swap(stateDone)
	return s &^ stateNoted, s&stateNoted != 0
}

// cancelBy records the peer's cancellation (stateCancelledLSP or
// stateCancelledMCP). It reports whether the call was still queued, and is
// now done without having run; a running call is only marked. A call whose
// handler has returned is left alone: its answer stands.
func (in *inbound) cancelBy(how int32) (wasQueued bool) {
	for {
		switch s := in.state.Load(); s &^ stateNoted {
		case stateQueued:
			if in.state.CompareAndSwap(s, stateDone) {
				return true
			}
		case stateRunning:
			if in.state.CompareAndSwap(s, how|s&stateNoted) {
				return false
			}
		default:
			return false
		}
	}
}

// notify writes a notification on behalf of the call, unless it is
// answered: waiting for room in a blocked output no longer than ctx, never
// writing in the handler's goroutine (see replier.notify). Once queued, it
// is written before the call's response, which waits for notifyMu.
func (in *inbound) notify(ctx context.Context, method string, params any) error {
	// Nothing is encoded for a call that is over.
	if in.phase() == stateDone {
		return ErrAnswered
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	buf := getBuffer()
	defer putBuffer(buf)
	line, err := codec.AppendRequest(*buf, nil, method, params)
	*buf = line
	if err != nil {
		return err
	}
	return in.send(ctx, line)
}

// send writes line, a message of in's to the peer, before in's answer:
// ErrAnswered once that is written.
func (in *inbound) send(ctx context.Context, line []byte) error {
	in.notifyMu.Lock()
	defer in.notifyMu.Unlock()
	if in.state.Load() == stateDone {
		return ErrAnswered
	}
	err := in.out.notify(ctx, line)
	if err == nil {
		in.state.Or(stateNoted)
	}
	return err
}

// run calls the handler for in, unless the peer cancelled it first, and
// answers it.
func (s *core) run(in *inbound) {
	if !in.begin() {
		return // cancelled while queued, and answered then
	}
	if in.req.ID == nil {
		s.notifyingMu.Lock()
		s.notifying[in] = struct{}{}
		s.notifyingMu.Unlock()
		if s.stopping.Load() {
			in.cancel(ErrShutdown) // cancelCalls may have missed it
		}
	}
	result, err := s.invoke(in)
	how, noted := in.end()
	if in.req.ID == nil {
		s.notifyingMu.Lock()
		delete(s.notifying, in)
		s.notifyingMu.Unlock()
		// A notification no method handles is not a failure: peers send
		// notifications a server may ignore (MCP's
		// notifications/initialized). Middleware may log it (Logging does,
		// at Debug).
		if err != nil && ErrorFor(in, err).Code != codec.MethodNotFound {
			s.log.Warn("rpc: notification handler failed", "method", jsonx.Echo(in.req.Method), "error", err)
		}
		in.cancel(nil)
		return
	}
	if how == stateRunning && noted {
		// Its notifications are read before its answer, as long as the
		// transport can tell.
		in.out.awaitRead(in)
	}
	if t, ok := in.out.(outcomeTeller); ok && how == stateRunning {
		t.outcome(in, err)
	}
	if str, ok := result.(string); ok && err == nil && how == stateRunning && in.batch == nil && len(str) >= streamSize {
		// A long string result is written in pieces, never copied whole.
		in.cancel(nil)
		s.forget(in)
		in.out.replyString(in.req.ID, str)
		return
	}
	if v, ok := result.(jsonx.StringIn); ok && err == nil && how == stateRunning && in.batch == nil && len(v.Text()) >= streamSize {
		// A result around a long string is written in pieces if the
		// output is free; else made whole, to wait its turn.
		in.cancel(nil)
		s.forget(in)
		if !in.out.replyStringIn(in.req.ID, v) {
			buf := getBuffer()
			line := s.responseLine((*buf)[:0], in, v, nil)
			in.out.reply(line)
			*buf = line
			putBuffer(buf)
		}
		return
	}
	var line []byte
	var buf *[]byte
	switch how {
	case stateCancelledLSP:
		line = errorLine(in.req.ID, NewError(codec.RequestCancelled, ""))
	case stateCancelledMCP:
	default:
		// Encoded in a pooled buffer: written at once, or copied into
		// its batch, it is free again when answer returns.
		buf = getBuffer()
		line = s.responseLine((*buf)[:0], in, result, err)
	}
	in.cancel(nil)
	s.answer(in, line)
	if buf != nil {
		*buf = line
		putBuffer(buf)
	}
}

// streamSize is the length from which a string result is written in
// pieces.
const streamSize = 64 << 10

// invoke calls the handler, under guard: a panic is answered by
// panicked.
func (s *core) invoke(in *inbound) (result any, err error) {
	if s.h == nil || (strings.HasPrefix(in.req.Method, ReservedPrefix) && in.req.Method != Discover) {
		return nil, NewError(codec.MethodNotFound, "")
	}
	if v, stack := guard(func() { result, err = s.h.Handle(in, &in.req) }); stack != nil {
		return s.panicked(in, v, stack)
	}
	return result, err
}

// panicked answers the panic v of in's handler, recovered with stack: as
// the innermost answer a layer of the handler put in place says
// (internal/recovery: middleware.Recover's, an MCP tool call's), which
// logs it its own way; with none, or when that answer panics too, the
// panic is logged and answered InternalError.
func (s *core) panicked(in *inbound, v any, stack []byte) (result any, err error) {
	a := in.answer
	in.answer = recovery.Set{}
	if a.Answer != nil {
		v2, stack2 := guard(func() { result, err = a.Answer(a.Ctx, a.Arg, v, stack) })
		if stack2 == nil {
			if err == recovery.ErrDefault {
				return nil, &panicError{value: v}
			}
			return result, err
		}
		s.logPanic(in, "rpc: answering a panic panicked", v2, stack2)
	}
	s.logPanic(in, "rpc: handler panicked", v, stack)
	return nil, &panicError{value: v}
}

// guard runs step, code of a call's own (its handler, or the encoding of
// its answer, which runs the result's MarshalJSON and the error's
// methods), and recovers a panic there, returning its value and the
// stack; the stack is nil when step returned. It is the one recover of a
// call: whatever its handler's layers, a panic is recovered once, here,
// and none ends the connection; a layer that answers a panic its own way
// says how with internal/recovery instead of recovering it.
func guard(step func()) (v any, stack []byte) {
	defer func() {
		if v = recover(); v != nil {
			stack = debug.Stack()
		}
	}()
	step()
	return nil, nil
}

// logPanic logs the panic v of in's code as msg, with the call's method
// and id, the panic value and the stack (which never reaches the peer).
func (s *core) logPanic(in *inbound, msg string, v any, stack []byte) {
	s.log.Error(msg, "method", jsonx.Echo(in.req.Method), "id", jsonx.Echo(in.req.ID),
		"panic", fmt.Sprint(v), "stack", string(stack))
}
