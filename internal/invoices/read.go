package invoices

// Reading invoices (GET /api/v4/invoices, /<id>, /<id>/xml). The spec shows none of them; they
// follow the official clients and decide:
//
//   - Visibility: every person of the tenant sees every invoice of the tenant (the invoices are
//     the company's books, not the stamping person's), as GET /api/v4/events does.
//   - The list is in creation order and filters, all optional and combined with AND, by the
//     CFDI's date (from, to: AAAA-MM-DD, inclusive, or AAAA-MM-DDThh:mm:ss), issuer and
//     recipient (issuerTin / recipientTin, or issuerId / recipientId of by-reference people),
//     typeCode, status and series (exact, case-insensitive). Its items carry no stamp
//     responses (responses: []): the QR image and XML of every item would make a page heavy;
//     GET /<id> has them.
//   - The answer of an invoice is the one of its creation with its current status.
//   - The XML answer is the stamped CFDI as SAT received it, named <UUID>.xml.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/storage"
)

// Paging of the list.
const (
	ListDefaultPageSize = 10
	ListMaxPageSize     = 50
)

// Texts of the list filters.
const (
	MsgFilterDate = "La fecha '%s' no es válida para %s: usa AAAA-MM-DD o AAAA-MM-DDThh:mm:ss."
)

// ListFilter is the query of GET /api/v4/invoices, as sent.
type ListFilter struct {
	From, To, IssuerTin, IssuerID, RecipientTin, RecipientID, TypeCode, Status, Series string
	Page, Size                                                                         int
}

// checkBound checks a date bound and tells whether it is a bare date.
func checkBound(prop, v string, fs *[]api.Failure) {
	if v == "" {
		return
	}
	if _, err := time.Parse(time.DateOnly, v); err == nil {
		return
	}
	if _, err := time.Parse(cfdi.DateLayout, v); err == nil {
		return
	}
	*fs = append(*fs, apierr.Field(prop, fmt.Sprintf(MsgFilterDate, v, prop), v, CodeFormat, apierr.Placeholders(prop, v)))
}

// inRange tells whether a CFDI date (AAAA-MM-DDThh:mm:ss) is within the bounds; a bare date
// bound covers its whole day.
func inRange(date, from, to string) bool {
	if from != "" && date[:min(len(date), len(from))] < from {
		return false
	}
	if to != "" && date[:min(len(date), len(to))] > to {
		return false
	}
	return true
}

// madeBetween bounds when the invoices a date filter can match were made (stamped), so that a
// list of one month walks that month's invoices, not the tenant's: an invoice's date (Fecha,
// Mexico City time) is at most 72 hours before its stamping and not after it (validate.go,
// MsgDateTooOld and MsgDateFuture; it was 5 minutes after before that rule), so one dated from
// `from` to `to` was stamped from `from` (5 minutes before, for the invoices of then) to 72 hours
// after `to`; a minute more each side for the clock. A bound that does not parse (checked
// before) or is absent leaves that side open.
func madeBetween(from, to string) (made, before time.Time) {
	parse := func(v string) (time.Time, bool, bool) {
		if t, err := time.ParseInLocation(time.DateOnly, v, cfdi.Mexico); err == nil {
			return t, true, true
		}
		t, err := time.ParseInLocation(cfdi.DateLayout, v, cfdi.Mexico)
		return t, false, err == nil
	}
	if t, _, ok := parse(from); from != "" && ok {
		made = t.Add(-6 * time.Minute)
	}
	if t, day, ok := parse(to); to != "" && ok {
		end := t.Add(time.Second)
		if day {
			end = t.AddDate(0, 0, 1)
		}
		before = end.Add(72*time.Hour + time.Minute)
	}
	return made, before
}

// same tells whether a field passes its filter, already folded ("" passes all), compared as
// the indexes compare (storage.Fold).
func same(folded, v string) bool { return folded == "" || folded == storage.Fold(v) }

// folded is the filter with its field values folded (storage.Fold), the dates as sent.
func (f ListFilter) folded() ListFilter {
	for _, v := range []*string{&f.IssuerTin, &f.IssuerID, &f.RecipientTin, &f.RecipientID, &f.TypeCode, &f.Status, &f.Series} {
		*v = storage.Fold(*v)
	}
	return f
}

// condition is one field filter of a list, with the index that answers it.
type condition struct {
	field storage.InvoiceField
	value string
}

// conditions are the field filters sent (the dates aside).
func (f ListFilter) conditions() []condition {
	var out []condition
	for _, c := range []condition{{storage.ByIssuerTin, f.IssuerTin}, {storage.ByRecipientTin, f.RecipientTin},
		{storage.ByIssuerPersonID, f.IssuerID}, {storage.ByRecipientPersonID, f.RecipientID}, {storage.ByTypeCode, f.TypeCode},
		{storage.ByStatus, f.Status}, {storage.BySeries, f.Series}} {
		if c.value != "" {
			out = append(out, c)
		}
	}
	return out
}

// view is the stored answer of an invoice with its current status.
func view(rec storage.Invoice) (api.Invoice, error) {
	var v api.Invoice
	if err := json.Unmarshal(rec.View, &v); err != nil {
		return v, fmt.Errorf("invoice %s: %w", rec.ID, err)
	}
	v.Status = rec.Status
	v.UpdatedAt = api.FormatAudit(rec.UpdatedAt)
	if v.Responses == nil {
		v.Responses = []api.InvoiceResponse{}
	}
	return v, nil
}

