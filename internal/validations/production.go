package validations

import (
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/csd"
)

// Config is where the production checks find their sources.
type Config struct {
	// StampTrustDirs are folders of stamping certificates (.cer) whose SelloSAT is trusted:
	// SAT's published ones. The server's own stamping certificate is always trusted.
	StampTrustDirs []string
	// List69B and List69BBis are CSV copies of SAT's lists (ReadList); empty: the check answers
	// NoDisponible.
	List69B, List69BBis string
	// StatusURL is the address of a ConsultaCFDIService (SAT's, or one that answers alike);
	// empty: sat.cfdi.status answers NoDisponible.
	StatusURL string
}

// Production is the checker of the production environment: real checks.
type Production struct {
	Trust  *TrustStore
	Lists  map[string]*List // by type (Type69B, Type69BBis); a missing list answers NoDisponible
	Status StatusSource     // nil answers NoDisponible
	// Own answers sat.cfdi.status for the CFDIs this server stamped (it is their certification
	// provider and SAT), before Status is asked; nil asks Status for every CFDI.
	Own OwnStatus
}

// OwnStatus knows the status of the CFDIs this server stamped: estado as SAT writes it, ok false
// for a CFDI stamped by anybody else.
type OwnStatus interface {
	OwnEstado(ctx context.Context, doc *cfdi.Comprobante) (estado string, ok bool, err error)
}

// NewProduction reads the sources of cfg; ownCerts gives the server's own stamping
// certificates, and own the status of the CFDIs it stamped (nil: none, Status answers all).
func NewProduction(cfg Config, ownCerts CertSource, own OwnStatus) (*Production, error) {
	var certs []*csd.Certificate
	for _, d := range cfg.StampTrustDirs {
		cs, err := LoadCertificates(d)
		if err != nil {
			return nil, err
		}
		certs = append(certs, cs...)
	}
	p := &Production{Trust: NewTrustStore(certs, ownCerts), Lists: map[string]*List{}, Own: own}
	for typ, path := range map[string]string{Type69B: cfg.List69B, Type69BBis: cfg.List69BBis} {
		if path == "" {
			continue
		}
		l, err := ReadListFile(path)
		if err != nil {
			return nil, fmt.Errorf("list of %s: %w", typ, err)
		}
		p.Lists[typ] = l
	}
	if cfg.StatusURL != "" {
		p.Status = &ConsultaCFDI{URL: cfg.StatusURL}
	}
	return p, nil
}

func text(format string, a ...any) *string {
	s := fmt.Sprintf(format, a...)
	return &s
}

// Check implements Checker. A malformed XML or another root: sat.xml.structure Invalido with the
// parser's error, the rest Omitido. A readable CFDI without a stamp: the structure, seals and
// status Omitido, the certificate and the lists evaluated. A stamped CFDI: everything evaluated.
func (p *Production) Check(ctx context.Context, in Input, types []string) (map[string]Outcome, error) {
	out := make(map[string]Outcome, len(types))
	if in.XML == nil {
		for _, t := range types {
			out[t] = p.list(t, in.TIN)
		}
		return out, nil
	}
	doc, perr := cfdi.Parse(in.XML)
	var tfd *cfdi.TimbreFiscalDigital
	if perr == nil {
		tfd = doc.TFD()
	}
	skip := func(why string) Outcome { return Outcome{Status: Omitido, Details: text("%s", why)} }
	for _, t := range types {
		if perr != nil {
			if t == TypeStructure {
				out[t] = Outcome{Status: Invalido, Details: text("%s", strings.TrimPrefix(perr.Error(), "cfdi: "))}
			} else {
				out[t] = Outcome{Status: Omitido} // the description says why; the parser error is the structure's
			}
			continue
		}
		if tfd == nil && (t == TypeStructure || t == TypeCfdiSello || t == TypeTfdSello || t == TypeCfdiStatus) {
			out[t] = skip("El CFDI no tiene el complemento Timbre Fiscal Digital.")
			continue
		}
		switch t {
		case TypeStructure:
			if problems := Structure(doc); len(problems) > 0 {
				out[t] = Outcome{Status: Invalido, Details: text("%s", strings.Join(problems, " "))}
			} else {
				out[t] = Outcome{Status: Valido}
			}
		case TypeCertificate:
			out[t] = certificateValidity(doc)
		case TypeCfdiSello:
			out[t] = cfdiSeal(doc)
		case TypeTfdSello:
			o, err := p.tfdSeal(ctx, doc, tfd)
			if err != nil {
				return nil, err
			}
			out[t] = o
		case TypeCfdiStatus:
			out[t] = p.status(ctx, doc)
		case Type69B, Type69BBis:
			out[t] = p.list(t, doc.Emisor.Rfc)
		}
	}
	return out, nil
}

