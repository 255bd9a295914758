package tickets

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/storage"
)

func TestDeadline(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.ParseInLocation("2006-01-02T15:04:05", s, cfdi.Mexico)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		paid        string
		month, year bool
		want        string // "" when no limit
	}{
		{"2026-11-02T10:00:00", false, false, "2026-11-30"},
		{"2026-12-31T23:59:59", false, false, "2026-12-31"},
		{"2028-02-10T00:00:00", false, false, "2028-02-29"},
		{"2026-01-31T23:30:00", false, false, "2026-01-31"},
		{"2026-03-15T12:00:00", true, false, "2026-12-31"},
		{"2026-03-15T12:00:00", true, true, ""},
	} {
		d, ok := Deadline(at(c.paid), storage.AutoInvoice{AllowBillingOutsideMonth: c.month, AllowBillingOutsideYear: c.year})
		got := ""
		if ok {
			got = d.Format(time.DateOnly)
		}
		if got != c.want {
			t.Errorf("Deadline(%s, month %v, year %v) = %q, want %q", c.paid, c.month, c.year, got, c.want)
		}
	}
	// the day is Mexico City's: paid 23:30 on Jan 31 in Mexico is Feb 1 in UTC
	if d, _ := Deadline(at("2026-01-31T23:30:00").UTC(), storage.AutoInvoice{}); d.Format(time.DateOnly) != "2026-01-31" {
		t.Errorf("deadline of a UTC instant: %s", d.Format(time.DateOnly))
	}
}

func TestValidNumber(t *testing.T) {
	for n, want := range map[string]bool{"A-1": true, "2026/11/0001": true, "T_9.b": true, "": false, "A 1": false, "Ñ1": false,
		"1234567890123456789012345678901234567890": true, "12345678901234567890123456789012345678901": false} {
		if ValidNumber(n) != want {
			t.Errorf("ValidNumber(%q) = %v", n, !want)
		}
	}
}

func TestGlobalItems(t *testing.T) {
	iva := []api.InvoiceItemTax{{TaxCode: "002", TaxTypeCode: "Tasa", TaxRate: "0.160000", TaxFlagCode: "T"}}
	ieps := []api.InvoiceItemTax{{TaxCode: "003", TaxTypeCode: "Cuota", TaxRate: "1.500000", TaxFlagCode: "T"}}
	ticket := func(number, form, total string, items ...api.InvoiceItemInput) storage.Ticket {
		raw, err := json.Marshal(items)
		if err != nil {
			t.Fatal(err)
		}
		return storage.Ticket{ID: number, Number: number, PaymentFormCode: form, Total: total, Items: raw}
	}
	held := []storage.Ticket{
		ticket("A", "01", "40.00",
			api.InvoiceItemInput{Quantity: "2", UnitPrice: "12.505", Discount: "1.004", TaxObjectCode: "02", ItemTaxes: iva},
			api.InvoiceItemInput{Quantity: "1", UnitPrice: "10", TaxObjectCode: "02", ItemTaxes: iva},
			api.InvoiceItemInput{Quantity: "3", UnitPrice: "1", TaxObjectCode: "01"}),
		ticket("B", "04", "100.00", api.InvoiceItemInput{Quantity: "4", UnitPrice: "2.5", TaxObjectCode: "02", ItemTaxes: ieps}),
		ticket("C", "01", "70.00", api.InvoiceItemInput{Quantity: "1", UnitPrice: "70", TaxObjectCode: "01"}),
	}
	items, form, err := globalItems(held)
	if err != nil {
		t.Fatal(err)
	}
	// A: the two IVA lines make one concept (25.01 + 10.00, discount 1.00), the untaxed one
	// another; B keeps its quantity (a quota tax); C one concept. Forms: 01 has 110.00.
	want := []struct{ sku, qty, price, discount, object string }{
		{"A", "1", "35.01", "1.00", "02"}, {"A", "1", "3.00", "", "01"}, {"B", "4", "2.5", "", "02"}, {"C", "1", "70.00", "", "01"},
	}
	if len(items) != len(want) || form != "01" {
		t.Fatalf("items %+v form %s", items, form)
	}
	for i, w := range want {
		it := items[i]
		if it.ItemSku != w.sku || string(it.Quantity) != w.qty || string(it.UnitPrice) != w.price || string(it.Discount) != w.discount ||
			it.TaxObjectCode != w.object || it.ItemCode != GlobalItemCode || it.UnitOfMeasurementCode != GlobalUnitCode || it.Description != GlobalItemText {
			t.Errorf("item %d = %+v, want %+v", i, it, w)
		}
	}
}
