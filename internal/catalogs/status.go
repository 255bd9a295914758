package catalogs

import (
	"context"

	"github.com/timbra-mx/timbra/internal/api"
)

// Catalog states in a status report.
const (
	StateComplete   = "complete"
	StateBuiltin    = "builtin"
	StateMissing    = "missing"
	StateIncomplete = "incomplete"
	StateEmpty      = "empty"
)

// Status reports every catalog: where its records come from, how many there are, and what is
// missing.
func (s *Service) Status(ctx context.Context) (api.CatalogsStatus, error) {
	set, imported := s.Imported()
	st := api.CatalogsStatus{Imported: imported, TablesWithoutData: []string{}}
	if imported {
		st.Version = set.Version
		st.ImportedAt = api.FormatInstant(set.ImportedAt)
		for _, t := range set.Tables {
			if !t.HasData {
				st.TablesWithoutData = append(st.TablesWithoutData, t.Name)
			}
		}
	}
	incomplete := false
	for i := range All {
		c := &All[i]
		cs := api.CatalogStatus{Name: c.Name, SAT: c.SAT, Table: c.Table}
		switch {
		case !c.Imported():
			cs.State, cs.Records = StateBuiltin, len(c.Records)
		case !imported:
			cs.State, cs.Reason = StateMissing, "no SAT catalogs are imported"
		default:
			t, ok := set.Table(c.Table)
			switch {
			case !ok:
				cs.State, cs.Reason = StateMissing, "the source has no table "+c.Table
			case !t.HasData:
				cs.State, cs.Reason = StateIncomplete, "the source lists "+c.Table+" without its records"
			default:
				l, err := s.load(ctx, c)
				if err != nil {
					return st, err
				}
				cs.Records = len(l.records)
				if cs.Records == 0 {
					cs.State, cs.Reason = StateEmpty, "the source's "+c.Table+" holds no record of this catalog"
				} else {
					cs.State = StateComplete
				}
			}
		}
		if cs.State != StateComplete && cs.State != StateBuiltin {
			incomplete = true
		}
		st.Catalogs = append(st.Catalogs, cs)
	}
	for _, c := range Downloads {
		st.Catalogs = append(st.Catalogs, api.CatalogStatus{Name: c.Name, Download: true, Records: len(c.Records), State: StateBuiltin})
	}
	if incomplete {
		st.Hint = ImportHint
	}
	return st, nil
}