// issuerCertificate reads the Certificado of a document.
func issuerCertificate(doc *cfdi.Comprobante) (*csd.Certificate, string) {
	if doc.Certificado == "" {
		return nil, "El CFDI no tiene el atributo Certificado."
	}
	der, err := base64.StdEncoding.DecodeString(doc.Certificado)
	if err != nil {
		return nil, "El atributo Certificado no es Base64."
	}
	c, err := csd.ParseCertificateCached(der)
	if err != nil {
		return nil, "El atributo Certificado no es un certificado X.509."
	}
	return c, ""
}

func certificateValidity(doc *cfdi.Comprobante) Outcome {
	c, why := issuerCertificate(doc)
	if c == nil {
		return Outcome{Status: Invalido, Details: &why}
	}
	if doc.NoCertificado != c.Number {
		return Outcome{Status: Invalido, Details: text("NoCertificado %s no es el número del certificado (%s).", doc.NoCertificado, c.Number)}
	}
	if !strings.EqualFold(c.RFC, doc.Emisor.Rfc) {
		return Outcome{Status: Invalido, Details: text("El certificado %s es del RFC %s, no del emisor %s.", c.Number, c.RFC, doc.Emisor.Rfc)}
	}
	// Fecha is the local time of LugarExpedicion; Mexico City's offset is used for it.
	at, err := time.ParseInLocation(cfdi.DateLayout, doc.Fecha, cfdi.Mexico)
	if err != nil {
		return Outcome{Status: Omitido, Details: text("La Fecha %q no es una fecha AAAA-MM-DDThh:mm:ss.", doc.Fecha)}
	}
	span := fmt.Sprintf("certificado %s, vigente del %s al %s; emitido el %s.", c.Number,
		c.ValidFrom.In(cfdi.Mexico).Format(cfdi.DateLayout), c.ValidTo.In(cfdi.Mexico).Format(cfdi.DateLayout), doc.Fecha)
	switch {
	case at.Before(c.ValidFrom):
		return Outcome{Status: NoVigenteAun, Details: text("%s", "Vigencia: "+span)}
	case at.After(c.ValidTo):
		return Outcome{Status: Expirado, Details: text("%s", "Vigencia: "+span)}
	}
	return Outcome{Status: Vigente, Details: text("%s", "Vigencia: "+span)}
}

// verify checks an RSA PKCS#1 v1.5 SHA-256 signature (Base64) of data.
func verify(c *csd.Certificate, data, sig64 string) error {
	pub, ok := c.X509.PublicKey.(*rsa.PublicKey)
	if !ok {
		return fmt.Errorf("la llave del certificado %s no es RSA", c.Number)
	}
	sig, err := base64.StdEncoding.DecodeString(sig64)
	if err != nil {
		return fmt.Errorf("el sello no es Base64")
	}
	sum := sha256.Sum256([]byte(data))
	if err := rsa.VerifyPKCS1v15(pub, crypto.SHA256, sum[:], sig); err != nil {
		return fmt.Errorf("el sello no corresponde a la cadena original con la llave del certificado %s", c.Number)
	}
	return nil
}

