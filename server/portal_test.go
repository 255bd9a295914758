package server

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/invoices"
	"github.com/timbra-mx/timbra/internal/mail"
	"github.com/timbra-mx/timbra/internal/mail/mailtest"
	"github.com/timbra-mx/timbra/internal/tickets"
)

// offerPortal gives the fixture's tenant the portal name and a privacy notice: the portal serves
// customers.
func offerPortal(t *testing.T, f *fixture, name string) {
	t.Helper()
	if r := f.do("PUT", "/api/v4/auto-invoice/portal-name", `{"name":"`+name+`"}`); r.status != 200 {
		t.Fatalf("portal name: %s", r.raw)
	}
	if r := f.do("PUT", "/api/v4/auto-invoice/settings", `{"privacyNoticeUrl":"https://`+name+`.example/privacidad"}`); r.status != 200 {
		t.Fatalf("settings: %s", r.raw)
	}
}

// TestPortalRecipientRules: a customer's regime must apply to the kind of person the RFC names
// and the CFDI use to that kind and regime (c_RegimenFiscal, c_UsoCFDI); an e-mail must be one
// address; every failure comes in one answer, before the ticket is looked at, and none stamps.
func TestPortalRecipientRules(t *testing.T) {
	f, _, issuer, cashier := ticketFixture(t)
	offerPortal(t, f, "reglas")
	ticketOf(t, f.do("POST", "/api/v4/auto-invoice/tickets", empBody(ticketBody(issuer.person, "P-1", "2026-11-20T11:00:00")), cashier.headers()...))
	anon := []string{"X-API-KEY", "", "X-TENANT-KEY", ""}
	post := func(recipient map[string]any) result {
		return f.do("POST", "/portal/v1/reglas/invoices", empBody(map[string]any{"number": "P-1", "total": "39.00", "recipient": recipient}), anon...)
	}
	moral := empMap(recipientBody) // EKU9003173C9: a moral person
	expectFailure(t, post(empMap(moral, "taxRegimeCode", "605")), "Recipient.TaxRegimeCode", fmt.Sprintf(tickets.MsgRegimeKind, "605", "moral", 12))
	expectFailure(t, post(empMap(moral, "cfdiUseCode", "CN01")), "Recipient.CfdiUseCode", fmt.Sprintf(tickets.MsgUseKind, "CN01", "moral", 12))
	physical := empMap(moral, "tin", "CAUN800101AB1", "taxRegimeCode", "616", "cfdiUseCode", "G03")
	expectFailure(t, post(physical), "Recipient.CfdiUseCode", fmt.Sprintf(tickets.MsgUseRegime, "G03", "616"))
	expectFailure(t, post(empMap(moral, "email", "no es correo")), "Recipient.Email", fmt.Sprintf(invoices.MsgSendEmailInvalid, "no es correo"))
	r := post(empMap(moral, "zipCode", "123", "taxRegimeCode", "605", "email", "x@"))
	if fs := failures(t, r); len(fs) != 4 { // the zip, the regime, the use with that regime, the e-mail
		t.Fatalf("want four failures at once: %s", r.raw)
	}
	if got := stampsOf(t, f, issuer.person); got != 10 {
		t.Fatalf("a refused request stamped: %v stamps left", got)
	}
	// a physical person with a regime and use of theirs invoices
	var pi api.PortalInvoice
	if r := post(empMap(physical, "cfdiUseCode", "S01", "email", nil)); r.status != 200 || json.Unmarshal(r.env.Data, &pi) != nil || pi.EmailedTo != nil {
		t.Fatalf("physical person: %s", r.raw)
	}
}

// TestPortalMailsTheCFDI: with a mail server, a CFDI a customer makes is e-mailed to the e-mail
// they gave (its XML and PDF attached), and the answer says to whom; asked again, it is not sent
// twice.
func TestPortalMailsTheCFDI(t *testing.T) {
	sink := mailtest.Start(t)
	f, _, issuer, cashier := ticketFixture(t, func(c *Config) {
		c.Mail, c.MailFrom = &mail.SMTP{Host: sink.Host(), Port: sink.Port()}, "facturas@timbra.example"
	})
	offerPortal(t, f, "correos-mx")
	ticketOf(t, f.do("POST", "/api/v4/auto-invoice/tickets", empBody(ticketBody(issuer.person, "M-1", "2026-11-20T11:00:00")), cashier.headers()...))
	body := empBody(map[string]any{"number": "M-1", "total": "39", "recipient": recipientBody})
	var pi api.PortalInvoice
	if r := f.do("POST", "/portal/v1/correos-mx/invoices", body, "X-API-KEY", "", "X-TENANT-KEY", ""); r.status != 200 || json.Unmarshal(r.env.Data, &pi) != nil ||
		pi.EmailedTo == nil || *pi.EmailedTo != "cliente@example.com" {
		t.Fatalf("portal invoice: %s", r.raw)
	}
	msgs := sink.Messages()
	if len(msgs) != 1 || msgs[0].To[0] != "cliente@example.com" || !json.Valid([]byte(`"`+pi.UUID+`"`)) {
		t.Fatalf("messages: %+v", msgs)
	}
	if r := f.do("POST", "/portal/v1/correos-mx/invoices", body, "X-API-KEY", "", "X-TENANT-KEY", ""); r.status != 200 || json.Unmarshal(r.env.Data, &pi) != nil || pi.EmailedTo != nil {
		t.Fatalf("again: %s", r.raw)
	}
	if n := len(sink.Messages()); n != 1 {
		t.Fatalf("sent %d messages", n)
	}
}
