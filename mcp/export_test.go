package mcp

import "time"

// Sessions is how many legacy sessions s tells of changes to its tools.
func Sessions(s *Server) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

// Listeners is how many subscriptions/listen calls s tells of changes to
// its tools.
func Listeners(s *Server) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.listeners)
}

// Waiting is how many requests of tools to their clients wait for the
// clients' responses, over all the legacy sessions of h.
func Waiting(h *HTTPHandler) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, ss := range h.sessions {
		n += ss.rpc.Waiting()
	}
	return n
}

// Seal and Unseal are s.seal and s.unseal.
func Seal(s *Server, principal, tool string, args []byte, state string, expiry time.Time) string {
	return s.seal(principal, tool, args, state, expiry)
}

func Unseal(s *Server, principal, tool string, args []byte, sealed string, now time.Time) (string, bool) {
	return s.unseal(principal, tool, args, []byte(sealed), now)
}

// ParseEventID and AppendEventID are the event ids of Streamable HTTP.
var (
	ParseEventID  = parseEventID
	AppendEventID = appendID
)

// HeldBytes is how many bytes of events the legacy session sid holds.
func HeldBytes(h *HTTPHandler, sid string) int {
	h.mu.Lock()
	ss := h.sessions[sid]
	h.mu.Unlock()
	if ss == nil {
		return 0
	}
	ss.streams.mu.Lock()
	defer ss.streams.mu.Unlock()
	return ss.streams.bytes
}

// OnUpdate makes ResourceUpdated call f before it tells each legacy
// session s tracks now.
func OnUpdate(s *Server, f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.sessions {
		c.onUpdate = f
	}
}

// SlotsHeld is how many of h's slots (RPC.Concurrency) requests hold.
func SlotsHeld(h *HTTPHandler) int { return len(h.slots) }
