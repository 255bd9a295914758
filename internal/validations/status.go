package validations

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// StatusQuery identifies a CFDI to SAT's status service: the expression its QR code prints
// (?id=UUID&re=issuer&rr=recipient&tt=total&fe=last 8 characters of the seal).
type StatusQuery struct {
	Expression string
}

// StatusSource tells the current status of a CFDI: "Vigente", "Cancelado" or "No Encontrado"
// as SAT writes them. An error means the source did not answer (NoDisponible).
type StatusSource interface {
	Estado(ctx context.Context, q StatusQuery) (string, error)
}

// ConsultaCFDI is SAT's ConsultaCFDIService (SOAP 1.1, operation Consulta) at URL:
// SAT's production address, or any service that answers the same way.
type ConsultaCFDI struct {
	URL    string
	Client *http.Client // nil: 15 s timeout
}

const consultaAction = "http://tempuri.org/IConsultaCFDIService/Consulta"

// Estado implements StatusSource.
func (c *ConsultaCFDI) Estado(ctx context.Context, q StatusQuery) (string, error) {
	var expr bytes.Buffer
	if err := xml.EscapeText(&expr, []byte(q.Expression)); err != nil {
		return "", err
	}
	body := `<?xml version="1.0" encoding="utf-8"?>` +
		`<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:tem="http://tempuri.org/">` +
		`<soap:Header/><soap:Body><tem:Consulta><tem:expresionImpresa>` + expr.String() +
		`</tem:expresionImpresa></tem:Consulta></soap:Body></soap:Envelope>`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, strings.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "text/xml; charset=utf-8")
	req.Header.Set("SOAPAction", consultaAction)
	hc := c.Client
	if hc == nil {
		hc = &http.Client{Timeout: 15 * time.Second}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("the status service answered %d", resp.StatusCode)
	}
	return estadoOf(raw)
}

// estadoOf finds the Estado element of a Consulta answer, whatever its prefix.
func estadoOf(raw []byte) (string, error) {
	d := xml.NewDecoder(bytes.NewReader(raw))
	for {
		tok, err := d.Token()
		if err != nil {
			return "", fmt.Errorf("the status service's answer has no Estado: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "Estado" {
			var v string
			if err := d.DecodeElement(&v, &se); err != nil {
				return "", err
			}
			return strings.TrimSpace(v), nil
		}
	}
}

// statusOf maps SAT's Estado to a status id.
func statusOf(estado string) (string, bool) {
	switch fold(estado) {
	case "vigente":
		return Vigente, true
	case "cancelado":
		return Cancelado, true
	case "noencontrado":
		return NoEncontrado, true
	}
	return "", false
}
