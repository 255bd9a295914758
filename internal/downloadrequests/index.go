package downloadrequests

import (
	"bufio"
	"bytes"
	"compress/flate"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/storage"
)

// MaxCFDISize bounds one CFDI file of a package (what cfdi.ReadCFDI reads).
const MaxCFDISize = cfdi.MaxReadSize

// xmlEntry is the index entry of one CFDI of an XML package: where its file's data is in the
// package as stored (its offset, sizes, ZIP method and CRC-32). The index keeps no more: an
// `xmls` page reads each of its CFDIs from the package (storage.ReadPackageAt, a few chunks at
// most) and reads it with cfdi.ReadCFDI, so the index does not repeat the XML.
type xmlEntry struct {
	Package       string
	Offset        int64  // of the file's data in the ZIP
	Size, RawSize int64  // the data's size in the ZIP, and the file's
	Method        uint16 // zipStore or zipDeflate
	CRC32         uint32
}

// xmlEntryForm is the first byte of an xmlEntry as stored (an entry of the JSON form written
// before begins with '{').
const xmlEntryForm = 1

func (e xmlEntry) encode() []byte {
	b := []byte{xmlEntryForm}
	b = binary.AppendUvarint(b, uint64(len(e.Package)))
	b = append(b, e.Package...)
	for _, v := range []uint64{uint64(e.Offset), uint64(e.Size), uint64(e.RawSize), uint64(e.Method)} {
		b = binary.AppendUvarint(b, v)
	}
	return binary.BigEndian.AppendUint32(b, e.CRC32)
}

func decodeXMLEntry(b []byte) (xmlEntry, error) {
	bad := fmt.Errorf("download index: a malformed entry (%d bytes)", len(b))
	if len(b) == 0 || b[0] != xmlEntryForm {
		return xmlEntry{}, bad
	}
	b = b[1:]
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return xmlEntry{}, bad
	}
	e := xmlEntry{Package: string(b[k : k+int(n)])}
	b = b[k+int(n):]
	var vs [4]uint64
	for i := range vs {
		if vs[i], k = binary.Uvarint(b); k <= 0 || vs[i] > math.MaxInt64 {
			return xmlEntry{}, bad
		}
		b = b[k:]
	}
	if len(b) != 4 || vs[3] > math.MaxUint16 {
		return xmlEntry{}, bad
	}
	e.Offset, e.Size, e.RawSize, e.Method, e.CRC32 = int64(vs[0]), int64(vs[1]), int64(vs[2]), uint16(vs[3]), binary.BigEndian.Uint32(b)
	return e, nil
}

// indexXMLFile reads one CFDI of an XML package (it must be a stamped CFDI that
// cfdi.ReadCFDI reads) and answers its index entry.
func indexXMLFile(z *zipReader, zf zipEntry, packageID string) (xmlEntry, error) {
	fail := func(err error) (xmlEntry, error) {
		return xmlEntry{}, fmt.Errorf("package %s, %s: %w", packageID, zf.Name, err)
	}
	if zf.Method != zipStore && zf.Method != zipDeflate {
		return fail(fmt.Errorf("ZIP method %d", zf.Method))
	}
	if zf.RawSize > MaxCFDISize || zf.Size > MaxCFDISize {
		return fail(fmt.Errorf("larger than %d bytes", MaxCFDISize))
	}
	rc, err := z.open(zf)
	if err != nil {
		return fail(err)
	}
	defer rc.Close()
	// a withholding CFDI (Retenciones) or a CFDI: the root says which, read from the first bytes
	br := bufio.NewReaderSize(rc, 4096)
	head, _ := br.Peek(4096)
	if cfdi.IsRetenciones(bytes.NewReader(head)) {
		if _, err := cfdi.ReadRetenciones(br); err != nil {
			return fail(err)
		}
	} else {
		d, err := cfdi.ReadCFDI(br)
		if err != nil {
			return fail(err)
		}
		if d.Timbre == nil || d.Timbre.UUID == "" {
			return fail(errors.New("not a stamped CFDI"))
		}
	}
	// what the reading left: its end checks the file's size and CRC-32
	if _, err := io.Copy(io.Discard, br); err != nil {
		return fail(err)
	}
	return xmlEntry{Package: packageID, Offset: zf.Offset, Size: zf.Size, RawSize: zf.RawSize, Method: zf.Method, CRC32: zf.CRC32}, nil
}

