package cfdi

import (
	"fmt"
	"unicode/utf8"
)

// xmlWriter builds the document's bytes. Attributes are written in the order the calls make
// (the schema's order), values escaped as Anexo 20 asks (& < > " ' as entities; tab, line feed
// and carriage return as character references, so that they survive attribute normalisation).
type xmlWriter struct {
	b   []byte
	err error
}

func (w *xmlWriter) raw(s string) { w.b = append(w.b, s...) }

func (w *xmlWriter) open(name string) {
	w.b = append(w.b, '<')
	w.b = append(w.b, name...)
}

// attr writes a required attribute (always, even if empty).
func (w *xmlWriter) attr(name, v string) {
	w.b = append(w.b, ' ')
	w.b = append(w.b, name...)
	w.b = append(w.b, '=', '"')
	w.escape(v)
	w.b = append(w.b, '"')
}

// opt writes an optional attribute: nothing when v is empty.
func (w *xmlWriter) opt(name, v string) {
	if v != "" {
		w.attr(name, v)
	}
}

func (w *xmlWriter) endEmpty() { w.b = append(w.b, '/', '>') }
func (w *xmlWriter) endStart() { w.b = append(w.b, '>') }
func (w *xmlWriter) close(name string) {
	w.b = append(w.b, '<', '/')
	w.b = append(w.b, name...)
	w.b = append(w.b, '>')
}

func (w *xmlWriter) escape(s string) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '&':
				w.raw("&amp;")
			case '<':
				w.raw("&lt;")
			case '>':
				w.raw("&gt;")
			case '"':
				w.raw("&quot;")
			case '\'':
				w.raw("&apos;")
			case '\t':
				w.raw("&#9;")
			case '\n':
				w.raw("&#10;")
			case '\r':
				w.raw("&#13;")
			default:
				if c < 0x20 {
					w.fail(fmt.Errorf("cfdi: control character %#x is not allowed in XML", c))
				}
				w.b = append(w.b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || !xmlChar(r) {
			w.fail(fmt.Errorf("cfdi: invalid character %q in a value", s[i:i+n]))
		}
		w.b = append(w.b, s[i:i+n]...)
		i += n
	}
}

