package api

// Deref is the text an optional field holds: empty when absent.
func Deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
