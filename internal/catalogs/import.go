package catalogs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/timbra-mx/timbra/internal/catalogs/source"
	"github.com/timbra-mx/timbra/storage"
)

// Progress is how far an import has come, for a progress display.
type Progress struct {
	Table      string // the table being written
	Tables     int    // tables in the source
	TablesDone int
	Rows       int   // rows written so far, all tables
	Bytes      int64 // data read so far, of tables done (when the source knows sizes)
	TotalBytes int64 // -1 when unknown
}

// progressEvery is how many rows pass between two progress reports inside a table.
const progressEvery = 5000

// Import replaces the catalogs of the database with those of src, in one transaction: a failed
// import leaves the previous catalogs as they were. It refuses a source whose tables lack a
// column a catalog reads.
func Import(ctx context.Context, store storage.Store, src *source.Source, now time.Time, progress func(Progress)) (storage.CatalogSet, error) {
	tables := src.Tables()
	if len(tables) == 0 {
		return storage.CatalogSet{}, fmt.Errorf("catalog source %s has no tables", src.Describe())
	}
	set := storage.CatalogSet{
		Version:      src.Version(),
		Source:       src.Describe(),
		ETag:         src.ETag(),
		LastModified: src.LastModified(),
		ImportedAt:   now.UTC(),
	}
	p := Progress{Tables: len(tables), TotalBytes: 0}
	for _, t := range tables {
		set.Tables = append(set.Tables, storage.CatalogTable{Name: t.Name, Columns: t.Columns, Key: t.Key, HasData: t.HasData})
		if n := src.DataSize(t.Name); n >= 0 && p.TotalBytes >= 0 {
			p.TotalBytes += n
		} else if t.HasData {
			p.TotalBytes = -1
		}
	}
	if err := checkStructure(set); err != nil {
		return storage.CatalogSet{}, fmt.Errorf("catalog source %s: %w", src.Describe(), err)
	}
	report := func() {
		if progress != nil {
			progress(p)
		}
	}
	err := store.Update(ctx, func(tx storage.Tx) error {
		c := tx.Catalogs()
		if err := c.Clear(); err != nil {
			return err
		}
		for i, t := range tables {
			p.Table = t.Name
			report()
			if t.HasData {
				n, err := importTable(ctx, c, src, t, func(rows int) {
					p.Rows += rows
					report()
				})
				if err != nil {
					return err
				}
				set.Tables[i].Rows = n
			}
			if n := src.DataSize(t.Name); n > 0 {
				p.Bytes += n
			}
			p.TablesDone++
		}
		p.Table = ""
		report()
		return c.PutSet(set)
	})
	if err != nil {
		return storage.CatalogSet{}, err
	}
	return set, nil
}

func importTable(ctx context.Context, c storage.Catalogs, src *source.Source, t source.Table, advance func(int)) (int, error) {
	keyCols := make([]int, 0, len(t.Key))
	for _, k := range t.Key {
		for i, col := range t.Columns {
			if col == k {
				keyCols = append(keyCols, i)
			}
		}
	}
	n, pending := 0, 0
	var key bytes.Buffer
	err := src.Rows(t.Name, func(vals []any) error {
		if n%progressEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		key.Reset()
		if len(keyCols) == 0 {
			fmt.Fprintf(&key, "%09d", n) // a table without a primary key keeps its order
		}
		for i, p := range keyCols {
			if i > 0 {
				key.WriteByte(0)
			}
			key.WriteString(valueText(vals, p))
		}
		row, err := json.Marshal(vals)
		if err != nil {
			return fmt.Errorf("table %s row %d: %w", t.Name, n+1, err)
		}
		if err := c.PutRow(t.Name, bytes.Clone(key.Bytes()), row); err != nil {
			return err
		}
		n++
		if pending++; pending == progressEvery {
			advance(pending)
			pending = 0
		}
		return nil
	})
	advance(pending)
	return n, err
}

// checkStructure makes sure every catalog over a table of the set finds its columns.
func checkStructure(set storage.CatalogSet) error {
	var problems []string
	for i := range All {
		c := &All[i]
		if !c.Imported() {
			continue
		}
		t, ok := set.Table(c.Table)
		if !ok {
			continue // absent tables make the catalog missing, which status reports
		}
		if _, err := columnsOf(t, c); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// decodeRow reads a row as Import wrote it.
func decodeRow(raw []byte) ([]any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var vals []any
	if err := d.Decode(&vals); err != nil {
		return nil, fmt.Errorf("decode row: %w", err)
	}
	return vals, nil
}

// Import replaces the catalogs with those of src (see Import) and serves them from then on.
func (s *Service) Import(ctx context.Context, src *source.Source, now time.Time, progress func(Progress)) (storage.CatalogSet, error) {
	set, err := Import(ctx, s.store, src, now, progress)
	if err != nil {
		return set, err
	}
	return set, s.Reload(ctx)
}
