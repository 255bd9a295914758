package cfdi

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// NSRetenciones is the namespace of the CFDI de Retenciones e información de pagos 2.0
// (retencionpagov2.xsd); its root is retenciones:Retenciones.
const NSRetenciones = "http://www.sat.gob.mx/esquemas/retencionpago/2"

// nsTFD is the namespace of the Timbre Fiscal Digital that stamps both kinds of CFDI.
const nsTFD = "http://www.sat.gob.mx/TimbreFiscalDigital"

// ErrNotRetenciones is ReadRetenciones' answer for a document whose root is not
// retenciones:Retenciones (a CFDI 4.0, say): the caller reads it as the other kind.
var ErrNotRetenciones = errors.New("cfdi: the root is not retenciones:Retenciones")

// Retenciones is what a reader of stamped withholding CFDIs needs of one: the attributes of
// the root, the issuer, the receiver (national or foreign), the period, the totals, the
// complements and the stamp. Amounts are as written.
type Retenciones struct {
	Version, FolioInt, FechaExp, LugarExpRetenc  string
	CveRetenc, DescRetenc, NoCertificado         string
	RfcE, NomDenRazSocE, RegimenFiscalE          string
	NacionalidadR                                string // Nacional or Extranjero
	RfcR, NomDenRazSocR, CurpR, DomicilioFiscalR string // RfcR and DomicilioFiscalR: Nacional only
	NumRegIdTribR                                string // Extranjero only
	MesIni, MesFin, Ejercicio                    string
	MontoTotOperacion, MontoTotGrav              string
	MontoTotExent, MontoTotRet                   string
	// Complements are the names (namespace and local) of retenciones:Complemento's children but
	// the stamp.
	Complements []xml.Name
	// UUID (upper case), FechaTimbrado and RfcProvCertif are the Timbre Fiscal Digital's.
	UUID, FechaTimbrado, RfcProvCertif string
}

// IsRetenciones tells whether a document's root is retenciones:Retenciones, reading only up to
// its first element.
func IsRetenciones(r io.Reader) bool {
	dec := xml.NewDecoder(r)
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if t, ok := tok.(xml.StartElement); ok {
			return t.Name.Space == NSRetenciones && t.Name.Local == "Retenciones"
		}
	}
}

// ReadRetenciones reads one withholding CFDI as it streams: ErrNotRetenciones when the root is
// another element, an error when the XML is broken or the document has no stamp (UUID).
func ReadRetenciones(r io.Reader) (Retenciones, error) {
	var out Retenciones
	dec := xml.NewDecoder(r)
	var stack []xml.Name
	root := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return out, fmt.Errorf("cfdi: retenciones: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(stack) == 0 && (t.Name.Space != NSRetenciones || t.Name.Local != "Retenciones") {
				return out, ErrNotRetenciones
			}
			if len(stack) >= maxDepth {
				return out, errors.New("cfdi: retenciones: nested too deep")
			}
			var parent xml.Name
			if len(stack) > 0 {
				parent = stack[len(stack)-1]
			}
			stack = append(stack, t.Name)
			a := func(name string) string {
				for _, at := range t.Attr {
					if at.Name.Space == "" && at.Name.Local == name {
						return at.Value
					}
				}
				return ""
			}
			in := func(name string) bool { return parent.Space == NSRetenciones && parent.Local == name }
			own := t.Name.Space == NSRetenciones
			switch {
			case len(stack) == 1:
				root = true
				out.Version, out.FolioInt, out.FechaExp, out.LugarExpRetenc = a("Version"), a("FolioInt"), a("FechaExp"), a("LugarExpRetenc")
				out.CveRetenc, out.DescRetenc, out.NoCertificado = a("CveRetenc"), a("DescRetenc"), a("NoCertificado")
			case own && in("Retenciones") && t.Name.Local == "Emisor":
				out.RfcE, out.NomDenRazSocE, out.RegimenFiscalE = strings.ToUpper(a("RfcE")), a("NomDenRazSocE"), a("RegimenFiscalE")
			case own && in("Retenciones") && t.Name.Local == "Receptor":
				out.NacionalidadR = a("NacionalidadR")
			case own && in("Receptor") && t.Name.Local == "Nacional":
				out.RfcR, out.NomDenRazSocR, out.CurpR, out.DomicilioFiscalR = strings.ToUpper(a("RfcR")), a("NomDenRazSocR"), a("CurpR"), a("DomicilioFiscalR")
			case own && in("Receptor") && t.Name.Local == "Extranjero":
				out.NumRegIdTribR, out.NomDenRazSocR = a("NumRegIdTribR"), a("NomDenRazSocR")
			case own && in("Retenciones") && t.Name.Local == "Periodo":
				out.MesIni, out.MesFin, out.Ejercicio = a("MesIni"), a("MesFin"), a("Ejercicio")
			case own && in("Retenciones") && t.Name.Local == "Totales":
				out.MontoTotOperacion, out.MontoTotGrav, out.MontoTotExent, out.MontoTotRet = a("MontoTotOperacion"), a("MontoTotGrav"), a("MontoTotExent"), a("MontoTotRet")
			case in("Complemento") && t.Name.Space == nsTFD && t.Name.Local == "TimbreFiscalDigital":
				out.UUID, out.FechaTimbrado, out.RfcProvCertif = strings.ToUpper(a("UUID")), a("FechaTimbrado"), strings.ToUpper(a("RfcProvCertif"))
			case in("Complemento"):
				out.Complements = append(out.Complements, t.Name)
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	if !root {
		return out, errors.New("cfdi: retenciones: no root element")
	}
	if out.UUID == "" {
		return out, errors.New("cfdi: retenciones: not stamped (no TimbreFiscalDigital UUID)")
	}
	return out, nil
}
