package cfdi

import (
	"fmt"
	"strings"
)

// cadenaBuilder writes a cadena original the way SAT's stylesheets do (utilerias.xslt):
// Requerido writes "|" and the value even when absent, Opcional writes "|" and the value only
// when the attribute is present (non-empty here), and every value goes through XPath's
// normalize-space (leading and trailing space, tab, CR and LF removed, inner runs collapsed to one
// space).
type cadenaBuilder struct{ b []byte }

func (c *cadenaBuilder) req(v string) {
	c.b = append(c.b, '|')
	c.b = appendNormalized(c.b, v)
}

func (c *cadenaBuilder) opt(v string) {
	if v != "" {
		c.req(v)
	}
}

func isXMLSpace(ch byte) bool { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' }

// appendNormalized appends normalize-space(v).
func appendNormalized(b []byte, v string) []byte {
	clean := len(v) == 0 || !isXMLSpace(v[0]) && !isXMLSpace(v[len(v)-1])
	for i := 0; clean && i < len(v); i++ {
		if isXMLSpace(v[i]) && (v[i] != ' ' || isXMLSpace(v[i+1])) {
			clean = false
		}
	}
	if clean {
		return append(b, v...)
	}
	space := false
	wrote := false
	for i := 0; i < len(v); i++ {
		ch := v[i]
		if isXMLSpace(ch) {
			space = true
			continue
		}
		if space && wrote {
			b = append(b, ' ')
		}
		space = false
		wrote = true
		b = append(b, ch)
	}
	return b
}

// NormalizeSpace is XPath's normalize-space, as the cadena original applies it to every value.
func NormalizeSpace(v string) string { return string(appendNormalized(nil, v)) }

// Cadena is the document's cadena original per SAT's cadenaoriginal_4_0.xslt: "||", the values
// in the stylesheet's order separated by "|", and "||". It is what Seal signs. The complements
// contribute their own parts (the Timbre Fiscal Digital none, as SAT's stylesheet has no rule
// for it). An error means a complement the stylesheet knows but this package does not model.
func (c *Comprobante) Cadena() (string, error) {
	b, err := c.appendCadena(make([]byte, 0, 512+256*len(c.Conceptos)))
	return string(b), err
}

func (c *Comprobante) appendCadena(buf []byte) ([]byte, error) {
	w := &cadenaBuilder{b: append(buf, '|')}
	a := cadenaAttrs{w}
	c.attrs(a)
	if g := c.InformacionGlobal; g != nil {
		g.attrs(a)
	}
	for _, r := range c.CfdiRelacionados {
		w.req(r.TipoRelacion)
		for _, u := range r.UUIDs {
			w.req(u)
		}
	}
	c.Emisor.attrs(a)
	c.Receptor.attrs(a)
	for i := range c.Conceptos {
		k := &c.Conceptos[i]
		k.attrs(a)
		for j := range k.Traslados {
			k.Traslados[j].attrs(a)
		}
		for j := range k.Retenciones {
			k.Retenciones[j].attrs(a)
		}
		if t := k.ACuentaTerceros; t != nil {
			t.attrs(a)
		}
		for _, n := range k.InformacionAduanera {
			w.req(n)
		}
		for _, n := range k.CuentaPredial {
			w.req(n)
		}
		for j := range k.Partes {
			p := &k.Partes[j]
			p.attrs(a)
			for _, n := range p.InformacionAduanera {
				w.req(n)
			}
		}
	}
	if t := c.Impuestos; t != nil {
		for i := range t.Retenciones {
			t.Retenciones[i].attrs(a)
		}
		w.opt(t.TotalImpuestosRetenidos)
		for i := range t.Traslados {
			t.Traslados[i].attrs(a)
		}
		w.opt(t.TotalImpuestosTrasladados)
	}
	for _, x := range c.Complemento {
		if err := x.cadena(w); err != nil {
			return w.b, err
		}
	}
	w.b = append(w.b, '|', '|')
	return w.b, nil
}

// errUnmodelled is the error of Cadena for a complement SAT's stylesheet has rules for but this
// package does not model.
func errUnmodelled(space, local string) error {
	return fmt.Errorf("cfdi: the cadena original of complement {%s}%s is not supported", space, local)
}

// knownComplementNS are the namespaces cadenaoriginal_4_0.xslt has rules for; a raw complement
// in one of them cannot be reproduced, any other contributes its text (XSLT's built-in rule).
var knownComplementNS = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range strings.Fields(`http://www.sat.gob.mx/ComercioExterior11 http://www.sat.gob.mx/ComercioExterior20
	http://www.sat.gob.mx/donat http://www.sat.gob.mx/divisas http://www.sat.gob.mx/implocal
	http://www.sat.gob.mx/leyendasFiscales http://www.sat.gob.mx/pfic http://www.sat.gob.mx/TuristaPasajeroExtranjero
	http://www.sat.gob.mx/nomina12 http://www.sat.gob.mx/registrofiscal http://www.sat.gob.mx/pagoenespecie
	http://www.sat.gob.mx/aerolineas http://www.sat.gob.mx/valesdedespensa http://www.sat.gob.mx/notariospublicos
	http://www.sat.gob.mx/vehiculousado http://www.sat.gob.mx/servicioparcialconstruccion
	http://www.sat.gob.mx/renovacionysustitucionvehiculos http://www.sat.gob.mx/certificadodestruccion
	http://www.sat.gob.mx/arteantiguedades http://www.sat.gob.mx/ine http://www.sat.gob.mx/iedu
	http://www.sat.gob.mx/ventavehiculos http://www.sat.gob.mx/detallista http://www.sat.gob.mx/EstadoDeCuentaCombustible12
	http://www.sat.gob.mx/ConsumoDeCombustibles11 http://www.sat.gob.mx/GastosHidrocarburos10
	http://www.sat.gob.mx/IngresosHidrocarburos10 http://www.sat.gob.mx/CartaPorte20 http://www.sat.gob.mx/Pagos20
	http://www.sat.gob.mx/CartaPorte30 http://www.sat.gob.mx/CartaPorte31 http://www.sat.gob.mx/hidrocarburospetroliferos`) {
		m[s] = true
	}
	return m
}()
