// Package catalogs serves the API's catalogs (spec 3 §4.2, §4.3): the SAT catalogs, imported
// from a catalog source into the database (import.go), and the catalogs the project defines
// (builtin.go). It answers lookups, searches and load queries from memory: a catalog is read
// from the database once, on first use, with its search index.
package catalogs

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/catalogs/search"
	"github.com/timbra-mx/timbra/internal/loadquery"
	"github.com/timbra-mx/timbra/storage"
)

// Service answers the catalog endpoints and the catalog checks of other areas.
type Service struct {
	store storage.Store

	mu     sync.Mutex
	set    *storage.CatalogSet // nil: no catalogs imported
	loaded map[string]*loaded
}

// loaded is a catalog in memory: records sorted by id, their positions by id, and the index.
type loaded struct {
	once    sync.Once
	err     error
	records []api.CatalogRecord
	ptrs    []*api.CatalogRecord
	byID    map[string]int
	index   *search.Index

	wholeOnce sync.Once
	whole     *Answer
	wholeErr  error

	taxIDs map[string]TaxIDFormat // by record id: only those that give one

	applies []Applicability // in id order; nil when the catalog keeps none (Catalog.Applies)
}

// Applicability is a c_RegimenFiscal or c_UsoCFDI record and to whom it applies: a physical
// person (persona física, a 13-character RFC), a moral one (persona moral, 12 characters), and
// for a CFDI use the recipient tax regimes it admits (c_UsoCFDI's
// regimenes_fiscales_receptores).
type Applicability struct {
	ID, Description string
	Physical, Moral bool
	Regimes         []string
}

// A TaxIDFormat is the pattern c_Pais gives the tax registration numbers of a country's
// residents.
type TaxIDFormat struct {
	Pattern string // as SAT writes it
	re      *regexp.Regexp
}

// Match tells whether s has the format, whole (SAT's patterns are XSD patterns).
func (f TaxIDFormat) Match(s string) bool { return f.re != nil && f.re.MatchString(s) }

// Answer is an answer made once and given to every caller as it is: its JSON, the same
// compressed with gzip, and an entity tag of its content.
type Answer struct {
	JSON, Gzip []byte
	ETag       string
}

// newAnswer encodes v as the server encodes answers (no HTML escaping, a final newline).
func newAnswer(v any) (*Answer, error) {
	var js bytes.Buffer
	enc := json.NewEncoder(&js)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if _, err := zw.Write(js.Bytes()); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(js.Bytes())
	return &Answer{JSON: js.Bytes(), Gzip: gz.Bytes(), ETag: `"` + hex.EncodeToString(sum[:16]) + `"`}, nil
}

