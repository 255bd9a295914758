package downloadrequests

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/storage"
)

// decodeCounter is a store whose download requests count the records they decode (Get, and
// the items of List): what a search reads beyond the indexes.
type decodeCounter struct {
	storage.Store
	decoded *int
}

func (s decodeCounter) View(ctx context.Context, fn func(storage.Tx) error) error {
	return s.Store.View(ctx, func(tx storage.Tx) error { return fn(countingTx{tx, s.decoded}) })
}

type countingTx struct {
	storage.Tx
	decoded *int
}

func (t countingTx) DownloadRequests(tenant string) storage.DownloadRequests {
	return countingRequests{t.Tx.DownloadRequests(tenant), t.decoded}
}

type countingRequests struct {
	storage.DownloadRequests
	decoded *int
}

func (r countingRequests) Get(id string) (storage.DownloadRequest, error) {
	*r.decoded++
	return r.DownloadRequests.Get(id)
}

func (r countingRequests) List(offset, limit int) ([]storage.DownloadRequest, int, error) {
	rs, n, err := r.DownloadRequests.List(offset, limit)
	*r.decoded += len(rs)
	return rs, n, err
}

// fullScan is the search as a filter over every request of the tenant, in creation order: what
// an indexed search must answer.
func fullScan(t *testing.T, s storage.Store, tenant string, q Search, page, size int) ([]string, int) {
	t.Helper()
	var all []storage.DownloadRequest
	if err := s.View(context.Background(), func(tx storage.Tx) error {
		var err error
		all, _, err = tx.DownloadRequests(tenant).List(0, 1<<30)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var ids []string
	total := 0
	for _, r := range all {
		if q.CreatedAt != "" && r.CreatedAt.UTC().Format(time.DateOnly) != q.CreatedAt {
			continue
		}
		ok := true
		for _, f := range [][2]string{
			{q.DownloadRequestStatusID, r.DownloadRequestStatusID}, {q.DownloadTypeID, r.DownloadTypeID},
			{q.SatQueryTypeID, r.SatQueryTypeID}, {q.DownloadRequestTypeID, r.DownloadRequestTypeID},
			{q.DownloadRuleID, r.DownloadRuleID}, {q.RequesterTin, r.RequesterTin},
		} {
			if v := strings.TrimSpace(f[0]); v != "" && !strings.EqualFold(v, f[1]) {
				ok = false
			}
		}
		if !ok {
			continue
		}
		if total >= (page-1)*size && len(ids) < size {
			ids = append(ids, r.ID)
		}
		total++
	}
	return ids, total
}

// TestSearchIndexed: over requests of three days, of several types, statuses, rules and RFCs
// (some moved to another status, some deleted; another tenant's beside them), every search
// answers what a scan of all the tenant's requests answers, page by page, and decodes only
// the requests of its page.
func TestSearchIndexed(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	base := time.Date(2026, 11, 20, 22, 0, 0, 0, time.UTC) // crosses midnight UTC
	statuses := []string{"Pending", "InProgress", "Completed", "Failed"}
	var made []storage.DownloadRequest
	err := s.Update(ctx, func(tx storage.Tx) error {
		for i := range 90 {
			at := base.Add(time.Duration(i) * 37 * time.Minute)
			r := storage.DownloadRequest{ID: ids.New(at), Consecutive: int64(i + 1), DownloadTypeID: []string{"Emitidos", "Recibidos", "Uuid"}[i%3],
				DownloadRequestTypeID: []string{"Manual", "Automatic"}[i%2], SatQueryTypeID: []string{"CFDI", "Metadata"}[(i/2)%2],
				RequesterTin: []string{"EKU9003173C9", "ANA010101AAA"}[(i/5)%2], DownloadRequestStatusID: "Pending", Active: true,
				StartDate: at, EndDate: at.Add(time.Hour), CreatedAt: at, UpdatedAt: at}
			if i%4 == 0 {
				r.DownloadRuleID = fmt.Sprintf("rule-%d", i%8)
			}
			if err := tx.DownloadRequests("t1").Put(r); err != nil {
				return err
			}
			made = append(made, r)
			other := r
			other.ID = ids.New(at)
			if err := tx.DownloadRequests("t2").Put(other); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// the worker moves most of them on (one Put per step), and some are deleted
	err = s.Update(ctx, func(tx storage.Tx) error {
		for i, r := range made {
			for step := 1; step <= i%4; step++ {
				r.DownloadRequestStatusID, r.Active = statuses[step], step == 1
				if err := tx.DownloadRequests("t1").Put(r); err != nil {
					return err
				}
			}
			if i%11 == 5 {
				if err := tx.DownloadRequests("t1").Delete(r.ID); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	decoded := 0
	svc := &Service{Store: decodeCounter{s, &decoded}}
	caller := auth.Caller{TenantID: "t1"}
	days := []string{"2026-11-20", "2026-11-21", "2026-11-22", "2026-11-23"}
	queries := []Search{
		{},
		{CreatedAt: days[0]}, {CreatedAt: days[1]}, {CreatedAt: days[2]}, {CreatedAt: days[3]}, {CreatedAt: "2001-01-01"},
		{DownloadRequestStatusID: "completed"}, {DownloadRequestStatusID: "Pending"}, {DownloadRequestStatusID: "Nope"},
		{CreatedAt: days[1], SatQueryTypeID: "metadata"},
		{CreatedAt: days[2], DownloadRequestStatusID: "Failed", DownloadTypeID: "Emitidos"},
		{DownloadRuleID: "rule-4"}, {DownloadRuleID: "rule-4", CreatedAt: days[1]},
		{RequesterTin: "eku9003173c9", DownloadRequestTypeID: "Automatic"},
		{DownloadTypeID: " Uuid ", SatQueryTypeID: "CFDI", DownloadRequestStatusID: "InProgress"},
		{DownloadRequestStatusID: "completed", DownloadTypeID: "recibidos"}, {DownloadRequestStatusID: "Failed", RequesterTin: "ANA010101AAA"},
		{DownloadRequestStatusID: "Pending", CreatedAt: days[2]},
	}
	for _, q := range queries {
		for _, ps := range [][2]int{{1, 10}, {2, 10}, {3, 7}, {1, 50}, {9, 10}} {
			page, size := ps[0], ps[1]
			wantIDs, wantTotal := fullScan(t, s, "t1", q, page, size)
			decoded = 0
			got, err := svc.Search(ctx, caller, q, page, size)
			if err != nil {
				t.Fatalf("%+v page %d: %v", q, page, err)
			}
			var gotIDs []string
			for _, r := range got.Items {
				gotIDs = append(gotIDs, r.ID)
			}
			if strings.Join(gotIDs, ",") != strings.Join(wantIDs, ",") || got.TotalCount != wantTotal {
				t.Errorf("%+v page %d of %d: %d of %d %v, want %d of %d %v", q, page, size, len(gotIDs), got.TotalCount, gotIDs, len(wantIDs), wantTotal, wantIDs)
			}
			if decoded != len(got.Items) {
				t.Errorf("%+v page %d of %d: decoded %d requests for a page of %d", q, page, size, decoded, len(got.Items))
			}
		}
	}
	if p, _ := svc.Search(ctx, caller, Search{CreatedAt: days[1]}, 1, 100); p.TotalCount == 0 {
		t.Fatal("the cases search nothing") // keeps the comparison from passing on empty answers
	}
	if _, err := svc.Search(ctx, caller, Search{CreatedAt: "2026-13-01"}, 1, 10); err == nil {
		t.Error("a day that does not exist was searched")
	}
}
