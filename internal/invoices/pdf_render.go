package invoices

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/go-pdf/fpdf"

	"github.com/timbra-mx/timbra/internal/cfdi"
)

// Page geometry of the PDF (Letter, millimetres).
const (
	pdfMargin   = 12.0
	pdfBottom   = 18.0 // room for the footer
	pdfLineH    = 3.6
	pdfFontBody = 7.5
)

var (
	typeNames = map[string]string{cfdi.TipoIngreso: "Ingreso", cfdi.TipoEgreso: "Egreso", cfdi.TipoTraslado: "Traslado",
		cfdi.TipoNomina: "Nómina", cfdi.TipoPago: "Pago"}
	taxNames = map[string]string{cfdi.ISR: "ISR", cfdi.IVA: "IVA", cfdi.IEPS: "IEPS"}
)

// pdfDoc is one PDF being written.
type pdfDoc struct {
	f     *fpdf.Fpdf
	tr    func(string) string
	opt   PDFOptions
	doc   *cfdi.Comprobante
	tfd   *cfdi.TimbreFiscalDigital
	width float64 // printable width
}

// RenderPDF writes the printed representation of a stamped CFDI: issuer, recipient, the
// invoice's data, the items (over as many pages as they need, the table header repeated), taxes,
// totals and the amount in words, the payment data, a summary of each complement (payments,
// payroll, local taxes), the stamp (UUID, dates, certificate numbers, the QR code of SAT's
// verification URL), the seals and the cadena of the stamp. Same input, same bytes.
func RenderPDF(xml []byte, opt PDFOptions) ([]byte, error) {
	doc, err := cfdi.Parse(xml)
	if err != nil {
		return nil, err
	}
	tfd := doc.TFD()
	if tfd == nil {
		return nil, errors.New("invoices: the CFDI is not stamped")
	}
	f := fpdf.New("P", "mm", "Letter", "")
	f.SetCreationDate(PDFCreationDate)
	f.SetModificationDate(PDFCreationDate)
	f.SetCatalogSort(true)
	f.SetProducer("timbra", false)
	f.SetTitle("CFDI "+tfd.UUID, false)
	f.SetMargins(pdfMargin, pdfMargin, pdfMargin)
	f.SetAutoPageBreak(true, pdfBottom)
	f.AliasNbPages("{nb}")
	w, _ := f.GetPageSize()
	p := &pdfDoc{f: f, tr: f.UnicodeTranslatorFromDescriptor(""), opt: opt, doc: doc, tfd: tfd, width: w - 2*pdfMargin}
	f.SetFooterFunc(p.footer)
	f.AddPage()
	p.header()
	p.recipient()
	p.data()
	p.items()
	p.totals()
	p.complements()
	if err := p.stamp(); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := f.Output(&out); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func (p *pdfDoc) font(style string, size float64) {
	p.f.SetFont("Helvetica", style, size)
}

func (p *pdfDoc) text(r, g, b int) { p.f.SetTextColor(r, g, b) }

func (p *pdfDoc) bodyText() { p.text(30, 30, 30) }

// band is a section title: a full-width strip in the band colour, its text in the font colour.
func (p *pdfDoc) band(title string) {
	p.need(12)
	p.f.Ln(1.5)
	p.f.SetFillColor(p.opt.Band[0], p.opt.Band[1], p.opt.Band[2])
	p.text(p.opt.Font[0], p.opt.Font[1], p.opt.Font[2])
	p.font("B", 8)
	p.f.CellFormat(p.width, 5, p.tr(title), "", 1, "L", true, 0, "")
	p.bodyText()
	p.font("", pdfFontBody)
	p.f.Ln(0.8)
}

// need starts a new page when less than h millimetres remain above the footer.
func (p *pdfDoc) need(h float64) bool {
	_, ph := p.f.GetPageSize()
	if p.f.GetY()+h > ph-pdfBottom {
		p.f.AddPage()
		return true
	}
	return false
}

// pairs prints label: value pairs in two columns, skipping empty values.
func (p *pdfDoc) pairs(kv ...string) {
	col := p.width / 2
	var cells [][2]string
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			cells = append(cells, [2]string{kv[i], kv[i+1]})
		}
	}
	for i, c := range cells {
		p.font("B", pdfFontBody)
		lw := p.f.GetStringWidth(p.tr(c[0]+": ")) + 1
		p.f.CellFormat(lw, pdfLineH, p.tr(c[0]+": "), "", 0, "L", false, 0, "")
		p.font("", pdfFontBody)
		ln := 0
		if i%2 == 1 || i == len(cells)-1 {
			ln = 1
		}
		p.f.CellFormat(col-lw, pdfLineH, p.fit(c[1], col-lw-1), "", ln, "L", false, 0, "")
	}
}

