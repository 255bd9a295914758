package loadquery

import (
	"encoding/json"
	"fmt"
	"net/url"
	"testing"

	"github.com/timbra-mx/timbra/internal/api"
)

// The test resource: every kind, a nullable number and date, an object and a list.

type country struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type rec struct {
	ID        string   `json:"id"`
	Name      string   `json:"name"`
	Amount    float64  `json:"amount"`
	Qty       *int     `json:"qty"`
	Active    bool     `json:"active"`
	CreatedAt string   `json:"createdAt"`
	UpdatedAt *string  `json:"updatedAt"`
	Country   *country `json:"country"`
	Tags      []string `json:"tags"`
}

func ip(n int) *int        { return &n }
func sp(s string) *string  { return &s }
func bp(b bool) *bool      { return &b }
func mx() *country         { return &country{"MX", "México"} }
func us() *country         { return &country{"US", "Estados Unidos"} }
func countryOf(r *rec) any { return r.Country }
func countryID(r *rec) any {
	if r.Country == nil {
		return nil
	}
	return &r.Country.ID
}

var testSchema = NewSchema(
	Field[*rec]{Name: "id", Kind: String, Get: func(r *rec) any { return &r.ID }},
	Field[*rec]{Name: "name", Kind: String, Get: func(r *rec) any { return r.Name }},
	Field[*rec]{Name: "amount", Kind: Number, Get: func(r *rec) any { return r.Amount }},
	Field[*rec]{Name: "qty", Kind: Number, Get: func(r *rec) any { return r.Qty }},
	Field[*rec]{Name: "active", Kind: Boolean, Get: func(r *rec) any { return r.Active }},
	Field[*rec]{Name: "createdAt", Kind: Date, Get: func(r *rec) any { return &r.CreatedAt }},
	Field[*rec]{Name: "updatedAt", Kind: Date, Get: func(r *rec) any { return r.UpdatedAt }},
	Field[*rec]{Name: "country", Kind: Object, Get: countryOf, Fields: []Field[*rec]{
		{Name: "id", Kind: String, Get: countryID},
		{Name: "name", Kind: String, Get: func(r *rec) any {
			if r.Country == nil {
				return nil
			}
			return r.Country.Name
		}},
	}},
	Field[*rec]{Name: "tags", Kind: List, Get: func(r *rec) any { return r.Tags }},
)

// testRecords, in storage order. Days of the week: a1 and c1 Sunday, a2 and c2 Saturday, b1
// Monday, d1 Tuesday, b2 Thursday.
func testRecords() []*rec {
	return []*rec{
		{ID: "a1", Name: "Árbol", Amount: 10, Qty: ip(1), Active: true, CreatedAt: "2023-01-15T10:00:00.000", Country: mx(), Tags: []string{"x"}},
		{ID: "a2", Name: "avión", Amount: 25.5, Active: false, CreatedAt: "2023-05-20T08:30:00.000Z", Country: us()},
		{ID: "b1", Name: "Barco", Amount: 5, Qty: ip(3), Active: true, CreatedAt: "2024-01-01T00:00:00.000", Country: mx()},
		{ID: "b2", Name: "barco", Amount: 100, Qty: ip(2), Active: false, CreatedAt: "2024-02-29T23:59:59.999"},
		{ID: "c1", Name: "Casa grande", Amount: -7, Qty: ip(5), Active: true, CreatedAt: "2024-03-03T12:00:00.000", Country: &country{"CA", "Canadá"}},
		{ID: "c2", Name: "", Amount: 0, Active: false, CreatedAt: "2022-12-31T23:00:00.000", UpdatedAt: sp("2023-01-01T00:00:00.000"), Country: mx()},
		{ID: "d1", Name: "Dedo", Amount: 42, Qty: ip(7), Active: true, CreatedAt: "2023-07-04T15:45:30.000", Country: us()},
	}
}

// query builds url.Values from name, value pairs.
func query(kv ...string) url.Values {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Add(kv[i], kv[i+1])
	}
	return q
}

func mustLoad(t *testing.T, kv ...string) Result {
	t.Helper()
	res, fs := Load(testSchema, testRecords(), query(kv...))
	if fs != nil {
		t.Fatalf("Load(%v): unexpected failures %+v", kv, fs)
	}
	return res
}

// ids lists the ids of an ungrouped result's records.
func ids(t *testing.T, res Result) []string {
	t.Helper()
	rs, ok := res.Data.([]*rec)
	if !ok {
		t.Fatalf("data is %T, want []*rec", res.Data)
	}
	out := []string{}
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return string(b)
}

type wantFailure struct{ prop, msg string }

func failuresOf(fs []api.Failure) []wantFailure {
	out := []wantFailure{}
	for _, f := range fs {
		out = append(out, wantFailure{f.PropertyName, f.ErrorMessage})
	}
	return out
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
