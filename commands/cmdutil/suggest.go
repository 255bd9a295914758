package cmdutil

import "strings"

// Suggest is the "did you mean" of every name a user types (commands, catalogs): the candidate
// closest to name, case ignored, when it is at most two edits away; else the only candidate
// that holds name (four letters or more); else "". A candidate equal to name is no suggestion.
// One rule, so every "did you mean" of the CLI agrees.
func Suggest(candidates []string, name string) string {
	low := strings.ToLower(name)
	best, bestDist := "", 3
	for _, c := range candidates {
		if c == name {
			return ""
		}
		if d := editDistance(strings.ToLower(c), low); d < bestDist {
			best, bestDist = c, d
		}
	}
	if best != "" || len(low) < 4 {
		return best
	}
	for _, c := range candidates {
		if strings.Contains(strings.ToLower(c), low) {
			if best != "" {
				return "" // more than one: no guess
			}
			best = c
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, counted in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