// New returns the service over store, reading which catalogs are imported.
func New(ctx context.Context, store storage.Store) (*Service, error) {
	s := &Service{store: store}
	if err := s.Reload(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Reload forgets what is in memory and reads the imported set again (after an import).
func (s *Service) Reload(ctx context.Context) error {
	var set *storage.CatalogSet
	err := s.store.View(ctx, func(tx storage.Tx) error {
		got, err := tx.Catalogs().Set()
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		set = &got
		return nil
	})
	if err != nil {
		return fmt.Errorf("read the imported catalogs: %w", err)
	}
	s.mu.Lock()
	s.set, s.loaded = set, map[string]*loaded{}
	s.mu.Unlock()
	return nil
}

// Imported returns the description of the imported set, and false when there is none.
func (s *Service) Imported() (storage.CatalogSet, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.set == nil {
		return storage.CatalogSet{}, false
	}
	return *s.set, true
}

// catalog finds a catalog of the API by name and loads it.
func (s *Service) catalog(ctx context.Context, name string) (*loaded, error) {
	c, ok := Lookup(name)
	if !ok {
		return nil, apierr.NotFoundText(MsgNoSuchCatalog(name))
	}
	return s.load(ctx, c)
}

func (s *Service) load(ctx context.Context, c *Catalog) (*loaded, error) {
	s.mu.Lock()
	set := s.set
	if c.Imported() && set == nil {
		s.mu.Unlock()
		return nil, ErrNotImported
	}
	l := s.loaded[c.Name]
	if l == nil {
		l = &loaded{}
		s.loaded[c.Name] = l
	}
	s.mu.Unlock()
	l.once.Do(func() { l.err = l.fill(ctx, s.store, c, set) })
	if l.err != nil {
		return nil, l.err
	}
	return l, nil
}

func (l *loaded) fill(ctx context.Context, store storage.Store, c *Catalog, set *storage.CatalogSet) error {
	var recs []Record
	var taxIDs map[string]string
	var applies map[string]Applicability
	if c.Imported() {
		var err error
		if recs, taxIDs, applies, err = readTable(ctx, store, c, set); err != nil {
			return err
		}
	} else {
		recs = append(recs, c.Records...)
	}
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].ID < recs[j].ID })
	l.records = make([]api.CatalogRecord, len(recs))
	l.ptrs = make([]*api.CatalogRecord, len(recs))
	l.byID = make(map[string]int, len(recs))
	ids := make([]string, len(recs))
	descs := make([]string, len(recs))
	for i, r := range recs {
		l.records[i] = api.CatalogRecord{ID: r.ID, Description: r.Description}
		l.ptrs[i] = &l.records[i]
		l.byID[r.ID] = i
		ids[i], descs[i] = r.ID, r.Description
	}
	l.index = search.New(ids, descs)
	if applies != nil {
		l.applies = make([]Applicability, 0, len(recs))
		for _, r := range recs {
			if a, ok := applies[r.ID]; ok {
				a.ID, a.Description = r.ID, r.Description
				l.applies = append(l.applies, a)
			}
		}
	}
	for id, p := range taxIDs {
		// SAT writes XSD patterns, which match the whole value; one Go cannot read is no pattern
		if re, err := regexp.Compile(`^(?:` + p + `)$`); err == nil {
			if l.taxIDs == nil {
				l.taxIDs = map[string]TaxIDFormat{}
			}
			l.taxIDs[id] = TaxIDFormat{Pattern: p, re: re}
		}
	}
	return nil
}

// readTable reads the records of an imported catalog from its table, the TaxIDPattern of
// those that give one, and to whom each applies (Catalog.Applies; nil when the table has none
// of its columns).
func readTable(ctx context.Context, store storage.Store, c *Catalog, set *storage.CatalogSet) ([]Record, map[string]string, map[string]Applicability, error) {
	t, ok := set.Table(c.Table)
	if !ok {
		return nil, nil, nil, nil // the source has no such table: the catalog is empty, status says so
	}
	cols, err := columnsOf(t, c)
	if err != nil {
		return nil, nil, nil, err
	}
	var recs []Record
	var taxIDs map[string]string
	var applies map[string]Applicability
	if cols.physical >= 0 || cols.moral >= 0 {
		applies = map[string]Applicability{}
	}
	err = store.View(ctx, func(tx storage.Tx) error {
		return tx.Catalogs().Rows(c.Table, func(_, raw []byte) error {
			vals, err := decodeRow(raw)
			if err != nil {
				return fmt.Errorf("catalog %s: %w", c.Name, err)
			}
			r := cols.record(vals)
			if c.Keep == nil || c.Keep(r.ID) {
				recs = append(recs, r)
				if cols.taxID >= 0 {
					if p := valueText(vals, cols.taxID); p != "" {
						if taxIDs == nil {
							taxIDs = map[string]string{}
						}
						taxIDs[r.ID] = p
					}
				}
				if applies != nil {
					applies[r.ID] = cols.applicability(vals)
				}
			}
			return nil
		})
	})
	return recs, taxIDs, applies, err
}

// applicability reads the Applies columns of a row: a flag is set when its column holds 1
// (SAT leaves it empty otherwise); the regimes are a list of codes separated by commas.
func (c columns) applicability(vals []any) Applicability {
	var a Applicability
	a.Physical = c.physical >= 0 && strings.TrimSpace(valueText(vals, c.physical)) == "1"
	a.Moral = c.moral >= 0 && strings.TrimSpace(valueText(vals, c.moral)) == "1"
	if c.regimes >= 0 {
		for _, r := range strings.Split(valueText(vals, c.regimes), ",") {
			if r = strings.TrimSpace(r); r != "" {
				a.Regimes = append(a.Regimes, r)
			}
		}
	}
	return a
}

