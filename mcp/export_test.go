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

// Waiting is how many requests of tools to their clients wait for the
// clients' responses, over all the legacy sessions of h.
func Waiting(h *HTTPHandler) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, ss := range h.sessions {
		n += ss.peer.http.waiting()
	}
	return n
}
