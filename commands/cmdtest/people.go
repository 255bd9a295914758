package cmdtest

import (
	"net/http"
	"testing"

	"github.com/timbra-mx/timbra/internal/api"
)

// People are the two people PeopleAPI knows.
var People = []api.Person{
	{ID: "p-1", LegalName: "Ana López", Email: "ana@example.com", IsOwner: true, Tin: ptr("LOAA800101AB1"), CreatedAt: "2025-03-10T11:57:00.000"},
	{ID: "p-2", LegalName: "Beto", Email: "beto@example.com", CreatedAt: "2025-01-02T03:04:05.000"},
}

// PeopleAPI answers people list and get (of p-1) like the API, to the API key UseAPI sets.
func PeopleAPI(t *testing.T) *FakeAPI {
	return NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-API-KEY") != APIKey || r.Header.Get("X-TENANT-KEY") == "" {
			WriteEnvelope(w, 401, nil, "Invalid API key", "t")
			return
		}
		switch {
		case r.URL.Path == "/api/v4/people":
			WriteEnvelope(w, 200, api.NewPage(People, 1, 10, 2), "", "t")
		case r.URL.Path == "/api/v4/people/p-1":
			p := People[0]
			p.Balances = []api.Balance{{CreditType: 1, Available: 100}, {CreditType: 2, Available: 2.5}}
			p.SatTaxRegime = &api.CatalogRecord{ID: "601", Description: "General de Ley Personas Morales"}
			p.SatTaxRegimeID = ptr("601")
			WriteEnvelope(w, 200, p, "", "t")
		default:
			WriteEnvelope(w, 404, nil, "No such resource for the given Id: x", "t")
		}
	})
}

func ptr(s string) *string { return &s }