// columns are the positions of a catalog's id and description columns in its table's rows.
type columns struct {
	id    []int
	desc  int // -1: the id
	taxID int // -1: none (Catalog.TaxIDPattern unset or absent from the table)
	// the columns of Catalog.Applies; -1: none
	physical, moral, regimes int
}

func columnsOf(t storage.CatalogTable, c *Catalog) (columns, error) {
	pos := func(name string) int {
		for i, col := range t.Columns {
			if col == name {
				return i
			}
		}
		return -1
	}
	cols := columns{desc: -1, taxID: -1, physical: -1, moral: -1, regimes: -1}
	if c.TaxIDPattern != "" {
		cols.taxID = pos(c.TaxIDPattern)
	}
	if a := c.Applies; a != nil {
		for _, p := range []struct {
			name string
			to   *int
		}{{a.Physical, &cols.physical}, {a.Moral, &cols.moral}, {a.Regimes, &cols.regimes}} {
			if p.name != "" {
				*p.to = pos(p.name)
			}
		}
	}
	for _, name := range c.ID {
		p := pos(name)
		if p < 0 {
			return cols, fmt.Errorf("catalog %s: table %s has no column %q (columns %v); the source has another structure", c.Name, t.Name, name, t.Columns)
		}
		cols.id = append(cols.id, p)
	}
	if c.Desc != "" {
		if cols.desc = pos(c.Desc); cols.desc < 0 {
			return cols, fmt.Errorf("catalog %s: table %s has no column %q (columns %v); the source has another structure", c.Name, t.Name, c.Desc, t.Columns)
		}
	}
	return cols, nil
}

func (c columns) record(vals []any) Record {
	parts := make([]string, 0, len(c.id))
	for _, p := range c.id {
		if v := valueText(vals, p); v != "" {
			parts = append(parts, v)
		}
	}
	r := Record{ID: strings.Join(parts, "-")}
	if c.desc >= 0 {
		r.Description = valueText(vals, c.desc)
	} else {
		r.Description = r.ID
	}
	return r
}

func valueText(vals []any, p int) string {
	if p >= len(vals) {
		return ""
	}
	switch v := vals[p].(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	default:
		return ""
	}
}

// List is GET /api/v4/catalogs: every name, no paging.
func (s *Service) List() []string { return Names() }

// Get is GET /api/v4/catalogs/<name>/key/<id>.
func (s *Service) Get(ctx context.Context, name, id string) (api.CatalogRecord, error) {
	l, err := s.catalog(ctx, name)
	if err != nil {
		return api.CatalogRecord{}, err
	}
	i, ok := l.byID[id]
	if !ok {
		return api.CatalogRecord{}, apierr.NotFound(id)
	}
	return l.records[i], nil
}

// Search is GET /api/v4/catalogs/<name>/<term>: the records matching term, by relevance then id.
func (s *Service) Search(ctx context.Context, name, term string, page, size int) (api.PagedList[api.CatalogRecord], error) {
	l, err := s.catalog(ctx, name)
	if err != nil {
		return api.PagedList[api.CatalogRecord]{}, err
	}
	if f, long := termTooLong(term); long {
		return api.PagedList[api.CatalogRecord]{}, apierr.Invalid(f)
	}
	pos, total := l.index.Search(term, (page-1)*size, size)
	items := make([]api.CatalogRecord, len(pos))
	for i, p := range pos {
		items[i] = l.records[p]
	}
	return api.NewPage(items, page, size, total), nil
}

// Load is GET /api/v4/catalogs/<name>/load (spec 1 §7.6).
func (s *Service) Load(ctx context.Context, name string, q url.Values) (loadquery.Result, error) {
	l, err := s.catalog(ctx, name)
	if err != nil {
		return loadquery.Result{}, err
	}
	res, fs := loadquery.Load(RecordSchema, l.ptrs, q)
	if fs != nil {
		return loadquery.Result{}, apierr.Invalid(fs...)
	}
	return res, nil
}

