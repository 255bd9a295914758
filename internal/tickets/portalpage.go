package tickets

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/catalogs"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/invoices"
	"github.com/timbra-mx/timbra/internal/mail"
	"github.com/timbra-mx/timbra/storage"
)

// The portal's web page (GET /portal/<name>) asks a customer for the ticket and their fiscal
// data, checks it as they type, and posts it to the server, which checks it again with
// CheckPortalInput (the JSON portal's checks: the same rules and texts) and makes the CFDI with
// PortalInvoice. Besides the invoice's checks of a recipient, a customer's tax regime must apply
// to the kind of person their RFC names (12 characters: a moral person; 13: a physical one),
// and their CFDI use to that kind and to their regime, as c_RegimenFiscal and c_UsoCFDI say
// (SAT refuses the CFDI otherwise); an e-mail, when given, is one valid address.

// Texts of the portal's own checks (timbra's).
const (
	MsgRegimeKind = "El régimen fiscal %s no corresponde a una persona %s (RFC de %d caracteres)."
	MsgUseKind    = "El uso de CFDI %s no corresponde a una persona %s (RFC de %d caracteres)."
	MsgUseRegime  = "El uso de CFDI %s no admite el régimen fiscal %s."
)

// MaxLegalName is the longest recipient name (the invoice's rule).
const MaxLegalName = 254

// Problem names why a portal did not invoice a ticket, for a page to tell the cases apart
// (the JSON portal answers the same errors).
type Problem string

// The problems of a portal.
const (
	ProblemNotOffered  Problem = "notOffered"  // 403: no Auto CFDI, portal name or privacy notice
	ProblemNotFound    Problem = "notFound"    // 404: no ticket with that number and total
	ProblemInvoiced    Problem = "invoiced"    // 409: invoiced to another RFC
	ProblemUnavailable Problem = "unavailable" // 409: globalized, cancelled or being invoiced
	ProblemExpired     Problem = "expired"     // 400: the ticket's billing window closed
)

// PortalError is an answer of the portal with the problem it is; the answer is Err.
type PortalError struct {
	Problem Problem
	Err     error
}

func (e *PortalError) Error() string { return e.Err.Error() }
func (e *PortalError) Unwrap() error { return e.Err }

// ProblemOf is the problem err is, "" when it is none of them.
func ProblemOf(err error) Problem {
	var p *PortalError
	if errors.As(err, &p) {
		return p.Problem
	}
	return ""
}

// KindOf is the kind of person an RFC names by its length: "moral" (12), "física" (13), ""
// otherwise.
func KindOf(tin string) string {
	switch utf8.RuneCountInString(strings.TrimSpace(tin)) {
	case 12:
		return "moral"
	case 13:
		return "física"
	}
	return ""
}

// applies tells whether a record applies to a kind of person.
func applies(a catalogs.Applicability, kind string) bool {
	return kind == "moral" && a.Moral || kind == "física" && a.Physical
}

// CheckPortalInput checks a customer's request with every failure in one 400: the number and
// total, the recipient as an invoice's, and the portal's own rules. It answers the total read.
func (s *Service) CheckPortalInput(ctx context.Context, tenantID string, in api.PortalInvoiceInput) (cfdi.Decimal, error) {
	f := s.Invoices.Fields(ctx, tenantID)
	f.Required("Number", in.Number)
	var total cfdi.Decimal
	if f.Required("Total", string(in.Total)) {
		var err error
		if total, err = cfdi.ParseDecimal(strings.TrimSpace(string(in.Total))); err != nil {
			f.Add("Total", fmt.Sprintf(MsgTotalFormat, in.Total), string(in.Total), "")
		}
	}
	if in.Recipient == nil {
		f.Add("Recipient", MsgRecipientNeeded, nil, "NotEmptyValidator")
		return total, f.Err()
	}
	rc := *in.Recipient
	rc.ID, rc.EmployeeData = "", nil // a customer names no person of the tenant
	f.Recipient(&rc)
	// the regime and use against the RFC's kind, once the RFC is one (an unknown code is the
	// catalog check's failure)
	if tin := strings.ToUpper(strings.TrimSpace(rc.Tin)); cfdi.CheckRFC(tin) == nil {
		regimes, err := s.Catalogs.Applicability(ctx, invoices.CatalogTaxRegimes)
		if err != nil {
			return total, errors.Join(f.Err(), err)
		}
		uses, err := s.Catalogs.Applicability(ctx, invoices.CatalogCfdiUses)
		if err != nil {
			return total, errors.Join(f.Err(), err)
		}
		for _, fl := range RecipientFailures(regimes, uses, tin, rc.TaxRegimeCode, rc.CfdiUseCode) {
			f.Add(fl.PropertyName, fl.ErrorMessage, fl.AttemptedValue, invoices.CodeRule)
		}
	}
	if e := strings.TrimSpace(rc.Email); e != "" && !mail.ValidAddress(e) {
		f.Add("Recipient.Email", fmt.Sprintf(invoices.MsgSendEmailInvalid, e), rc.Email, invoices.CodeEmail)
	}
	return total, f.Err()
}

