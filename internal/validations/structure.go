package validations

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/timbra-mx/timbra/internal/cfdi"
)

// The structure check: the rules of SAT's cfdv40.xsd (with tdCFDI.xsd's types) and
// TimbreFiscalDigitalv11.xsd over what cfdi.Parse reads, written in Go. It is not a general XSD
// engine: element names, namespaces and the root are cfdi.Parse's work; this checks required
// attributes, fixed values, the patterns and lengths of the schemas, t_Importe amounts, dates,
// and the catalog enumerations the schemas fix. The large SAT catalogs (c_ClaveProdServ,
// c_ClaveUnidad, c_CodigoPostal, c_Moneda, c_Pais) are checked by shape only: their membership
// is the imported catalogs' business. Complements other than the stamp are checked by cfdi.Parse
// only.

// maxProblems bounds the details of one structure result.
const maxProblems = 20

var (
	reImporte   = regexp.MustCompile(`^[0-9]{1,18}(\.[0-9]{1,6})?$`)
	reDecimal6  = regexp.MustCompile(`^[0-9]{1,18}(\.[0-9]{1,6})?$`)
	reFechaH    = regexp.MustCompile(`^(20[1-9][0-9])-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T(([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9])$`)
	reRFCPM     = regexp.MustCompile(`^[A-Z&Ñ]{3}[0-9]{2}(0[1-9]|1[012])(0[1-9]|[12][0-9]|3[01])[A-Z0-9]{2}[0-9A]$`)
	reUUID      = regexp.MustCompile(`^[a-f0-9A-F]{8}-[a-f0-9A-F]{4}-[a-f0-9A-F]{4}-[a-f0-9A-F]{4}-[a-f0-9A-F]{12}$`)
	reNoCert    = regexp.MustCompile(`^[0-9]{20}$`)
	reCP        = regexp.MustCompile(`^[0-9]{5}$`)
	reFacAtr    = regexp.MustCompile(`^[0-9]{10}$`)
	reConfirm   = regexp.MustCompile(`^[0-9a-zA-Z]{5}$`)
	rePedimento = regexp.MustCompile(`^[0-9]{2}  [0-9]{2}  [0-9]{4}  [0-9]{7}$`)
	reProdServ  = regexp.MustCompile(`^[0-9]{8}$`)
	reUnidad    = regexp.MustCompile(`^[A-Z0-9]{1,3}$`)
	reMoneda    = regexp.MustCompile(`^[A-Z]{3}$`)
	reBase64    = regexp.MustCompile(`^[A-Za-z0-9+/]+={0,2}$`)
)

// Counted patterns are written as functions: Go's regexp expands {1,1000} into a program of
// that size, which makes a long hostile value slow.

// runesOf tells whether v has min to max runes, each allowed by ok.
func runesOf(v string, min, max int, ok func(rune) bool) bool {
	n := 0
	for _, r := range v {
		if n++; n > max || !ok(r) {
			return false
		}
	}
	return n >= min
}

// textOf is the pattern [^|]{1,n} of the schema's free texts.
func textOf(n int) func(string) bool {
	return func(v string) bool { return runesOf(v, 1, n, func(r rune) bool { return r != '|' }) }
}

func alnum(r rune) bool { return r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)) }

// predial is [0-9a-zA-Z]{1,150}.
func predial(v string) bool { return runesOf(v, 1, 150, alnum) }

// leyenda is the pattern of the stamp's Leyenda: 12 to 150 of the characters it lists.
func leyenda(v string) bool {
	return runesOf(v, 12, 150, func(r rune) bool {
		return alnum(r) || strings.ContainsRune(" Ññ!\"%&'´-:;>=<@_,{}`~áéíóúÁÉÍÓÚüÜ", r)
	})
}

func enum(vs ...string) map[string]bool {
	m := make(map[string]bool, len(vs))
	for _, v := range vs {
		m[v] = true
	}
	return m
}

