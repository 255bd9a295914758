package api

import (
	"context"
	"net/http"
)

// StampingCertificate is the certificate the server stamps with (GET
// /api/v4/stamping-certificate; timbra's own resource, the spec has none): what a verifier
// needs to check the SelloSAT of the server's stamps. CertificateNumber is their
// NoCertificadoSAT (20 digits), Tin their RfcProvCertif, LegalName the certificate's subject;
// ValidFrom and ValidTo are UTC without offset, as a tax file's; Base64Certificate is the DER
// certificate in standard base64 (what a CFDI's Certificado attribute holds for a seal).
type StampingCertificate struct {
	CertificateNumber string `json:"certificateNumber"`
	Tin               string `json:"tin"`
	LegalName         string `json:"legalName"`
	ValidFrom         string `json:"validFrom"`
	ValidTo           string `json:"validTo"`
	Base64Certificate string `json:"base64Certificate"`
}

// StampingCertificate reads the certificate the server stamps with.
func (c *Client) StampingCertificate(ctx context.Context) (StampingCertificate, error) {
	var out StampingCertificate
	err := c.Do(ctx, http.MethodGet, "/api/v4/stamping-certificate", nil, nil, &out)
	return out, err
}