// RecipientFailures are the portal's rules of a recipient's regime and use (see the package's
// portal notes); a catalog that keeps no applicability (an older source) checks nothing.
func RecipientFailures(regimes, uses []catalogs.Applicability, tin, regime, use string) []api.Failure {
	kind, n := KindOf(tin), utf8.RuneCountInString(tin)
	var fs []api.Failure
	for _, r := range regimes {
		if r.ID == regime && !applies(r, kind) {
			fs = append(fs, api.Failure{PropertyName: "Recipient.TaxRegimeCode", ErrorMessage: fmt.Sprintf(MsgRegimeKind, regime, kind, n), AttemptedValue: regime})
		}
	}
	for _, u := range uses {
		if u.ID != use {
			continue
		}
		if !applies(u, kind) {
			fs = append(fs, api.Failure{PropertyName: "Recipient.CfdiUseCode", ErrorMessage: fmt.Sprintf(MsgUseKind, use, kind, n), AttemptedValue: use})
		} else if u.Regimes != nil && !contains(u.Regimes, regime) {
			fs = append(fs, api.Failure{PropertyName: "Recipient.CfdiUseCode", ErrorMessage: fmt.Sprintf(MsgUseRegime, use, regime), AttemptedValue: use})
		}
	}
	return fs
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// PortalPage is what the portal's web page shows: the portal, the shop's name (the legal name
// of the tenant's owner) and the choices of tax regime and CFDI use (the SAT catalogs; empty
// when the portal is not offered).
type PortalPage struct {
	api.Portal
	ShopName      string
	Regimes, Uses []catalogs.Applicability
}

// Page reads what the portal's web page shows; a previous name is *Moved, an unknown one 404.
func (s *Service) Page(ctx context.Context, name string) (PortalPage, error) {
	var out PortalPage
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		tenantID, a, offered, err := s.portal(tx, name)
		if err != nil {
			return err
		}
		out.Portal = api.Portal{Name: a.PortalName, Offered: offered, PrivacyNoticeURL: a.PrivacyNoticeURL}
		out.ShopName = a.PortalName
		if tn, err := tx.Tenants().Get(tenantID); err == nil {
			if owner, err := tx.People(tenantID).Get(tn.OwnerPersonID); err == nil && strings.TrimSpace(owner.LegalName) != "" {
				out.ShopName = owner.LegalName
			}
		}
		if !offered {
			msg := MsgNotOffered
			out.Message, out.PrivacyNoticeURL = &msg, nil
		}
		return nil
	})
	if err != nil || !out.Offered {
		return out, err
	}
	if out.Regimes, err = s.Catalogs.Applicability(ctx, invoices.CatalogTaxRegimes); err != nil {
		return out, err
	}
	out.Uses, err = s.Catalogs.Applicability(ctx, invoices.CatalogCfdiUses)
	return out, err
}

// FormRules are the rules and texts the page checks as the customer types, the same the
// server checks (CheckPortalInput): required texts by field, patterns (JavaScript regular
// expressions that mean what the Go ones do) and format texts (%s and %d filled in order).
type FormRules struct {
	Required     map[string]string `json:"required"`
	RFCPattern   string            `json:"rfcPattern"`
	RFCFormat    string            `json:"rfcFormat"`
	RFCDate      string            `json:"rfcDate"`
	ZipPattern   string            `json:"zipPattern"`
	ZipFormat    string            `json:"zipFormat"`
	TotalPattern string            `json:"totalPattern"`
	TotalFormat  string            `json:"totalFormat"`
	EmailFormat  string            `json:"emailFormat"`
	NameMax      int               `json:"nameMax"`
	NameTooLong  string            `json:"nameTooLong"`
	NameWords    string            `json:"nameWords"`
	RegimeKind   string            `json:"regimeKind"`
	UseKind      string            `json:"useKind"`
	UseRegime    string            `json:"useRegime"`
}

// Fields are the page's form fields and the property of the failures on each.
var Fields = map[string]string{
	"number": "Number", "total": "Total", "tin": "Recipient.Tin", "legalName": "Recipient.LegalName",
	"zipCode": "Recipient.ZipCode", "taxRegimeCode": "Recipient.TaxRegimeCode", "cfdiUseCode": "Recipient.CfdiUseCode",
	"email": "Recipient.Email",
}

// Rules are the page's FormRules.
func Rules() FormRules {
	req := map[string]string{}
	for field, prop := range Fields {
		if field != "email" {
			req[field] = fmt.Sprintf(apierr.MsgNotEmpty, apierr.Words(prop))
		}
	}
	return FormRules{
		Required:   req,
		RFCPattern: cfdi.RFCPattern, RFCFormat: cfdi.MsgRFCFormat, RFCDate: cfdi.MsgRFCDate,
		ZipPattern: invoices.ZipPattern, ZipFormat: invoices.MsgZipCode,
		TotalPattern: cfdi.DecimalPattern, TotalFormat: MsgTotalFormat,
		EmailFormat: invoices.MsgSendEmailInvalid,
		NameMax:     MaxLegalName, NameTooLong: invoices.MsgTooLong, NameWords: apierr.Words("Recipient.LegalName"),
		RegimeKind: MsgRegimeKind, UseKind: MsgUseKind, UseRegime: MsgUseRegime,
	}
}
