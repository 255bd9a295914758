package trigger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/timbra-mx/timbra/internal/api"
)

// The real flows: what a trigger of each type does in the test environment, as fixture steps
// (so --add, --override and --remove edit them by step name). The server is its own PAC and SAT
// there, so an invoice is really stamped and cancelled, and every event is the one the server
// emits for that change, to every listener and webhook subscribed to it.

// Step names of the real flows.
const (
	stepInvoice = "invoice"
	stepCancel  = "cancel"
	stepAnswer  = "answer"
	stepTrigger = "trigger" // the one step of --synthetic
)

// callerRef is the issuer of a trigger's invoice: the person of the API key.
const callerRef = "${.caller:id}"

// invoiceParams is the body of the trigger's invoice: an income invoice of 100 MXN to the
// public in general (XAXX010101000, which SAT's rules allow anyone to invoice), issued by the
// caller with the default CSD, at the caller's postal code; one line without taxes.
const invoiceParams = `{
  "typeCode": "I",
  "paymentFormCode": "01",
  "paymentMethodCode": "PUE",
  "expeditionZipCode": "${.caller:zipCode}",
  "issuer": {"id": "${.caller:id}"},
  "recipient": {"tin": "XAXX010101000", "legalName": "PUBLICO EN GENERAL", "zipCode": "${.caller:zipCode}", "taxRegimeCode": "616", "cfdiUseCode": "S01"},
  "items": [{"itemCode": "01010101", "quantity": 1, "unitPrice": 100, "unitOfMeasurementCode": "ACT", "description": "Evento de prueba (timbra trigger)", "taxObjectCode": "01"}]
}`

func invoiceStep() Step {
	v, err := decodeJSON([]byte(invoiceParams))
	if err != nil {
		panic(err)
	}
	return Step{Name: stepInvoice, Path: "/api/v4/invoices", Method: "post", Params: v}
}

// cancelStep cancels invoice id (a reference or an id) with reason 02 (errors without a
// replacement), the one that needs no other invoice.
func cancelStep(id string) Step {
	return Step{Name: stepCancel, Path: "/api/v4/invoices", Method: "delete",
		Params: map[string]any{"id": id, "cancellationReasonCode": "02"}}
}

// answerStep is the recipient's answer to a pending cancellation of invoice id.
func answerStep(id string, accept bool) Step {
	return Step{Name: stepAnswer, Path: "/api/v4/invoices/" + url.PathEscape(id) + "/cancellation-answer", Method: "post",
		Params: map[string]any{"accept": accept}}
}

// plan is what a real trigger runs.
type plan struct {
	steps []Step
	// related is the invoice the events are about when it exists before the run ("" when the
	// run stamps it: then the invoice step's answer names it).
	related string
	// confirm is the question to ask (or --yes to give) before a run that changes an invoice
	// that exists; "" when nothing that exists changes for good.
	confirm string
}

// invoiceState is what a real trigger needs to know of an existing invoice.
type invoiceState struct {
	id, uuid, status string
	cancelable       string // SAT's: Cancelable sin aceptación, Cancelable con aceptación, No cancelable
}

func readInvoice(ctx context.Context, client *api.Client, id string) (invoiceState, error) {
	inv, err := client.GetInvoice(ctx, id)
	if err != nil {
		var ae *api.Error
		if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
			return invoiceState{}, fmt.Errorf("there is no invoice %s in this tenant: a real trigger acts on a real invoice; "+
				"--synthetic sends an event about any ID", id)
		}
		return invoiceState{}, err
	}
	st, err := client.InvoiceStatusOf(ctx, api.InvoiceStatusQuery{ID: inv.ID})
	if err != nil {
		return invoiceState{}, err
	}
	return invoiceState{id: inv.ID, uuid: inv.UUID, status: inv.Status, cancelable: st.CancelableStatus}, nil
}

// Invoice statuses (InvoiceStatuses) and SAT's cancelable statuses.
const (
	statusValid     = "Vigente"
	statusCanceled  = "Cancelado"
	statusCanceling = "EnProcesoDeCancelacion"
	withAcceptance  = "Cancelable con aceptación"
)

