package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/internal/invoices"
	"github.com/timbra-mx/timbra/internal/tickets"
	"github.com/timbra-mx/timbra/storage"
)

// mx is a Mexico City local time.
func mx(s string) time.Time {
	t, err := time.ParseInLocation("2006-01-02T15:04:05", s, cfdi.Mexico)
	if err != nil {
		panic(err)
	}
	return t
}

// ticketFixture is a tenant with the mini catalogs, a clock at 2026-11-20 12:00 in Mexico City,
// an issuer (SAT's test CSD EKU9003173C9 as its default tax files, 10 stamps) and a cashier who
// records tickets (5 ticket credits).
func ticketFixture(t *testing.T, mutate ...func(*Config)) (*fixture, *clock, member, member) {
	t.Helper()
	clk := &clock{t: mx("2026-11-20T12:00:00")}
	f := newFixture(t, append([]func(*Config){func(c *Config) { c.Now = clk.Now }}, mutate...)...)
	withMiniCatalogs(t, f)
	issuer := addMemberDirect(t, f, f.creds.TenantKey, f.creds.PersonID, "kemper@example.com", storage.Balance{CreditType: 1, Available: 10})
	cashier := addMemberDirect(t, f, f.creds.TenantKey, f.creds.PersonID, "caja@example.com", storage.Balance{CreditType: 3, Available: 5})
	err := f.srv.Accounts().Store.Update(context.Background(), func(tx storage.Tx) error {
		for _, c := range []struct{ id, name, tin, regime, zip string }{
			{issuer.person, "ESCUELA KEMPER URGATE", "EKU9003173C9", "601", "42501"},
			{cashier.person, "CAJERA UNO", "CAUN800101AB1", "", ""},
		} {
			p, err := tx.People(f.creds.TenantKey).Get(c.id)
			if err != nil {
				return err
			}
			p.LegalName, p.Tin = c.name, &c.tin
			if c.regime != "" {
				p.SatTaxRegimeID, p.ZipCode = &c.regime, &c.zip
			}
			if err := tx.People(f.creds.TenantKey).Put(p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cer, key, password := realPair(t)
	taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(issuer.person, 0, cer, "", "")))
	taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(issuer.person, 1, key, password, "")))
	return f, clk, issuer, cashier
}

// ticketBody is a ticket of issuerID: two pencils at 12.50 with IVA 16 % and one exempt service.
func ticketBody(issuerID, number, paidAt string) map[string]any {
	return map[string]any{"issuerId": issuerID, "number": number, "paidAt": paidAt, "paymentFormCode": "01",
		"items": []any{
			map[string]any{"itemCode": "44121706", "quantity": 2, "unitOfMeasurementCode": "H87", "description": "Lápiz de madera HB",
				"unitPrice": "12.50", "taxObjectCode": "02",
				"itemTaxes": []any{map[string]any{"taxCode": "002", "taxTypeCode": "Tasa", "taxRate": "0.160000", "taxFlagCode": "T"}}},
			map[string]any{"itemCode": "01010101", "quantity": 1, "unitOfMeasurementCode": "ACT", "description": "Servicio exento",
				"unitPrice": 10, "taxObjectCode": "02",
				"itemTaxes": []any{map[string]any{"taxCode": "002", "taxTypeCode": "Exento", "taxFlagCode": "T"}}},
		}}
}

func ticketOf(t *testing.T, r result) api.Ticket {
	t.Helper()
	var tk api.Ticket
	if r.status != 200 || json.Unmarshal(r.env.Data, &tk) != nil || tk.ID == "" {
		t.Fatalf("want a ticket, got %d %s", r.status, r.raw)
	}
	return tk
}

func reportOf(t *testing.T, r result) api.ConsumptionReport {
	t.Helper()
	var rep api.ConsumptionReport
	if r.status != 200 || json.Unmarshal(r.env.Data, &rep) != nil {
		t.Fatalf("want a report, got %d %s", r.status, r.raw)
	}
	return rep
}

var recipientBody = map[string]any{"tin": "EKU9003173C9", "legalName": "ESCUELA KEMPER URGATE", "zipCode": "42501",
	"taxRegimeCode": "601", "cfdiUseCode": "G01", "email": "cliente@example.com"}

