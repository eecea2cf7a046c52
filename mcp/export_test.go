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