// errNeedsOldInvoice is why the two types of a cancellation that waits for the recipient have
// no flow of their own.
func errNeedsOldInvoice(typ string) error {
	return fmt.Errorf("%s needs an invoice whose cancellation waits for the recipient, and a new one never does: "+
		"SAT cancels without acceptance within 24 h of the stamp, or to XAXX010101000, or up to 1,000 MXN.\n"+
		"Give one: --related-object-id ID (an income invoice over 1,000 MXN to an RFC, stamped more than 24 h ago),\n"+
		"or send the event alone: timbra trigger %s --synthetic", typ, typ)
}

// errDownloadRequest is why a download request's types have no flow: the SAT ends the request.
func errDownloadRequest(typ string) error {
	return fmt.Errorf("%s is sent when a bulk download request ends at the SAT, which the server reaches with a person's e.firma:\n"+
		"request one (timbra downloads request; a server started with --sat-download-url of a local SAT, timbra sat serve, ends it at once),\n"+
		"or send the event alone: timbra trigger %s --synthetic", typ, typ)
}

// realPlan is the flow of a type: with related, on that invoice (read first, so that nothing is
// sent that its state makes wrong); without, on a new invoice.
func realPlan(ctx context.Context, client *api.Client, typ, related string) (plan, error) {
	if strings.HasPrefix(typ, "download_request.") {
		return plan{}, errDownloadRequest(typ)
	}
	if related == "" {
		switch typ {
		case "invoice.stamped":
			return plan{steps: []Step{invoiceStep()}}, nil
		case "invoice.canceled":
			return plan{steps: []Step{invoiceStep(), cancelStep("${invoice:id}")}}, nil
		}
		return plan{}, errNeedsOldInvoice(typ)
	}
	if typ == "invoice.stamped" {
		return plan{}, fmt.Errorf("invoice.stamped stamps a new invoice: leave out --related-object-id, " +
			"or add --synthetic to send an event about an existing ID")
	}
	inv, err := readInvoice(ctx, client, related)
	if err != nil {
		return plan{}, err
	}
	is := fmt.Sprintf("invoice %s is %s", inv.id, inv.status)
	switch typ {
	case "invoice.canceled":
		switch {
		case inv.status == statusCanceled:
			return plan{}, fmt.Errorf("%s already: its invoice.canceled was sent then (timbra events list --related-object-id %s; "+
				"timbra events resend EVENT_ID sends it again)", is, inv.id)
		case inv.status == statusCanceling:
			return plan{steps: []Step{answerStep(inv.id, true)}, related: inv.id,
				confirm: fmt.Sprintf("Accept the pending cancellation of invoice %s (UUID %s)? It becomes Cancelado for good.", inv.id, inv.uuid)}, nil
		case inv.cancelable == withAcceptance:
			return plan{steps: []Step{cancelStep(inv.id), answerStep(inv.id, true)}, related: inv.id,
				confirm: fmt.Sprintf("Cancel invoice %s (UUID %s), with the recipient's acceptance? This cannot be undone.", inv.id, inv.uuid)}, nil
		case strings.HasPrefix(inv.cancelable, "Cancelable"):
			return plan{steps: []Step{cancelStep(inv.id)}, related: inv.id,
				confirm: fmt.Sprintf("Cancel invoice %s (UUID %s)? This cannot be undone.", inv.id, inv.uuid)}, nil
		}
		return plan{}, fmt.Errorf("%s and %s (a valid invoice relates it): it cannot be cancelled", is, inv.cancelable)
	case "invoice.cancellation_requested", "invoice.cancellation_rejected":
		switch {
		case inv.status == statusCanceling && typ == "invoice.cancellation_rejected":
			return plan{steps: []Step{answerStep(inv.id, false)}, related: inv.id}, nil
		case inv.status == statusCanceling:
			return plan{}, fmt.Errorf("%s already: its invoice.cancellation_requested was sent then (timbra events list --related-object-id %s)", is, inv.id)
		case inv.status != statusValid:
			return plan{}, fmt.Errorf("%s: only a valid invoice can be asked to be cancelled", is)
		case inv.cancelable != withAcceptance:
			return plan{}, fmt.Errorf("%s and %s: SAT would cancel it at once and the event would be invoice.canceled. %w",
				is, inv.cancelable, errNeedsOldInvoice(typ))
		case typ == "invoice.cancellation_rejected":
			// asked and rejected: the invoice ends valid, as it was
			return plan{steps: []Step{cancelStep(inv.id), answerStep(inv.id, false)}, related: inv.id}, nil
		}
		return plan{steps: []Step{cancelStep(inv.id)}, related: inv.id,
			confirm: fmt.Sprintf("Ask to cancel invoice %s (UUID %s)? Unanswered for 72 h, SAT takes it as accepted.", inv.id, inv.uuid)}, nil
	}
	return plan{}, fmt.Errorf("no real flow for %s; add --synthetic", typ)
}