// fit translates s and cuts it to width w (an ellipsis marks the cut).
func (p *pdfDoc) fit(s string, w float64) string {
	t := p.tr(s)
	if p.f.GetStringWidth(t) <= w {
		return t
	}
	for len(t) > 0 && p.f.GetStringWidth(t+"...") > w {
		t = t[:len(t)-1]
	}
	return t + "..."
}

func (p *pdfDoc) header() {
	d := p.doc
	f := p.f
	const h = 28.0
	x0, y0 := f.GetX(), f.GetY()
	f.SetFillColor(p.opt.Band[0], p.opt.Band[1], p.opt.Band[2])
	f.Rect(x0, y0, p.width, h, "F")
	textX := x0 + 3
	if p.opt.Logo != nil {
		info := f.RegisterImageOptionsReader("logo", fpdf.ImageOptions{ImageType: p.opt.LogoType}, bytes.NewReader(p.opt.Logo))
		if info != nil && info.Width() > 0 && info.Height() > 0 {
			lw, lh := 24.0, 24.0*info.Height()/info.Width()
			if lh > h-4 {
				lw, lh = lw*(h-4)/lh, h-4
			}
			f.SetFillColor(255, 255, 255)
			f.Rect(x0+2, y0+2, 26, h-4, "F")
			f.ImageOptions("logo", x0+3+(24-lw)/2, y0+(h-lh)/2, lw, lh, false, fpdf.ImageOptions{ImageType: p.opt.LogoType}, 0, "")
			textX = x0 + 31
		}
	}
	p.text(p.opt.Font[0], p.opt.Font[1], p.opt.Font[2])
	left := p.width*0.6 - (textX - x0)
	f.SetXY(textX, y0+3)
	p.font("B", 11)
	f.CellFormat(left, 5.5, p.fit(d.Emisor.Nombre, left), "", 2, "L", false, 0, "")
	p.font("", 8)
	f.CellFormat(left, 4, p.tr("RFC: "+d.Emisor.Rfc), "", 2, "L", false, 0, "")
	f.CellFormat(left, 4, p.tr("Régimen fiscal: "+d.Emisor.RegimenFiscal), "", 2, "L", false, 0, "")
	f.CellFormat(left, 4, p.tr("Lugar de expedición: "+d.LugarExpedicion), "", 2, "L", false, 0, "")
	if d.Emisor.FacAtrAdquirente != "" {
		f.CellFormat(left, 4, p.tr("Facultad del adquirente: "+d.Emisor.FacAtrAdquirente), "", 2, "L", false, 0, "")
	}
	right := p.width * 0.4
	rx := x0 + p.width - right - 3
	f.SetXY(rx, y0+3)
	p.font("B", 11)
	f.CellFormat(right, 5.5, p.tr("CFDI de "+strings.ToLower(typeName(d.TipoDeComprobante))), "", 2, "R", false, 0, "")
	p.font("", 8)
	if sf := strings.TrimSpace(d.Serie + " " + d.Folio); sf != "" {
		f.CellFormat(right, 4, p.tr("Serie y folio: "+sf), "", 2, "R", false, 0, "")
	}
	f.CellFormat(right, 4, p.tr("Fecha de emisión: "+d.Fecha), "", 2, "R", false, 0, "")
	p.font("B", 7.5)
	f.CellFormat(right, 4, p.tr("Folio fiscal (UUID):"), "", 2, "R", false, 0, "")
	p.font("", 7.5)
	f.CellFormat(right, 4, p.tr(p.tfd.UUID), "", 2, "R", false, 0, "")
	f.SetXY(x0, y0+h+1)
	p.bodyText()
	if p.opt.Status != "" {
		p.font("B", 12)
		f.SetTextColor(190, 30, 30)
		f.CellFormat(p.width, 6, p.tr("Estatus: "+strings.ToUpper(p.opt.Status)), "", 1, "C", false, 0, "")
		p.bodyText()
	}
}

