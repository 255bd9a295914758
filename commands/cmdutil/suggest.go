package cmdutil

import (
	"strings"

	"github.com/timbra-mx/timbra/internal/suggest"
)

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
		if d := suggest.Distance(strings.ToLower(c), low); d < bestDist {
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
