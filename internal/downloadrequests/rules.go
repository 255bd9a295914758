package downloadrequests

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/timbra-mx/timbra/internal/downloadrules"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/internal/taxfiles"
	"github.com/timbra-mx/timbra/storage"
)

// DefaultRulesEvery is how often an approved rule runs when Worker.RulesEvery is 0.
const DefaultRulesEvery = 24 * time.Hour

// Event types of a request's end (internal/webhooks' catalog), emitted in the transaction that
// makes it Completed or Failed.
const (
	EventCompleted = "download_request.completed"
	EventFailed    = "download_request.failed"
)

// MsgRulePaused is the PausedReason of an approved rule whose person has no current e.firma.
const MsgRulePaused = "La persona '%s' no tiene una e.firma vigente: la regla no crea solicitudes hasta que se suban su certificado (tipo 2) y su llave privada (tipo 3) de e.firma; entonces descarga el periodo pendiente."

// Emitter records events in the transaction of the change they tell of; *webhooks.Service is
// one.
type Emitter interface {
	EmitIn(tx storage.Tx, tenant, typ, relatedID string, personID *string) (string, error)
	WakeEngine(tenant string)
}

// eventOf is the event of a request's status change, "" for none.
func eventOf(before, after string) string {
	if before == after {
		return ""
	}
	switch after {
	case StatusCompleted:
		return EventCompleted
	case StatusFailed:
		return EventFailed
	}
	return ""
}

func (w *Worker) rulesEvery() time.Duration {
	if w.RulesEvery > 0 {
		return w.RulesEvery
	}
	return DefaultRulesEvery
}

// wall is t in Mexico City's wall clock, stored as UTC (as the requests' dates are).
func wall(t time.Time) time.Time {
	m := t.In(mexico)
	return time.Date(m.Year(), m.Month(), m.Day(), m.Hour(), m.Minute(), m.Second(), 0, time.UTC)
}

// due tells whether an approved rule's run is due at now.
func due(r storage.DownloadRule, now time.Time, every time.Duration) bool {
	return r.DownloadRuleStatusID == downloadrules.StatusApproved && (r.LastRunAt == nil || !now.Before(r.LastRunAt.Add(every)))
}

// RunRules runs every approved rule of every tenant whose last run is RulesEvery old or more (or
// that never ran): it creates the rule's Automatic request for the period from where the last
// one ended (the first time, RulesEvery back) to now, and stores the run on the rule in the same
// transaction, so a restart neither repeats nor loses a run. The worker calls it at the start of
// each round; it is not meant to run twice at once, and the stored run is checked again in the
// transaction that writes it. A rule whose person has no current e.firma (none, expired, or only
// a CSD) creates no request and keeps its last run, so the period waits for an e.firma: the rule
// is paused (PausedSince, PausedReason, shown on the rule), logged once when it pauses and once
// when it runs again.
func (w *Worker) RunRules(ctx context.Context) (created int, err error) {
	now, every := w.now(), w.rulesEvery()
	type ref struct{ tenant, rule string }
	var todo []ref
	err = w.Store.View(ctx, func(tx storage.Tx) error {
		tenants, err := tx.Tenants().List()
		if err != nil {
			return err
		}
		for _, t := range tenants {
			rules, _, err := tx.DownloadRules(t.ID).List(0, 1<<30)
			if err != nil {
				return err
			}
			for _, r := range rules {
				if !due(r, now, every) {
					continue
				}
				if r.PausedSince != nil { // still paused: nothing to write
					ok, err := taxfiles.HasCurrentEFirma(tx, t.ID, r.PersonID, now)
					if err != nil {
						return err
					}
					if !ok {
						continue
					}
				}
				todo = append(todo, ref{t.ID, r.ID})
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	for _, d := range todo {
		if ctx.Err() != nil {
			return created, ctx.Err()
		}
		ok, err := w.runRule(ctx, d.tenant, d.rule, now, every)
		if err != nil {
			w.log().Error("download rule run", "tenant", d.tenant, "rule", d.rule, "err", err)
			continue
		}
		if ok {
			created++
		}
	}
	return created, nil
}

// runRule creates one rule's Automatic request and records the run, in one transaction.
func (w *Worker) runRule(ctx context.Context, tenant, id string, now time.Time, every time.Duration) (bool, error) {
	created := false
	err := w.Store.Update(ctx, func(tx storage.Tx) error {
		created = false
		rule, err := tx.DownloadRules(tenant).Get(id)
		if errors.Is(err, storage.ErrNotFound) {
			return nil // deleted meanwhile
		}
		if err != nil {
			return err
		}
		if !due(rule, now, every) {
			return nil // ran meanwhile, or no longer approved
		}
		ok, err := taxfiles.HasCurrentEFirma(tx, tenant, rule.PersonID, now)
		if err != nil {
			return err
		}
		if !ok {
			if rule.PausedSince != nil {
				return nil
			}
			paused := now
			rule.PausedSince, rule.PausedReason = &paused, fmt.Sprintf(MsgRulePaused, rule.PersonID)
			w.log().Warn("download rule paused: its person has no current e.firma", "tenant", tenant, "rule", rule.ID, "person", rule.PersonID)
			return tx.DownloadRules(tenant).Put(rule)
		}
		end := wall(now)
		start := end.Add(-every)
		if rule.LastRunEnd != nil {
			start = *rule.LastRunEnd
		} else if rule.PausedSince != nil { // its first run was due then
			start = wall(*rule.PausedSince).Add(-every)
		}
		if rule.PausedSince != nil {
			w.log().Info("download rule runs again: its person has a current e.firma", "tenant", tenant, "rule", rule.ID, "person", rule.PersonID,
				"paused_since", rule.PausedSince.Format(time.RFC3339))
			rule.PausedSince, rule.PausedReason = nil, ""
		}
		run := now
		rule.LastRunAt = &run
		if !start.Before(end) {
			return tx.DownloadRules(tenant).Put(rule) // the clock went back: nothing to ask yet
		}
		r := storage.DownloadRequest{
			ID: ids.New(now), TenantID: tenant, DownloadRuleID: rule.ID, DownloadRequestTypeID: TypeAutomatic, PersonID: rule.PersonID,
			RequesterTin: rule.Tin, DownloadTypeID: rule.DownloadTypeID, SatQueryTypeID: rule.SatQueryTypeID,
			SatInvoiceStatusID: rule.SatInvoiceStatusID, StartDate: start, EndDate: end,
			DownloadRequestStatusID: StatusPending, Active: true, SatRequestStatusID: "0", CreatedAt: now, UpdatedAt: now,
		}
		if fs := checkParameters(&r); len(fs) > 0 {
			w.log().Error("download rule run: the rule's parameters are refused", "tenant", tenant, "rule", rule.ID, "failure", fs[0].ErrorMessage)
			return tx.DownloadRules(tenant).Put(rule)
		}
		if err := putNew(tx, &r); err != nil {
			return err
		}
		rule.LastRunEnd, rule.LastRequestID = &end, r.ID
		created = true
		return tx.DownloadRules(tenant).Put(rule)
	})
	return created, err
}
