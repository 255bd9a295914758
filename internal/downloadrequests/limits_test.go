package downloadrequests

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/satws"
	"github.com/timbra-mx/timbra/internal/satws/satlocal"
	"github.com/timbra-mx/timbra/internal/satws/satwstest"
	"github.com/timbra-mx/timbra/storage"
)

// withEFirma stores a tenant, a person of EKU9003173C9 and a current e.firma pair of that person
// (the records HasCurrentEFirma reads).
func withEFirma(t *testing.T, s storage.Store, tenant, person string, now time.Time) {
	t.Helper()
	tin := "EKU9003173C9"
	err := s.Update(context.Background(), func(tx storage.Tx) error {
		if err := tx.Tenants().Put(storage.Tenant{ID: tenant, CreatedAt: now}); err != nil {
			return err
		}
		return tx.People(tenant).Put(storage.Person{ID: person, TenantID: tenant, LegalName: "EKU", Email: person + "@example.com", Tin: &tin, CreatedAt: now})
	})
	if err != nil {
		t.Fatal(err)
	}
	pair(t, s, tenant, person, "k", api.TaxFileCertificateFIEL, now.AddDate(-1, 0, 0), now.AddDate(1, 0, 0))
}

// pair stores a certificate of a type (and the key of its pair) valid from..to.
func pair(t *testing.T, s storage.Store, tenant, person, keyID string, certType int, from, to time.Time) {
	t.Helper()
	err := s.Update(context.Background(), func(tx storage.Tx) error {
		for i, typ := range []int{certType, certType + 1} {
			f := storage.TaxFile{ID: fmt.Sprintf("%s-%s-%d", person, keyID, i), TenantID: tenant, PersonID: person, Tin: "EKU9003173C9", FileType: typ,
				PublicKeyID: keyID, ValidFrom: &from, ValidTo: &to, Sequence: 1, CreatedAt: from}
			if err := tx.TaxFiles(tenant).Put(f); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func text400(err error) string {
	var e *apierr.Error
	if !errors.As(err, &e) || e.Status != 400 {
		return fmt.Sprintf("not a 400: %v", err)
	}
	if len(e.Failures) > 0 {
		return e.Failures[0].PropertyName + ": " + e.Failures[0].ErrorMessage
	}
	return e.Details
}

// TestCreateRefusesSATLimits: a create is refused with the SAT's reason before anything is sent:
// a start before today six years back at 00:00 (that instant is accepted), received CFDIs not
// Vigente, a request identical to an active one (5005), a third identical CFDI request of a
// period (5002; metadata is not limited, and another period by one second is another query); a
// request deleted no longer counts.
func TestCreateRefusesSATLimits(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	now := time.Date(2026, 3, 10, 18, 0, 0, 0, time.UTC) // 12:00 in Mexico City
	withEFirma(t, s, "t1", "p1", now)
	svc := &Service{Store: s, Now: func() time.Time { return now }}
	c := auth.Caller{TenantID: "t1", PersonID: "p1"}
	in := func(start, end, download, query, status string) api.DownloadRequestInput {
		tin := "EKU9003173C9"
		return api.DownloadRequestInput{StartDate: &start, EndDate: &end, RequesterTin: &tin, DownloadTypeID: &download, SatQueryTypeID: &query, SatInvoiceStatusID: &status}
	}
	create := func(i api.DownloadRequestInput) (api.DownloadRequest, error) { return svc.Create(ctx, c, i) }
	// finish makes a request no longer active, taken by the SAT or not
	finish := func(id string, taken bool) {
		t.Helper()
		if err := s.Update(ctx, func(tx storage.Tx) error {
			r, err := tx.DownloadRequests("t1").Get(id)
			if err != nil {
				return err
			}
			r.Active, r.DownloadRequestStatusID = false, StatusCompleted
			if taken {
				r.SatRequestID = "sat-" + id
			} else {
				r.DownloadRequestStatusID = StatusFailed
			}
			return tx.DownloadRequests("t1").Put(r)
		}); err != nil {
			t.Fatal(err)
		}
	}

	if _, err := create(in("2020-03-09T23:59:59", "2020-04-01T00:00:00", "Emitidos", "Metadata", "")); text400(err) !=
		"StartDate: "+fmt.Sprintf(MsgTooOld, "2020-03-09T23:59:59", "2020-03-10T00:00:00") {
		t.Errorf("a start older than six years: %s", text400(err))
	}
	if _, err := create(in("2020-03-10T00:00:00", "2020-04-01T00:00:00", "Emitidos", "Metadata", "")); err != nil {
		t.Errorf("a start six years back at 00:00: %v", err)
	}
	if _, err := create(in("2024-01-01", "2024-02-01", "Recibidos", "CFDI", "Cancelado")); text400(err) != "SatInvoiceStatusId: "+MsgReceivedXML {
		t.Errorf("received cancelled CFDIs: %s", text400(err))
	}

	jan := in("2024-01-01", "2024-02-01", "Emitidos", "CFDI", "")
	first, err := create(jan)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := create(jan); text400(err) != fmt.Sprintf(MsgDuplicate, 5005) {
		t.Errorf("identical to an active request: %s", text400(err))
	}
	finish(first.ID, true)
	second, err := create(jan)
	if err != nil {
		t.Fatalf("the second identical request: %v", err)
	}
	finish(second.ID, true)
	if _, err := create(jan); text400(err) != fmt.Sprintf(MsgExhausted, 5002) {
		t.Errorf("a third identical CFDI request: %s", text400(err))
	}
	if _, err := create(in("2024-01-01", "2024-02-01T00:00:01", "Emitidos", "CFDI", "")); err != nil {
		t.Errorf("the period one second longer: %v", err)
	}
	if err := svc.Delete(ctx, c, second.ID); err != nil {
		t.Fatal(err)
	}
	third, err := create(jan)
	if err != nil {
		t.Fatalf("after one of the two was deleted: %v", err)
	}
	finish(third.ID, false) // never taken by the SAT: not counted
	if _, err := create(jan); err != nil {
		t.Errorf("after a request the SAT never took: %v", err)
	}

	meta := in("2024-01-01", "2024-02-01", "Emitidos", "Metadata", "")
	for i := range 3 {
		r, err := create(meta)
		if err != nil {
			t.Fatalf("identical metadata request %d: %v", i+1, err)
		}
		finish(r.ID, true)
	}
}

// TestRefusalsAgreeWithLocalSAT: what a create refuses, the local SAT (SAT's v1.5 rules) refuses
// too, with the code the text names; what a create accepts, it accepts. Each accepted request is
// sent to the local SAT as the worker sends it, and finishes there and here together.
func TestRefusalsAgreeWithLocalSAT(t *testing.T) {
	ctx := context.Background()
	// noon in Mexico City: the day is the same there and in UTC, which the local SAT's six years
	// count from
	now := time.Date(2026, 3, 10, 18, 0, 0, 0, time.UTC)
	clk := &clock{t: now}
	local, err := satlocal.New(satlocal.Options{CFDIs: t.TempDir(), Delay: time.Hour, Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	sat := httptest.NewServer(local)
	t.Cleanup(sat.Close)
	client := &satws.Client{Endpoints: satws.EndpointsAt(sat.URL), Credential: satwstest.EFirma(t), Now: clk.now}
	s := openStore(t)
	withEFirma(t, s, "t1", "p1", now)
	svc := &Service{Store: s, Now: clk.now}
	c := auth.Caller{TenantID: "t1", PersonID: "p1"}
	tin, issued, cfdi := "EKU9003173C9", "Emitidos", "CFDI"
	query := func(start, end time.Time) satws.Query {
		return satws.Query{Operation: satws.Issued, Requester: tin, Issuer: tin, Start: start, End: end, RequestType: cfdi}
	}
	var accepted, atSAT []string
	try := func(step string, start, end time.Time, wantText string, wantCode int) {
		t.Helper()
		from, to := start.Format(wallLayout), end.Format(wallLayout)
		r, err := svc.Create(ctx, c, api.DownloadRequestInput{StartDate: &from, EndDate: &to, RequesterTin: &tin, DownloadTypeID: &issued, SatQueryTypeID: &cfdi})
		got := ""
		if err != nil {
			got = text400(err)
		}
		if wantText != "" && !strings.HasSuffix(got, wantText) || wantText == "" && err != nil {
			t.Errorf("%s: the create answered %q, want %q", step, got, wantText)
		}
		res, err := client.Query(ctx, query(start, end))
		if err != nil || res.Code != wantCode {
			t.Errorf("%s: the local SAT answered %d %q (%v), want %d", step, res.Code, res.Message, err, wantCode)
		}
		if r.ID != "" {
			accepted = append(accepted, r.ID)
		}
		if res.RequestID != "" {
			atSAT = append(atSAT, res.RequestID)
		}
	}
	// finish ends at the SAT (past its Delay) and here every request accepted so far
	finish := func() {
		clk.add(2 * time.Hour)
		for _, id := range atSAT {
			if v, err := client.Verify(ctx, id); err != nil || v.State != satws.StateRejected { // nothing found: finished
				t.Fatalf("the local SAT's request %s: %+v %v", id, v, err)
			}
		}
		if err := s.Update(ctx, func(tx storage.Tx) error {
			for _, id := range accepted {
				r, err := tx.DownloadRequests("t1").Get(id)
				if err != nil {
					return err
				}
				r.Active, r.SatRequestID, r.DownloadRequestStatusID = false, "sat-"+id, StatusCompleted
				if err := tx.DownloadRequests("t1").Put(r); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	end := start.AddDate(0, 1, 0)
	try("first", start, end, "", satws.CodeAccepted)
	try("identical while active", start, end, fmt.Sprintf(MsgDuplicate, satws.CodeDuplicate), satws.CodeDuplicate)
	finish()
	try("second", start, end, "", satws.CodeAccepted)
	finish()
	try("third", start, end, fmt.Sprintf(MsgExhausted, satws.CodeExhausted), satws.CodeExhausted)
	oldest := oldestStart(clk.now())
	try("a day before six years back", oldest.AddDate(0, 0, -1), oldest.AddDate(0, 1, 0),
		fmt.Sprintf(MsgTooOld, oldest.AddDate(0, 0, -1).Format(wallLayout), oldest.Format(wallLayout)), satws.CodeMalformedXML)
	try("six years back at 00:00", oldest, oldest.AddDate(0, 1, 0), "", satws.CodeAccepted)
}
