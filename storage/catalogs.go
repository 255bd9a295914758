package storage

import "time"

// CatalogSet describes the SAT catalogs imported into the database: where they came from, their
// version, and every table of the source with its columns and how many rows it brought.
type CatalogSet struct {
	Version      string         `json:"version"`
	Source       string         `json:"source"`
	ETag         string         `json:"etag,omitempty"`
	LastModified string         `json:"lastModified,omitempty"`
	ImportedAt   time.Time      `json:"importedAt"`
	Tables       []CatalogTable `json:"tables"`
}

// CatalogTable is one table of an imported source. HasData is false when the source listed the
// table without its records; such a table is kept, empty, so that what is missing can be told.
type CatalogTable struct {
	Name    string   `json:"name"`
	Columns []string `json:"columns"`
	Key     []string `json:"key"`
	HasData bool     `json:"hasData"`
	Rows    int      `json:"rows"`
}

// Table returns the table called name, and whether the set has it.
func (s CatalogSet) Table(name string) (CatalogTable, bool) {
	for _, t := range s.Tables {
		if t.Name == name {
			return t, true
		}
	}
	return CatalogTable{}, false
}

// Catalogs holds the imported catalog tables. Rows are opaque values (the catalogs package
// encodes them) stored under their primary key, in key order.
type Catalogs interface {
	// Set returns the description of the imported set; ErrNotFound when none was imported.
	Set() (CatalogSet, error)
	// PutSet records the description of the set.
	PutSet(CatalogSet) error
	// Clear removes every table and the set's description.
	Clear() error
	// PutRow writes a row of table.
	PutRow(table string, key, row []byte) error
	// Row reads a row; ErrNotFound when table or key are absent.
	Row(table string, key []byte) ([]byte, error)
	// Rows calls fn for every row of table in key order; the slices are valid only during the
	// call. An absent table has no rows.
	Rows(table string, fn func(key, row []byte) error) error
}
