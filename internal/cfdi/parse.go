package cfdi

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Limits of Parse, so that hostile input costs little.
const (
	MaxDocumentSize = 16 << 20
	maxDepth        = 64
)

// node is a parsed element: its name, unprefixed attributes, children, its byte span and, for a
// complement, the text of all its descendants in document order (what XSLT's built-in rules
// output).
type node struct {
	space, local string
	attrs        []xml.Attr
	kids         []*node
	text         strings.Builder
	start, end   int64
	nsDecls      []nsDecl
	// sink is the complement (child of cfdi:Complemento) this node is in, which collects text.
	sink *node
}

func (n *node) attr(name string) string {
	for _, a := range n.attrs {
		if a.Name.Space == "" && a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (n *node) children(space, local string) []*node {
	var out []*node
	for _, k := range n.kids {
		if k.space == space && k.local == local {
			out = append(out, k)
		}
	}
	return out
}

func (n *node) child(space, local string) *node {
	for _, k := range n.kids {
		if k.space == space && k.local == local {
			return k
		}
	}
	return nil
}

// ParseError is an error of Parse.
type ParseError struct{ Msg string }

func (e *ParseError) Error() string { return "cfdi: " + e.Msg }

func parseErr(format string, a ...any) error { return &ParseError{fmt.Sprintf(format, a...)} }

// parseTree reads an XML document into nodes.
func parseTree(data []byte) (*node, error) {
	if len(data) > MaxDocumentSize {
		return nil, parseErr("the document is larger than %d bytes", MaxDocumentSize)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	d := newDecoder(bytes.NewReader(data))
	var root *node
	var stack []*node
	for {
		off := d.InputOffset()
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, parseErr("not well-formed XML: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(stack) >= maxDepth {
				return nil, parseErr("elements nested deeper than %d", maxDepth)
			}
			if root != nil && len(stack) == 0 {
				return nil, parseErr("more than one root element")
			}
			n := &node{space: t.Name.Space, local: t.Name.Local, start: off}
			for _, a := range t.Attr {
				if a.Name.Space == "xmlns" {
					n.nsDecls = append(n.nsDecls, nsDecl{a.Name.Local, a.Value})
					continue
				}
				n.attrs = append(n.attrs, a)
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.kids = append(p.kids, n)
				n.sink = p.sink
				if p.space == NS && p.local == "Complemento" && len(stack) == 2 {
					n.sink = n
				}
			} else {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			n := stack[len(stack)-1]
			n.end = d.InputOffset()
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) == 0 {
				if len(bytes.TrimSpace(t)) > 0 {
					return nil, parseErr("text outside the root element")
				}
				continue
			}
			if s := stack[len(stack)-1].sink; s != nil {
				s.text.Write(t)
			}
		}
	}
	if root == nil {
		return nil, parseErr("no root element")
	}
	return root, nil
}

// Parse reads a CFDI 4.0 document into the model, keeping every attribute's text as written.
// Complements this package models become their types (the Timbre Fiscal Digital, Pagos 2.0...);
// any other is kept as a *RawComplement (its XML as written). The Addenda is kept raw. Parse
// checks the structure (namespaces, element names), not the values: that is validation's work.
func Parse(data []byte) (*Comprobante, error) {
	root, err := parseTree(data)
	if err != nil {
		return nil, err
	}
	if root.space != NS || root.local != "Comprobante" {
		return nil, parseErr("the root element is {%s}%s, not cfdi:Comprobante of CFDI 4.0", root.space, root.local)
	}
	c := &Comprobante{
		Version:           root.attr("Version"),
		Serie:             root.attr("Serie"),
		Folio:             root.attr("Folio"),
		Fecha:             root.attr("Fecha"),
		Sello:             root.attr("Sello"),
		FormaPago:         root.attr("FormaPago"),
		NoCertificado:     root.attr("NoCertificado"),
		Certificado:       root.attr("Certificado"),
		CondicionesDePago: root.attr("CondicionesDePago"),
		SubTotal:          root.attr("SubTotal"),
		Descuento:         root.attr("Descuento"),
		Moneda:            root.attr("Moneda"),
		TipoCambio:        root.attr("TipoCambio"),
		Total:             root.attr("Total"),
		TipoDeComprobante: root.attr("TipoDeComprobante"),
		Exportacion:       root.attr("Exportacion"),
		MetodoPago:        root.attr("MetodoPago"),
		LugarExpedicion:   root.attr("LugarExpedicion"),
		Confirmacion:      root.attr("Confirmacion"),
	}
	for _, ns := range root.nsDecls {
		if ns.prefix != "cfdi" && ns.prefix != "xsi" {
			c.extraNS = append(c.extraNS, ns)
		}
	}
	if g := root.child(NS, "InformacionGlobal"); g != nil {
		c.InformacionGlobal = &InformacionGlobal{g.attr("Periodicidad"), g.attr("Meses"), g.attr("Año")}
	}
	for _, r := range root.children(NS, "CfdiRelacionados") {
		g := CfdiRelacionados{TipoRelacion: r.attr("TipoRelacion")}
		for _, u := range r.children(NS, "CfdiRelacionado") {
			g.UUIDs = append(g.UUIDs, u.attr("UUID"))
		}
		c.CfdiRelacionados = append(c.CfdiRelacionados, g)
	}
	e := root.child(NS, "Emisor")
	if e == nil {
		return nil, parseErr("no cfdi:Emisor")
	}
	c.Emisor = Emisor{e.attr("Rfc"), e.attr("Nombre"), e.attr("RegimenFiscal"), e.attr("FacAtrAdquirente")}
	r := root.child(NS, "Receptor")
	if r == nil {
		return nil, parseErr("no cfdi:Receptor")
	}
	c.Receptor = Receptor{r.attr("Rfc"), r.attr("Nombre"), r.attr("DomicilioFiscalReceptor"), r.attr("ResidenciaFiscal"),
		r.attr("NumRegIdTrib"), r.attr("RegimenFiscalReceptor"), r.attr("UsoCFDI")}
	cs := root.child(NS, "Conceptos")
	if cs == nil {
		return nil, parseErr("no cfdi:Conceptos")
	}
	for _, k := range cs.children(NS, "Concepto") {
		c.Conceptos = append(c.Conceptos, parseConcepto(k))
	}
	if t := root.child(NS, "Impuestos"); t != nil {
		imp := &Impuestos{
			TotalImpuestosRetenidos:   t.attr("TotalImpuestosRetenidos"),
			TotalImpuestosTrasladados: t.attr("TotalImpuestosTrasladados"),
		}
		for _, rs := range t.children(NS, "Retenciones") {
			for _, x := range rs.children(NS, "Retencion") {
				imp.Retenciones = append(imp.Retenciones, RetencionTotal{x.attr("Impuesto"), x.attr("Importe")})
			}
		}
		for _, ts := range t.children(NS, "Traslados") {
			for _, x := range ts.children(NS, "Traslado") {
				imp.Traslados = append(imp.Traslados, TrasladoTotal{x.attr("Base"), x.attr("Impuesto"),
					x.attr("TipoFactor"), x.attr("TasaOCuota"), x.attr("Importe")})
			}
		}
		c.Impuestos = imp
	}
	if cm := root.child(NS, "Complemento"); cm != nil {
		for _, x := range cm.kids {
			comp, err := parseComplement(x, data)
			if err != nil {
				return nil, err
			}
			c.Complemento = append(c.Complemento, comp)
		}
	}
	if a := root.child(NS, "Addenda"); a != nil {
		c.Addenda = innerXML(a, data)
	}
	return c, nil
}

func parseConcepto(k *node) Concepto {
	x := Concepto{
		ClaveProdServ:    k.attr("ClaveProdServ"),
		NoIdentificacion: k.attr("NoIdentificacion"),
		Cantidad:         k.attr("Cantidad"),
		ClaveUnidad:      k.attr("ClaveUnidad"),
		Unidad:           k.attr("Unidad"),
		Descripcion:      k.attr("Descripcion"),
		ValorUnitario:    k.attr("ValorUnitario"),
		Importe:          k.attr("Importe"),
		Descuento:        k.attr("Descuento"),
		ObjetoImp:        k.attr("ObjetoImp"),
	}
	for _, imp := range k.children(NS, "Impuestos") {
		for _, ts := range imp.children(NS, "Traslados") {
			for _, t := range ts.children(NS, "Traslado") {
				x.Traslados = append(x.Traslados, Traslado{t.attr("Base"), t.attr("Impuesto"), t.attr("TipoFactor"),
					t.attr("TasaOCuota"), t.attr("Importe")})
			}
		}
		for _, rs := range imp.children(NS, "Retenciones") {
			for _, t := range rs.children(NS, "Retencion") {
				x.Retenciones = append(x.Retenciones, Retencion{t.attr("Base"), t.attr("Impuesto"), t.attr("TipoFactor"),
					t.attr("TasaOCuota"), t.attr("Importe")})
			}
		}
	}
	if a := k.child(NS, "ACuentaTerceros"); a != nil {
		x.ACuentaTerceros = &ACuentaTerceros{a.attr("RfcACuentaTerceros"), a.attr("NombreACuentaTerceros"),
			a.attr("RegimenFiscalACuentaTerceros"), a.attr("DomicilioFiscalACuentaTerceros")}
	}
	for _, a := range k.children(NS, "InformacionAduanera") {
		x.InformacionAduanera = append(x.InformacionAduanera, a.attr("NumeroPedimento"))
	}
	for _, a := range k.children(NS, "CuentaPredial") {
		x.CuentaPredial = append(x.CuentaPredial, a.attr("Numero"))
	}
	for _, p := range k.children(NS, "Parte") {
		pt := Parte{p.attr("ClaveProdServ"), p.attr("NoIdentificacion"), p.attr("Cantidad"), p.attr("Unidad"),
			p.attr("Descripcion"), p.attr("ValorUnitario"), p.attr("Importe"), nil}
		for _, a := range p.children(NS, "InformacionAduanera") {
			pt.InformacionAduanera = append(pt.InformacionAduanera, a.attr("NumeroPedimento"))
		}
		x.Partes = append(x.Partes, pt)
	}
	return x
}

// innerXML is the bytes between n's start and end tags as written.
func innerXML(n *node, data []byte) []byte {
	raw := outerXML(n, data)
	i := bytes.IndexByte(raw, '>')
	j := bytes.LastIndexByte(raw, '<')
	if i < 0 || j <= i || raw[i-1] == '/' {
		return []byte{}
	}
	return bytes.Clone(raw[i+1 : j])
}

func outerXML(n *node, data []byte) []byte {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if n.start < 0 || n.end > int64(len(data)) || n.start > n.end {
		return nil
	}
	return data[n.start:n.end]
}

// RawComplement is a complement this package does not model, kept as written.
type RawComplement struct {
	Space, Local string
	// XML is the element as written in the source document (it may use prefixes declared on the
	// source's root; XML re-declares those).
	XML []byte
	// Text is the text of all its descendants in document order: its part of the cadena when
	// SAT's stylesheet has no rule for it.
	Text string
}

func (r *RawComplement) namespace() (string, string, string) { return "", "", "" }
func (r *RawComplement) writeXML(w *xmlWriter)               { w.b = append(w.b, r.XML...) }
func (r *RawComplement) cadena(c *cadenaBuilder) error {
	if knownComplementNS[r.Space] {
		return errUnmodelled(r.Space, r.Local)
	}
	c.b = append(c.b, r.Text...)
	return nil
}

func parseComplement(n *node, data []byte) (Complement, error) {
	switch {
	case n.space == NSTFD && n.local == "TimbreFiscalDigital":
		return &TimbreFiscalDigital{
			Version:          n.attr("Version"),
			UUID:             n.attr("UUID"),
			FechaTimbrado:    n.attr("FechaTimbrado"),
			RfcProvCertif:    n.attr("RfcProvCertif"),
			Leyenda:          n.attr("Leyenda"),
			SelloCFD:         n.attr("SelloCFD"),
			NoCertificadoSAT: n.attr("NoCertificadoSAT"),
			SelloSAT:         n.attr("SelloSAT"),
		}, nil
	}
	if p := complementParsers[n.space+" "+n.local]; p != nil {
		return p(n)
	}
	raw := outerXML(n, data)
	if raw == nil {
		return nil, errors.New("cfdi: complement span out of range")
	}
	return &RawComplement{Space: n.space, Local: n.local, XML: bytes.Clone(raw), Text: n.text.String()}, nil
}

// complementParsers maps "namespace local" to the parser of a modelled complement.
var complementParsers = map[string]func(*node) (Complement, error){}
