package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// subscription is an open subscriptions/listen call that asked for changes
// the server honors (see newSubscription).
type subscription struct {
	changed chan struct{} // holds a wake-up not yet taken; never more than one
	want    kind          // the lists it is told of changes to
	uris    map[string]bool

	mu      sync.Mutex
	owed    kind     // lists changed, not yet told
	updated []string // resources of uris updated, not yet told, each once
}

// signal tells l the tools changed. Changes that come before the last is
// sent are one change to tell: the client lists the tools again either way.
func (l *subscription) signal() { l.raise(kindTools) }

// raise tells l that the lists of kind changed.
func (l *subscription) raise(k kind) {
	if l.want&k == 0 {
		return
	}
	l.mu.Lock()
	l.owed |= k
	l.mu.Unlock()
	l.wake()
}

// update tells l the resource uri changed, if it listens for it. Updates
// of one URI not yet told are one update: what l owes is bounded by its
// uris.
func (l *subscription) update(uri string) {
	if !l.uris[uri] {
		return
	}
	l.mu.Lock()
	if !slices.Contains(l.updated, uri) {
		l.updated = append(l.updated, uri)
	}
	l.mu.Unlock()
	l.wake()
}

func (l *subscription) wake() {
	select {
	case l.changed <- struct{}{}:
	default:
	}
}

// take returns what l owes, and owes nothing more.
func (l *subscription) take() (kind, []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k, u := l.owed, l.updated
	l.owed, l.updated = 0, nil
	return k, u
}

// listen answers subscriptions/listen (2026-07-28): it acknowledges the
// notifications it honors (see newSubscription), then sends those on behalf
// of the call, each time the tools, the prompts or the resources change
// (notifications/.../list_changed) or a resource it names is updated
// (notifications/resources/updated), every message carrying the call's id
// as its subscriptionId. A call that asked for nothing the server honors is
// answered at once, after the acknowledgment. Otherwise it ends:
//   - cancelled by the client (notifications/cancelled): no answer;
//   - when the connection's input ends (a stdio server's end): the server
//     tears the subscription down, with notifications/cancelled naming it,
//     then the completion result;
//   - when the connection shuts down: the completion result, if the
//     output still takes it.
func (s *Server) listen(ctx context.Context, r revision, req *rpc.Request) (any, error) {
	l, err := s.newSubscription(req.Params)
	if err != nil {
		return nil, err
	}
	listening := l.want != 0 || len(l.uris) > 0
	if listening {
		// Listening before the acknowledgment: no change after it is missed.
		l.changed = make(chan struct{}, 1)
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
	ack := append(slices.Clip(params), `,"notifications":`...)
	ack = append(l.appendFilter(ack), '}')
	if err := rpc.Notify(ctx, notifyAcknowledge, json.RawMessage(ack)); err != nil {
		return s.listenEnded(ctx, r, req.ID, err)
	}
	if !listening {
		return s.listenResult(r, req.ID), nil
	}
	changed := json.RawMessage(append(params, '}'))
	ended := rpc.InputEnded(ctx)
	for {
		select {
		case <-l.changed:
			owed, updated := l.take()
			for _, n := range listChanges {
				if owed&n.kind == 0 {
					continue
				}
				if err := rpc.Notify(ctx, n.method, changed); err != nil {
					return s.listenEnded(ctx, r, req.ID, err)
				}
			}
			for _, uri := range updated {
				p := jsonx.AppendString(append(slices.Clip(params), `,"uri":`...), uri)
				if err := rpc.Notify(ctx, notifyResourceUpdated, json.RawMessage(append(p, '}'))); err != nil {
					return s.listenEnded(ctx, r, req.ID, err)
				}
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
	b := append(s.openResult(r), `"_meta":{"`+metaSubscription+`":`...)
	b = append(b, id...)
	b = append(b, `,"`+metaServerInfo+`":`...)
	b = append(b, s.serverInfo(r)...)
	return append(b, "}}"...)
}

// newSubscription checks the params of subscriptions/listen, and returns a
// subscription for what they ask that the server honors: toolsListChanged;
// promptsListChanged when it has prompts, resourcesListChanged and
// resourceSubscriptions when it has resources (as its capabilities say).
// notifications is required, an object; each of its members the protocol
// defines must have its type (booleans; resourceSubscriptions an array of
// at most MaxSubscriptions strings of at most MaxURI bytes), and unknown
// members are ignored.
func (s *Server) newSubscription(params json.RawMessage) (*subscription, error) {
	n := jsonx.Member(params, "notifications")
	switch {
	case n == nil:
		return nil, invalid(&service.FieldError{Field: "notifications", Rule: "required", Message: "notifications is required"})
	case n[0] != '{':
		return nil, invalid(&service.FieldError{Field: "notifications", Rule: "type", Param: "object", Message: "notifications must be an object"})
	}
	var problems []*service.FieldError
	l := &subscription{}
	for _, c := range listChanges {
		v := jsonx.Member(n, c.filter)
		if v != nil && string(v) != "true" && string(v) != "false" {
			problems = append(problems, &service.FieldError{Field: "notifications." + c.filter, Rule: "type", Param: "boolean",
				Message: "notifications." + c.filter + " must be a boolean"})
		}
		if string(v) == "true" && s.has(c.kind) {
			l.want |= c.kind
		}
	}
	if v := jsonx.Member(n, "resourceSubscriptions"); v != nil {
		var uris []string
		switch {
		case json.Unmarshal(v, &uris) != nil || uris == nil:
			problems = append(problems, &service.FieldError{Field: "notifications.resourceSubscriptions", Rule: "type", Param: "array",
				Message: "notifications.resourceSubscriptions must be an array of strings"})
		case len(uris) > MaxSubscriptions || slices.ContainsFunc(uris, func(u string) bool { return len(u) > MaxURI }):
			problems = append(problems, &service.FieldError{Field: "notifications.resourceSubscriptions", Rule: "max", Param: fmt.Sprint(MaxSubscriptions),
				Message: fmt.Sprintf("notifications.resourceSubscriptions must hold at most %d URIs of at most %d bytes", MaxSubscriptions, MaxURI)})
		case uriBytes(uris) > MaxSubscriptionBytes:
			problems = append(problems, &service.FieldError{Field: "notifications.resourceSubscriptions", Rule: "max", Param: fmt.Sprint(MaxSubscriptionBytes),
				Message: fmt.Sprintf("notifications.resourceSubscriptions must hold at most %d bytes of URIs", MaxSubscriptionBytes)})
		case s.has(kindResources):
			l.uris = make(map[string]bool, len(uris))
			for _, u := range uris {
				l.uris[u] = true
			}
		}
	}
	if problems != nil {
		return nil, invalid(problems...)
	}
	return l, nil
}

// appendFilter appends what l listens for, as the acknowledgment has it.
func (l *subscription) appendFilter(b []byte) []byte {
	b = append(b, '{')
	for _, c := range listChanges {
		if l.want&c.kind != 0 {
			if b[len(b)-1] != '{' {
				b = append(b, ',')
			}
			b = append(b, `"`+c.filter+`":true`...)
		}
	}
	if l.uris != nil {
		if b[len(b)-1] != '{' {
			b = append(b, ',')
		}
		b = append(b, `"resourceSubscriptions":[`...)
		for i, u := range slices.Sorted(maps.Keys(l.uris)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonx.AppendString(b, u)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// uriBytes is the bytes of uris.
func uriBytes(uris []string) int {
	n := 0
	for _, u := range uris {
		n += len(u)
	}
	return n
}