// List is a page of the tenant's invoices that pass the filter.
func (s *Service) List(ctx context.Context, c auth.Caller, f ListFilter) (api.PagedList[api.Invoice], error) {
	var fs []api.Failure
	checkBound("from", f.From, &fs)
	checkBound("to", f.To, &fs)
	if len(fs) > 0 {
		return api.PagedList[api.Invoice]{}, apierr.Invalid(fs...)
	}
	// Unfiltered, the tenant's count and a page by key; filtered, the summaries choose. Only the
	// page's invoices are decoded.
	items := []api.Invoice{}
	total := 0
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		inv := tx.Invoices(c.TenantID)
		if f == (ListFilter{Page: f.Page, Size: f.Size}) {
			recs, n, err := inv.List((f.Page-1)*f.Size, f.Size)
			if err != nil {
				return err
			}
			total = n
			for _, rec := range recs {
				v, err := view(rec)
				if err != nil {
					return err
				}
				items = append(items, v)
			}
			return nil
		}
		var page []string
		made, before := madeBetween(f.From, f.To)
		ff := f.folded() // once, not for every invoice walked
		match := func(r storage.InvoiceSummary) bool {
			return same(ff.IssuerTin, r.IssuerTin) && same(ff.RecipientTin, r.RecipientTin) && same(ff.TypeCode, r.TypeCode) &&
				same(ff.Status, r.Status) && same(ff.IssuerID, r.IssuerPersonID) && same(ff.RecipientID, r.RecipientPersonID) &&
				same(ff.Series, r.Series) && inRange(r.Date, f.From, f.To)
		}
		// The walk: the invoices of the filter whose index holds fewest (its count is kept), or,
		// with dates alone, those stamped in the dates' window. Where the total is kept (below)
		// the walk stops at the page's end; otherwise it counts the matches as it goes.
		conds := f.conditions()
		walk, n := inv.EachSummary, -1
		var best condition
		for _, c := range conds {
			m, err := inv.CountBy(c.field, c.value)
			if err != nil {
				return err
			}
			if n < 0 || m < n {
				best, n = c, m
			}
		}
		switch {
		case n == 0:
			return nil
		case n > 0:
			walk = func(from, to time.Time, fn func(storage.InvoiceSummary) error) error {
				return inv.EachBy(best.field, best.value, from, to, fn)
			}
		}
		// the total kept: one filter's count, a pair's, or, between bare dates, the days'
		// counters of every invoice or of one filter's value
		dates := f.From != "" || f.To != ""
		byDay := dates && (f.From == "" || len(f.From) == len(time.DateOnly)) && (f.To == "" || len(f.To) == len(time.DateOnly))
		whole := true
		var err error
		switch {
		case !dates && len(conds) == 1:
			total = n
		case !dates && len(conds) == 2:
			total, err = inv.CountBoth(conds[0].field, conds[0].value, conds[1].field, conds[1].value)
		case byDay && len(conds) == 0:
			total, err = inv.CountDays(storage.AllInvoices, "", f.From, f.To)
		case byDay && len(conds) == 1:
			total, err = inv.CountDays(conds[0].field, conds[0].value, f.From, f.To)
		default:
			whole = false
		}
		if err != nil || whole && total == 0 {
			return err
		}
		seen := 0
		err = walk(made, before, func(r storage.InvoiceSummary) error {
			if !match(r) {
				return nil
			}
			if seen >= (f.Page-1)*f.Size && len(page) < f.Size {
				page = append(page, r.ID)
			}
			seen++
			if whole && seen >= f.Page*f.Size {
				return storage.ErrStop
			}
			return nil
		})
		if err != nil {
			return err
		}
		if !whole {
			total = seen
		}
		recs, err := inv.GetMany(page)
		if err != nil {
			return err
		}
		for _, rec := range recs {
			v, err := view(rec)
			if err != nil {
				return err
			}
			items = append(items, v)
		}
		return nil
	})
	if err != nil {
		return api.PagedList[api.Invoice]{}, err
	}
	return api.NewPage(items, f.Page, f.Size, total), nil
}

// record reads an invoice of the tenant: 404 when it has none with that id.
func (s *Service) record(ctx context.Context, c auth.Caller, id string) (storage.Invoice, error) {
	var rec storage.Invoice
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		var err error
		rec, err = tx.Invoices(c.TenantID).Get(id)
		return err
	})
	if errors.Is(err, storage.ErrNotFound) {
		return rec, apierr.NotFound(id)
	}
	return rec, err
}

// Get is an invoice of the tenant with its stamp response.
func (s *Service) Get(ctx context.Context, c auth.Caller, id string) (api.Invoice, error) {
	rec, err := s.record(ctx, c, id)
	if err != nil {
		return api.Invoice{}, err
	}
	v, err := view(rec)
	if err != nil {
		return api.Invoice{}, err
	}
	resp, err := Response(rec)
	if err != nil {
		return api.Invoice{}, err
	}
	v.Responses = []api.InvoiceResponse{resp}
	return v, nil
}

// XML is the stamped CFDI of an invoice of the tenant as a file answer.
func (s *Service) XML(ctx context.Context, c auth.Caller, id string) (api.InvoiceFile, error) {
	rec, err := s.record(ctx, c, id)
	if err != nil {
		return api.InvoiceFile{}, err
	}
	return fileAnswer(rec.XML, rec.UUID, "xml", "application/xml"), nil
}

// fileAnswer is a file of an invoice as the API answers it: the official clients'
// FileResponse (base64File, fileName, fileExtension) and the same content as base64Content with
// its contentType, named after the invoice's UUID.
func fileAnswer(content []byte, uuid, ext, contentType string) api.InvoiceFile {
	b64 := base64.StdEncoding.EncodeToString(content)
	return api.InvoiceFile{Base64File: b64, Base64Content: b64, FileName: uuid + "." + ext, FileExtension: ext, ContentType: contentType}
}
