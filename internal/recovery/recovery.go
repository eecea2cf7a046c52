// Package recovery lets a layer of a call's handler answer a panic
// beneath it without recovering it itself.
//
// A call's code is guarded by one recover: the connection's (package
// rpc), around the handler and the encoding of its answer. A layer that
// answers a panic its own way — [middleware.Recover], with its logger and
// the call's trace id; package mcp, which answers a tool's panic as the
// tool's error result — puts an [Answer] on the call with [On] before it
// calls the next layer, and puts the one it replaced back with [Restore]
// when that returns. The connection, recovering a panic, asks the answer
// in place then, the innermost, with the context and the argument it was
// put with, and answers with what it returns; with none in place it logs
// the panic and answers InternalError.
//
// On and Restore are called from the call's own goroutine (where its
// handler runs, and where a panic of it is recovered).
//
// [middleware.Recover]: https://pkg.go.dev/github.com/toolrpc/toolrpc/middleware#Recover
package recovery

import (
	"context"
	"errors"
)

// Answer answers a call's panic v, recovered with the goroutine's stack:
// ctx and arg are what the layer passed to [On]. It returns the call's
// result or error, as the layer's handler would have, or [ErrDefault]; a
// panic of its own is recovered, logged, and answered InternalError.
type Answer func(ctx context.Context, arg, v any, stack []byte) (result any, err error)

// ErrDefault, returned by an [Answer] that logged the panic its own way, has
// the connection answer it as it answers a panic no layer answers:
// InternalError, naming the panic value's type.
var ErrDefault = errors.New("recovery: answered as the connection answers a panic")

// Set is an [Answer] in place on a call, with what it is asked with.
type Set struct {
	Answer Answer
	Ctx    context.Context
	Arg    any
}

// Call is what a call's context holds under [Key]: the connection's call,
// which keeps one Set.
type Call interface {
	// SwapAnswer puts s in place and returns the Set it replaced.
	SwapAnswer(s Set) Set
}

// Key is the context key under which a call's [Call] is found.
type Key struct{}

// Placed is an [Answer] [On] put in place, and what it replaced.
type Placed struct {
	call Call
	prev Set
}

// On puts answer in place for the call ctx belongs to, asked with ctx and
// arg (a pointer, or a value that fits an interface without allocating,
// keeps On free of allocations). Where ctx belongs to no call of a
// connection (a handler called directly), nothing recovers a panic, and
// On does nothing.
func On(ctx context.Context, answer Answer, arg any) Placed {
	c, _ := ctx.Value(Key{}).(Call)
	if c == nil {
		return Placed{}
	}
	return Placed{call: c, prev: c.SwapAnswer(Set{Answer: answer, Ctx: ctx, Arg: arg})}
}

// Restore puts back what p replaced: the layer's next layer returned, and
// a later panic is no longer the layer's to answer.
func (p Placed) Restore() {
	if p.call != nil {
		p.call.SwapAnswer(p.prev)
	}
}
