package server

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/downloadrequests"
	"github.com/timbra-mx/timbra/internal/satws/satwstest"
)

// TestDownloadRequestUpdateAndSearch: the official client's update (PUT) accepts a request as
// read (or part of it) and answers it unchanged, and refuses a changed SAT parameter or date
// by name; search and searchByDate (GET /download-requests/search) filter by creation day (UTC)
// and fields, paged like the list; a bad day is a validation failure.
func TestDownloadRequestUpdateAndSearch(t *testing.T) {
	cer, key, pw := satwstest.Files()
	cerB, err1 := os.ReadFile(cer)
	keyB, err2 := os.ReadFile(key)
	pwB, err3 := os.ReadFile(pw)
	if err1 != nil || err2 != nil || err3 != nil {
		t.Skip("SAT's test e.firma is not beside the repository")
	}
	f := newFixture(t)
	owner := ownerMember(t, f, f.creds)
	eku := taxPerson(t, f, "eku@example.com", "EKU9003173C9")
	taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(eku.person, 2, cerB, "", ""), owner.headers()...))
	taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(eku.person, 3, keyB, strings.TrimSpace(string(pwB)), ""), owner.headers()...))

	var made []api.DownloadRequest
	for i := 0; i < 5; i++ {
		q := "CFDI"
		if i%2 == 1 {
			q = "Metadata"
		}
		made = append(made, requestOf(t, f.do("POST", "/api/v4/download-requests",
			fmt.Sprintf(`{"startDate":"2024-01-0%dT00:00:00","endDate":"2024-02-01T00:00:00","requesterTin":"EKU9003173C9","downloadTypeId":"Emitidos","satQueryTypeId":"%s"}`, i+1, q), eku.headers()...)))
	}
	first := made[0]

	// update: the request as read is accepted and answered unchanged
	asRead, _ := json.Marshal(first)
	got := requestOf(t, f.do("PUT", "/api/v4/download-requests/"+first.ID, string(asRead), eku.headers()...))
	if got.ID != first.ID || got.StartDate != first.StartDate || got.SatQueryTypeID != "CFDI" || got.UpdatedAt != first.UpdatedAt {
		t.Errorf("update as read: %+v", got)
	}
	requestOf(t, f.do("PUT", "/api/v4/download-requests/"+first.ID, `{"id":"`+first.ID+`","startDate":"2024-01-01T00:00:00.000-06:00"}`, eku.headers()...))
	expectFailure(t, f.do("PUT", "/api/v4/download-requests/"+first.ID, `{"satQueryTypeId":"Metadata"}`, eku.headers()...),
		"SatQueryTypeId", fmt.Sprintf(downloadrequests.MsgUnchangeable, "SatQueryTypeId", "CFDI"))
	expectFailure(t, f.do("PUT", "/api/v4/download-requests/"+first.ID, `{"endDate":"2024-03-01"}`, eku.headers()...),
		"EndDate", fmt.Sprintf(downloadrequests.MsgUnchangeable, "EndDate", "2024-02-01T00:00:00"))
	if r := f.do("PUT", "/api/v4/download-requests/nope", `{}`, eku.headers()...); r.status != 404 {
		t.Errorf("update unknown: %d %s", r.status, r.raw)
	}
	if g := requestOf(t, f.do("GET", "/api/v4/download-requests/"+first.ID, "", eku.headers()...)); g.SatQueryTypeID != "CFDI" || g.EndDate != first.EndDate {
		t.Errorf("after refused updates: %+v", g)
	}

	search := func(q string) api.PagedList[api.DownloadRequest] {
		t.Helper()
		var out api.PagedList[api.DownloadRequest]
		r := f.do("GET", "/api/v4/download-requests/search"+q, "", eku.headers()...)
		if r.status != 200 || json.Unmarshal(r.env.Data, &out) != nil {
			t.Fatalf("search%s: %d %s", q, r.status, r.raw)
		}
		return out
	}
	today := time.Now().UTC().Format("2006-01-02")
	if p := search("?createdAt=" + today); p.TotalCount != 5 || len(p.Items) != 5 || p.Items[0].ID != first.ID {
		t.Errorf("searchByDate today: %+v", p)
	}
	if p := search("?createdAt=2001-01-01"); p.TotalCount != 0 || len(p.Items) != 0 {
		t.Errorf("searchByDate another day: %+v", p)
	}
	p := search("?createdAt=" + today + "&satQueryTypeId=metadata&PageNumber=2&PageSize=1")
	if p.TotalCount != 2 || len(p.Items) != 1 || p.Items[0].ID != made[3].ID || p.PageNumber != 2 {
		t.Errorf("search paged: %+v", p)
	}
	if p := search("?downloadRequestStatusId=Completed"); p.TotalCount != 0 {
		t.Errorf("search by status: %+v", p)
	}
	expectFailure(t, f.do("GET", "/api/v4/download-requests/search?createdAt=31-01-2025", "", eku.headers()...),
		"CreatedAt", fmt.Sprintf(downloadrequests.MsgSearchDate, "31-01-2025"))
}
