package downloadrequests

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/storage"
)

// Texts of update and search.
const (
	MsgUnchangeable = "'%s' no cambia en una solicitud ya creada (la solicitud tiene '%s'): crea una solicitud nueva con los parámetros nuevos."
	MsgSearchDate   = "La fecha '%s' no es válida: usa AAAA-MM-DD, por ejemplo 2025-01-31."
)

// Update answers the official client's update (PUT). A request is the query the SAT was (or is
// about to be) sent, so none of its SAT parameters, its rule, its type or its dates changes:
// a field left out or equal to the stored value is accepted, one that differs is refused with
// its name, and the request answers unchanged. A different query is a new request.
func (s *Service) Update(ctx context.Context, c auth.Caller, id string, in api.DownloadRequestInput) (api.DownloadRequest, error) {
	var out api.DownloadRequest
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		r, err := s.get(tx, c, id)
		if err != nil {
			return err
		}
		if fs := changed(r, in); len(fs) > 0 {
			return apierr.Invalid(fs...)
		}
		out = ToAPI(r)
		return nil
	})
	return out, err
}

// changed names every field of in that is given and differs from the stored request.
func changed(r storage.DownloadRequest, in api.DownloadRequestInput) []api.Failure {
	var fs []api.Failure
	same := func(prop string, p *string, stored string, fold bool) {
		if p == nil {
			return
		}
		v := strings.TrimSpace(*p)
		if v == stored || (fold && strings.EqualFold(v, stored)) {
			return
		}
		fs = append(fs, field(prop, fmt.Sprintf(MsgUnchangeable, prop, stored), v))
	}
	same("DownloadRuleId", in.DownloadRuleID, r.DownloadRuleID, false)
	same("DownloadRequestTypeId", in.DownloadRequestTypeID, r.DownloadRequestTypeID, false)
	same("DownloadTypeId", in.DownloadTypeID, r.DownloadTypeID, false)
	same("SatQueryTypeId", in.SatQueryTypeID, r.SatQueryTypeID, false)
	same("SatInvoiceTypeId", in.SatInvoiceTypeID, r.SatInvoiceTypeID, false)
	same("SatInvoiceStatusId", in.SatInvoiceStatusID, r.SatInvoiceStatusID, false)
	same("SatInvoiceComplementId", in.SatInvoiceComplementID, r.SatInvoiceComplement, false)
	same("RequesterTin", in.RequesterTin, r.RequesterTin, true)
	same("IssuerTin", in.IssuerTin, r.IssuerTin, true)
	same("RecipientTin", in.RecipientTin, r.RecipientTin, true)
	same("Uuid", in.UUID, r.UUID, true)
	same("OnBehalfTin", in.OnBehalfTin, r.OnBehalfTin, true)
	for _, d := range []struct {
		prop   string
		p      *string
		stored time.Time
	}{{"StartDate", in.StartDate, r.StartDate}, {"EndDate", in.EndDate, r.EndDate}} {
		if d.p == nil {
			continue
		}
		v := strings.TrimSpace(*d.p)
		if t, ok := parseDate(v); (ok && t.Equal(d.stored)) || (v == "" && d.stored.IsZero()) {
			continue
		}
		fs = append(fs, field(d.prop, fmt.Sprintf(MsgUnchangeable, d.prop, wallDate(d.stored)), *d.p))
	}
	return fs
}

// Search is the filter of the official client's search and searchByDate
// (GET /download-requests/search?createdAt=2025-01-31): every given field must match.
// CreatedAt is a day in UTC, as the client sends Date.toISOString's date.
type Search struct {
	CreatedAt               string
	DownloadRequestStatusID string
	DownloadTypeID          string
	SatQueryTypeID          string
	DownloadRequestTypeID   string
	DownloadRuleID          string
	RequesterTin            string
}

// Search answers a page of the tenant's requests that match, in creation order. The storage
// keeps a tenant's requests in creation order without an index by date or field, so a search
// reads the tenant's requests once (O(the tenant's requests), in chunks), and keeps only the
// page's in memory.
func (s *Service) Search(ctx context.Context, c auth.Caller, q Search, page, size int) (api.PagedList[api.DownloadRequest], error) {
	var day time.Time
	if q.CreatedAt != "" {
		t, err := time.Parse("2006-01-02", strings.TrimSpace(q.CreatedAt))
		if err != nil {
			return api.PagedList[api.DownloadRequest]{}, apierr.Invalid(field("CreatedAt", fmt.Sprintf(MsgSearchDate, q.CreatedAt), q.CreatedAt))
		}
		day = t
	}
	match := func(r storage.DownloadRequest) bool {
		if !day.IsZero() {
			u := r.CreatedAt.UTC()
			if u.Before(day) || !u.Before(day.AddDate(0, 0, 1)) {
				return false
			}
		}
		for _, f := range [][2]string{
			{q.DownloadRequestStatusID, r.DownloadRequestStatusID}, {q.DownloadTypeID, r.DownloadTypeID},
			{q.SatQueryTypeID, r.SatQueryTypeID}, {q.DownloadRequestTypeID, r.DownloadRequestTypeID},
			{q.DownloadRuleID, r.DownloadRuleID}, {q.RequesterTin, r.RequesterTin},
		} {
			if v := strings.TrimSpace(f[0]); v != "" && !strings.EqualFold(v, f[1]) {
				return false
			}
		}
		return true
	}
	const chunk = 256
	var out []api.DownloadRequest
	total, skip := 0, (page-1)*size
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		for off := 0; ; off += chunk {
			rs, n, err := tx.DownloadRequests(c.TenantID).List(off, chunk)
			if err != nil {
				return err
			}
			for _, r := range rs {
				if !match(r) {
					continue
				}
				if total >= skip && len(out) < size {
					out = append(out, ToAPI(r))
				}
				total++
			}
			if len(rs) < chunk || off+chunk >= n {
				return nil
			}
		}
	})
	if err != nil {
		return api.PagedList[api.DownloadRequest]{}, err
	}
	return api.NewPage(out, page, size, total), nil
}
