package invoices

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
)

// An example is a body of POST /api/v4/invoices that stamps as it is once the issuer is set up
// as the README's tour does (a person with RFC EKU9003173C9, regime 601, zip code 42501 and
// SAT's test CSD of that RFC as its tax files; for payroll also its employer data). The issuer
// goes by reference ({"id"}: the CSD stays on the server); recipients and items go by value,
// with taxpayers of SAT's test data, so that nothing else needs to exist. Every code is in the
// SAT catalogs (and in the tests' small copy of them). TestExamplesStamp stamps each one.
type example struct {
	Kind    string
	Type    string // c_TipoDeComprobante
	Summary string
	Notes   []string // the comment printed before the body
	Body    string   // JSON; the issuer's id is issuerPlaceholder
}

// issuerPlaceholder stands for the issuer's person id in the bodies; --example puts the id of
// the person of the API key in its place when the server says it.
const issuerPlaceholder = "PERSON_ID"

// relatedPlaceholder is the UUID of an invoice the credit note and the payment refer to: any
// UUID stamps (the server does not look it up); a real one is of an invoice of yours.
const relatedPlaceholder = "0C1E2A3B-4D5F-4A6B-8C7D-9E0F1A2B3C4D"

var examples = []example{
	{
		Kind: "income", Type: "I", Summary: "a sale: 10 pencils at 12.50 plus IVA 16 %, paid by transfer",
		Notes: []string{
			"An income invoice (typeCode I). Total 145.00 MXN: 10 × 12.50 = 125.00, IVA 16 % 20.00.",
			"recipient: XIA190128J61, a taxpayer of SAT's test data; items by value (a product's",
			"{\"id\", \"quantity\"} also works).",
		},
		Body: `{
  "typeCode": "I",
  "series": "F",
  "paymentFormCode": "03",
  "paymentMethodCode": "PUE",
  "expeditionZipCode": "42501",
  "issuer": { "id": "PERSON_ID" },
  "recipient": {
    "tin": "XIA190128J61",
    "legalName": "XENON INDUSTRIAL ARTICLES",
    "zipCode": "76343",
    "taxRegimeCode": "601",
    "cfdiUseCode": "G03"
  },
  "items": [
    {
      "itemCode": "44121706",
      "description": "Lápiz de madera HB",
      "quantity": 10,
      "unitOfMeasurementCode": "H87",
      "unitPrice": 12.50,
      "taxObjectCode": "02",
      "itemTaxes": [ { "taxCode": "002", "taxTypeCode": "Tasa", "taxRate": "0.160000", "taxFlagCode": "T" } ]
    }
  ]
}
`,
	},
	{
		Kind: "credit-note", Type: "E", Summary: "a credit note for 2 pencils returned from an invoice",
		Notes: []string{
			"A credit note (typeCode E) of 29.00 MXN for 2 returned pencils. relatedInvoices: the",
			"invoice it credits, relationship 03 (Devolución de mercancía); put the UUID of one of",
			"yours (timbra invoices list).",
		},
		Body: `{
  "typeCode": "E",
  "series": "NC",
  "paymentFormCode": "03",
  "paymentMethodCode": "PUE",
  "expeditionZipCode": "42501",
  "relatedInvoices": [ { "relationshipTypeCode": "03", "uuid": "` + relatedPlaceholder + `" } ],
  "issuer": { "id": "PERSON_ID" },
  "recipient": {
    "tin": "XIA190128J61",
    "legalName": "XENON INDUSTRIAL ARTICLES",
    "zipCode": "76343",
    "taxRegimeCode": "601",
    "cfdiUseCode": "G03"
  },
  "items": [
    {
      "itemCode": "44121706",
      "description": "Devolución: lápiz de madera HB",
      "quantity": 2,
      "unitOfMeasurementCode": "H87",
      "unitPrice": 12.50,
      "taxObjectCode": "02",
      "itemTaxes": [ { "taxCode": "002", "taxTypeCode": "Tasa", "taxRate": "0.160000", "taxFlagCode": "T" } ]
    }
  ]
}
`,
	},
	{
		Kind: "transfer", Type: "T", Summary: "goods moved between the issuer's premises (no amounts)",
		Notes: []string{
			"A transfer (typeCode T, traslado): goods that travel, not a sale. Unit prices 0, no",
			"taxes, no payment fields; the recipient is the issuer itself.",
		},
		Body: `{
  "typeCode": "T",
  "series": "T",
  "expeditionZipCode": "42501",
  "issuer": { "id": "PERSON_ID" },
  "recipient": {
    "tin": "EKU9003173C9",
    "legalName": "ESCUELA KEMPER URGATE",
    "zipCode": "42501",
    "taxRegimeCode": "601",
    "cfdiUseCode": "S01"
  },
  "items": [
    {
      "itemCode": "44121706",
      "description": "Lápiz de madera HB",
      "quantity": 100,
      "unitOfMeasurementCode": "H87",
      "unitPrice": 0,
      "taxObjectCode": "01"
    }
  ]
}
`,
	},
	{
		Kind: "payment", Type: "P", Summary: "a payment receipt (Pagos 2.0) of part of an invoice paid later (PPD)",
		Notes: []string{
			"A payment receipt (typeCode P) with the Pagos 2.0 complement: 580.00 MXN paid on an",
			"invoice of 1160.00 issued PPD (payment form 99). paidInvoices[0].uuid: put the UUID of",
			"that invoice. No items: the server writes SAT's one fixed concept.",
		},
		Body: `{
  "typeCode": "P",
  "series": "CP",
  "expeditionZipCode": "42501",
  "issuer": { "id": "PERSON_ID" },
  "recipient": {
    "tin": "XIA190128J61",
    "legalName": "XENON INDUSTRIAL ARTICLES",
    "zipCode": "76343",
    "taxRegimeCode": "601",
    "cfdiUseCode": "CP01"
  },
  "complement": {
    "payment": {
      "paymentDate": "2026-11-20T12:00:00",
      "paymentFormCode": "03",
      "currencyCode": "MXN",
      "paidInvoices": [
        {
          "uuid": "` + relatedPlaceholder + `",
          "series": "F",
          "number": "1",
          "currencyCode": "MXN",
          "partialityNumber": 1,
          "previousBalance": 1160.00,
          "paymentAmount": 580.00,
          "taxObjectCode": "02",
          "paidInvoiceTaxes": [ { "taxCode": "002", "taxTypeCode": "Tasa", "taxRate": "0.160000", "taxFlagCode": "T" } ]
        }
      ]
    }
  }
}
`,
	},
	{
		Kind: "payroll", Type: "N", Summary: "a fortnight's pay (Nómina 1.2); the issuer needs employer data",
		Notes: []string{
			"A payroll invoice (typeCode N) with the Nómina 1.2 complement: 12,000.00 of salary less",
			"ISR and IMSS, total 10,350.00 MXN. The issuer needs employer data once:",
			"  timbra people employer set PERSON_ID --registration B5510768108",
			"The employee goes by value (recipient.employeeData); a person with employee data",
			"({\"id\"}) also works. No items: the server writes SAT's payroll concept.",
		},
		Body: `{
  "typeCode": "N",
  "series": "N",
  "expeditionZipCode": "42501",
  "issuer": { "id": "PERSON_ID" },
  "recipient": {
    "tin": "FUNK671228PH6",
    "legalName": "KARLA FUENTE NOLASCO",
    "zipCode": "01160",
    "taxRegimeCode": "605",
    "cfdiUseCode": "CN01",
    "employeeData": {
      "curp": "FUNK671228MDFNLRA8",
      "socialSecurityNumber": "04078873454",
      "laborRelationStartDate": "2024-08-18",
      "seniority": "P117W",
      "satContractTypeId": "01",
      "satUnionizedStatusId": "No",
      "satWorkdayTypeId": "01",
      "satTaxRegimeTypeId": "02",
      "employeeNumber": "120",
      "department": "Ventas",
      "position": "Vendedora",
      "satJobRiskId": "1",
      "satPaymentPeriodicityId": "04",
      "baseSalaryForContributions": 800.00,
      "integratedDailySalary": 836.16,
      "satPayrollStateId": "HID"
    }
  },
  "complement": {
    "payroll": {
      "version": "1.2",
      "payrollTypeCode": "O",
      "paymentDate": "2026-11-15",
      "initialPaymentDate": "2026-11-01",
      "finalPaymentDate": "2026-11-15",
      "daysPaid": 15,
      "earnings": {
        "earnings": [ { "earningTypeCode": "001", "code": "001", "concept": "Sueldo", "taxedAmount": 12000.00, "exemptAmount": 0 } ]
      },
      "deductions": [
        { "deductionTypeCode": "002", "code": "002", "concept": "ISR", "amount": 1350.00 },
        { "deductionTypeCode": "001", "code": "001", "concept": "IMSS", "amount": 300.00 }
      ]
    }
  }
}
`,
	},
	{
		Kind: "global", Type: "I", Summary: "a global invoice of a month's sales to the public",
		Notes: []string{
			"A global invoice (typeCode I with globalInformation): the sales of November 2026 to",
			"customers who asked for no invoice, to SAT's generic RFC XAXX010101000, whose zip code",
			"is the expedition's. One item per sale receipt (the ticket number as itemSku).",
		},
		Body: `{
  "typeCode": "I",
  "series": "G",
  "paymentFormCode": "01",
  "paymentMethodCode": "PUE",
  "expeditionZipCode": "42501",
  "globalInformation": { "periodicityCode": "04", "monthCode": "11", "year": 2026 },
  "issuer": { "id": "PERSON_ID" },
  "recipient": {
    "tin": "XAXX010101000",
    "legalName": "PUBLICO EN GENERAL",
    "zipCode": "42501",
    "taxRegimeCode": "616",
    "cfdiUseCode": "S01"
  },
  "items": [
    {
      "itemCode": "01010101",
      "itemSku": "A-1",
      "description": "Venta",
      "quantity": 1,
      "unitOfMeasurementCode": "ACT",
      "unitPrice": 250.00,
      "taxObjectCode": "02",
      "itemTaxes": [ { "taxCode": "002", "taxTypeCode": "Tasa", "taxRate": "0.160000", "taxFlagCode": "T" } ]
    },
    {
      "itemCode": "01010101",
      "itemSku": "A-2",
      "description": "Venta",
      "quantity": 1,
      "unitOfMeasurementCode": "ACT",
      "unitPrice": 100.00,
      "taxObjectCode": "02",
      "itemTaxes": [ { "taxCode": "002", "taxTypeCode": "Tasa", "taxRate": "0.160000", "taxFlagCode": "T" } ]
    }
  ]
}
`,
	},
}

