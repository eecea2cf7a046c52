package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// listener is an open subscriptions/listen call that asked for changes to
// the tools.
type listener struct {
	changed chan struct{} // holds a change not yet sent; never more than one
}

// signal tells l the tools changed. Changes that come before the last is
// sent are one change to tell: the client lists the tools again either way.
func (l *listener) signal() {
	select {
	case l.changed <- struct{}{}:
	default:
	}
}

// listen answers subscriptions/listen (2026-07-28): it acknowledges the
// notifications it honors (toolsListChanged, the only list this server
// has), then, when the client asked for them, sends
// notifications/tools/list_changed on behalf of the call each time the
// tools change, every message carrying the call's id as its
// subscriptionId. A call that asked for nothing the server honors is
// answered at once, after the acknowledgment. Otherwise it ends:
//   - cancelled by the client (notifications/cancelled): no answer;
//   - when the connection's input ends (a stdio server's end): the server
//     tears the subscription down, with notifications/cancelled naming it,
//     then the completion result;
//   - when the connection shuts down: the completion result, if the
//     output still takes it.
func (s *Server) listen(ctx context.Context, r revision, req *rpc.Request) (any, error) {
	tools, err := listenFilter(req.Params)
	if err != nil {
		return nil, err
	}
	var l *listener
	if tools {
		// Listening before the acknowledgment: no change after it is missed.
		l = &listener{changed: make(chan struct{}, 1)}
		s.mu.Lock()
		s.listeners[l] = struct{}{}
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			delete(s.listeners, l)
			s.mu.Unlock()
		}()
	}
	params := append([]byte(`{"_meta":{"`+metaSubscription+`":`), req.ID...)
	params = append(params, '}')
	ack := append(slices.Clip(params), `,"notifications":{}}`...)
	if tools {
		ack = append(slices.Clip(params), `,"notifications":{"toolsListChanged":true}}`...)
	}
	if err := rpc.Notify(ctx, notifyAcknowledge, json.RawMessage(ack)); err != nil {
		return s.listenEnded(ctx, r, req.ID, err)
	}
	if !tools {
		return s.listenResult(r, req.ID), nil
	}
	changed := json.RawMessage(append(params, '}'))
	ended := rpc.InputEnded(ctx)
	for {
		select {
		case <-l.changed:
			if err := rpc.Notify(ctx, notifyListChanged, changed); err != nil {
				return s.listenEnded(ctx, r, req.ID, err)
			}
		case <-ended:
			// Nothing more can come from the client, not even a
			// cancellation: the server ends the subscription.
			cancel := append([]byte(`{"requestId":`), req.ID...)
			cancel = append(cancel, `,"reason":"the input ended"}`...)
			if err := rpc.Notify(ctx, notifyCancelled, json.RawMessage(cancel)); err != nil {
				return s.listenEnded(ctx, r, req.ID, err)
			}
			return s.listenResult(r, req.ID), nil
		case <-ctx.Done():
			return s.listenEnded(ctx, r, req.ID, ctx.Err())
		}
	}
}

// listenEnded is the answer of a subscriptions/listen call whose context
// ended, or whose notification failed with err: when the connection is
// shutting down, the completion result (the server ends the
// subscription); otherwise err (a call the client cancelled gets no
// answer, whatever its handler returns).
func (s *Server) listenEnded(ctx context.Context, r revision, id json.RawMessage, err error) (any, error) {
	if errors.Is(context.Cause(ctx), rpc.ErrShutdown) {
		return s.listenResult(r, id), nil
	}
	return nil, err
}

// listenResult is the result that ends a subscription: a completion result
// whose _meta names the subscription.
func (s *Server) listenResult(r revision, id json.RawMessage) json.RawMessage {
	b := append(s.open(r), `"_meta":{"`+metaSubscription+`":`...)
	b = append(b, id...)
	b = append(b, `,"`+metaServerInfo+`":`...)
	b = append(b, s.serverInfo(r)...)
	return append(b, "}}"...)
}

// listenFilter checks the params of subscriptions/listen, and reports
// whether they ask for changes to the tools. notifications is required,
// an object; each of its members the protocol defines must have its type
// (booleans; resourceSubscriptions an array of strings), and unknown
// members are ignored.
func listenFilter(params json.RawMessage) (tools bool, err error) {
	n := codec.Member(params, "notifications")
	switch {
	case n == nil:
		return false, invalid(&service.FieldError{Field: "notifications", Rule: "required", Message: "notifications is required"})
	case n[0] != '{':
		return false, invalid(&service.FieldError{Field: "notifications", Rule: "type", Param: "object", Message: "notifications must be an object"})
	}
	var problems []*service.FieldError
	for _, key := range []string{"toolsListChanged", "promptsListChanged", "resourcesListChanged"} {
		v := codec.Member(n, key)
		if v != nil && string(v) != "true" && string(v) != "false" {
			problems = append(problems, &service.FieldError{Field: "notifications." + key, Rule: "type", Param: "boolean",
				Message: "notifications." + key + " must be a boolean"})
		}
	}
	if v := codec.Member(n, "resourceSubscriptions"); v != nil {
		var uris []string
		if json.Unmarshal(v, &uris) != nil || uris == nil {
			problems = append(problems, &service.FieldError{Field: "notifications.resourceSubscriptions", Rule: "type", Param: "array",
				Message: "notifications.resourceSubscriptions must be an array of strings"})
		}
	}
	if problems != nil {
		return false, invalid(problems...)
	}
	return string(codec.Member(n, "toolsListChanged")) == "true", nil
}