// readXMLEntry answers the CFDI of an index entry (either form) and its package: from the
// stored package for an xmlEntry, from the entry itself for the JSON form written before.
func readXMLEntry(rs storage.DownloadRequests, requestID string, b []byte) (raw []byte, packageID string, err error) {
	if len(b) > 0 && b[0] == '{' {
		var old struct {
			DownloadPackageID string `json:"downloadPackageId"`
			Base64Content     string `json:"base64Content"`
		}
		if err := json.Unmarshal(b, &old); err != nil {
			return nil, "", err
		}
		raw, err := base64.StdEncoding.DecodeString(old.Base64Content)
		return raw, old.DownloadPackageID, err
	}
	e, err := decodeXMLEntry(b)
	if err != nil {
		return nil, "", err
	}
	if e.Size > MaxCFDISize || e.RawSize > MaxCFDISize {
		return nil, "", fmt.Errorf("download index: an entry of %d bytes", e.RawSize)
	}
	data := make([]byte, e.Size)
	if err := rs.ReadPackageAt(requestID, e.Package, data, e.Offset); err != nil {
		return nil, "", fmt.Errorf("package %s at %d: %w", e.Package, e.Offset, err)
	}
	raw = data
	if e.Method == zipDeflate {
		raw, err = io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(data)), e.RawSize+1))
		if err != nil {
			return nil, "", fmt.Errorf("package %s at %d: %w", e.Package, e.Offset, err)
		}
	}
	if int64(len(raw)) != e.RawSize || crc32.ChecksumIEEE(raw) != e.CRC32 {
		return nil, "", fmt.Errorf("package %s at %d: the CFDI read is not the one indexed", e.Package, e.Offset)
	}
	return raw, e.Package, nil
}

// entryID is the id of the n-th thing of a parent (an xmls entry of a request, an item of an
// entry): a UUID made from the parent's id and n (SHA-1, version 5's layout), the same on every
// read.
func entryID(parent, kind string, n int) string {
	h := sha1.Sum(fmt.Appendf(nil, "%s/%s/%d", parent, kind, n))
	h[6], h[8] = h[6]&0x0f|0x50, h[8]&0x3f|0x80
	x := hex.EncodeToString(h[:16])
	return x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:]
}