func typeName(code string) string {
	if n, ok := typeNames[code]; ok {
		return n
	}
	return code
}

func (p *pdfDoc) recipient() {
	r := p.doc.Receptor
	p.band("Receptor")
	p.pairs("Nombre", r.Nombre, "RFC", r.Rfc, "Domicilio fiscal (C.P.)", r.DomicilioFiscalReceptor,
		"Régimen fiscal", r.RegimenFiscalReceptor, "Uso del CFDI", r.UsoCFDI, "Residencia fiscal", r.ResidenciaFiscal,
		"Núm. reg. id. tributario", r.NumRegIdTrib)
}

func (p *pdfDoc) data() {
	d := p.doc
	p.band("Datos del comprobante")
	p.pairs("Tipo de comprobante", d.TipoDeComprobante+" - "+typeName(d.TipoDeComprobante), "Versión", d.Version,
		"Forma de pago", d.FormaPago, "Método de pago", d.MetodoPago, "Moneda", d.Moneda, "Tipo de cambio", d.TipoCambio,
		"Condiciones de pago", d.CondicionesDePago, "Exportación", d.Exportacion,
		"No. de certificado del emisor", d.NoCertificado, "Confirmación", d.Confirmacion)
	if g := d.InformacionGlobal; g != nil {
		p.pairs("Información global: periodicidad", g.Periodicidad, "Meses", g.Meses, "Año", g.Año)
	}
	for _, r := range d.CfdiRelacionados {
		p.f.MultiCell(p.width, pdfLineH, p.tr("CFDI relacionados (tipo de relación "+r.TipoRelacion+"): "+strings.Join(r.UUIDs, ", ")), "", "L", false)
	}
}

// itemColumns are the items table: title, width (share of the page) and alignment.
var itemColumns = []struct {
	title string
	w     float64
	align string
}{
	{"Clave", 0.09, "L"}, {"Cantidad", 0.08, "R"}, {"Unidad", 0.11, "L"}, {"Descripción", 0.36, "L"},
	{"Valor unitario", 0.12, "R"}, {"Descuento", 0.11, "R"}, {"Importe", 0.13, "R"},
}

func (p *pdfDoc) itemsHeader() {
	p.f.SetFillColor(p.opt.Band[0], p.opt.Band[1], p.opt.Band[2])
	p.text(p.opt.Font[0], p.opt.Font[1], p.opt.Font[2])
	p.font("B", 7)
	for i, c := range itemColumns {
		ln := 0
		if i == len(itemColumns)-1 {
			ln = 1
		}
		p.f.CellFormat(c.w*p.width, 4.5, p.tr(c.title), "", ln, c.align, true, 0, "")
	}
	p.bodyText()
}

