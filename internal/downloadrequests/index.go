package downloadrequests

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/cfdi"
)

// MaxCFDISize bounds one CFDI file of a package.
const MaxCFDISize = 64 << 20

// readXMLFile reads one CFDI of an XML package into the client's Xml shape: the comprobante's
// attributes, issuer, recipient, global information and the file itself.
func readXMLFile(zf *zip.File, requestID, packageID string) (api.DownloadXML, error) {
	rc, err := zf.Open()
	if err != nil {
		return api.DownloadXML{}, err
	}
	defer rc.Close()
	raw, err := io.ReadAll(io.LimitReader(rc, MaxCFDISize+1))
	if err != nil {
		return api.DownloadXML{}, fmt.Errorf("package %s, %s: %w", packageID, zf.Name, err)
	}
	if len(raw) > MaxCFDISize {
		return api.DownloadXML{}, fmt.Errorf("package %s, %s: larger than %d bytes", packageID, zf.Name, MaxCFDISize)
	}
	if cfdi.IsRetenciones(bytes.NewReader(raw)) {
		return retencionesXML(raw, requestID, packageID, zf.Name)
	}
	x := api.DownloadXML{DownloadRequestID: requestID, DownloadPackageID: packageID, Base64Content: base64.StdEncoding.EncodeToString(raw),
		Taxes: []any{}, XMLRelated: []any{}, XMLItems: []any{}, XMLComplements: []any{}}
	dec := xml.NewDecoder(strings.NewReader(string(raw)))
	var stack []string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return x, fmt.Errorf("package %s, %s: not XML: %w", packageID, zf.Name, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			parent := ""
			if len(stack) > 0 {
				parent = stack[len(stack)-1]
			}
			stack = append(stack, t.Name.Local)
			a := map[string]string{}
			for _, at := range t.Attr {
				a[at.Name.Local] = at.Value
			}
			s := func(k string) *string {
				if v, ok := a[k]; ok {
					return &v
				}
				return nil
			}
			f := func(k string) *float64 {
				if v, ok := a[k]; ok {
					if n, err := strconv.ParseFloat(v, 64); err == nil {
						return &n
					}
				}
				return nil
			}
			switch {
			case len(stack) == 1 && t.Name.Local == "Comprobante":
				x.Version, x.Series, x.Number, x.Date = a["Version"], s("Serie"), s("Folio"), a["Fecha"]
				x.PaymentForm, x.PaymentMethod, x.CertificateNumber = s("FormaPago"), s("MetodoPago"), a["NoCertificado"]
				x.PaymentConditions, x.Currency, x.InvoiceType = s("CondicionesDePago"), a["Moneda"], a["TipoDeComprobante"]
				x.Export, x.ExpeditionZipCode, x.Confirmation = a["Exportacion"], a["LugarExpedicion"], s("Confirmacion")
				x.Discount, x.ExchangeRate = f("Descuento"), f("TipoCambio")
				if v := f("SubTotal"); v != nil {
					x.SubTotal = *v
				}
				if v := f("Total"); v != nil {
					x.Total = *v
				}
			case parent == "Comprobante" && t.Name.Local == "Emisor":
				x.XMLIssuer = api.DownloadXMLIssuer{Tin: a["Rfc"], LegalName: a["Nombre"], TaxRegime: a["RegimenFiscal"]}
			case parent == "Comprobante" && t.Name.Local == "Receptor":
				x.XMLRecipient = api.DownloadXMLPerson{Tin: a["Rfc"], LegalName: a["Nombre"], ZipCode: a["DomicilioFiscalReceptor"],
					TaxRegime: a["RegimenFiscalReceptor"], CfdiUse: a["UsoCFDI"], ForeignTaxID: s("NumRegIdTrib"), FiscalResidence: s("ResidenciaFiscal")}
			case parent == "Comprobante" && t.Name.Local == "InformacionGlobal":
				x.XMLGlobalInformation = &api.DownloadXMLGlobal{Periodicity: a["Periodicidad"], Month: a["Meses"], Year: a["Año"]}
			case parent == "Comprobante" && t.Name.Local == "Impuestos":
				x.TotalWithheldTaxes, x.TotalTransferredTaxes = f("TotalImpuestosRetenidos"), f("TotalImpuestosTrasladados")
			case parent == "Complemento" && t.Name.Local == "TimbreFiscalDigital":
				x.InvoiceUUID = strings.ToUpper(a["UUID"])
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	if x.InvoiceUUID == "" {
		return x, fmt.Errorf("package %s, %s: not a stamped CFDI", packageID, zf.Name)
	}
	return x, nil
}

// readMetadata reads the metadata lines of a package: every root .txt but the _tercero ones,
// `~`-separated with a header line, CRLF line ends (a bare LF may sit inside a field).
func readMetadata(z *zip.Reader, requestID, packageID string) ([]api.DownloadMetadataItem, error) {
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
func eachMetadata(z *zip.Reader, requestID, packageID string, fn func(api.DownloadMetadataItem) error) error {
	for _, zf := range z.File {
		if !strings.HasSuffix(strings.ToLower(zf.Name), ".txt") || strings.HasSuffix(strings.ToLower(zf.Name), "_tercero.txt") {
			continue
		}
		rc, err := zf.Open()
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
	}
	return nil
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
