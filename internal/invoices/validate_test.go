package invoices

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/catalogs"
	"github.com/timbra-mx/timbra/internal/cfdi"
)

// fakeCatalogs holds the keys of each catalog; err answers every lookup instead.
type fakeCatalogs struct {
	keys map[string][]string
	err  error
}

func (f fakeCatalogs) Lookup(_ context.Context, name, id string) (api.CatalogRecord, bool, error) {
	if f.err != nil {
		return api.CatalogRecord{}, false, f.err
	}
	for _, k := range f.keys[name] {
		if k == id {
			return api.CatalogRecord{ID: id}, true, nil
		}
	}
	return api.CatalogRecord{}, false, nil
}

func (f fakeCatalogs) TaxIDPatterns(context.Context) (map[string]catalogs.TaxIDFormat, error) {
	return nil, f.err
}

// want is the one failure a check reports, or none (prop "").
type want struct{ prop, msg, code string }

func (w want) check(t *testing.T, k *checker) {
	t.Helper()
	if w.prop == "" {
		if len(k.fs) != 0 || k.err != nil {
			t.Fatalf("failures %+v, err %v; want none", k.fs, k.err)
		}
		return
	}
	if len(k.fs) != 1 {
		t.Fatalf("failures %+v; want one on %s", k.fs, w.prop)
	}
	f := k.fs[0]
	if f.PropertyName != w.prop || f.ErrorMessage != w.msg || f.ErrorCode == nil || *f.ErrorCode != w.code {
		t.Fatalf("failure %s %q %v; want %s %q %s", f.PropertyName, f.ErrorMessage, f.ErrorCode, w.prop, w.msg, w.code)
	}
	if f.Placeholders["PropertyName"] != apierr.Words(w.prop) {
		t.Errorf("placeholder PropertyName = %v, want %q", f.Placeholders["PropertyName"], apierr.Words(w.prop))
	}
}

func newChecker(cat Catalogs) *checker {
	return &checker{ctx: context.Background(), s: &Service{Catalogs: cat}}
}

func TestCheckerTexts(t *testing.T) {
	for _, c := range []struct {
		name string
		run  func(k *checker) bool
		ok   bool
		want want
	}{
		{"required present", func(k *checker) bool { return k.required("Issuer.Tin", "EKU9003173C9") }, true, want{}},
		{"required empty", func(k *checker) bool { return k.required("Issuer.Tin", "") }, false,
			want{"Issuer.Tin", "'Tin' no debería estar vacío.", CodeNotEmpty}},
		{"required blank", func(k *checker) bool { return k.required("Items[0].ItemCode", "  ") }, false,
			want{"Items[0].ItemCode", "'Item Code' no debería estar vacío.", CodeNotEmpty}},
		{"rfc valid", func(k *checker) bool { return k.rfc("Recipient.Tin", "XAXX010101000") }, true, want{}},
		{"rfc malformed", func(k *checker) bool { return k.rfc("Recipient.Tin", "ABC") }, false,
			want{"Recipient.Tin", fmt.Sprintf(MsgRFC, "ABC"), CodeFormat}},
		{"rfc of 31 April", func(k *checker) bool { return k.rfc("Recipient.Tin", "GODE560431AB1") }, false,
			want{"Recipient.Tin", fmt.Sprintf(cfdi.MsgRFCDate, "GODE560431AB1", "560431"), CodeFormat}},
		{"rfc whose check digit SAT's algorithm does not give", func(k *checker) bool { return k.rfc("Recipient.Tin", "BSM970519DU8") }, true, want{}},
		{"rfc empty reports emptiness, not format", func(k *checker) bool { return k.rfc("Recipient.Tin", "") }, false,
			want{"Recipient.Tin", "'Tin' no debería estar vacío.", CodeNotEmpty}},
		{"zip valid", func(k *checker) bool { return k.zip("Recipient.ZipCode", "42501") }, true, want{}},
		{"zip of four digits", func(k *checker) bool { return k.zip("Recipient.ZipCode", "4250") }, false,
			want{"Recipient.ZipCode", fmt.Sprintf(MsgZipCode, "4250"), CodeFormat}},
		{"max length kept", func(k *checker) bool { k.maxLen("Items[0].Description", "ñandú", 5); return true }, true, want{}},
		{"max length passed, counted in characters", func(k *checker) bool { k.maxLen("Items[0].Description", "ñandús", 5); return true }, true,
			want{"Items[0].Description", fmt.Sprintf(MsgTooLong, "Description", 5, 6), CodeFormat}},
		{"amount as a string", func(k *checker) bool { _, ok := k.amount("Items[0].UnitPrice", "100.50"); return ok }, true, want{}},
		{"amount not a number", func(k *checker) bool { _, ok := k.amount("Items[0].UnitPrice", "cien"); return ok }, false,
			want{"Items[0].UnitPrice", fmt.Sprintf(MsgAmount, "Unit Price", "cien"), CodeFormat}},
		{"catalog key found", func(k *checker) bool { return k.requiredCode("PaymentFormCode", "SatPaymentForms", "01") }, true, want{}},
		{"catalog key unknown", func(k *checker) bool { return k.requiredCode("PaymentFormCode", "SatPaymentForms", "77") }, false,
			want{"PaymentFormCode", fmt.Sprintf(MsgNotInCatalog, "77", satName["SatPaymentForms"]), CodeNotInCatalog}},
		{"optional catalog key absent", func(k *checker) bool { return k.optionalCode("PaymentFormCode", "SatPaymentForms", "") }, true, want{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			k := newChecker(fakeCatalogs{keys: map[string][]string{"SatPaymentForms": {"01", "03"}}})
			if ok := c.run(k); ok != c.ok {
				t.Fatalf("ok = %v, want %v", ok, c.ok)
			}
			c.want.check(t, k)
		})
	}
}

