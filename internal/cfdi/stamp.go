package cfdi

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
	_ "time/tzdata" // FechaTimbrado is Mexico City time wherever the server runs

	"github.com/timbra-mx/timbra/internal/csd"
)

// TimbreFiscalDigital is the stamp complement (tfd:TimbreFiscalDigital, version 1.1).
type TimbreFiscalDigital struct {
	Version          string // "1.1"
	UUID             string
	FechaTimbrado    string // 2006-01-02T15:04:05, Mexico City time, no offset
	RfcProvCertif    string
	Leyenda          string
	SelloCFD         string
	NoCertificadoSAT string
	SelloSAT         string
}

func (t *TimbreFiscalDigital) namespace() (string, string, string) { return "", "", "" }

// The 4.0 stylesheet has no rule for the TFD: it adds nothing to the CFDI's cadena.
func (t *TimbreFiscalDigital) cadena(*cadenaBuilder) error { return nil }

func (t *TimbreFiscalDigital) writeXML(w *xmlWriter) {
	w.open("tfd:TimbreFiscalDigital")
	w.attr("xmlns:tfd", NSTFD)
	w.attr("xmlns:xsi", NSXSI)
	w.attr("xsi:schemaLocation", NSTFD+" "+TFDSchemaLocation)
	w.attr("Version", t.Version)
	w.attr("UUID", t.UUID)
	w.attr("FechaTimbrado", t.FechaTimbrado)
	w.attr("RfcProvCertif", t.RfcProvCertif)
	w.opt("Leyenda", t.Leyenda)
	w.attr("SelloCFD", t.SelloCFD)
	w.attr("NoCertificadoSAT", t.NoCertificadoSAT)
	w.attr("SelloSAT", t.SelloSAT)
	w.endEmpty()
}

// XML is the stamp as a standalone element (namespaces declared on it), the form SAT's
// cadenaoriginal_TFD_1_1.xslt is applied to.
func (t *TimbreFiscalDigital) XML() ([]byte, error) {
	w := &xmlWriter{}
	w.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	t.writeXML(w)
	return w.b, w.err
}

// Cadena is the stamp's cadena original per cadenaoriginal_TFD_1_1.xslt: what SelloSAT signs.
func (t *TimbreFiscalDigital) Cadena() string {
	c := &cadenaBuilder{b: make([]byte, 0, 512)}
	c.b = append(c.b, '|')
	c.req(t.Version)
	c.req(t.UUID)
	c.req(t.FechaTimbrado)
	c.req(t.RfcProvCertif)
	c.opt(t.Leyenda)
	c.req(t.SelloCFD)
	c.req(t.NoCertificadoSAT)
	c.b = append(c.b, '|', '|')
	return string(c.b)
}

// DateLayout is the layout of Fecha and FechaTimbrado (SAT's t_FechaH: no offset).
const DateLayout = "2006-01-02T15:04:05"

// Mexico is the time zone of FechaTimbrado (America/Mexico_City; the tz data is built in).
var Mexico = func() *time.Location {
	if l, err := time.LoadLocation("America/Mexico_City"); err == nil {
		return l
	}
	return time.FixedZone("CST", -6*3600)
}()

var errNoKey = errors.New("cfdi: the private key does not belong to the certificate")

// Seal sets NoCertificado and Certificado from cert and Sello: the RSA PKCS#1 v1.5 SHA-256
// signature by key of the cadena original (base64). The cadena is returned too. The key must be
// the certificate's.
func Seal(doc *Comprobante, cert *csd.Certificate, key *csd.PrivateKey) (cadena string, err error) {
	if cert == nil || key == nil || !cert.Matches(key) {
		return "", errNoKey
	}
	doc.NoCertificado = cert.Number
	doc.Certificado = cert.Base64()
	cadena, err = doc.Cadena()
	if err != nil {
		return "", err
	}
	doc.Sello, err = key.Sign([]byte(cadena))
	if err != nil {
		return "", err
	}
	return cadena, nil
}

// Stamp adds the Timbre Fiscal Digital 1.1 to a sealed document, as the certification provider
// rfcProvCertif with its certificate pac and key pacKey: UUID (upper case), FechaTimbrado (at in
// Mexico City time), SelloCFD (the document's Sello), NoCertificadoSAT and SelloSAT (the
// signature of the stamp's cadena). A document already stamped is refused.
func Stamp(doc *Comprobante, pac *csd.Certificate, pacKey *csd.PrivateKey, uuid string, at time.Time, rfcProvCertif string) (*TimbreFiscalDigital, error) {
	if doc.Sello == "" {
		return nil, errors.New("cfdi: the document is not sealed")
	}
	if doc.TFD() != nil {
		return nil, errors.New("cfdi: the document is already stamped")
	}
	if pac == nil || pacKey == nil || !pac.Matches(pacKey) {
		return nil, errNoKey
	}
	t := &TimbreFiscalDigital{
		Version:          "1.1",
		UUID:             strings.ToUpper(uuid),
		FechaTimbrado:    at.In(Mexico).Format(DateLayout),
		RfcProvCertif:    rfcProvCertif,
		SelloCFD:         doc.Sello,
		NoCertificadoSAT: pac.Number,
	}
	s, err := pacKey.Sign([]byte(t.Cadena()))
	if err != nil {
		return nil, err
	}
	t.SelloSAT = s
	doc.Complemento = append(doc.Complemento, t)
	return t, nil
}

// QRURL is SAT's verification address of a stamped document, the content of the printed QR
// code: id (UUID), re and rr (issuer's and recipient's RFC), tt (the total without
// non-significant zeros, at least one decimal: 1000.00 is 1000.0) and fe (the last 8 characters
// of the Sello, as written: SAT's example shows "fe=rH8/bw=="). The RFCs are query-escaped (an
// RFC may hold "&").
func QRURL(doc *Comprobante) (string, error) {
	t := doc.TFD()
	if t == nil {
		return "", errors.New("cfdi: the document is not stamped")
	}
	tt, err := qrTotal(doc.Total)
	if err != nil {
		return "", fmt.Errorf("cfdi: Total %q: %w", doc.Total, err)
	}
	fe := doc.Sello
	if len(fe) > 8 {
		fe = fe[len(fe)-8:]
	}
	return "https://verificacfdi.facturaelectronica.sat.gob.mx/default.aspx?id=" + url.QueryEscape(t.UUID) +
		"&re=" + url.QueryEscape(doc.Emisor.Rfc) + "&rr=" + url.QueryEscape(doc.Receptor.Rfc) +
		"&tt=" + tt + "&fe=" + fe, nil
}

func qrTotal(s string) (string, error) {
	d, err := ParseDecimal(s)
	if err != nil {
		return "", err
	}
	return d.AtLeast(1), nil
}
