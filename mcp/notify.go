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
		c.queueNotice(conn, method, nil)
	}
}

// outbox is what a legacy session is told beside the changes to its
// tools: its resource subscriptions, and the notifications not yet
// written. Guarded by its session's mu.
type outbox struct {
	owed    []notice // not yet written, each at most once
	telling bool     // a goroutine writes them, or the session is held (hold)
}

// notice is a notification owed to a session.
type notice struct {
	method string
	params json.RawMessage
}

// queueNotice tells the session, served on conn, method with params: written
// when the output has room, or dropped when the connection ends, never
// waited for here. One goroutine at a time writes a session's
// notifications, in order; a notice already owed is not owed twice, so
// that what a client that stops reading costs is bounded: one goroutine,
// and one notice per list (two) and per resource subscribed to (at most
// MaxSubscriptions). Before the session's notifications/initialized they
// are owed, not written (see initialized).
func (c *session) queueNotice(conn peer, method string, params json.RawMessage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.queue(conn, method, params)
}

// updated tells the session, served on conn, that the resource uri was
// updated (params), if it subscribes to it: the subscription is checked
// and the notice queued under the session's lock, so that an unsubscribe
// is either before both (nothing is owed) or after both (it takes back
// the notice not yet written); an update never follows the unsubscribe's
// answer unless it was being written already.
func (c *session) updated(conn peer, uri string, params json.RawMessage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state.subs[uri] {
		c.queue(conn, notifyResourceUpdated, params)
	}
}

// queue is post; c.mu is held.
func (c *session) queue(conn peer, method string, params json.RawMessage) {
	for _, n := range c.out.owed {
		if n.method == method && string(n.params) == string(params) {
			return
		}
	}
	c.out.owed = append(c.out.owed, notice{method, params})
	c.tell(conn)
}

// tell starts the goroutine that writes what the session is owed, on
// conn, unless one does or the session is held (out.telling is set), or it
// is owed nothing; c.mu is held.
func (c *session) tell(conn peer) {
	if c.out.telling || len(c.out.owed) == 0 {
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

// hold makes the session, which initialize just tracked for the first
// time, owe the changes it is to be told instead of being told of them,
// until its notifications/initialized: "The server SHOULD NOT send
// requests other than pings and logging before receiving the initialized
// notification" (Lifecycle, every legacy revision), which the server
// reads strictly, of its notifications too. So nothing is written before
// the initialize response either: a client sends notifications/initialized
// once it has it. Its telling flags, set, stand for the goroutines that
// are not started yet; what it owes meanwhile is bounded as ever (a
// change of the tools, one notice per list and per subscription). Log
// messages are not held: the lifecycle allows them. c.mu is held.
func (c *session) hold() {
	c.held = true
	c.telling, c.out.telling = true, true
}

// initialized answers the session's notifications/initialized: a held
// session is told what it owes, and from then on of each change. One that
// comes before initialize is done (a client that did not wait for its
// response) means the session is not held at all: the client said it is
// ready, and the lifecycle asks no more. One again does nothing.
func (c *session) initialized() {
	s := c.s
	s.mu.Lock() // changes are told under it: none comes meanwhile
	defer s.mu.Unlock()
	conn := s.sessions[c]
	c.mu.Lock()
	c.state.ready = true
	if !c.held {
		c.mu.Unlock()
		return
	}
	c.held = false
	c.telling, c.out.telling = false, false
	if conn == nil { // not tracked (yet, or any more): nothing is owed
		c.mu.Unlock()
		return
	}
	tools := c.owed
	c.owed = false
	c.tell(conn)
	c.mu.Unlock()
	if tools {
		c.listChanged(conn)
	}
}