// syntheticCheck refuses a synthetic event about an existing invoice that would contradict it
// (invoice.canceled about a valid invoice): an app would act on a state the invoice is not in.
// An ID that is not an invoice's is the synthetic event's own business.
func syntheticCheck(ctx context.Context, client *api.Client, typ, status, related string) error {
	if related == "" || !strings.HasPrefix(typ, "invoice.") {
		return nil
	}
	inv, err := client.GetInvoice(ctx, related)
	var ae *api.Error
	if errors.As(err, &ae) && (ae.Status == http.StatusNotFound || ae.Status == http.StatusBadRequest) {
		return nil
	}
	if err != nil {
		return err
	}
	if inv.Status == status {
		return nil
	}
	hint := "Trigger it for real instead (the flow changes the invoice and the server sends the event): timbra trigger " + typ + " --related-object-id " + related
	if typ == "invoice.stamped" {
		hint = "Use an ID that is not an invoice's, or leave out --related-object-id"
	}
	return fmt.Errorf("invoice %s is %s: a synthetic %s would tell your app it is %s.\n%s", related, inv.Status, typ, status, hint)
}

// issuerCheck says, before anything is sent, what the caller lacks to issue the trigger's
// invoice (the invoice step still names the caller as its issuer): an RFC and postal code, and
// a default CSD.
func issuerCheck(ctx context.Context, client *api.Client, steps []Step, caller func(context.Context) (any, error), typ string) error {
	i := slices.IndexFunc(steps, func(s Step) bool { return s.Name == stepInvoice })
	if i < 0 {
		return nil
	}
	if id, _ := lookup(steps[i].Params, []segment{{key: "issuer", index: -1}, {key: "id", index: -1}}); id != callerRef {
		return nil
	}
	v, err := caller(ctx)
	if err != nil {
		return err
	}
	p, _ := v.(map[string]any)
	id, _ := p["id"].(string)
	tin, _ := p["tin"].(string)
	zip, _ := p["zipCode"].(string)
	name, _ := p["legalName"].(string)
	if tin == "" || zip == "" {
		return fmt.Errorf("%s stamps a real test invoice issued by you (%s), and your person has no RFC or postal code.\n"+
			"Set them: timbra people update %s --tin RFC --zip-code CP --tax-regime REGIMEN\n"+
			"or send the event alone: timbra trigger %s --synthetic", typ, name, id, typ)
	}
	files, err := client.TaxFileDefaultReferences(ctx, id)
	var ae *api.Error
	if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
		err = nil // the API's way of saying the person has none
	}
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("%s stamps a real test invoice issued by you (%s, %s), sealed with your default CSD, and you have none.\n"+
			"Upload a certificate and its key (a test CSD will do), then trigger again:\n"+
			"  timbra tax-files upload --person %s --cer FILE.cer --key FILE.key --password-file FILE\n"+
			"or send the event alone: timbra trigger %s --synthetic", typ, name, tin, id, typ)
	}
	return nil
}

// findCaller answers the person of the client's API key: the key is found among those the
// caller may list (their own, or all for the owner), then its person is read.
func findCaller(ctx context.Context, client *api.Client) (any, error) {
	personID := ""
	for page := 1; personID == ""; page++ {
		keys, err := client.ListAPIKeys(ctx, page, 10)
		if err != nil {
			return nil, err
		}
		for _, k := range keys.Items {
			if k.APIKeyValue == client.APIKey {
				personID = k.PersonID
			}
		}
		if page*10 >= keys.TotalCount || len(keys.Items) == 0 {
			break
		}
	}
	if personID == "" {
		return nil, errors.New("could not find the person of your API key among the tenant's keys")
	}
	var raw json.RawMessage
	if err := client.Do(ctx, http.MethodGet, "/api/v4/people/"+url.PathEscape(personID), nil, nil, &raw); err != nil {
		return nil, err
	}
	return decodeJSON(raw)
}