// xmlOf is the client's Xml of one CFDI: the n-th entry of a request's index, from the
// package packageID.
func xmlOf(raw []byte, requestID, packageID string, n int) (api.DownloadXML, error) {
	if cfdi.IsRetenciones(bytes.NewReader(raw)) {
		x, err := retencionesXML(raw, requestID, packageID)
		x.ID = entryID(requestID, "xml", n)
		return x, err
	}
	d, err := cfdi.ReadCFDI(bytes.NewReader(raw))
	if err != nil {
		return api.DownloadXML{}, fmt.Errorf("package %s: %w", packageID, err)
	}
	id := entryID(requestID, "xml", n)
	x := api.DownloadXML{ID: id, DownloadRequestID: requestID, DownloadPackageID: packageID, Base64Content: base64.StdEncoding.EncodeToString(raw),
		Version: d.Version, Series: opt(d.Serie), Number: opt(d.Folio), Date: d.Fecha, PaymentForm: opt(d.FormaPago),
		PaymentMethod: opt(d.MetodoPago), CertificateNumber: d.NoCertificado, PaymentConditions: opt(d.CondicionesDePago),
		SubTotal: num(d.SubTotal), Discount: optNum(d.Descuento), Currency: d.Moneda, ExchangeRate: optNum(d.TipoCambio),
		Total: num(d.Total), InvoiceType: d.TipoDeComprobante, Export: d.Exportacion, ExpeditionZipCode: d.LugarExpedicion,
		Confirmation: opt(d.Confirmacion),
		XMLIssuer:    api.DownloadXMLIssuer{Tin: d.Emisor.Rfc, LegalName: d.Emisor.Nombre, TaxRegime: d.Emisor.RegimenFiscal},
		XMLRecipient: api.DownloadXMLPerson{Tin: d.Receptor.Rfc, LegalName: d.Receptor.Nombre, ZipCode: d.Receptor.DomicilioFiscalReceptor,
			TaxRegime: d.Receptor.RegimenFiscalReceptor, CfdiUse: d.Receptor.UsoCFDI, ForeignTaxID: opt(d.Receptor.NumRegIdTrib),
			FiscalResidence: opt(d.Receptor.ResidenciaFiscal)},
		Taxes: []api.DownloadXMLTax{}, XMLRelated: []api.DownloadXMLRelated{}, XMLItems: []api.DownloadXMLItem{},
		XMLComplements: []api.DownloadXMLComplement{}}
	if d.Timbre != nil {
		x.InvoiceUUID = strings.ToUpper(d.Timbre.UUID)
	}
	if g := d.InformacionGlobal; g != nil {
		year, _ := strconv.Atoi(g.Año)
		x.XMLGlobalInformation = &api.DownloadXMLGlobal{Periodicity: g.Periodicidad, Month: g.Meses, Year: year}
	}
	if t := d.Impuestos; t != nil {
		x.TotalWithheldTaxes, x.TotalTransferredTaxes = optNum(t.TotalImpuestosRetenidos), optNum(t.TotalImpuestosTrasladados)
		for _, v := range t.Traslados {
			x.Taxes = append(x.Taxes, api.DownloadXMLTax{Base: optNum(v.Base), Tax: v.Impuesto, TaxType: opt(v.TipoFactor),
				Rate: optNum(v.TasaOCuota), Amount: optNum(v.Importe), TaxFlag: "T", XMLID: id})
		}
		for _, v := range t.Retenciones {
			x.Taxes = append(x.Taxes, api.DownloadXMLTax{Tax: v.Impuesto, Amount: optNum(v.Importe), TaxFlag: "R", XMLID: id})
		}
	}
	for _, g := range d.CfdiRelacionados {
		for _, u := range g.UUIDs {
			x.XMLRelated = append(x.XMLRelated, api.DownloadXMLRelated{XMLID: id, RelationshipType: g.TipoRelacion, CfdiUUID: u})
		}
	}
	for i, c := range d.Conceptos {
		item := api.DownloadXMLItem{ID: entryID(id, "item", i), XMLID: id, ItemCode: c.ClaveProdServ, SKU: opt(c.NoIdentificacion),
			Quantity: num(c.Cantidad), UnitMeasurement: c.ClaveUnidad, Description: c.Descripcion, UnitPrice: num(c.ValorUnitario),
			Amount: num(c.Importe), Discount: optNum(c.Descuento), TaxObject: opt(c.ObjetoImp),
			XMLItemCustomsInformation: []api.DownloadXMLItemCustoms{}, XMLItemPropertyAccounts: []api.DownloadXMLItemProperty{},
			Taxes: []api.DownloadXMLItemTax{}}
		if c.ACuentaTerceros != nil {
			item.ThirdPartyAccount = opt(c.ACuentaTerceros.RfcACuentaTerceros)
		}
		for _, p := range c.InformacionAduanera {
			item.XMLItemCustomsInformation = append(item.XMLItemCustomsInformation, api.DownloadXMLItemCustoms{XMLItemID: item.ID, CustomsDocumentNumber: p})
		}
		for _, p := range c.CuentaPredial {
			item.XMLItemPropertyAccounts = append(item.XMLItemPropertyAccounts, api.DownloadXMLItemProperty{XMLItemID: item.ID, PropertyAccountNumber: p})
		}
		for _, v := range c.Traslados {
			item.Taxes = append(item.Taxes, api.DownloadXMLItemTax{Base: optNum(v.Base), Tax: v.Impuesto, TaxType: opt(v.TipoFactor),
				Rate: optNum(v.TasaOCuota), Amount: optNum(v.Importe), TaxFlag: "T", XMLItemID: item.ID})
		}
		for _, v := range c.Retenciones {
			item.Taxes = append(item.Taxes, api.DownloadXMLItemTax{Base: optNum(v.Base), Tax: v.Impuesto, TaxType: opt(v.TipoFactor),
				Rate: optNum(v.TasaOCuota), Amount: optNum(v.Importe), TaxFlag: "R", XMLItemID: item.ID})
		}
		x.XMLItems = append(x.XMLItems, item)
	}
	for _, c := range d.Complementos {
		x.XMLComplements = append(x.XMLComplements, api.DownloadXMLComplement{ComplementName: c.Local,
			Base64ComplementValue: base64.StdEncoding.EncodeToString(c.XML), XMLID: id})
	}
	return x, nil
}