func (p *pdfDoc) items() {
	p.band("Conceptos")
	p.itemsHeader()
	descW := itemColumns[3].w * p.width
	for i, k := range p.doc.Conceptos {
		p.font("", pdfFontBody)
		desc := k.Descripcion
		if k.NoIdentificacion != "" {
			desc = "[" + k.NoIdentificacion + "] " + desc
		}
		var lines []string
		for _, l := range p.f.SplitLines([]byte(p.tr(desc)), descW-2) {
			lines = append(lines, string(l))
		}
		if len(lines) == 0 {
			lines = []string{""}
		}
		taxes := itemTaxes(k)
		h := float64(len(lines)) * pdfLineH
		if taxes != "" {
			h += pdfLineH
		}
		if p.need(h + 1) {
			p.itemsHeader()
		}
		if i%2 == 1 {
			p.f.SetFillColor(242, 242, 242)
			p.f.Rect(pdfMargin, p.f.GetY(), p.width, h, "F")
		}
		y := p.f.GetY()
		x := pdfMargin
		cells := []string{k.ClaveProdServ, k.Cantidad, k.ClaveUnidad + " " + k.Unidad, "", money(k.ValorUnitario), money(k.Descuento), money(k.Importe)}
		for j, c := range itemColumns {
			cw := c.w * p.width
			p.f.SetXY(x, y)
			if j == 3 {
				for n, l := range lines {
					p.f.SetXY(x, y+float64(n)*pdfLineH)
					p.f.CellFormat(cw, pdfLineH, l, "", 0, "L", false, 0, "")
				}
			} else {
				p.f.CellFormat(cw, pdfLineH, p.fit(cells[j], cw-1), "", 0, c.align, false, 0, "")
			}
			x += cw
		}
		p.f.SetXY(pdfMargin, y+float64(len(lines))*pdfLineH)
		if taxes != "" {
			p.font("", 6)
			p.f.SetX(pdfMargin + itemColumns[0].w*p.width)
			p.f.CellFormat(p.width*0.9, pdfLineH, p.fit("Objeto de impuesto "+k.ObjetoImp+". "+taxes, p.width*0.9), "", 1, "L", false, 0, "")
		}
	}
	p.font("", pdfFontBody)
}

// itemTaxes is one line naming a concept's taxes.
func itemTaxes(k cfdi.Concepto) string {
	var parts []string
	for _, t := range k.Traslados {
		parts = append(parts, "Traslado "+taxDesc(t.Impuesto, t.TipoFactor, t.TasaOCuota)+" base "+money(t.Base)+importe(t.Importe))
	}
	for _, t := range k.Retenciones {
		parts = append(parts, "Retención "+taxDesc(t.Impuesto, t.TipoFactor, t.TasaOCuota)+" base "+money(t.Base)+importe(t.Importe))
	}
	return strings.Join(parts, "; ")
}

func importe(s string) string {
	if s == "" {
		return ""
	}
	return " importe " + money(s)
}

// taxDesc names a tax: "IVA Tasa 16.00%", "IEPS Cuota 0.500000", "IVA Exento".
func taxDesc(code, factor, rate string) string {
	name := taxNames[code]
	if name == "" {
		name = code
	}
	switch {
	case factor == cfdi.Tasa && rate != "":
		if d, err := cfdi.ParseDecimal(rate); err == nil {
			if pct, ok := d.MulRound(cfdi.FromInt(100), 4); ok {
				return name + " " + factor + " " + strings.TrimRight(strings.TrimRight(pct.Fixed(4), "0"), ".") + "%"
			}
		}
		return name + " " + factor + " " + rate
	case rate != "":
		return name + " " + factor + " " + rate
	}
	return name + " " + factor
}

// money writes an amount with thousands separators and a $ ("" stays ""): 1234.5 is $1,234.5.
func money(s string) string {
	if s == "" {
		return ""
	}
	whole, frac, hasFrac := strings.Cut(s, ".")
	neg := strings.HasPrefix(whole, "-")
	whole = strings.TrimPrefix(whole, "-")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	out := "$" + b.String()
	if hasFrac {
		out += "." + frac
	}
	if neg {
		out = "-" + out
	}
	return out
}

// totalRow prints one label and amount at the right of the page.
func (p *pdfDoc) totalRow(label, amount string, bold bool) {
	style := ""
	if bold {
		style = "B"
	}
	p.font(style, 8)
	p.f.SetX(pdfMargin + p.width*0.55)
	p.f.CellFormat(p.width*0.28, 4.2, p.tr(label), "", 0, "R", false, 0, "")
	p.f.CellFormat(p.width*0.17, 4.2, p.tr(money(amount)), "", 1, "R", false, 0, "")
}