// exampleOf is the example of a kind, or nil.
func exampleOf(kind string) *example {
	for i := range examples {
		if examples[i].Kind == kind {
			return &examples[i]
		}
	}
	return nil
}

func exampleKinds() []string {
	kinds := make([]string, len(examples))
	for i, e := range examples {
		kinds[i] = e.Kind
	}
	return kinds
}

// writeKinds lists the examples, one a line.
func writeKinds(w io.Writer) {
	fmt.Fprintln(w, "Examples of invoice bodies: timbra invoices create --example KIND")
	for _, e := range examples {
		fmt.Fprintf(w, "  %-12s %s  %s\n", e.Kind, e.Type, e.Summary)
	}
}

// comment is the example's notes as // lines, then how to send it.
func (e *example) comment() string {
	var b strings.Builder
	for _, n := range e.Notes {
		b.WriteString("// " + n + "\n")
	}
	b.WriteString("// Stamp it: timbra invoices create --example " + e.Kind + " | timbra invoices create --file -\n")
	return b.String()
}

// examplesHelp is every example as the help shows it: the comment, then the body.
func examplesHelp() string {
	var b strings.Builder
	b.WriteString("Bodies to start from. --example KIND prints one: the comment on stderr, the JSON on stdout,\n" +
		"where issuer.id is the person of your API key when the server says it (else PERSON_ID). The\n" +
		"issuer is a person with its CSD as tax files, as README.md's tour sets one up (SAT's test CSD,\n" +
		"RFC EKU9003173C9); recipients are taxpayers of SAT's test data.\n")
	for _, e := range examples {
		b.WriteString("\n--example " + e.Kind + "\n")
		b.WriteString(e.comment())
		b.WriteString(e.Body)
	}
	return b.String()
}