// A catalog that cannot answer is the answer, not a failure of the request.
func TestCheckerCatalogError(t *testing.T) {
	for _, c := range []struct {
		name string
		cat  Catalogs
	}{
		{"lookup fails", fakeCatalogs{err: errors.New("catalogs not imported")}},
		{"no catalog service", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			k := newChecker(c.cat)
			if k.catalog("PaymentFormCode", "SatPaymentForms", "01") {
				t.Fatal("a key was found without an answer from the catalogs")
			}
			if len(k.fs) != 0 || k.err == nil {
				t.Fatalf("failures %+v, err %v; want no failure and the error", k.fs, k.err)
			}
			k.fail(errors.New("second"))
			if strings.Contains(k.err.Error(), "second") {
				t.Errorf("a later error replaced the first: %v", k.err)
			}
		})
	}
}

// TestCheckerTaxCombination: a tax line whose tax, factor and withholding do not go together is
// reported on the field at fault, in the words of the list it came in (items or paid invoices).
func TestCheckerTaxCombination(t *testing.T) {
	for _, c := range []struct {
		name, group string
		tax         api.InvoiceItemTax
		rate        string
		ok          bool
		want        want
	}{
		{"IVA 16% transferred", "itemTaxes", api.InvoiceItemTax{TaxCode: "002", TaxTypeCode: "Tasa", TaxRate: "0.16", TaxFlagCode: "T"}, "0.16", true, want{}},
		{"ISR transferred, in an item", "itemTaxes", api.InvoiceItemTax{TaxCode: "001", TaxTypeCode: "Tasa", TaxRate: "0.10", TaxFlagCode: "T"}, "0.10", false,
			want{"Items[0].ItemTaxes[0].TaxFlagCode", "El ISR (001) solo se retiene: usa taxFlagCode R con tipo factor Tasa.", CodeRule}},
		{"ISR transferred, in a paid invoice", "paidInvoiceTaxes", api.InvoiceItemTax{TaxCode: "001", TaxTypeCode: "Tasa", TaxRate: "0.10", TaxFlagCode: "T"}, "0.10", false,
			want{"Items[0].ItemTaxes[0].TaxFlagCode", "El ISR (001) solo se retiene: usa taxFlagCode R con tipo factor Tasa.", CodeRule}},
		{"Tasa without a rate", "paidInvoiceTaxes", api.InvoiceItemTax{TaxCode: "002", TaxTypeCode: "Tasa", TaxFlagCode: "T"}, "", false,
			want{"Items[0].ItemTaxes[0].TaxRate", "La tasa o cuota es requerida cuando el tipo factor es Tasa o Cuota.", CodeRule}},
		{"Exento withheld", "itemTaxes", api.InvoiceItemTax{TaxCode: "002", TaxTypeCode: "Exento", TaxFlagCode: "R"}, "", false,
			want{"Items[0].ItemTaxes[0].TaxTypeCode", "El tipo factor Exento no aplica a retenciones: una retención lleva Tasa o Cuota.", CodeRule}},
	} {
		t.Run(c.name, func(t *testing.T) {
			k := newChecker(fakeCatalogs{})
			var rate *big.Rat
			if c.rate != "" {
				rate, _ = new(big.Rat).SetString(c.rate)
			}
			if _, ok := k.taxCombination("Items[0].ItemTaxes[0]", c.tax, rate, c.group); ok != c.ok {
				t.Fatalf("ok = %v, want %v", ok, c.ok)
			}
			c.want.check(t, k)
		})
	}
}

// TestMadeBetween: a date filter bounds when the invoices it can match were stamped, with room
// for every date the checker lets through: from 72 hours before the stamping to 5 minutes after.
func TestMadeBetween(t *testing.T) {
	at := func(v string) time.Time {
		t.Helper()
		d, err := time.ParseInLocation(cfdi.DateLayout, v, cfdi.Mexico)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, c := range []struct {
		name, from, to string
		fecha          string // an invoice dated so, which the filter keeps
		stamped        []time.Duration
	}{
		{"a month, stamped at its date", "2026-06-01", "2026-06-30", "2026-06-15T12:00:00", []time.Duration{0}},
		{"the first second, dated 5 minutes ahead", "2026-06-01", "2026-06-30", "2026-06-01T00:00:00", []time.Duration{-5 * time.Minute}},
		{"the last second, stamped 72 hours later", "2026-06-01", "2026-06-30", "2026-06-30T23:59:59", []time.Duration{72 * time.Hour}},
		{"to a second", "", "2026-06-30T10:00:00", "2026-06-30T10:00:00", []time.Duration{72 * time.Hour, -5 * time.Minute}},
		{"from a second", "2026-06-30T10:00:00", "", "2026-06-30T10:00:00", []time.Duration{-5 * time.Minute, 72 * time.Hour}},
	} {
		t.Run(c.name, func(t *testing.T) {
			made, before := madeBetween(c.from, c.to)
			if !inRange(c.fecha, c.from, c.to) {
				t.Fatalf("the filter does not keep %s", c.fecha)
			}
			for _, d := range c.stamped {
				s := at(c.fecha).Add(d)
				if (!made.IsZero() && s.Before(made)) || (!before.IsZero() && !s.Before(before)) {
					t.Errorf("an invoice dated %s stamped %v later is outside [%v, %v)", c.fecha, d, made, before)
				}
			}
			if (c.from == "") != made.IsZero() || (c.to == "") != before.IsZero() {
				t.Errorf("open sides: made %v, before %v", made, before)
			}
		})
	}
}
