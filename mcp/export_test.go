package mcp

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