func (w *xmlWriter) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// xmlChar tells whether r (≥ 0x80) is a character XML 1.0 allows.
func xmlChar(r rune) bool {
	return r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// XML is the document as UTF-8 XML: the declaration, then cfdi:Comprobante with the cfdi and xsi
// namespaces, the namespaces of its complements, and xsi:schemaLocation naming cfdv40.xsd and
// the complements' schemas. Attributes follow the schema's order; there is no indentation (no
// whitespace text at all, so nothing a stylesheet could pick up). An error means a value holds a
// character XML cannot carry.
func (c *Comprobante) XML() ([]byte, error) {
	w := &xmlWriter{b: make([]byte, 0, 4096+2048*len(c.Conceptos)+len(c.Certificado))}
	w.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	w.open("cfdi:Comprobante")
	w.attr("xmlns:cfdi", NS)
	w.attr("xmlns:xsi", NSXSI)
	schema := NS + " " + SchemaLocation
	seen := map[string]bool{"cfdi": true, "xsi": true}
	for _, x := range c.Complemento {
		p, uri, loc := x.namespace()
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		w.attr("xmlns:"+p, uri)
		if loc != "" {
			schema += " " + uri + " " + loc
		}
	}
	for _, ns := range c.extraNS {
		if !seen[ns.prefix] {
			seen[ns.prefix] = true
			w.attr("xmlns:"+ns.prefix, ns.uri)
		}
	}
	w.attr("xsi:schemaLocation", schema)
	c.attrs(w)
	w.endStart()

	if g := c.InformacionGlobal; g != nil {
		w.empty("cfdi:InformacionGlobal", g)
	}
	for _, r := range c.CfdiRelacionados {
		w.open("cfdi:CfdiRelacionados")
		w.attr("TipoRelacion", r.TipoRelacion)
		w.endStart()
		for _, u := range r.UUIDs {
			w.open("cfdi:CfdiRelacionado")
			w.attr("UUID", u)
			w.endEmpty()
		}
		w.close("cfdi:CfdiRelacionados")
	}
	w.empty("cfdi:Emisor", &c.Emisor)
	w.empty("cfdi:Receptor", &c.Receptor)

	w.raw("<cfdi:Conceptos>")
	for i := range c.Conceptos {
		writeConcepto(w, &c.Conceptos[i])
	}
	w.close("cfdi:Conceptos")

	if t := c.Impuestos; t != nil {
		w.open("cfdi:Impuestos")
		w.opt("TotalImpuestosRetenidos", t.TotalImpuestosRetenidos)
		w.opt("TotalImpuestosTrasladados", t.TotalImpuestosTrasladados)
		if len(t.Retenciones) == 0 && len(t.Traslados) == 0 {
			w.endEmpty()
		} else {
			w.endStart()
			if len(t.Retenciones) > 0 {
				w.raw("<cfdi:Retenciones>")
				for i := range t.Retenciones {
					w.empty("cfdi:Retencion", &t.Retenciones[i])
				}
				w.close("cfdi:Retenciones")
			}
			if len(t.Traslados) > 0 {
				w.raw("<cfdi:Traslados>")
				for i := range t.Traslados {
					w.empty("cfdi:Traslado", &t.Traslados[i])
				}
				w.close("cfdi:Traslados")
			}
			w.close("cfdi:Impuestos")
		}
	}
	if len(c.Complemento) > 0 {
		w.raw("<cfdi:Complemento>")
		for _, x := range c.Complemento {
			x.writeXML(w)
		}
		w.close("cfdi:Complemento")
	}
	if c.Addenda != nil {
		w.raw("<cfdi:Addenda>")
		w.b = append(w.b, c.Addenda...)
		w.close("cfdi:Addenda")
	}
	w.close("cfdi:Comprobante")
	if w.err != nil {
		return nil, w.err
	}
	return w.b, nil
}

func writeConcepto(w *xmlWriter, k *Concepto) {
	w.open("cfdi:Concepto")
	k.attrs(w)
	if len(k.Traslados) == 0 && len(k.Retenciones) == 0 && k.ACuentaTerceros == nil &&
		len(k.InformacionAduanera) == 0 && len(k.CuentaPredial) == 0 && len(k.Partes) == 0 {
		w.endEmpty()
		return
	}
	w.endStart()
	if len(k.Traslados) > 0 || len(k.Retenciones) > 0 {
		w.raw("<cfdi:Impuestos>")
		if len(k.Traslados) > 0 {
			w.raw("<cfdi:Traslados>")
			for i := range k.Traslados {
				w.empty("cfdi:Traslado", &k.Traslados[i])
			}
			w.close("cfdi:Traslados")
		}
		if len(k.Retenciones) > 0 {
			w.raw("<cfdi:Retenciones>")
			for i := range k.Retenciones {
				w.empty("cfdi:Retencion", &k.Retenciones[i])
			}
			w.close("cfdi:Retenciones")
		}
		w.close("cfdi:Impuestos")
	}
	if a := k.ACuentaTerceros; a != nil {
		w.empty("cfdi:ACuentaTerceros", a)
	}
	for _, n := range k.InformacionAduanera {
		w.open("cfdi:InformacionAduanera")
		w.attr("NumeroPedimento", n)
		w.endEmpty()
	}
	for _, n := range k.CuentaPredial {
		w.open("cfdi:CuentaPredial")
		w.attr("Numero", n)
		w.endEmpty()
	}
	for i := range k.Partes {
		p := &k.Partes[i]
		w.open("cfdi:Parte")
		p.attrs(w)
		if len(p.InformacionAduanera) == 0 {
			w.endEmpty()
			continue
		}
		w.endStart()
		for _, n := range p.InformacionAduanera {
			w.open("cfdi:InformacionAduanera")
			w.attr("NumeroPedimento", n)
			w.endEmpty()
		}
		w.close("cfdi:Parte")
	}
	w.close("cfdi:Concepto")
}