// TestTicketsScenario records tickets, invoices some (a cashier at the counter and a customer
// through the portal), globalizes others, cancels one, and checks the usage report.
func TestTicketsScenario(t *testing.T) {
	f, clk, issuer, cashier := ticketFixture(t)
	owner := ownerMember(t, f, f.creds)
	record := func(m member, number, paidAt string) api.Ticket {
		t.Helper()
		return ticketOf(t, f.do("POST", "/api/v4/auto-invoice/tickets", empBody(ticketBody(issuer.person, number, paidAt)), m.headers()...))
	}
	// The cashier records five tickets (one in October), the owner one.
	t1 := record(cashier, "a-001", "2026-11-02T10:00:00")
	if t1.Number != "A-001" || t1.Status != "pending" || t1.Subtotal != "35.00" || t1.Transfers != "4.00" || t1.Total != "39.00" ||
		t1.Issuer.Tin != "EKU9003173C9" || t1.RecordedBy.ID != cashier.person || t1.RecordedBy.Tin != "CAUN800101AB1" ||
		t1.InvoiceableUntil == nil || *t1.InvoiceableUntil != "2026-11-30" || t1.CurrencyCode != "MXN" || len(t1.Items) != 2 {
		t.Fatalf("recorded ticket: %+v", t1)
	}
	t2 := record(cashier, "A-002", "2026-11-03T11:30:00")
	t3 := record(cashier, "A-003", "2026-11-04T09:15:00")
	t4 := record(cashier, "A-004", "2026-11-05T18:00:00")
	t5 := record(cashier, "A-005", "2026-10-30T20:00:00")
	t6 := record(owner, "A-006", "2026-11-06T08:00:00")
	_, _, credits := personBalances(t, f, cashier.person)
	if credits[3] != 0 {
		t.Fatalf("the cashier's ticket credits after five tickets: %v", credits)
	}
	expectStatus(t, f.do("POST", "/api/v4/auto-invoice/tickets", empBody(ticketBody(issuer.person, "A-007", "2026-11-06T08:00:00")), cashier.headers()...),
		403, tickets.MsgNoTicketCredits)
	expectStatus(t, f.do("POST", "/api/v4/auto-invoice/tickets", empBody(ticketBody(issuer.person, "a-006", "2026-11-06T08:00:00"))),
		409, fmt.Sprintf(tickets.MsgNumberTaken, "A-006"))

	// The cashier invoices t1 at the counter; the issuer's stamp pays, the issuer owns it.
	stampsBefore := stampsOf(t, f, issuer.person)
	inv := invoiceOf(t, f.do("POST", "/api/v4/auto-invoice/tickets/"+t1.ID+"/invoice", empBody(map[string]any{"recipient": recipientBody}), cashier.headers()...))
	doc := verifyAnswer(t, f, inv)
	if doc.Emisor.Rfc != "EKU9003173C9" || doc.Total != "39.00" || doc.FormaPago != "01" || doc.MetodoPago != "PUE" || doc.LugarExpedicion != "42501" ||
		len(doc.Conceptos) != 2 || inv.Issuer.ID == nil || *inv.Issuer.ID != issuer.person {
		t.Fatalf("ticket invoice: %+v", doc)
	}
	if got := stampsOf(t, f, issuer.person); got != stampsBefore-1 {
		t.Fatalf("issuer stamps %v → %v", stampsBefore, got)
	}
	if got := ticketOf(t, f.do("GET", "/api/v4/auto-invoice/tickets/"+t1.ID, "")); got.Status != "invoiced" || got.InvoiceUUID == nil ||
		*got.InvoiceUUID != inv.UUID || got.InvoiceableUntil != nil {
		t.Fatalf("invoiced ticket: %+v", got)
	}
	expectStatus(t, f.do("POST", "/api/v4/auto-invoice/tickets/"+t1.ID+"/invoice", empBody(map[string]any{"recipient": recipientBody})),
		409, fmt.Sprintf(tickets.MsgInvoiced, "A-001"))

	// The portal: no name, then a name without a privacy notice (shown, not offered), then offered.
	expectStatus(t, f.do("GET", "/portal/v1/kemper", ""), 404, fmt.Sprintf(tickets.MsgPortalAbsent, "kemper"))
	if r := f.do("PUT", "/api/v4/auto-invoice/portal-name", `{"name":"kemper"}`); r.status != 200 {
		t.Fatalf("portal name: %s", r.raw)
	}
	var portal api.Portal
	if r := f.do("GET", "/portal/v1/kemper", "", "X-API-KEY", "", "X-TENANT-KEY", ""); r.status != 200 || json.Unmarshal(r.env.Data, &portal) != nil ||
		portal.Offered || portal.Message == nil || *portal.Message != tickets.MsgNotOffered {
		t.Fatalf("portal without privacy notice: %s", r.raw)
	}
	customer := map[string]any{"number": "a-002", "total": 39, "recipient": recipientBody}
	expectStatus(t, f.do("POST", "/portal/v1/kemper/invoices", empBody(customer), "X-API-KEY", "", "X-TENANT-KEY", ""), 403, tickets.MsgNotOffered)
	if got := ticketOf(t, f.do("GET", "/api/v4/auto-invoice/tickets/"+t2.ID, "")); got.Status != "pending" {
		t.Fatalf("a portal that is not offered stamped: %+v", got)
	}
	if r := f.do("PUT", "/api/v4/auto-invoice/settings", `{"privacyNoticeUrl":"https://kemper.example/privacidad"}`); r.status != 200 {
		t.Fatalf("settings: %s", r.raw)
	}
	if r := f.do("GET", "/portal/v1/kemper", "", "X-API-KEY", "", "X-TENANT-KEY", ""); r.status != 200 || json.Unmarshal(r.env.Data, &portal) != nil ||
		!portal.Offered || portal.Message != nil || portal.PrivacyNoticeURL == nil {
		t.Fatalf("offered portal: %s", r.raw)
	}
	// wrong total and unknown number look the same
	expectStatus(t, f.do("POST", "/portal/v1/kemper/invoices", empBody(customer, "total", "39.01"), "X-API-KEY", "", "X-TENANT-KEY", ""), 404, tickets.MsgTicketNotFound)
	expectStatus(t, f.do("POST", "/portal/v1/kemper/invoices", empBody(customer, "number", "Z-9"), "X-API-KEY", "", "X-TENANT-KEY", ""), 404, tickets.MsgTicketNotFound)
	// a customer cannot name a person of the tenant: the recipient is by value only
	r := f.do("POST", "/portal/v1/kemper/invoices", empBody(customer, "recipient", map[string]any{"id": issuer.person}), "X-API-KEY", "", "X-TENANT-KEY", "")
	expectFailure(t, r, "Recipient.Tin", "'Tin' no debería estar vacío.")
	if got := ticketOf(t, f.do("GET", "/api/v4/auto-invoice/tickets/"+t2.ID, "")); got.Status != "pending" {
		t.Fatalf("a failed stamp left the ticket %s", got.Status)
	}
	var pi api.PortalInvoice
	if r := f.do("POST", "/portal/v1/kemper/invoices", empBody(customer), "X-API-KEY", "", "X-TENANT-KEY", ""); r.status != 200 || json.Unmarshal(r.env.Data, &pi) != nil {
		t.Fatalf("portal invoice: %s", r.raw)
	}
	xml, _ := base64.StdEncoding.DecodeString(pi.XML.Base64Content)
	pdf, _ := base64.StdEncoding.DecodeString(pi.PDF.Base64Content)
	pdoc, err := cfdi.Parse(xml)
	if err != nil || pdoc.TFD() == nil || pdoc.TFD().UUID != pi.UUID || pdoc.Receptor.Rfc != "EKU9003173C9" || !strings.HasPrefix(string(pdf), "%PDF-") || pi.Number != "A-002" {
		t.Fatalf("portal files: %v %+v", err, pi)
	}
	// the same customer again gets the same CFDI; another RFC does not
	var again api.PortalInvoice
	if r := f.do("POST", "/portal/v1/kemper/invoices", empBody(customer), "X-API-KEY", "", "X-TENANT-KEY", ""); r.status != 200 || json.Unmarshal(r.env.Data, &again) != nil || again.UUID != pi.UUID {
		t.Fatalf("portal retry: %s", r.raw)
	}
	other := map[string]any{"tin": "XAXX010101000", "legalName": "PUBLICO EN GENERAL", "zipCode": "42501", "taxRegimeCode": "616", "cfdiUseCode": "S01"}
	expectStatus(t, f.do("POST", "/portal/v1/kemper/invoices", empBody(customer, "recipient", other), "X-API-KEY", "", "X-TENANT-KEY", ""),
		409, fmt.Sprintf(tickets.MsgInvoiced, "A-002"))

	// October's ticket: the window closed with October.
	expectStatus(t, f.do("POST", "/portal/v1/kemper/invoices", empBody(customer, "number", "A-005"), "X-API-KEY", "", "X-TENANT-KEY", ""),
		400, fmt.Sprintf(tickets.MsgWindowClosed, "A-005", "2026-10-31"))

	// The cashier cancels t3; a second cancel is refused.
	if got := ticketOf(t, f.do("POST", "/api/v4/auto-invoice/tickets/"+t3.ID+"/cancel", "", cashier.headers()...)); got.Status != "cancelled" || got.CancelledAt == nil {
		t.Fatalf("cancelled: %+v", got)
	}
	expectStatus(t, f.do("POST", "/api/v4/auto-invoice/tickets/"+t3.ID+"/cancel", ""), 409, fmt.Sprintf(tickets.MsgCancelNotPend, "A-003", "cancelado"))

	// The owner makes November's global invoice: t4 and t6 (t5 is October's).
	var g api.GlobalInvoice
	gr := f.do("POST", "/api/v4/auto-invoice/global-invoices", `{"issuerId":"`+issuer.person+`","periodicityCode":"04","monthCode":"11","year":2026}`)
	if gr.status != 200 || json.Unmarshal(gr.env.Data, &g) != nil || len(g.TicketIDs) != 2 {
		t.Fatalf("global invoice: %s", gr.raw)
	}
	gdoc := verifyAnswer(t, f, g.Invoice)
	if gdoc.Receptor.Rfc != tickets.PublicTin || gdoc.Receptor.UsoCFDI != "S01" || gdoc.InformacionGlobal == nil || gdoc.InformacionGlobal.Meses != "11" ||
		len(gdoc.Conceptos) != 4 || gdoc.Conceptos[0].ClaveProdServ != "01010101" || gdoc.Conceptos[0].ClaveUnidad != "ACT" ||
		gdoc.Conceptos[0].NoIdentificacion != "A-004" || gdoc.Conceptos[2].NoIdentificacion != "A-006" || gdoc.Total != "78.00" {
		t.Fatalf("global CFDI: %+v %+v", gdoc.Receptor, gdoc.Conceptos)
	}
	for _, id := range []string{t4.ID, t6.ID} {
		if got := ticketOf(t, f.do("GET", "/api/v4/auto-invoice/tickets/"+id, "")); got.Status != "globalized" || got.GlobalInvoiceUUID == nil || *got.GlobalInvoiceUUID != g.Invoice.UUID {
			t.Fatalf("globalized ticket: %+v", got)
		}
	}
	expectStatus(t, f.do("POST", "/api/v4/auto-invoice/global-invoices", `{"issuerId":"`+issuer.person+`","periodicityCode":"04","monthCode":"11","year":2026}`),
		400, fmt.Sprintf(tickets.MsgNoPending, "EKU9003173C9"))

	// The report of October and November: t5 pending, t1 and t2 invoiced, t4 and t6 globalized,
	// t3 cancelled; the cashier paid five credits, the owner one.
	rep := reportOf(t, f.do("GET", "/api/v4/auto-invoice/reports/consumption?from=2026-10-01&to=2026-11-30", ""))
	if len(rep.Issuers) != 1 || len(rep.Payers) != 2 {
		t.Fatalf("report rows: %+v", rep)
	}
	want := api.ConsumptionIssuer{PersonID: issuer.person, Tin: "EKU9003173C9", LegalName: "ESCUELA KEMPER URGATE", Ingested: 6, Pending: 1, Invoiced: 2, Globalized: 2, Cancelled: 1}
	if rep.Issuers[0] != want {
		t.Fatalf("issuer row %+v, want %+v", rep.Issuers[0], want)
	}
	// sorted by RFC: the owner has none, so comes first
	if rep.Payers[0].PersonID != owner.person || rep.Payers[0].TicketCreditsConsumed != 1 || rep.Payers[1].PersonID != cashier.person ||
		rep.Payers[1].Tin != "CAUN800101AB1" || rep.Payers[1].TicketCreditsConsumed != 5 {
		t.Fatalf("payer rows: %+v", rep.Payers)
	}
	if rep.Totals != (api.ConsumptionTotals{Ingested: 6, Pending: 1, Invoiced: 2, Globalized: 2, Cancelled: 1, TicketCreditsConsumed: 6}) {
		t.Fatalf("totals: %+v", rep.Totals)
	}
	// November only: t5 (paid in October, recorded in November) counts as a credit, not as ingested
	rep = reportOf(t, f.do("GET", "/api/v4/auto-invoice/reports/consumption?from=2026-11-01&to=2026-11-30", ""))
	if rep.Totals.Ingested != 5 || rep.Totals.Pending != 0 || rep.Totals.TicketCreditsConsumed != 6 {
		t.Fatalf("November: %+v", rep.Totals)
	}
	// one person: the cashier issues nothing and paid five
	rep = reportOf(t, f.do("GET", "/api/v4/auto-invoice/reports/consumption?from=2026-10-01&to=2026-11-30&personId="+cashier.person, ""))
	if len(rep.Issuers) != 0 || len(rep.Payers) != 1 || rep.Totals.TicketCreditsConsumed != 5 || rep.Totals.Ingested != 0 {
		t.Fatalf("cashier's report: %+v", rep)
	}

	// A ticket held while stamping counts as in progress; a restart puts it back to pending.
	err = f.srv.Accounts().Store.Update(context.Background(), func(tx storage.Tx) error {
		k, err := tx.Tickets(f.creds.TenantKey).Get(t5.ID)
		if err != nil {
			return err
		}
		k.Status = api.TicketGlobalizing
		return tx.Tickets(f.creds.TenantKey).Put(k)
	})
	if err != nil {
		t.Fatal(err)
	}
	rep = reportOf(t, f.do("GET", "/api/v4/auto-invoice/reports/consumption?from=2026-10-01&to=2026-11-30", ""))
	if rep.Totals.InProgress != 1 || rep.Totals.Pending != 0 || rep.Issuers[0].InProgress != 1 {
		t.Fatalf("in progress: %+v", rep.Totals)
	}
	// with other nodes, a ticket changed lately may be stamping on one of them: left alone
	if n, err := tickets.Recover(context.Background(), f.srv.Accounts().Store, clk.Now(), clk.Now().Add(-tickets.RecoverAfter)); err != nil || n != 0 {
		t.Fatalf("recover of tickets changed before a time: %d %v", n, err)
	}
	if n, err := tickets.Recover(context.Background(), f.srv.Accounts().Store, clk.Now(), time.Time{}); err != nil || n != 1 {
		t.Fatalf("recover: %d %v", n, err)
	}
	if got := ticketOf(t, f.do("GET", "/api/v4/auto-invoice/tickets/"+t5.ID, "")); got.Status != "pending" {
		t.Fatalf("recovered ticket: %+v", got)
	}

	// The list: newest first, filters; the cashier sees what it recorded.
	var page api.PagedList[api.Ticket]
	if r := f.do("GET", "/api/v4/auto-invoice/tickets?status=globalized", ""); r.status != 200 || json.Unmarshal(r.env.Data, &page) != nil ||
		page.TotalCount != 2 || page.Items[0].ID != t6.ID {
		t.Fatalf("globalized list: %s", r.raw)
	}
	if r := f.do("GET", "/api/v4/auto-invoice/tickets?from=2026-10-01&to=2026-10-31", "", cashier.headers()...); r.status != 200 ||
		json.Unmarshal(r.env.Data, &page) != nil || page.TotalCount != 1 || page.Items[0].ID != t5.ID {
		t.Fatalf("October list: %s", r.raw)
	}
	if r := f.do("GET", "/api/v4/auto-invoice/tickets", "", cashier.headers()...); json.Unmarshal(r.env.Data, &page) != nil || page.TotalCount != 5 {
		t.Fatalf("the cashier's list: %s", r.raw)
	}
	expectFailure(t, f.do("GET", "/api/v4/auto-invoice/tickets?from=noviembre", ""), "from", "'from' debe ser una fecha YYYY-MM-DD.")

	// With allowBillingOutsideMonth, October's ticket can be invoiced in November.
	if r := f.do("PUT", "/api/v4/auto-invoice/settings", `{"allowBillingOutsideMonth":true,"privacyNoticeUrl":"https://kemper.example/privacidad"}`); r.status != 200 {
		t.Fatalf("settings: %s", r.raw)
	}
	if got := ticketOf(t, f.do("GET", "/api/v4/auto-invoice/tickets/"+t5.ID, "")); got.InvoiceableUntil == nil || *got.InvoiceableUntil != "2026-12-31" {
		t.Fatalf("window with allowBillingOutsideMonth: %+v", got.InvoiceableUntil)
	}
	if r := f.do("POST", "/portal/v1/kemper/invoices", empBody(customer, "number", "A-005"), "X-API-KEY", "", "X-TENANT-KEY", ""); r.status != 200 {
		t.Fatalf("October's ticket in November: %s", r.raw)
	}
	// A previous portal name answers 308 to the current one (after the 30 days).
	clk.Add(32 * 24 * time.Hour)
	if r := f.do("PUT", "/api/v4/auto-invoice/portal-name", `{"name":"kemper-escuela"}`); r.status != 200 {
		t.Fatalf("rename: %s", r.raw)
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(f.http.URL + "/portal/v1/kemper")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusPermanentRedirect || resp.Header.Get("Location") != "/portal/v1/kemper-escuela" {
		t.Fatalf("previous name: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	if r := f.do("GET", "/portal/v1/kemper", ""); r.status != 200 || json.Unmarshal(r.env.Data, &portal) != nil || portal.Name != "kemper-escuela" {
		t.Fatalf("followed redirect: %s", r.raw)
	}
	// A deleted cashier's credits stay in the report, under the RFC and name it had.
	if r := f.do("DELETE", "/api/v4/people/"+cashier.person, ""); r.status != 200 {
		t.Fatalf("delete the cashier: %s", r.raw)
	}
	rep = reportOf(t, f.do("GET", "/api/v4/auto-invoice/reports/consumption?from=2026-10-01&to=2026-11-30", ""))
	if len(rep.Payers) != 2 || rep.Payers[1].PersonID != cashier.person || rep.Payers[1].Tin != "CAUN800101AB1" || rep.Payers[1].LegalName != "CAJERA UNO" ||
		rep.Totals.TicketCreditsConsumed != 6 {
		t.Fatalf("report after the cashier's deletion: %+v", rep.Payers)
	}
}

// TestTicketRules is every failure of recording tickets and making global invoices.
func TestTicketRules(t *testing.T) {
	f, _, issuer, cashier := ticketFixture(t)
	post := func(body map[string]any, h ...string) result {
		return f.do("POST", "/api/v4/auto-invoice/tickets", empBody(body), h...)
	}
	base := ticketBody(issuer.person, "B-1", "2026-11-20T11:00:00")
	expectFailure(t, post(empMap(base, "number", "B 1")), "Number", tickets.MsgNumberFormat)
	expectFailure(t, post(empMap(base, "number", strings.Repeat("9", 41))), "Number", tickets.MsgNumberFormat)
	expectFailure(t, post(empMap(base, "number", nil)), "Number", "'Number' no debería estar vacío.")
	expectFailure(t, post(empMap(base, "paidAt", "ayer")), "PaidAt", fmt.Sprintf(tickets.MsgPaidAtFormat, "ayer"))
	expectFailure(t, post(empMap(base, "paidAt", "2026-11-20T12:10:00")), "PaidAt", fmt.Sprintf(tickets.MsgPaidAtFuture, "2026-11-20T12:10:00"))
	expectFailure(t, post(empMap(base, "paymentFormCode", "99")), "PaymentFormCode", tickets.MsgPaymentFormOpen)
	expectFailure(t, post(empMap(base, "issuerId", "nobody")), "IssuerId", "La persona 'nobody' no existe.")
	expectFailure(t, post(empMap(base, "issuerId", cashier.person)), "IssuerId", "La persona '"+cashier.person+"' no tiene régimen fiscal (satTaxRegimeId).")
	expectFailure(t, post(empMap(base, "items", []any{})), "Items", invoices.MsgNoItems)
	// every failure in one answer, and none uses a credit
	r := post(map[string]any{"issuerId": issuer.person, "items": []any{map[string]any{"itemCode": "nope", "quantity": 1}}})
	if fs := failures(t, r); len(fs) < 4 {
		t.Fatalf("want every failure at once: %s", r.raw)
	}
	if _, _, c := personBalances(t, f, f.creds.PersonID); c[3] <= 0 {
		t.Fatalf("owner ticket credits: %v", c)
	}
	// visibility: another member sees none of the cashier's tickets
	tk := ticketOf(t, post(base, cashier.headers()...))
	stranger := addMemberDirect(t, f, f.creds.TenantKey, f.creds.PersonID, "otro@example.com", storage.Balance{CreditType: 3, Available: 1})
	if r := f.do("GET", "/api/v4/auto-invoice/tickets/"+tk.ID, "", stranger.headers()...); r.status != 404 {
		t.Fatalf("a stranger read a ticket: %s", r.raw)
	}
	if r := f.do("POST", "/api/v4/auto-invoice/tickets/"+tk.ID+"/cancel", "", stranger.headers()...); r.status != 404 {
		t.Fatalf("a stranger cancelled a ticket: %s", r.raw)
	}
	expectStatus(t, f.do("POST", "/api/v4/auto-invoice/global-invoices", `{"issuerId":"`+issuer.person+`","periodicityCode":"04","monthCode":"11","year":2026}`, stranger.headers()...),
		403, "Solo el propietario de la cuenta o el emisor de los tickets pueden hacer su factura global.")
	// global invoice failures
	g := func(body string) result { return f.do("POST", "/api/v4/auto-invoice/global-invoices", body) }
	expectFailure(t, g(`{"issuerId":"`+issuer.person+`","periodicityCode":"05","monthCode":"11","year":2026}`), "MonthCode", tickets.MsgMonthsOfPeriod)
	expectFailure(t, g(`{"issuerId":"`+issuer.person+`","periodicityCode":"04","monthCode":"13","year":2026}`), "MonthCode", tickets.MsgMonthsOfPeriod)
	expectFailure(t, g(`{"issuerId":"`+issuer.person+`","periodicityCode":"04","monthCode":"11","year":26}`), "Year", fmt.Sprintf(invoices.MsgYear, "26"))
	expectFailure(t, g(`{"issuerId":"`+issuer.person+`","periodicityCode":"04","monthCode":"10","year":2026,"ticketIds":["`+tk.ID+`"]}`), "TicketIds[0]",
		fmt.Sprintf(tickets.MsgTicketOutside, "B-1"))
	expectFailure(t, g(`{"issuerId":"`+issuer.person+`","periodicityCode":"04","monthCode":"11","year":2026,"ticketIds":["x","x"]}`), "TicketIds[1]",
		fmt.Sprintf(tickets.MsgTicketTwice, "x"))
	expectFailure(t, g(`{"issuerId":"`+issuer.person+`","periodicityCode":"04","monthCode":"11","year":2026,"ticketIds":["x"]}`), "TicketIds[0]",
		fmt.Sprintf(tickets.MsgTicketAbsent, "x"))
	// without Auto CFDI nothing is recorded
	if r := f.do("PUT", "/admin/v1/tenants/"+f.creds.TenantKey+"/subscription", `{"autoCfdi":false}`, "Authorization", "Bearer op-token"); r.status != 200 {
		t.Fatalf("subscription: %s", r.raw)
	}
	expectStatus(t, post(empMap(base, "number", "B-2")), 403, tickets.MsgNeedsAutoCfdi)
}

// empMap is base with changes (key, value; nil deletes), as a map.
func empMap(base map[string]any, changes ...any) map[string]any {
	var m map[string]any
	if err := json.Unmarshal([]byte(empBody(base, changes...)), &m); err != nil {
		panic(err)
	}
	return m
}

// TestConsumptionReportErrors is every error of the usage report (spec 3 §4.6).
func TestConsumptionReportErrors(t *testing.T) {
	f := newFixture(t)
	q := func(query string) result { return f.do("GET", "/api/v4/auto-invoice/reports/consumption"+query, "") }
	for _, c := range []struct{ query, msg string }{
		{"", tickets.MsgFromRequired},
		{"?to=2026-01-01", tickets.MsgFromRequired},
		{"?from=2026-01-01", tickets.MsgToRequired},
		{"?from=2026-1-1&to=2026-01-01", tickets.MsgFromFormat},
		{"?from=2026-01-01&to=01/02/2026", tickets.MsgToFormat},
		{"?from=2026-02-30&to=2026-03-01", tickets.MsgFromFormat},
		{"?from=2026-03-02&to=2026-03-01", tickets.MsgFromAfterTo},
		{"?from=2025-01-01&to=2026-01-02", tickets.MsgPeriodTooBig},
	} {
		expectStatus(t, q(c.query), 400, c.msg)
	}
	// 366 days counting both ends is the longest period (a leap year)
	rep := reportOf(t, q("?from=2024-01-01&to=2024-12-31"))
	if rep.From != "2024-01-01" || rep.To != "2024-12-31" || rep.Issuers == nil || rep.Payers == nil {
		t.Fatalf("empty report: %+v", rep)
	}
	reportOf(t, q("?from=2025-01-01&to=2026-01-01"))
	expectStatus(t, q("?from=2026-01-01&to=2026-01-31&personId=nobody"), 404, "No such resource for the given Id: nobody")
	// the report does not need Auto CFDI
	if r := f.do("PUT", "/admin/v1/tenants/"+f.creds.TenantKey+"/subscription", `{"autoCfdi":false}`, "Authorization", "Bearer op-token"); r.status != 200 {
		t.Fatalf("subscription: %s", r.raw)
	}
	reportOf(t, q("?from=2026-01-01&to=2026-01-31&personId="+f.creds.PersonID))
}

// ticketAnswers drives every tickets route (successes and the usual failures) through an
// answerCheck of its own fixture and marks what it saw on into (TestOpenAPIRecordedAnswers).
func ticketAnswers(t *testing.T, into *answerCheck) {
	t.Helper()
	f, _, issuer, cashier := ticketFixture(t)
	b := newAnswerCheck(t, f)
	rec := func(number string) api.Ticket {
		return answerData[api.Ticket](t)(b.do("POST", "/api/v4/auto-invoice/tickets", empBody(ticketBody(issuer.person, number, "2026-11-10T10:00:00")), cashier.headers()...))
	}
	t1, t2 := rec("C-1"), rec("C-2")
	rec("C-3")
	rec("C-4")
	b.do("POST", "/api/v4/auto-invoice/tickets", empBody(ticketBody(issuer.person, "C-1", "2026-11-10T10:00:00")))
	b.do("POST", "/api/v4/auto-invoice/tickets", `{"number":"?"}`)
	b.do("GET", "/api/v4/auto-invoice/tickets?status=pending&pageSize=2", "")
	b.do("GET", "/api/v4/auto-invoice/tickets/"+t1.ID, "")
	b.do("GET", "/api/v4/auto-invoice/tickets/nope", "")
	b.do("POST", "/api/v4/auto-invoice/tickets/"+t1.ID+"/invoice", empBody(map[string]any{"recipient": recipientBody}))
	b.do("POST", "/api/v4/auto-invoice/tickets/"+t1.ID+"/invoice", empBody(map[string]any{"recipient": recipientBody}))
	b.do("POST", "/api/v4/auto-invoice/tickets/"+t2.ID+"/cancel", "")
	b.do("POST", "/api/v4/auto-invoice/tickets/"+t2.ID+"/cancel", "")
	anon := []string{"X-API-KEY", "", "X-TENANT-KEY", ""}
	b.do("GET", "/portal/v1/tienda", "", anon...)
	b.do("PUT", "/api/v4/auto-invoice/portal-name", `{"name":"tienda"}`)
	b.do("GET", "/portal/v1/tienda", "", anon...)
	b.do("POST", "/portal/v1/tienda/invoices", empBody(map[string]any{"number": "C-3", "total": "39.00", "recipient": recipientBody}), anon...)
	b.do("PUT", "/api/v4/auto-invoice/settings", `{"privacyNoticeUrl":"https://tienda.example/aviso"}`)
	b.do("GET", "/portal/v1/tienda", "", anon...)
	b.do("POST", "/portal/v1/tienda/invoices", empBody(map[string]any{"number": "C-3", "total": "39.01", "recipient": recipientBody}), anon...)
	b.do("POST", "/portal/v1/tienda/invoices", empBody(map[string]any{"number": "C-3", "total": "39.00", "recipient": recipientBody}), anon...)
	global := `{"issuerId":"` + issuer.person + `","periodicityCode":"04","monthCode":"11","year":2026}`
	b.do("POST", "/api/v4/auto-invoice/global-invoices", global)
	b.do("POST", "/api/v4/auto-invoice/global-invoices", global)
	b.do("GET", "/api/v4/auto-invoice/reports/consumption?from=2026-11-01&to=2026-11-30", "")
	b.do("GET", "/api/v4/auto-invoice/reports/consumption?from=2026-11-01", "")
	b.do("GET", "/api/v4/auto-invoice/reports/consumption?from=2026-11-01&to=2026-11-30&personId=nobody", "")
	for pattern, statuses := range b.seen {
		for st := range statuses {
			into.mark(pattern, st)
		}
	}
}

// TestTicketInvoicedOnce: customers racing to invoice one ticket get one CFDI; the rest are
// told it is being invoiced or was invoiced, and one stamp is used.
func TestTicketInvoicedOnce(t *testing.T) {
	f, _, issuer, cashier := ticketFixture(t)
	tk := ticketOf(t, f.do("POST", "/api/v4/auto-invoice/tickets", empBody(ticketBody(issuer.person, "R-1", "2026-11-20T11:00:00")), cashier.headers()...))
	before := stampsOf(t, f, issuer.person)
	const n = 8
	statuses := make(chan result, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses <- f.do("POST", "/api/v4/auto-invoice/tickets/"+tk.ID+"/invoice", empBody(map[string]any{"recipient": recipientBody}))
		}()
	}
	wg.Wait()
	close(statuses)
	ok := 0
	for r := range statuses {
		switch {
		case r.status == 200:
			ok++
		case r.status == 409 && (r.env.Details == fmt.Sprintf(tickets.MsgInvoiced, "R-1") || r.env.Details == fmt.Sprintf(tickets.MsgInProgress, "R-1")):
		default:
			t.Errorf("unexpected answer %d %s", r.status, r.raw)
		}
	}
	if ok != 1 {
		t.Fatalf("%d of %d requests invoiced the ticket", ok, n)
	}
	if got := stampsOf(t, f, issuer.person); got != before-1 {
		t.Fatalf("stamps %v → %v", before, got)
	}
	if got := ticketOf(t, f.do("GET", "/api/v4/auto-invoice/tickets/"+tk.ID, "")); got.Status != "invoiced" {
		t.Fatalf("ticket %s", got.Status)
	}
}

// TestTicketListIndexes: whichever index a list walks (the caller's own tickets, the issuer's,
// a status's, the payment days), every page of every filter, for the owner and for people who
// see only their tickets, is the newest-paid-first subset a full scan finds, with its total.
func TestTicketListIndexes(t *testing.T) {
	f, _, issuer, cashier := ticketFixture(t)
	owner := f.creds.PersonID
	statuses := []string{api.TicketPending, api.TicketInvoiced, api.TicketCancelled, api.TicketGlobalized}
	var all []ticketRow
	err := f.srv.Accounts().Store.Update(context.Background(), func(tx storage.Tx) error {
		for i := range 23 {
			r := ticketRow{issuer: []string{issuer.person, owner}[i%2], recorder: []string{cashier.person, owner, issuer.person}[i%3],
				status: statuses[i%4], day: fmt.Sprintf("2026-11-%02d", 1+i%17)}
			paid := mx(r.day + "T10:00:00").Add(time.Duration(i) * time.Minute)
			r.id = ids.New(paid)
			all = append(all, r)
			if err := tx.Tickets(f.creds.TenantKey).Put(storage.Ticket{ID: r.id, Number: fmt.Sprintf("IX-%02d", i), IssuerPersonID: r.issuer,
				RecordedByPersonID: r.recorder, PaidAt: paid, PaidDay: r.day, RecordedDay: r.day, PaymentFormCode: "01",
				Items: json.RawMessage(`[]`), Subtotal: "100.00", Discount: "0", Transfers: "16.00", Withheld: "0", Total: "116.00",
				Status: r.status, CreatedAt: paid, UpdatedAt: paid}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// newest paid first: by day, then by id (the minute), both descending
	sort.Slice(all, func(i, j int) bool {
		if all[i].day != all[j].day {
			return all[i].day > all[j].day
		}
		return all[i].id > all[j].id
	})
	callers := []ticketCaller{{"owner", owner, nil}, {"cashier", cashier.person, cashier.headers()}, {"issuer", issuer.person, issuer.headers()}}
	check := func(round string) {
		t.Helper()
		for _, c := range callers {
			checkTicketList(t, f, round, c, owner, issuer.person, cashier.person, all)
		}
	}
	check("recorded")
	// statuses move: the kept counts move with them
	err = f.srv.Accounts().Store.Update(context.Background(), func(tx storage.Tx) error {
		ts := tx.Tickets(f.creds.TenantKey)
		for i := range all {
			if i%3 != 0 {
				continue
			}
			k, err := ts.Get(all[i].id)
			if err != nil {
				return err
			}
			k.Status = statuses[(slices.Index(statuses, k.Status)+1)%len(statuses)]
			all[i].status = k.Status
			if err := ts.Put(k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	check("moved")
}

// ticketRow is a ticket as TestTicketListIndexes recorded it; ticketCaller one who lists them.
type (
	ticketRow    struct{ id, issuer, recorder, status, day string }
	ticketCaller struct {
		name, id string
		headers  []string
	}
)

// checkTicketList asks the first pages of a set of ticket lists as caller c and compares each
// with what a scan of all (newest paid first) finds.
func checkTicketList(t *testing.T, f *fixture, round string, c ticketCaller, owner, issuer, cashier string, all []ticketRow) {
	t.Helper()
	for _, q := range []struct{ status, issuerID, from, to string }{
		{}, {status: "pending"}, {status: "invoiced"}, {issuerID: issuer}, {issuerID: owner, status: "cancelled"},
		{issuerID: issuer, status: "pending"}, {issuerID: cashier, status: "invoiced"}, {issuerID: owner, status: "globalized"},
		{from: "2026-11-05", to: "2026-11-12"}, {status: "pending", from: "2026-11-05"}, {issuerID: issuer, to: "2026-11-08"},
	} {
		var want []string
		for _, r := range all {
			if (c.id == owner || c.id == r.issuer || c.id == r.recorder) && (q.status == "" || q.status == r.status) &&
				(q.issuerID == "" || q.issuerID == r.issuer) && (q.from == "" || r.day >= q.from) && (q.to == "" || r.day <= q.to) {
				want = append(want, r.id)
			}
		}
		for page := 1; page <= 3; page++ {
			v := url.Values{"pageNumber": {fmt.Sprint(page)}, "pageSize": {"4"}}
			for k, val := range map[string]string{"status": q.status, "issuerId": q.issuerID, "from": q.from, "to": q.to} {
				if val != "" {
					v.Set(k, val)
				}
			}
			var got api.PagedList[api.Ticket]
			r := f.do("GET", "/api/v4/auto-invoice/tickets?"+v.Encode(), "", c.headers...)
			if r.status != 200 || json.Unmarshal(r.env.Data, &got) != nil {
				t.Fatalf("%s: %s %s: %s", round, c.name, v.Encode(), r.raw)
			}
			var ids []string
			for _, it := range got.Items {
				ids = append(ids, it.ID)
			}
			wantPage := want[min(len(want), (page-1)*4):min(len(want), page*4)]
			if got.TotalCount != len(want) || strings.Join(ids, ",") != strings.Join(wantPage, ",") {
				t.Errorf("%s: %s %s: %v of %d, want %v of %d", round, c.name, v.Encode(), ids, got.TotalCount, wantPage, len(want))
			}
		}
	}
}
