package validations

import (
	"context"
	"math/rand/v2"
)

// Random is the checker of the test environment (spec 3 §4.7 rule 4): the XML is not read and
// SAT is not asked; each type gets a status it accepts, at random, never NoDisponible or
// Omitido, with details null.
type Random struct{}

// Check implements Checker.
func (Random) Check(ctx context.Context, in Input, types []string) (map[string]Outcome, error) {
	out := make(map[string]Outcome, len(types))
	for _, t := range types {
		choices := fictitious[t]
		out[t] = Outcome{Status: choices[rand.IntN(len(choices))]}
	}
	return out, nil
}

// fictitious are the statuses Random draws from, per type.
var fictitious = func() map[string][]string {
	m := map[string][]string{}
	for t, defs := range statuses {
		for _, d := range defs {
			if d.ID != NoDisponible && d.ID != Omitido {
				m[t] = append(m[t], d.ID)
			}
		}
	}
	return m
}()