func (p *pdfDoc) totals() {
	d := p.doc
	p.need(40)
	p.f.Ln(2)
	y := p.f.GetY()
	p.totalRow("Subtotal", d.SubTotal, false)
	if d.Descuento != "" {
		p.totalRow("Descuento", d.Descuento, false)
	}
	if t := d.Impuestos; t != nil {
		for _, x := range t.Traslados {
			amt := x.Importe
			if x.TipoFactor == cfdi.Exento {
				amt = "0.00"
			}
			p.totalRow("Traslado "+taxDesc(x.Impuesto, x.TipoFactor, x.TasaOCuota), amt, false)
		}
		for _, x := range t.Retenciones {
			p.totalRow("Retención "+taxDesc(x.Impuesto, "", ""), x.Importe, false)
		}
	}
	for _, c := range d.Complemento {
		if l, ok := c.(*cfdi.ImpuestosLocales); ok {
			if l.TotaldeTraslados != "" && l.TotaldeTraslados != "0.00" {
				p.totalRow("Impuestos locales trasladados", l.TotaldeTraslados, false)
			}
			if l.TotaldeRetenciones != "" && l.TotaldeRetenciones != "0.00" {
				p.totalRow("Impuestos locales retenidos", l.TotaldeRetenciones, false)
			}
		}
	}
	p.totalRow("Total", d.Total, true)
	end := p.f.GetY()
	words, err := AmountWords(d.Total, d.Moneda)
	if err == nil {
		p.f.SetXY(pdfMargin, y)
		p.font("B", 7.5)
		p.f.CellFormat(p.width*0.52, pdfLineH, p.tr("Importe con letra:"), "", 2, "L", false, 0, "")
		p.font("", 7.5)
		p.f.MultiCell(p.width*0.52, pdfLineH, p.tr(words), "", "L", false)
	}
	if p.f.GetY() < end {
		p.f.SetY(end)
	}
}

func (p *pdfDoc) complements() {
	for _, c := range p.doc.Complemento {
		switch x := c.(type) {
		case *cfdi.Pagos:
			p.pagos(x)
		case *cfdi.Nomina:
			p.nomina(x)
		case *cfdi.ImpuestosLocales:
			p.localTaxes(x)
		}
	}
}

// table prints rows of cells with the given width shares; the first row is the header.
func (p *pdfDoc) table(widths []float64, rows [][]string) {
	for i, r := range rows {
		if i == 0 {
			p.font("B", 6.5)
		} else {
			p.font("", 6.5)
		}
		if p.need(pdfLineH) && i > 0 {
			p.font("B", 6.5)
			p.tableRow(widths, rows[0])
			p.font("", 6.5)
		}
		p.tableRow(widths, r)
	}
	p.font("", pdfFontBody)
}

func (p *pdfDoc) tableRow(widths []float64, r []string) {
	for j, c := range r {
		ln := 0
		if j == len(r)-1 {
			ln = 1
		}
		align := "L"
		if strings.HasPrefix(c, "$") {
			align = "R"
		}
		w := widths[j] * p.width
		p.f.CellFormat(w, pdfLineH, p.fit(c, w-1), "B", ln, align, false, 0, "")
	}
}

