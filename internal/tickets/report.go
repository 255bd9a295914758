package tickets

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/storage"
)

// Texts of the usage report (spec 3 §4.6).
const (
	MsgFromRequired = "'from' es obligatorio: una fecha YYYY-MM-DD de México."
	MsgToRequired   = "'to' es obligatorio: una fecha YYYY-MM-DD de México."
	MsgFromFormat   = "'from' debe ser una fecha YYYY-MM-DD."
	MsgToFormat     = "'to' debe ser una fecha YYYY-MM-DD."
	MsgFromAfterTo  = "'from' no puede ser posterior a 'to'."
	MsgPeriodTooBig = "El periodo de 'from' a 'to' no puede pasar de 366 días."
)

// MaxReportDays is the longest period of a usage report, in calendar days counting both ends.
const MaxReportDays = 366

// ReportPeriod reads the report's from and to (Mexico calendar dates, inclusive) with the
// spec's texts, checked in the table's order.
func ReportPeriod(from, to string) (time.Time, time.Time, error) {
	if from == "" {
		return time.Time{}, time.Time{}, apierr.BadRequest(MsgFromRequired)
	}
	if to == "" {
		return time.Time{}, time.Time{}, apierr.BadRequest(MsgToRequired)
	}
	f, err := time.Parse(time.DateOnly, from)
	if err != nil {
		return time.Time{}, time.Time{}, apierr.BadRequest(MsgFromFormat)
	}
	t, err := time.Parse(time.DateOnly, to)
	if err != nil {
		return time.Time{}, time.Time{}, apierr.BadRequest(MsgToFormat)
	}
	if f.After(t) {
		return time.Time{}, time.Time{}, apierr.BadRequest(MsgFromAfterTo)
	}
	if days := int(t.Sub(f).Hours()/24) + 1; days > MaxReportDays {
		return time.Time{}, time.Time{}, apierr.BadRequest(MsgPeriodTooBig)
	}
	return f, t, nil
}

// Report is the usage report of a period: issuer rows count the tickets paid in it by issuing
// person, payer rows the ticket credits used recording tickets in it (a ticket's credit is used
// when it is recorded) by the person who recorded them. With personID only that person's rows.
// Any person of the tenant may read it (the spec names no owner rule); it does not need Auto
// CFDI. Names and RFCs are the people's current ones, or as recorded on the ticket when the
// person no longer exists.
func (s *Service) Report(ctx context.Context, c auth.Caller, from, to, personID string) (api.ConsumptionReport, error) {
	if _, _, err := ReportPeriod(from, to); err != nil {
		return api.ConsumptionReport{}, err
	}
	out := api.ConsumptionReport{From: from, To: to, Issuers: []api.ConsumptionIssuer{}, Payers: []api.ConsumptionPayer{}}
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		ppl := tx.People(c.TenantID)
		if personID != "" {
			if _, err := ppl.Get(personID); errors.Is(err, storage.ErrNotFound) {
				return apierr.NotFound(personID)
			} else if err != nil {
				return err
			}
		}
		ts := tx.Tickets(c.TenantID)
		issuers := map[string]*api.ConsumptionIssuer{}
		payers := map[string]*api.ConsumptionPayer{}
		// a person's row names the ticket that brought it: its RFC and name, as recorded, are
		// the row's when the person no longer exists
		firstTicket := map[string]string{}
		err := ts.EachPaid(from, to, false, func(id, issuerID, _, status string) error {
			if personID != "" && issuerID != personID {
				return nil
			}
			r := issuers[issuerID]
			if r == nil {
				r = &api.ConsumptionIssuer{PersonID: issuerID}
				issuers[issuerID] = r
				firstTicket["i"+issuerID] = id
			}
			r.Ingested++
			switch status {
			case api.TicketPending:
				r.Pending++
			case api.TicketInvoicing, api.TicketGlobalizing:
				r.InProgress++
			case api.TicketInvoiced:
				r.Invoiced++
			case api.TicketGlobalized:
				r.Globalized++
			case api.TicketCancelled:
				r.Cancelled++
			}
			return nil
		})
		if err != nil {
			return err
		}
		err = ts.EachRecorded(from, to, func(id, recorderID string) error {
			if personID != "" && recorderID != personID {
				return nil
			}
			r := payers[recorderID]
			if r == nil {
				r = &api.ConsumptionPayer{PersonID: recorderID}
				payers[recorderID] = r
				firstTicket["p"+recorderID] = id
			}
			r.TicketCreditsConsumed++
			return nil
		})
		if err != nil {
			return err
		}
		current := func(role, id string, rfc, name *string) error {
			p, err := ppl.Get(id)
			if err == nil {
				*rfc, *name = tin(p), p.LegalName
				return nil
			} else if !errors.Is(err, storage.ErrNotFound) {
				return err
			}
			k, err := ts.Get(firstTicket[role+id])
			if err != nil {
				return err
			}
			if role == "i" {
				*rfc, *name = k.IssuerTin, k.IssuerName
			} else {
				*rfc, *name = k.RecordedByTin, k.RecordedByName
			}
			return nil
		}
		for _, r := range issuers {
			if err := current("i", r.PersonID, &r.Tin, &r.LegalName); err != nil {
				return err
			}
			out.Issuers = append(out.Issuers, *r)
			out.Totals.Ingested += r.Ingested
			out.Totals.Pending += r.Pending
			out.Totals.InProgress += r.InProgress
			out.Totals.Invoiced += r.Invoiced
			out.Totals.Globalized += r.Globalized
			out.Totals.Cancelled += r.Cancelled
		}
		for _, r := range payers {
			if err := current("p", r.PersonID, &r.Tin, &r.LegalName); err != nil {
				return err
			}
			out.Payers = append(out.Payers, *r)
			out.Totals.TicketCreditsConsumed += r.TicketCreditsConsumed
		}
		return nil
	})
	if err != nil {
		return api.ConsumptionReport{}, err
	}
	sort.Slice(out.Issuers, func(i, j int) bool {
		return byRFC(out.Issuers[i].Tin, out.Issuers[i].PersonID, out.Issuers[j].Tin, out.Issuers[j].PersonID)
	})
	sort.Slice(out.Payers, func(i, j int) bool {
		return byRFC(out.Payers[i].Tin, out.Payers[i].PersonID, out.Payers[j].Tin, out.Payers[j].PersonID)
	})
	return out, nil
}

// byRFC orders rows by RFC, then by person id (people without an RFC first).
func byRFC(tinA, idA, tinB, idB string) bool {
	if tinA != tinB {
		return tinA < tinB
	}
	return idA < idB
}
