package cmdutil

import (
	"strconv"
	"strings"

	"github.com/timbra-mx/timbra/internal/api"
)

// CatalogText shows a catalog reference as "id (description)".
func CatalogText(id *string, rec *api.CatalogRecord) string {
	v := api.Deref(id)
	if v == "" && rec != nil {
		v = rec.ID
	}
	if rec != nil && rec.Description != "" && v != "" {
		return v + " (" + rec.Description + ")"
	}
	return v
}

func CreditTypeName(t int) string {
	switch t {
	case api.CreditStamps:
		return "stamps"
	case api.CreditValidation:
		return "validation"
	case api.CreditTickets:
		return "tickets"
	}
	return "type " + strconv.Itoa(t)
}

func FormatAmount(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// CleanList drops blanks from a list given by flags.
func CleanList(in []string) []string {
	var out []string
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
