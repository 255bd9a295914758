package tickets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/autoinvoice"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/invoices"
	"github.com/timbra-mx/timbra/storage"
)

// hold moves tickets from pending to an in-progress state in one transaction; check runs on
// each ticket first (nil: only the pending rule). It returns the tickets as held.
func (s *Service) hold(ctx context.Context, tenantID string, ids []string, to string, check func(storage.Tx, storage.Ticket) error) ([]storage.Ticket, storage.Person, error) {
	var held []storage.Ticket
	var issuer storage.Person
	now := s.now().UTC()
	err := s.Store.Update(ctx, func(tx storage.Tx) error {
		held = held[:0]
		if err := needsAutoCfdi(tx, tenantID, s.Environment); err != nil {
			return err
		}
		ts := tx.Tickets(tenantID)
		for _, id := range ids {
			t, err := ts.Get(id)
			if errors.Is(err, storage.ErrNotFound) {
				return apierr.NotFound(id)
			} else if err != nil {
				return err
			}
			if check != nil {
				if err := check(tx, t); err != nil {
					return err
				}
			}
			if t.Status != api.TicketPending {
				return notPending(t)
			}
			t.Status, t.UpdatedAt = to, now
			if err := ts.Put(t); err != nil {
				return err
			}
			held = append(held, t)
		}
		if len(held) > 0 {
			var err error
			if issuer, err = tx.People(tenantID).Get(held[0].IssuerPersonID); errors.Is(err, storage.ErrNotFound) {
				return apierr.Invalid(apierr.Field("IssuerId", fmt.Sprintf(invoices.MsgPersonAbsent, held[0].IssuerPersonID), held[0].IssuerPersonID, "", nil))
			} else if err != nil {
				return err
			}
		}
		return nil
	})
	return held, issuer, err
}

