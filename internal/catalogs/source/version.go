package source

import "strings"

// CompareVersions compares two data versions in the Estructura.Datos.Fecha
// form (10.14.20260806) part by part, numerically: it returns -1 when a is
// older than b, 0 when they are the same and 1 when a is newer. A missing
// trailing part counts as 0. A malformed version (empty, or a part that is not
// all digits) sorts before any well-formed one; two malformed versions compare
// as text so that the order stays consistent.
func CompareVersions(a, b string) int {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	okA, okB := wellFormedVersion(a), wellFormedVersion(b)
	switch {
	case !okA && !okB:
		return strings.Compare(a, b)
	case !okA:
		return -1
	case !okB:
		return 1
	}
	for a != "" || b != "" {
		var pa, pb string
		pa, a, _ = strings.Cut(a, ".")
		pb, b, _ = strings.Cut(b, ".")
		if c := compareDigits(pa, pb); c != 0 {
			return c
		}
	}
	return 0
}

func wellFormedVersion(v string) bool {
	if v == "" {
		return false
	}
	for part := range strings.SplitSeq(v, ".") {
		if part == "" {
			return false
		}
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return false
			}
		}
	}
	return true
}

// compareDigits compares two runs of decimal digits of any length by value;
// an empty run is 0.
func compareDigits(a, b string) int {
	a = strings.TrimLeft(a, "0")
	b = strings.TrimLeft(b, "0")
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}