func (p *pdfDoc) pagos(x *cfdi.Pagos) {
	p.band("Complemento para recepción de pagos " + x.Version)
	t := x.Totales
	p.pairs("Monto total de pagos", money(t.MontoTotalPagos), "Retenciones IVA", money(t.TotalRetencionesIVA),
		"Retenciones ISR", money(t.TotalRetencionesISR), "Retenciones IEPS", money(t.TotalRetencionesIEPS),
		"Traslados base IVA 16%", money(t.TotalTrasladosBaseIVA16), "Traslados IVA 16%", money(t.TotalTrasladosImpuestoIVA16),
		"Traslados base IVA 8%", money(t.TotalTrasladosBaseIVA8), "Traslados IVA 8%", money(t.TotalTrasladosImpuestoIVA8),
		"Traslados base IVA 0%", money(t.TotalTrasladosBaseIVA0), "Traslados IVA 0%", money(t.TotalTrasladosImpuestoIVA0),
		"Traslados base IVA exento", money(t.TotalTrasladosBaseIVAExento))
	for i, pg := range x.Pagos {
		p.f.Ln(1)
		p.font("B", pdfFontBody)
		p.f.CellFormat(p.width, pdfLineH, p.tr(fmt.Sprintf("Pago %d", i+1)), "", 1, "L", false, 0, "")
		p.pairs("Fecha de pago", pg.FechaPago, "Forma de pago", pg.FormaDePagoP, "Moneda", pg.MonedaP,
			"Tipo de cambio", pg.TipoCambioP, "Monto", money(pg.Monto), "Número de operación", pg.NumOperacion,
			"RFC banco ordenante", pg.RfcEmisorCtaOrd, "Cuenta ordenante", pg.CtaOrdenante,
			"RFC banco beneficiario", pg.RfcEmisorCtaBen, "Cuenta beneficiaria", pg.CtaBeneficiario)
		rows := [][]string{{"Documento relacionado (UUID)", "Serie y folio", "Moneda", "Parcialidad", "Saldo anterior", "Importe pagado", "Saldo insoluto"}}
		for _, dr := range pg.DoctoRelacionado {
			rows = append(rows, []string{dr.IdDocumento, strings.TrimSpace(dr.Serie + " " + dr.Folio), dr.MonedaDR, dr.NumParcialidad,
				money(dr.ImpSaldoAnt), money(dr.ImpPagado), money(dr.ImpSaldoInsoluto)})
		}
		p.table([]float64{0.34, 0.1, 0.07, 0.09, 0.13, 0.13, 0.14}, rows)
		var taxes []string
		for _, r := range pg.RetencionesP {
			taxes = append(taxes, "Retención "+taxDesc(r.ImpuestoP, "", "")+importe(r.ImporteP))
		}
		for _, t := range pg.TrasladosP {
			taxes = append(taxes, "Traslado "+taxDesc(t.ImpuestoP, t.TipoFactorP, t.TasaOCuotaP)+" base "+money(t.BaseP)+importe(t.ImporteP))
		}
		if len(taxes) > 0 {
			p.font("", 6.5)
			p.f.MultiCell(p.width, pdfLineH, p.tr("Impuestos del pago: "+strings.Join(taxes, "; ")), "", "L", false)
			p.font("", pdfFontBody)
		}
	}
}

func (p *pdfDoc) nomina(n *cfdi.Nomina) {
	p.band("Complemento de nómina " + n.Version)
	r := n.Receptor
	p.pairs("Tipo de nómina", n.TipoNomina, "Fecha de pago", n.FechaPago,
		"Periodo", n.FechaInicialPago+" a "+n.FechaFinalPago, "Días pagados", n.NumDiasPagados,
		"CURP del empleado", r.Curp, "Número de empleado", r.NumEmpleado,
		"No. de seguridad social", r.NumSeguridadSocial, "Inicio de relación laboral", r.FechaInicioRelLaboral,
		"Tipo de contrato", r.TipoContrato, "Tipo de régimen", r.TipoRegimen,
		"Departamento", r.Departamento, "Puesto", r.Puesto, "Periodicidad de pago", r.PeriodicidadPago,
		"Salario diario integrado", money(r.SalarioDiarioIntegrado), "Entidad federativa", r.ClaveEntFed,
		"Total de percepciones", money(n.TotalPercepciones), "Total de deducciones", money(n.TotalDeducciones),
		"Total de otros pagos", money(n.TotalOtrosPagos))
	if e := n.Emisor; e != nil {
		p.pairs("Registro patronal", e.RegistroPatronal, "CURP del patrón", e.Curp)
	}
	rows := [][]string{{"Concepto", "Tipo", "Clave", "Descripción", "Gravado / importe", "Exento"}}
	if pc := n.Percepciones; pc != nil {
		for _, x := range pc.Percepcion {
			rows = append(rows, []string{"Percepción", x.TipoPercepcion, x.Clave, x.Concepto, money(x.ImporteGravado), money(x.ImporteExento)})
		}
	}
	if dd := n.Deducciones; dd != nil {
		for _, x := range dd.Deduccion {
			rows = append(rows, []string{"Deducción", x.TipoDeduccion, x.Clave, x.Concepto, money(x.Importe), ""})
		}
	}
	for _, x := range n.OtrosPagos {
		rows = append(rows, []string{"Otro pago", x.TipoOtroPago, x.Clave, x.Concepto, money(x.Importe), ""})
	}
	if len(rows) > 1 {
		p.f.Ln(1)
		p.table([]float64{0.12, 0.07, 0.1, 0.41, 0.15, 0.15}, rows)
	}
}