// LoadAll is Load without a query (every record of the catalog, the common case of a client
// that keeps a copy): one answer made on first use and shared by every caller until the next
// import, so a hundred callers cost one copy, not a hundred.
func (s *Service) LoadAll(ctx context.Context, name string) (*Answer, error) {
	l, err := s.catalog(ctx, name)
	if err != nil {
		return nil, err
	}
	l.wholeOnce.Do(func() {
		res, fs := loadquery.Load(RecordSchema, l.ptrs, url.Values{})
		if fs != nil {
			l.wholeErr = apierr.Invalid(fs...)
			return
		}
		l.whole, l.wholeErr = newAnswer(res)
	})
	return l.whole, l.wholeErr
}

// Lookup finds a record for the checks of other areas: ok false when the catalog has no such
// id; ErrNotImported when the catalog needs an import that has not happened.
func (s *Service) Lookup(ctx context.Context, name, id string) (api.CatalogRecord, bool, error) {
	c, ok := Lookup(name)
	if !ok {
		return api.CatalogRecord{}, false, fmt.Errorf("catalogs: no catalog %q", name)
	}
	l, err := s.load(ctx, c)
	if err != nil {
		return api.CatalogRecord{}, false, err
	}
	i, ok := l.byID[id]
	if !ok {
		return api.CatalogRecord{}, false, nil
	}
	return l.records[i], true, nil
}

// TaxIDPatterns are the formats c_Pais (SatCountries) gives the tax registration numbers of a
// country's residents, by country id, anchored as SAT's XSD patterns are: only the countries that
// give one (in SAT's catalog 10.14: CAN and USA nine digits, MEX the RFC's t_RFC). The map is
// shared: read it, never change it. ErrNotImported without catalogs.
func (s *Service) TaxIDPatterns(ctx context.Context) (map[string]TaxIDFormat, error) {
	c, _ := Lookup("SatCountries")
	l, err := s.load(ctx, c)
	if err != nil {
		return nil, err
	}
	return l.taxIDs, nil
}

// Applicability is to whom each record of SatTaxRegimes or SatCfdiUses applies (Catalog.Applies),
// in id order; empty when the imported source lacks the columns. The slice is shared: read it,
// never change it. ErrNotImported without catalogs.
func (s *Service) Applicability(ctx context.Context, name string) ([]Applicability, error) {
	c, ok := Lookup(name)
	if !ok || c.Applies == nil {
		return nil, fmt.Errorf("catalogs: %q keeps no applicability", name)
	}
	l, err := s.load(ctx, c)
	if err != nil {
		return nil, err
	}
	return l.applies, nil
}

// DownloadList is GET /api/v4/download-catalogs.
func (s *Service) DownloadList() []string { return DownloadNames() }

// Download is GET /api/v4/download-catalogs/<name>: every record, no paging.
func (s *Service) Download(name string) ([]api.CatalogRecord, error) {
	c, ok := LookupDownload(name)
	if !ok {
		return nil, apierr.NotFoundText(MsgNoSuchCatalog(name))
	}
	out := make([]api.CatalogRecord, len(c.Records))
	for i, r := range c.Records {
		out[i] = api.CatalogRecord{ID: r.ID, Description: r.Description}
	}
	return out, nil
}

// RecordSchema describes a catalog record to load queries.
var RecordSchema = loadquery.NewSchema(
	loadquery.Field[*api.CatalogRecord]{Name: "id", Kind: loadquery.String, Get: func(r *api.CatalogRecord) any { return &r.ID }},
	loadquery.Field[*api.CatalogRecord]{Name: "description", Kind: loadquery.String, Get: func(r *api.CatalogRecord) any { return &r.Description }},
	loadquery.Field[*api.CatalogRecord]{Name: "createdAt", Kind: loadquery.Date, Get: func(r *api.CatalogRecord) any { return r.CreatedAt }},
	loadquery.Field[*api.CatalogRecord]{Name: "updatedAt", Kind: loadquery.Date, Get: func(r *api.CatalogRecord) any { return r.UpdatedAt }},
)