// num is a number attribute's value (0 when absent or not a number: the CFDI's schema is not
// checked here).
func num(s string) float64 {
	if n := optNum(s); n != nil {
		return *n
	}
	return 0
}

// optNum is an optional number attribute's value: nil when absent or not a finite number.
func optNum(s string) *float64 {
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
		return nil
	}
	return &n
}

// readMetadata reads the metadata lines of a package: every root .txt but the _tercero ones,
// `~`-separated with a header line, CRLF line ends (a bare LF may sit inside a field).
func readMetadata(z *zipReader, requestID, packageID string) ([]api.DownloadMetadataItem, error) {
	var out []api.DownloadMetadataItem
	err := eachMetadata(z, requestID, packageID, func(m api.DownloadMetadataItem) error {
		out = append(out, m)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachMetadata calls fn with each metadata line of a package, in order, holding one line at a
// time.
func eachMetadata(z *zipReader, requestID, packageID string, fn func(api.DownloadMetadataItem) error) error {
	return z.each(func(zf zipEntry) error {
		if !strings.HasSuffix(strings.ToLower(zf.Name), ".txt") || strings.HasSuffix(strings.ToLower(zf.Name), "_tercero.txt") {
			return nil
		}
		rc, err := z.open(zf)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(rc)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		sc.Split(splitCRLF)
		var cols map[string]int
		for sc.Scan() {
			line := sc.Text()
			if strings.TrimSpace(line) == "" {
				continue
			}
			fs := strings.Split(line, "~")
			if cols == nil {
				cols = map[string]int{}
				for i, h := range fs {
					cols[strings.TrimSpace(h)] = i
				}
				continue
			}
			get := func(k string) string {
				if i, ok := cols[k]; ok && i < len(fs) {
					return strings.TrimSpace(fs[i])
				}
				return ""
			}
			m := api.DownloadMetadataItem{InvoiceUUID: strings.ToUpper(get("Uuid")), IssuerTin: get("RfcEmisor"), IssuerName: get("NombreEmisor"),
				RecipientTin: get("RfcReceptor"), RecipientName: get("NombreReceptor"), PacTin: get("RfcPac"),
				InvoiceDate: isoLocal(get("FechaEmision")), SatCertificationDate: isoLocal(get("FechaCertificacionSat")),
				InvoiceType: get("EfectoComprobante"), DownloadPackageID: packageID, DownloadRequestID: requestID}
			m.Amount, _ = strconv.ParseFloat(get("Monto"), 64)
			m.Status, _ = strconv.Atoi(get("Estatus"))
			if c := get("FechaCancelacion"); c != "" {
				v := isoLocal(c)
				m.CancellationDate = &v
			}
			if err := fn(m); err != nil {
				rc.Close()
				return err
			}
		}
		rc.Close()
		if err := sc.Err(); err != nil {
			return fmt.Errorf("package %s, %s: %w", packageID, zf.Name, err)
		}
		return nil
	})
}

// isoLocal writes SAT's "YYYY-MM-DD HH:MM:SS" as the API's local date-time ("…T…", no offset).
func isoLocal(s string) string { return strings.Replace(s, " ", "T", 1) }

// splitCRLF splits lines at CRLF only: a bare LF belongs to the field it is in.
func splitCRLF(data []byte, atEOF bool) (int, []byte, error) {
	for i := 0; i+1 < len(data); i++ {
		if data[i] == '\r' && data[i+1] == '\n' {
			return i + 2, data[:i], nil
		}
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}