func (p *pdfDoc) localTaxes(l *cfdi.ImpuestosLocales) {
	p.band("Complemento de impuestos locales " + l.Version)
	rows := [][]string{{"Impuesto local", "Tipo", "Tasa", "Importe"}}
	for _, t := range l.Traslados {
		rows = append(rows, []string{t.Nombre, "Traslado", t.Tasa + "%", money(t.Importe)})
	}
	for _, t := range l.Retenciones {
		rows = append(rows, []string{t.Nombre, "Retención", t.Tasa + "%", money(t.Importe)})
	}
	p.table([]float64{0.4, 0.2, 0.2, 0.2}, rows)
	p.pairs("Total de traslados locales", money(l.TotaldeTraslados), "Total de retenciones locales", money(l.TotaldeRetenciones))
}

// stamp prints the Timbre Fiscal Digital: the QR code beside the stamp data, then the seals and
// the cadena of the stamp.
func (p *pdfDoc) stamp() error {
	url, err := cfdi.QRURL(p.doc)
	if err != nil {
		return err
	}
	qr, err := QRPNG(url)
	if err != nil {
		return err
	}
	p.need(80)
	p.band("Timbre fiscal digital")
	f := p.f
	const qrSize = 34.0
	x0, y0 := f.GetX(), f.GetY()
	f.RegisterImageOptionsReader("qr", fpdf.ImageOptions{ImageType: "PNG"}, bytes.NewReader(qr))
	f.ImageOptions("qr", x0, y0, qrSize, qrSize, false, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
	left := x0 + qrSize + 3
	f.SetXY(left, y0+1)
	t := p.tfd
	for _, kv := range [][2]string{
		{"Folio fiscal (UUID)", t.UUID}, {"Fecha de emisión", p.doc.Fecha}, {"Fecha de certificación", t.FechaTimbrado},
		{"RFC del proveedor de certificación", t.RfcProvCertif}, {"No. de certificado del SAT", t.NoCertificadoSAT},
		{"No. de certificado del emisor", p.doc.NoCertificado}, {"Versión del timbre", t.Version}, {"Leyenda", t.Leyenda},
	} {
		if kv[1] == "" {
			continue
		}
		f.SetX(left)
		p.font("B", pdfFontBody)
		lw := f.GetStringWidth(p.tr(kv[0]+": ")) + 1
		f.CellFormat(lw, pdfLineH+0.4, p.tr(kv[0]+": "), "", 0, "L", false, 0, "")
		p.font("", pdfFontBody)
		f.CellFormat(p.width-qrSize-3-lw, pdfLineH+0.4, p.tr(kv[1]), "", 1, "L", false, 0, "")
	}
	if f.GetY() < y0+qrSize+1 {
		f.SetY(y0 + qrSize + 1)
	}
	for _, s := range [][2]string{
		{"Sello digital del CFDI", p.doc.Sello}, {"Sello digital del SAT", t.SelloSAT},
		{"Cadena original del complemento de certificación digital del SAT", t.Cadena()},
	} {
		p.need(12)
		p.font("B", 7)
		f.CellFormat(p.width, pdfLineH, p.tr(s[0]+":"), "", 1, "L", false, 0, "")
		f.SetFont("Courier", "", 5.5)
		f.MultiCell(p.width, 2.6, p.tr(s[1]), "", "L", false)
		f.Ln(0.8)
	}
	return f.Error()
}

func (p *pdfDoc) footer() {
	f := p.f
	f.SetY(-13)
	p.font("", 6.5)
	f.SetTextColor(110, 110, 110)
	f.CellFormat(p.width*0.75, 4, p.tr("Este documento es una representación impresa de un CFDI 4.0. Folio fiscal: "+p.tfd.UUID), "T", 0, "L", false, 0, "")
	f.CellFormat(p.width*0.25, 4, p.tr(fmt.Sprintf("Página %d de {nb}", f.PageNo())), "T", 0, "R", false, 0, "")
	p.bodyText()
}