func cfdiSeal(doc *cfdi.Comprobante) Outcome {
	c, why := issuerCertificate(doc)
	if c == nil {
		return Outcome{Status: Invalido, Details: &why}
	}
	cadena, err := doc.Cadena()
	if err != nil {
		return Outcome{Status: Omitido, Details: text("No se pudo recalcular la cadena original: %s.", strings.TrimPrefix(err.Error(), "cfdi: "))}
	}
	if err := verify(c, cadena, doc.Sello); err != nil {
		return Outcome{Status: Invalido, Details: text("Sello del CFDI: %s.", err)}
	}
	return Outcome{Status: Valido, Details: text("Verificado con el certificado %s.", c.Number)}
}

func (p *Production) tfdSeal(ctx context.Context, doc *cfdi.Comprobante, t *cfdi.TimbreFiscalDigital) (Outcome, error) {
	if t.SelloCFD != doc.Sello {
		return Outcome{Status: Invalido, Details: text("SelloCFD del timbre no es el Sello del CFDI.")}, nil
	}
	var c *csd.Certificate
	if p.Trust != nil {
		var err error
		if c, err = p.Trust.Find(ctx, t.NoCertificadoSAT); err != nil {
			return Outcome{}, err
		}
	}
	if c == nil {
		return Outcome{Status: NoEncontrado, Details: text("Certificado de timbrado %s.", t.NoCertificadoSAT)}, nil
	}
	if err := verify(c, t.Cadena(), t.SelloSAT); err != nil {
		return Outcome{Status: Invalido, Details: text("SelloSAT: %s.", err)}, nil
	}
	if at, err := time.ParseInLocation(cfdi.DateLayout, t.FechaTimbrado, cfdi.Mexico); err != nil || !c.ValidAt(at) {
		return Outcome{Status: Invalido, Details: text("El certificado de timbrado %s no era vigente en FechaTimbrado %s.", c.Number, t.FechaTimbrado)}, nil
	}
	return Outcome{Status: Valido, Details: text("Verificado con el certificado de timbrado %s.", c.Number)}, nil
}

func (p *Production) status(ctx context.Context, doc *cfdi.Comprobante) Outcome {
	if p.Own != nil {
		estado, ours, err := p.Own.OwnEstado(ctx, doc)
		if err != nil {
			return Outcome{Status: NoDisponible, Details: text("No se pudo consultar el estado en este servidor: %v.", err)}
		}
		if ours {
			st, ok := statusOf(estado)
			if !ok {
				return Outcome{Status: NoDisponible, Details: text("Estado desconocido en este servidor: %q.", estado)}
			}
			return Outcome{Status: st, Details: text("Estado en este servidor, que timbró el CFDI: %s.", estado)}
		}
	}
	if p.Status == nil {
		return Outcome{Status: NoDisponible, Details: text("El servidor no tiene configurado un servicio de consulta del estado de CFDI.")}
	}
	qr, err := cfdi.QRURL(doc)
	if err != nil {
		return Outcome{Status: Omitido, Details: text("No se puede consultar: %s.", strings.TrimPrefix(err.Error(), "cfdi: "))}
	}
	_, query, _ := strings.Cut(qr, "?")
	estado, err := p.Status.Estado(ctx, StatusQuery{Expression: "?" + query})
	if err != nil {
		return Outcome{Status: NoDisponible, Details: text("El servicio de consulta no respondió: %v.", err)}
	}
	st, ok := statusOf(estado)
	if !ok {
		return Outcome{Status: NoDisponible, Details: text("El servicio de consulta respondió un estado desconocido: %q.", estado)}
	}
	return Outcome{Status: st, Details: text("Estado en el SAT: %s.", estado)}
}

func (p *Production) list(typ, rfc string) Outcome {
	l := p.Lists[typ]
	if l == nil {
		return Outcome{Status: NoDisponible, Details: text("El servidor no tiene una copia de la lista.")}
	}
	rfc = strings.ToUpper(strings.TrimSpace(rfc))
	if st := l.Lookup(rfc); st != "" {
		return Outcome{Status: st, Details: text("RFC %s en la lista (%d RFC).", rfc, l.Len())}
	}
	return Outcome{Status: NoListado, Details: text("RFC %s no está en la lista (%d RFC).", rfc, l.Len())}
}
