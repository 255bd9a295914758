package listener

// Len is the number of open sessions (the metrics' listener gauge).
func (h *Hub) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}