// writeExample prints an example: the comment on stderr, the JSON on stdout with the issuer's
// id filled in when the server tells whose API key the CLI uses.
func writeExample(ctx context.Context, f *cmdutil.Factory, e *example) error {
	body := e.Body
	id, why := callerPersonID(ctx, f)
	fmt.Fprint(f.IO.Err, e.comment())
	if id != "" {
		body = strings.Replace(body, `"`+issuerPlaceholder+`"`, `"`+id+`"`, 1)
		fmt.Fprintf(f.IO.Err, "// issuer.id %s: you (the person of your API key).\n", id)
	} else {
		fmt.Fprintf(f.IO.Err, "// issuer.id: put the id of the issuing person in place of %s (timbra people list); %s.\n", issuerPlaceholder, why)
	}
	_, err := io.WriteString(f.IO.Out, body)
	return err
}

// callerPersonID is the person of the API key the CLI uses, found among the API keys the caller
// may see (an owner sees every key of the tenant); "" and why when it cannot be told.
func callerPersonID(ctx context.Context, f *cmdutil.Factory) (string, string) {
	client, err := f.Client()
	if err != nil {
		return "", "not logged in"
	}
	const size, maxPages = 10, 50 // the API lists at most 10 keys a page
	for page := 1; page <= maxPages; page++ {
		keys, err := client.ListAPIKeys(ctx, page, size)
		if err != nil {
			var ae *api.Error
			if errors.As(err, &ae) && ae.Status == 0 {
				return "", "the server did not answer"
			}
			return "", "the server did not say whose API key this is"
		}
		for _, k := range keys.Items {
			if k.APIKeyValue == client.APIKey {
				return k.PersonID, ""
			}
		}
		if !keys.HasNextPage {
			break
		}
	}
	return "", "your API key is not among those the server lists"
}
