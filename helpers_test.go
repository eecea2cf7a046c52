package toolrpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/rpc"
)

// specHandler serves the methods of the examples in section 7 of the
// JSON-RPC 2.0 specification, and a few probes for the connection's
// behaviour. It records the notifications it handles.
type specHandler struct {
	mu    sync.Mutex
	seen  []string      // "method params" of each notification and probe run
	gate  chan struct{} // "wait" blocks until it is closed (or ctx ends)
	start chan string   // "wait" and "ignore" report their id here when they start, if not nil
}

func newSpecHandler() *specHandler { return &specHandler{gate: make(chan struct{})} }

func (h *specHandler) record(req *rpc.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seen = append(h.seen, strings.TrimSpace(req.Method+" "+string(req.Params)))
}

func (h *specHandler) log() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.seen...)
}

func invalidParams(err error) error {
	return rpc.NewError(codec.InvalidParams, "").WithData(err.Error())
}

func (h *specHandler) Handle(ctx context.Context, req *rpc.Request) (any, error) {
	if req.IsNotification() || strings.HasPrefix(req.Method, "probe.") {
		h.record(req)
	}
	switch req.Method {
	case "subtract":
		var pos []int
		if json.Unmarshal(req.Params, &pos) == nil && len(pos) == 2 {
			return pos[0] - pos[1], nil
		}
		var named struct{ Minuend, Subtrahend int }
		if err := json.Unmarshal(req.Params, &named); err != nil {
			return nil, invalidParams(err)
		}
		return named.Minuend - named.Subtrahend, nil
	case "sum":
		var xs []int
		if err := json.Unmarshal(req.Params, &xs); err != nil {
			return nil, invalidParams(err)
		}
		total := 0
		for _, x := range xs {
			total += x
		}
		return total, nil
	case "get_data":
		return []any{"hello", 5}, nil
	case "update", "notify_hello", "notify_sum":
		return nil, nil
	case "echo":
		return req.Params, nil
	case "probe.meta":
		return req.Meta, nil
	case "probe.progress":
		// Two notifications on behalf of the call, then the result.
		for i := 1; i <= 2; i++ {
			if err := rpc.Notify(ctx, "progress", map[string]int{"done": i, "total": 2}); err != nil {
				return nil, err
			}
		}
		return "done", nil
	case "probe.wait":
		if h.start != nil {
			h.start <- string(req.ID)
		}
		select {
		case <-h.gate:
			return "released", nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	case "probe.ignore":
		// Ignores its context: returns its id only when the gate opens.
		if h.start != nil {
			h.start <- string(req.ID)
		}
		<-h.gate
		return string(req.ID), nil
	case "probe.panic":
		panic("boom")
	case "probe.panicerr":
		panic(fmt.Errorf("wrapped: %w", io.ErrUnexpectedEOF))
	case "probe.fail":
		return nil, errors.New("disk full")
	case "probe.fail-coded":
		return nil, fmt.Errorf("context: %w", rpc.NewError(-1234, "quota exceeded").WithData(map[string]int{"retry": 5}))
	case "probe.raw-newline":
		return json.RawMessage("{\n  \"a\": [1,\n 2],\r\n  \"b\": \"x\\ny\"\n}\n"), nil
	case "probe.bad-result":
		return json.RawMessage(`{"a":`), nil
	case "probe.unencodable":
		return func() {}, nil
	case "rpc.secret":
		return "must never be reached", nil
	}
	return nil, rpc.NewError(codec.MethodNotFound, "")
}