// The catalog enumerations of catCFDI.xsd the structure check knows.
var (
	catTipoDeComprobante = enum("I", "E", "T", "N", "P")
	catExportacion       = enum("01", "02", "03", "04")
	catMetodoPago        = enum("PUE", "PPD")
	catObjetoImp         = enum("01", "02", "03", "04", "05", "06", "07", "08")
	catImpuesto          = enum("001", "002", "003")
	catTipoFactor        = enum("Tasa", "Cuota", "Exento")
	catPeriodicidad      = enum("01", "02", "03", "04", "05")
	catMeses             = enum("01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "12", "13", "14", "15", "16", "17", "18")
	catTipoRelacion      = enum("01", "02", "03", "04", "05", "06", "07")
	catFormaPago         = enum("01", "02", "03", "04", "05", "06", "08", "12", "13", "14", "15", "17", "23", "24", "25", "26", "27", "28", "29", "30", "31", "99")
	catRegimenFiscal     = enum("601", "603", "605", "606", "607", "608", "609", "610", "611", "612", "614", "615", "616", "620", "621", "622", "623", "624", "625", "626", "628", "629", "630")
	catUsoCFDI           = enum("G01", "G02", "G03", "I01", "I02", "I03", "I04", "I05", "I06", "I07", "I08",
		"D01", "D02", "D03", "D04", "D05", "D06", "D07", "D08", "D09", "D10", "S01", "CP01", "CN01")
)

type rules struct{ problems []string }

func (r *rules) add(format string, a ...any) {
	if len(r.problems) < maxProblems {
		r.problems = append(r.problems, fmt.Sprintf(format, a...))
	}
}

// attr checks one attribute: required or not, and its rule (nil: any non-empty value).
func (r *rules) attr(where, name, v string, required bool, ok func(string) bool, what string) {
	if v == "" {
		if required {
			r.add("%s: falta el atributo requerido %s.", where, name)
		}
		return
	}
	if ok != nil && !ok(v) {
		r.add("%s: %s %q no es %s.", where, name, v, what)
	}
}

func re(x *regexp.Regexp) func(string) bool { return x.MatchString }
func in(m map[string]bool) func(string) bool {
	return func(v string) bool { return m[v] }
}
func fixed(want string) func(string) bool { return func(v string) bool { return v == want } }

// positive is t_Importe-like with minInclusive 0.000001.
func positive(v string) bool {
	if !reDecimal6.MatchString(v) {
		return false
	}
	d, err := cfdi.ParseDecimal(v)
	return err == nil && d.Sign() > 0
}

const (
	wImporte  = "un importe (t_Importe: hasta 18 enteros y 6 decimales)"
	wPositive = "un decimal mayor que cero con hasta 6 decimales"
	wDecimal  = "un decimal no negativo con hasta 6 decimales"
	wFecha    = "una fecha AAAA-MM-DDThh:mm:ss (t_FechaH)"
	wRFC      = "un RFC (t_RFC)"
	wCatalog  = "un valor del catálogo %s"
	wText     = "un texto de 1 a %d caracteres sin '|'"
)

func cat(name string) string { return fmt.Sprintf(wCatalog, name) }
func txt(n int) (func(string) bool, string) {
	return textOf(n), fmt.Sprintf(wText, n)
}

// Structure checks a parsed CFDI 4.0 (and its Timbre Fiscal Digital, when present) against the
// schemas' rules and returns the problems found, in Spanish, in document order (at most 20).
func Structure(doc *cfdi.Comprobante) []string {
	r := &rules{}
	const c = "Comprobante"
	r.attr(c, "Version", doc.Version, true, fixed("4.0"), "4.0")
	r.attr(c, "Serie", doc.Serie, false, textOf(25), fmt.Sprintf(wText, 25))
	r.attr(c, "Folio", doc.Folio, false, textOf(40), fmt.Sprintf(wText, 40))
	r.attr(c, "Fecha", doc.Fecha, true, re(reFechaH), wFecha)
	r.attr(c, "Sello", doc.Sello, true, re(reBase64), "Base64")
	r.attr(c, "FormaPago", doc.FormaPago, false, in(catFormaPago), cat("c_FormaPago"))
	r.attr(c, "NoCertificado", doc.NoCertificado, true, re(reNoCert), "un número de 20 dígitos")
	r.attr(c, "Certificado", doc.Certificado, true, re(reBase64), "Base64")
	r.attr(c, "CondicionesDePago", doc.CondicionesDePago, false, textOf(1000), fmt.Sprintf(wText, 1000))
	r.attr(c, "SubTotal", doc.SubTotal, true, re(reImporte), wImporte)
	r.attr(c, "Descuento", doc.Descuento, false, re(reImporte), wImporte)
	r.attr(c, "Moneda", doc.Moneda, true, re(reMoneda), cat("c_Moneda"))
	r.attr(c, "TipoCambio", doc.TipoCambio, false, positive, wPositive)
	r.attr(c, "Total", doc.Total, true, re(reImporte), wImporte)
	r.attr(c, "TipoDeComprobante", doc.TipoDeComprobante, true, in(catTipoDeComprobante), cat("c_TipoDeComprobante"))
	r.attr(c, "Exportacion", doc.Exportacion, true, in(catExportacion), cat("c_Exportacion"))
	r.attr(c, "MetodoPago", doc.MetodoPago, false, in(catMetodoPago), cat("c_MetodoPago"))
	r.attr(c, "LugarExpedicion", doc.LugarExpedicion, true, re(reCP), cat("c_CodigoPostal"))
	r.attr(c, "Confirmacion", doc.Confirmacion, false, re(reConfirm), "una clave de 5 letras o dígitos")

	if g := doc.InformacionGlobal; g != nil {
		const w = "InformacionGlobal"
		r.attr(w, "Periodicidad", g.Periodicidad, true, in(catPeriodicidad), cat("c_Periodicidad"))
		r.attr(w, "Meses", g.Meses, true, in(catMeses), cat("c_Meses"))
		r.attr(w, "Año", g.Año, true, func(v string) bool {
			n, err := strconv.Atoi(v)
			return err == nil && n >= 2019 && n <= 32767
		}, "un año desde 2019")
	}
	for i, g := range doc.CfdiRelacionados {
		w := fmt.Sprintf("CfdiRelacionados[%d]", i)
		r.attr(w, "TipoRelacion", g.TipoRelacion, true, in(catTipoRelacion), cat("c_TipoRelacion"))
		if len(g.UUIDs) == 0 {
			r.add("%s: falta al menos un CfdiRelacionado.", w)
		}
		for j, u := range g.UUIDs {
			r.attr(fmt.Sprintf("%s.CfdiRelacionado[%d]", w, j), "UUID", u, true, re(reUUID), "un UUID")
		}
	}

	// RFCs are checked as SAT's schema does (t_RFC), not by cfdi.CheckRFC: this check is SAT's
	// structure, and the stamp's SAT checked the taxpayers against its own list.
	e := doc.Emisor
	r.attr("Emisor", "Rfc", e.Rfc, true, cfdi.ValidRFC, wRFC)
	f, w := txt(300)
	r.attr("Emisor", "Nombre", e.Nombre, true, f, w)
	r.attr("Emisor", "RegimenFiscal", e.RegimenFiscal, true, in(catRegimenFiscal), cat("c_RegimenFiscal"))
	r.attr("Emisor", "FacAtrAdquirente", e.FacAtrAdquirente, false, re(reFacAtr), "un número de 10 dígitos")

	rc := doc.Receptor
	r.attr("Receptor", "Rfc", rc.Rfc, true, cfdi.ValidRFC, wRFC)
	r.attr("Receptor", "Nombre", rc.Nombre, true, f, w)
	r.attr("Receptor", "DomicilioFiscalReceptor", rc.DomicilioFiscalReceptor, true, re(reCP), "un código postal de 5 dígitos")
	r.attr("Receptor", "ResidenciaFiscal", rc.ResidenciaFiscal, false, re(reMoneda), cat("c_Pais"))
	f40, w40 := txt(40)
	r.attr("Receptor", "NumRegIdTrib", rc.NumRegIdTrib, false, f40, w40)
	r.attr("Receptor", "RegimenFiscalReceptor", rc.RegimenFiscalReceptor, true, in(catRegimenFiscal), cat("c_RegimenFiscal"))
	r.attr("Receptor", "UsoCFDI", rc.UsoCFDI, true, in(catUsoCFDI), cat("c_UsoCFDI"))

	if len(doc.Conceptos) == 0 {
		r.add("Conceptos: falta al menos un Concepto.")
	}
	for i, k := range doc.Conceptos {
		concepto(r, fmt.Sprintf("Concepto[%d]", i), k)
	}

	if t := doc.Impuestos; t != nil {
		const w = "Impuestos"
		r.attr(w, "TotalImpuestosRetenidos", t.TotalImpuestosRetenidos, false, re(reImporte), wImporte)
		r.attr(w, "TotalImpuestosTrasladados", t.TotalImpuestosTrasladados, false, re(reImporte), wImporte)
		for i, x := range t.Retenciones {
			ww := fmt.Sprintf("Impuestos.Retencion[%d]", i)
			r.attr(ww, "Impuesto", x.Impuesto, true, in(catImpuesto), cat("c_Impuesto"))
			r.attr(ww, "Importe", x.Importe, true, re(reImporte), wImporte)
		}
		for i, x := range t.Traslados {
			ww := fmt.Sprintf("Impuestos.Traslado[%d]", i)
			r.attr(ww, "Base", x.Base, true, re(reImporte), wImporte)
			r.attr(ww, "Impuesto", x.Impuesto, true, in(catImpuesto), cat("c_Impuesto"))
			r.attr(ww, "TipoFactor", x.TipoFactor, true, in(catTipoFactor), cat("c_TipoFactor"))
			r.attr(ww, "TasaOCuota", x.TasaOCuota, false, re(reDecimal6), wDecimal)
			r.attr(ww, "Importe", x.Importe, false, re(reImporte), wImporte)
		}
	}

	if t := doc.TFD(); t != nil {
		const w = "TimbreFiscalDigital"
		r.attr(w, "Version", t.Version, true, fixed("1.1"), "1.1")
		r.attr(w, "UUID", t.UUID, true, re(reUUID), "un UUID")
		r.attr(w, "FechaTimbrado", t.FechaTimbrado, true, re(reFechaH), wFecha)
		r.attr(w, "RfcProvCertif", t.RfcProvCertif, true, re(reRFCPM), "un RFC de persona moral (t_RFC_PM)")
		r.attr(w, "Leyenda", t.Leyenda, false, leyenda, "un texto de 12 a 150 caracteres permitidos")
		r.attr(w, "SelloCFD", t.SelloCFD, true, re(reBase64), "Base64")
		r.attr(w, "NoCertificadoSAT", t.NoCertificadoSAT, true, re(reNoCert), "un número de 20 dígitos")
		r.attr(w, "SelloSAT", t.SelloSAT, true, re(reBase64), "Base64")
	}
	return r.problems
}

func concepto(r *rules, w string, k cfdi.Concepto) {
	r.attr(w, "ClaveProdServ", k.ClaveProdServ, true, re(reProdServ), cat("c_ClaveProdServ"))
	f100, w100 := txt(100)
	r.attr(w, "NoIdentificacion", k.NoIdentificacion, false, f100, w100)
	r.attr(w, "Cantidad", k.Cantidad, true, positive, wPositive)
	r.attr(w, "ClaveUnidad", k.ClaveUnidad, true, re(reUnidad), cat("c_ClaveUnidad"))
	f20, w20 := txt(20)
	r.attr(w, "Unidad", k.Unidad, false, f20, w20)
	f1000, w1000 := txt(1000)
	r.attr(w, "Descripcion", k.Descripcion, true, f1000, w1000)
	r.attr(w, "ValorUnitario", k.ValorUnitario, true, re(reImporte), wImporte)
	r.attr(w, "Importe", k.Importe, true, re(reImporte), wImporte)
	r.attr(w, "Descuento", k.Descuento, false, re(reImporte), wImporte)
	r.attr(w, "ObjetoImp", k.ObjetoImp, true, in(catObjetoImp), cat("c_ObjetoImp"))
	for i, x := range k.Traslados {
		ww := fmt.Sprintf("%s.Traslado[%d]", w, i)
		r.attr(ww, "Base", x.Base, true, positive, wPositive)
		r.attr(ww, "Impuesto", x.Impuesto, true, in(catImpuesto), cat("c_Impuesto"))
		r.attr(ww, "TipoFactor", x.TipoFactor, true, in(catTipoFactor), cat("c_TipoFactor"))
		r.attr(ww, "TasaOCuota", x.TasaOCuota, false, re(reDecimal6), wDecimal)
		r.attr(ww, "Importe", x.Importe, false, re(reImporte), wImporte)
	}
	for i, x := range k.Retenciones {
		ww := fmt.Sprintf("%s.Retencion[%d]", w, i)
		r.attr(ww, "Base", x.Base, true, positive, wPositive)
		r.attr(ww, "Impuesto", x.Impuesto, true, in(catImpuesto), cat("c_Impuesto"))
		r.attr(ww, "TipoFactor", x.TipoFactor, true, in(catTipoFactor), cat("c_TipoFactor"))
		r.attr(ww, "TasaOCuota", x.TasaOCuota, true, re(reDecimal6), wDecimal)
		r.attr(ww, "Importe", x.Importe, true, re(reImporte), wImporte)
	}
	if a := k.ACuentaTerceros; a != nil {
		ww := w + ".ACuentaTerceros"
		r.attr(ww, "RfcACuentaTerceros", a.RfcACuentaTerceros, true, cfdi.ValidRFC, wRFC)
		f300, w300 := txt(300)
		r.attr(ww, "NombreACuentaTerceros", a.NombreACuentaTerceros, true, f300, w300)
		r.attr(ww, "RegimenFiscalACuentaTerceros", a.RegimenFiscalACuentaTerceros, true, in(catRegimenFiscal), cat("c_RegimenFiscal"))
		r.attr(ww, "DomicilioFiscalACuentaTerceros", a.DomicilioFiscalACuentaTerceros, true, re(reCP), "un código postal de 5 dígitos")
	}
	for i, p := range k.InformacionAduanera {
		r.attr(fmt.Sprintf("%s.InformacionAduanera[%d]", w, i), "NumeroPedimento", p, true, re(rePedimento), "un número de pedimento")
	}
	for i, p := range k.CuentaPredial {
		r.attr(fmt.Sprintf("%s.CuentaPredial[%d]", w, i), "Numero", p, true, predial, "un número de cuenta predial")
	}
	for i, p := range k.Partes {
		ww := fmt.Sprintf("%s.Parte[%d]", w, i)
		r.attr(ww, "ClaveProdServ", p.ClaveProdServ, true, re(reProdServ), cat("c_ClaveProdServ"))
		r.attr(ww, "NoIdentificacion", p.NoIdentificacion, false, f100, w100)
		r.attr(ww, "Cantidad", p.Cantidad, true, positive, wPositive)
		r.attr(ww, "Unidad", p.Unidad, false, f20, w20)
		r.attr(ww, "Descripcion", p.Descripcion, true, f1000, w1000)
		r.attr(ww, "ValorUnitario", p.ValorUnitario, false, re(reImporte), wImporte)
		r.attr(ww, "Importe", p.Importe, false, re(reImporte), wImporte)
		for j, n := range p.InformacionAduanera {
			r.attr(fmt.Sprintf("%s.InformacionAduanera[%d]", ww, j), "NumeroPedimento", n, true, re(rePedimento), "un número de pedimento")
		}
	}
}
