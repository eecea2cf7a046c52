package mcp

import (
	"context"
	"encoding/json"
)

// kind is a set of the lists a client may be told changed.
type kind uint8

const (
	kindTools kind = 1 << iota
	kindPrompts
	kindResources
)

// listChanges are the lists a client may be told of changes to: the kind,
// the member of subscriptions/listen's filter that asks for it, and the
// notification.
var listChanges = []struct {
	kind   kind
	filter string
	method string
}{
	{kindTools, "toolsListChanged", notifyListChanged},
	{kindPrompts, "promptsListChanged", notifyPromptsChanged},
	{kindResources, "resourcesListChanged", notifyResourcesChanged},
}

// has reports whether s has the feature of the list k: tools always (as
// its capabilities say), prompts and resources once any were added.
func (s *Server) has(k kind) bool {
	switch k {
	case kindPrompts:
		return s.feat.prompts.Load() != nil
	case kindResources:
		return s.feat.resources.Load() != nil
	}
	return true
}

// announce tells the clients that asked to be told that the list of k
// changed (method): the modern listeners for it, and every legacy
// session. s.mu is held.
func (s *Server) announce(method string, k kind) {
	for l := range s.listeners {
		l.raise(k)
	}
	s.prune()
	for c, conn := range s.sessions {
		c.post(conn, method, nil)
	}
}

// outbox is what a legacy session is told beside the changes to its
// tools: its resource subscriptions, and the notifications not yet
// written. Guarded by its session's mu.
type outbox struct {
	subs    map[string]bool // the URIs subscribed to
	owed    []notice        // not yet written, each at most once
	telling bool            // a goroutine writes them
}

// notice is a notification owed to a session.
type notice struct {
	method string
	params json.RawMessage
}

// post tells the session, served on conn, method with params: written
// when the output has room, or dropped when the connection ends, never
// waited for here. One goroutine at a time writes a session's
// notifications, in order; a notice already owed is not owed twice, so
// that what a client that stops reading costs is bounded: one goroutine,
// and one notice per list (two) and per resource subscribed to (at most
// MaxSubscriptions).
func (c *session) post(conn peer, method string, params json.RawMessage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range c.out.owed {
		if n.method == method && string(n.params) == string(params) {
			return
		}
	}
	c.out.owed = append(c.out.owed, notice{method, params})
	if c.out.telling {
		return
	}
	c.out.telling = true
	go func() {
		for {
			c.mu.Lock()
			if len(c.out.owed) == 0 {
				c.out.owed = nil
				c.out.telling = false
				c.mu.Unlock()
				return
			}
			n := c.out.owed[0]
			c.out.owed = c.out.owed[1:]
			c.mu.Unlock()
			var params any
			if n.params != nil {
				params = n.params
			}
			_ = conn.Notify(context.Background(), n.method, params)
		}
	}()
}