// release puts held tickets back to pending after a failed stamp (if still held).
func (s *Service) release(ctx context.Context, tenantID string, held []storage.Ticket, from string) error {
	now := s.now().UTC()
	return s.Store.Update(context.WithoutCancel(ctx), func(tx storage.Tx) error {
		ts := tx.Tickets(tenantID)
		for _, h := range held {
			t, err := ts.Get(h.ID)
			if err != nil {
				return err
			}
			if t.Status == from {
				t.Status, t.UpdatedAt = api.TicketPending, now
				if err := ts.Put(t); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// stamp makes the CFDI of held tickets as their issuer (whose default CSD seals, whose stamp
// credit pays and who owns the invoice) and moves them from their in-progress state to done in
// the invoice's transaction; a failure puts them back to pending.
func (s *Service) stamp(ctx context.Context, tenantID string, issuer storage.Person, held []storage.Ticket, from, done string, in api.InvoiceInput) (api.Invoice, error) {
	as := auth.Caller{TenantID: tenantID, PersonID: issuer.ID, IsOwner: issuer.IsOwner, Environment: s.Environment}
	inv, err := s.Invoices.CreateWith(ctx, as, in, func(tx storage.Tx, rec storage.Invoice) error {
		ts := tx.Tickets(tenantID)
		for _, h := range held {
			t, err := ts.Get(h.ID)
			if err != nil {
				return err
			}
			if t.Status != from {
				return fmt.Errorf("tickets: ticket %s is %s, not %s", t.ID, t.Status, from)
			}
			t.Status, t.UpdatedAt = done, rec.CreatedAt
			if done == api.TicketInvoiced {
				t.InvoiceID, t.InvoiceUUID = rec.ID, rec.UUID
			} else {
				t.GlobalInvoiceID, t.GlobalInvoiceUUID = rec.ID, rec.UUID
			}
			if err := ts.Put(t); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		if rerr := s.release(ctx, tenantID, held, from); rerr != nil {
			return api.Invoice{}, errors.Join(err, rerr)
		}
		return api.Invoice{}, err
	}
	return inv, nil
}

// inWindow is the 400 of a ticket whose billing window has closed.
func inWindow(t storage.Ticket, a storage.AutoInvoice, now time.Time) error {
	d, ok := Deadline(t.PaidAt, a)
	if ok && mexicoDay(now) > d.Format(time.DateOnly) { // YYYY-MM-DD compares as text
		return apierr.BadRequest(fmt.Sprintf(MsgWindowClosed, t.Number, d.Format(time.DateOnly)))
	}
	return nil
}

// invoice turns one ticket into an income CFDI for the recipient given.
func (s *Service) invoice(ctx context.Context, tenantID, id string, rc *api.InvoiceRecipientInput) (api.Invoice, error) {
	if rc == nil {
		return api.Invoice{}, apierr.Invalid(apierr.Field("Recipient", MsgRecipientNeeded, nil, "NotEmptyValidator", nil))
	}
	now := s.now()
	held, issuer, err := s.hold(ctx, tenantID, []string{id}, api.TicketInvoicing, func(tx storage.Tx, t storage.Ticket) error {
		if t.Status != api.TicketPending {
			return nil // hold answers the 409 of its state
		}
		a, err := autoinvoice.Record(tx, tenantID)
		if err != nil {
			return err
		}
		return inWindow(t, a, now)
	})
	if err != nil {
		return api.Invoice{}, err
	}
	t := held[0]
	var items []api.InvoiceItemInput
	if err := json.Unmarshal(t.Items, &items); err != nil {
		return api.Invoice{}, errors.Join(err, s.release(ctx, tenantID, held, api.TicketInvoicing))
	}
	in := api.InvoiceInput{
		TypeCode: cfdi.TipoIngreso, CurrencyCode: invoices.SaleCurrency, PaymentFormCode: t.PaymentFormCode,
		PaymentMethodCode: "PUE", ExpeditionZipCode: api.Deref(issuer.ZipCode),
		Issuer: &api.InvoiceIssuerInput{ID: issuer.ID}, Recipient: rc, Items: items,
	}
	return s.stamp(ctx, tenantID, issuer, held, api.TicketInvoicing, api.TicketInvoiced, in)
}

// Invoice turns a ticket the caller sees into a CFDI for a customer (a cashier invoicing at
// the counter): the recipient may be given by value or as a person of the tenant.
func (s *Service) Invoice(ctx context.Context, c auth.Caller, id string, in api.TicketInvoiceInput) (api.Invoice, error) {
	if err := s.Store.View(ctx, func(tx storage.Tx) error { _, err := visible(tx, c, id); return err }); err != nil {
		return api.Invoice{}, err
	}
	return s.invoice(ctx, c.TenantID, id, in.Recipient)
}

// Globalize makes one global CFDI of an issuer's pending tickets of a period.
func (s *Service) Globalize(ctx context.Context, c auth.Caller, in api.GlobalInvoiceInput) (api.GlobalInvoice, error) {
	f := s.Invoices.Fields(ctx, c.TenantID)
	if f.Required("IssuerId", in.IssuerID) {
		if err := auth.GlobalizeTickets(c, in.IssuerID); err != nil {
			return api.GlobalInvoice{}, err
		}
	}
	okP := f.Code("PeriodicityCode", invoices.CatalogPeriodicities, in.PeriodicityCode)
	okM := f.Code("MonthCode", invoices.CatalogMonths, in.MonthCode)
	month, _ := strconv.Atoi(in.MonthCode)
	if okP && okM && (in.PeriodicityCode == "05") != (month >= 13 && month <= 18) {
		f.Add("MonthCode", MsgMonthsOfPeriod, in.MonthCode, "")
	}
	year, err := strconv.Atoi(strings.TrimSpace(string(in.Year)))
	if err != nil || len(strings.TrimSpace(string(in.Year))) != 4 || year < 2021 {
		f.Add("Year", fmt.Sprintf(invoices.MsgYear, strings.TrimSpace(string(in.Year))), string(in.Year), "")
	}
	seen := map[string]bool{}
	for i, id := range in.TicketIDs {
		if seen[id] {
			f.Add(fmt.Sprintf("TicketIds[%d]", i), fmt.Sprintf(MsgTicketTwice, id), id, "")
		}
		seen[id] = true
	}
	if err := f.Err(); err != nil {
		return api.GlobalInvoice{}, err
	}
	first, last := time.Month(month), time.Month(month)
	if month >= 13 {
		first = time.Month(2*(month-13) + 1)
		last = first + 1
	}
	inPeriod := func(t storage.Ticket) bool {
		p := t.PaidAt.In(cfdi.Mexico)
		return p.Year() == year && p.Month() >= first && p.Month() <= last
	}

	// Which tickets: those named, each checked, or every pending one of the issuer in the period.
	ids := in.TicketIDs
	var issuer storage.Person
	err = s.Store.View(ctx, func(tx storage.Tx) error {
		var err error
		if issuer, err = tx.People(c.TenantID).Get(in.IssuerID); errors.Is(err, storage.ErrNotFound) {
			return apierr.Invalid(apierr.Field("IssuerId", fmt.Sprintf(invoices.MsgPersonAbsent, in.IssuerID), in.IssuerID, "", nil))
		} else if err != nil {
			return err
		}
		ts := tx.Tickets(c.TenantID)
		if len(ids) == 0 {
			// the issuer's tickets paid in the period's days (a Mexico City day, as PaidDay)
			from, to := fmt.Sprintf("%04d-%02d-01", year, first), fmt.Sprintf("%04d-%02d-31", year, last)
			return ts.EachPaidBy(storage.TicketsOfIssuer, in.IssuerID, from, to, false, func(id, _, _, status string) error {
				if status == api.TicketPending {
					ids = append(ids, id)
				}
				return nil
			})
		}
		var fs []api.Failure
		for i, id := range ids {
			p := fmt.Sprintf("TicketIds[%d]", i)
			t, err := ts.Get(id)
			switch {
			case errors.Is(err, storage.ErrNotFound):
				fs = append(fs, apierr.Field(p, fmt.Sprintf(MsgTicketAbsent, id), id, "", nil))
			case err != nil:
				return err
			case t.IssuerPersonID != in.IssuerID:
				fs = append(fs, apierr.Field(p, fmt.Sprintf(MsgTicketOtherIss, t.Number), id, "", nil))
			case t.Status != api.TicketPending:
				fs = append(fs, apierr.Field(p, fmt.Sprintf(MsgTicketNotPend, t.Number, statusWords[t.Status]), id, "", nil))
			case !inPeriod(t):
				fs = append(fs, apierr.Field(p, fmt.Sprintf(MsgTicketOutside, t.Number), id, "", nil))
			}
		}
		if len(fs) > 0 {
			return apierr.Invalid(fs...)
		}
		return nil
	})
	if err != nil {
		return api.GlobalInvoice{}, err
	}
	if len(ids) == 0 {
		return api.GlobalInvoice{}, apierr.BadRequest(fmt.Sprintf(MsgNoPending, tin(issuer)))
	}
	held, issuer, err := s.hold(ctx, c.TenantID, ids, api.TicketGlobalizing, func(_ storage.Tx, t storage.Ticket) error {
		if t.IssuerPersonID != in.IssuerID || !inPeriod(t) { // changed since it was read
			return apierr.Conflict(fmt.Sprintf(MsgTicketNotPend, t.Number, statusWords[t.Status]))
		}
		return nil
	})
	if err != nil {
		return api.GlobalInvoice{}, err
	}
	items, form, err := globalItems(held)
	if err != nil {
		return api.GlobalInvoice{}, errors.Join(err, s.release(ctx, c.TenantID, held, api.TicketGlobalizing))
	}
	zip := api.Deref(issuer.ZipCode)
	inv, err := s.stamp(ctx, c.TenantID, issuer, held, api.TicketGlobalizing, api.TicketGlobalized, api.InvoiceInput{
		TypeCode: cfdi.TipoIngreso, CurrencyCode: invoices.SaleCurrency, PaymentFormCode: form, PaymentMethodCode: "PUE",
		ExpeditionZipCode: zip, Issuer: &api.InvoiceIssuerInput{ID: issuer.ID},
		Recipient:         &api.InvoiceRecipientInput{Tin: PublicTin, LegalName: PublicName, ZipCode: zip, TaxRegimeCode: PublicRegime, CfdiUseCode: PublicCfdiUse},
		GlobalInformation: &api.InvoiceGlobalInformation{PeriodicityCode: in.PeriodicityCode, MonthCode: in.MonthCode, Year: api.Amount(strconv.Itoa(year))},
		Items:             items,
	})
	if err != nil {
		return api.GlobalInvoice{}, err
	}
	out := api.GlobalInvoice{Invoice: inv}
	for _, t := range held {
		out.TicketIDs = append(out.TicketIDs, t.ID)
	}
	return out, nil
}

// globalItems are the concepts of a global invoice (SAT's rules for CFDI 4.0): one per ticket
// and tax treatment — ClaveProdServ 01010101, ClaveUnidad ACT, Descripcion "Venta",
// NoIdentificacion the ticket's number, Cantidad 1, ValorUnitario the sum of the lines'
// amounts, Descuento the sum of their discounts — with the lines' taxes. Lines with a tax by
// quota (Cuota, whose base is the quantity) keep their quantity and unit price. The payment form
// is the one with the largest amount among the tickets (the lowest code on a tie).
func globalItems(held []storage.Ticket) ([]api.InvoiceItemInput, string, error) {
	var out []api.InvoiceItemInput
	byForm := map[string]cfdi.Decimal{}
	for _, t := range held {
		var lines []api.InvoiceItemInput
		if err := json.Unmarshal(t.Items, &lines); err != nil {
			return nil, "", fmt.Errorf("ticket %s: %w", t.ID, err)
		}
		total, err := cfdi.ParseDecimal(t.Total)
		if err != nil {
			return nil, "", fmt.Errorf("ticket %s: %w", t.ID, err)
		}
		byForm[t.PaymentFormCode], _ = byForm[t.PaymentFormCode].Add(total)
		type group struct {
			amount, discount cfdi.Decimal
			line             api.InvoiceItemInput
		}
		var groups []*group
		index := map[string]*group{}
		for _, l := range lines {
			q, err1 := cfdi.ParseDecimal(string(l.Quantity))
			p, err2 := cfdi.ParseDecimal(string(l.UnitPrice))
			if err := errors.Join(err1, err2); err != nil {
				return nil, "", fmt.Errorf("ticket %s: %w", t.ID, err)
			}
			var d cfdi.Decimal
			if l.Discount != "" {
				if d, err = cfdi.ParseDecimal(string(l.Discount)); err != nil {
					return nil, "", fmt.Errorf("ticket %s: %w", t.ID, err)
				}
			}
			concept := api.InvoiceItemInput{ItemCode: GlobalItemCode, UnitOfMeasurementCode: GlobalUnitCode, Description: GlobalItemText,
				ItemSku: t.Number, TaxObjectCode: l.TaxObjectCode, ItemTaxes: l.ItemTaxes, Quantity: "1"}
			quota := false
			for _, tx := range l.ItemTaxes {
				quota = quota || tx.TaxTypeCode == "Cuota"
			}
			if quota {
				concept.Quantity, concept.UnitPrice, concept.Discount = l.Quantity, l.UnitPrice, l.Discount
				out = append(out, concept)
				continue
			}
			amount, ok := q.MulRound(p, 2)
			if !ok {
				return nil, "", fmt.Errorf("ticket %s: amount out of range", t.ID)
			}
			sig, _ := json.Marshal([]any{l.TaxObjectCode, l.ItemTaxes})
			g := index[string(sig)]
			if g == nil {
				g = &group{line: concept}
				index[string(sig)] = g
				groups = append(groups, g)
			}
			g.amount, _ = g.amount.Add(amount)
			g.discount, _ = g.discount.Add(d.Round(2))
		}
		for _, g := range groups {
			c := g.line
			c.UnitPrice = api.Amount(g.amount.Fixed(2))
			if !g.discount.IsZero() {
				c.Discount = api.Amount(g.discount.Fixed(2))
			}
			out = append(out, c)
		}
	}
	forms := make([]string, 0, len(byForm))
	for f := range byForm {
		forms = append(forms, f)
	}
	sort.Slice(forms, func(i, j int) bool {
		if c := byForm[forms[i]].Cmp(byForm[forms[j]]); c != 0 {
			return c > 0
		}
		return forms[i] < forms[j]
	})
	form := ""
	if len(forms) > 0 {
		form = forms[0]
	}
	return out, form, nil
}
