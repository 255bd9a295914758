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

// Search answers a page of the tenant's requests that match, in creation order. Every field a
// search filters on is indexed and each value counted (storage's download_requests_by): the
// search walks the index of its filter with the fewest requests, checks the others on each
// request's summary, and decodes only the page's requests; with one filter or two the total is
// the index's or the pair's counter (download_requests_pairs) and the walk stops at the page's
// end, with none the list's.
func (s *Service) Search(ctx context.Context, c auth.Caller, q Search, page, size int) (api.PagedList[api.DownloadRequest], error) {
	type filter struct {
		f storage.DownloadRequestField
		v string
	}
	var fs []filter
	if q.CreatedAt != "" {
		t, err := time.Parse(time.DateOnly, strings.TrimSpace(q.CreatedAt))
		if err != nil {
			return api.PagedList[api.DownloadRequest]{}, apierr.Invalid(field("CreatedAt", fmt.Sprintf(MsgSearchDate, q.CreatedAt), q.CreatedAt))
		}
		fs = append(fs, filter{storage.RequestsByDay, t.Format(time.DateOnly)})
	}
	for _, f := range []filter{
		{storage.RequestsByStatus, q.DownloadRequestStatusID}, {storage.RequestsByDownloadType, q.DownloadTypeID},
		{storage.RequestsByQueryType, q.SatQueryTypeID}, {storage.RequestsByRequestType, q.DownloadRequestTypeID},
		{storage.RequestsByRule, q.DownloadRuleID}, {storage.RequestsByRequester, q.RequesterTin},
	} {
		if v := storage.Fold(strings.TrimSpace(f.v)); v != "" {
			fs = append(fs, filter{f.f, v})
		}
	}
	var out []api.DownloadRequest
	total, skip := 0, (page-1)*size
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		rs := tx.DownloadRequests(c.TenantID)
		if len(fs) == 0 {
			list, n, err := rs.List(skip, size)
			for _, r := range list {
				out = append(out, ToAPI(r))
			}
			total = n
			return err
		}
		// the filter with the fewest requests is walked; the others are checked on summaries
		best := 0
		for i, f := range fs {
			n, err := rs.CountBy(f.f, f.v)
			if err != nil {
				return err
			}
			if i == 0 || n < total {
				best, total = i, n
			}
		}
		walked := fs[best]
		rest := append(fs[:best:best], fs[best+1:]...)
		// one filter, or two (their pair's counter): the total is kept and the walk stops at
		// the page's end; more are counted as the walk goes
		counted := len(fs) <= 2
		if len(fs) == 2 && total > 0 {
			n, err := rs.CountBoth(fs[0].f, fs[0].v, fs[1].f, fs[1].v)
			if err != nil {
				return err
			}
			total = n
		}
		if total == 0 {
			return nil
		}
		var ids []string
		n := 0
		err := rs.EachBy(walked.f, walked.v, func(id string) error {
			if len(rest) > 0 {
				sum, err := rs.Summary(id)
				if err != nil {
					return err
				}
				for _, f := range rest {
					if storage.Fold(sum.Field(f.f)) != f.v {
						return nil
					}
				}
			}
			if n >= skip && len(ids) < size {
				ids = append(ids, id)
			}
			n++
			if counted && len(ids) == size {
				return storage.ErrStop // the total is the counter's
			}
			return nil
		})
		if err != nil {
			return err
		}
		if !counted {
			total = n
		}
		for _, id := range ids {
			r, err := rs.Get(id)
			if err != nil {
				return fmt.Errorf("download request %s of the index: %w", id, err)
			}
			out = append(out, ToAPI(r))
		}
		return nil
	})
	if err != nil {
		return api.PagedList[api.DownloadRequest]{}, err
	}
	return api.NewPage(out, page, size, total), nil
}
