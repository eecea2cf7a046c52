package rpc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/recovery"
	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

// layer is a handler layer that answers a panic beneath it with its name
// (internal/recovery), around next.
func layer(name string, next rpc.Handler) rpc.Handler {
	answer := func(ctx context.Context, arg, v any, stack []byte) (any, error) {
		if v == "answer-panics" {
			panic("the answer's own")
		}
		return fmt.Sprintf("%s answered %v (%s)", arg, v, ctx.Value(layerKey{})), nil
	}
	return rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		ctx = context.WithValue(ctx, layerKey{}, "its context")
		placed := recovery.On(ctx, answer, name)
		res, err := next.Handle(ctx, req)
		placed.Restore()
		if req.Method == "panic-after-inner" && name == "inner" {
			panic("after inner")
		}
		return res, err
	})
}

type layerKey struct{}

// A call's panic is recovered once, by the connection, and answered by the
// innermost layer that had put an answer in place when it came, with the
// context that layer had; one that returned put back the one it replaced;
// an answer that panics is answered InternalError. Each recovered panic
// is logged once.
func TestPanicsAreAnsweredByTheInnermostLayer(t *testing.T) {
	core := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		switch req.Method {
		case "panic", "answer-panics":
			panic(req.Method)
		}
		return "ok", nil
	})
	var logs wiretest.Logs
	wiretest.Serve(t, layer("outer", layer("inner", core)), `
		--> {"jsonrpc":"2.0","method":"panic","id":1}
		<-- {"jsonrpc":"2.0","result":"inner answered panic (its context)","id":1}
		--> {"jsonrpc":"2.0","method":"panic-after-inner","id":2}
		<-- {"jsonrpc":"2.0","result":"outer answered after inner (its context)","id":2}
		--> {"jsonrpc":"2.0","method":"answer-panics","id":3}
		<-- {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"string","message":"answer-panics"}},"id":3}
		--> {"jsonrpc":"2.0","method":"ok","id":4}
		<-- {"jsonrpc":"2.0","result":"ok","id":4}`, &rpc.Options{Logger: logs.Logger(), Sequential: true})
	var msgs []string
	for _, r := range logs.Records(t) {
		msgs = append(msgs, fmt.Sprint(r["msg"], " ", r["panic"]))
	}
	assert.Equal(t, []string{"rpc: answering a panic panicked the answer's own", "rpc: handler panicked answer-panics"}, msgs,
		"the answered panics are the layers' to log; the unanswered one is the connection's")
}

// Outside a call of a connection, On does nothing and allocates nothing;
// in one, neither On nor Restore allocates.
func TestPlacingAnAnswerAllocatesNothing(t *testing.T) {
	answer := func(context.Context, any, any, []byte) (any, error) { return nil, nil }
	arg := new(int)
	assert.Zero(t, testing.AllocsPerRun(100, func() { recovery.On(context.Background(), answer, arg).Restore() }))
	var allocs float64
	h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		allocs = testing.AllocsPerRun(100, func() { recovery.On(ctx, answer, arg).Restore() })
		return nil, nil
	})
	wiretest.Serve(t, h, `
		--> {"jsonrpc":"2.0","method":"m","id":1}
		<-- {"jsonrpc":"2.0","result":null,"id":1}`, nil)
	assert.Zero(t, allocs)
}

// A handler called directly, with no connection, is not guarded: its
// panic is the caller's.
func TestAnAnswerOutsideAConnectionRecoversNothing(t *testing.T) {
	h := layer("only", rpc.HandlerFunc(func(context.Context, *rpc.Request) (any, error) { panic("bare") }))
	require.PanicsWithValue(t, "bare", func() {
		_, _ = h.Handle(context.Background(), &rpc.Request{ID: json.RawMessage(`1`), Method: "m"})
	})
}
