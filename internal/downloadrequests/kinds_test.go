package downloadrequests

import (
	"archive/zip"
	"bytes"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/satws"
	"github.com/timbra-mx/timbra/internal/satws/satwstest"
	"github.com/timbra-mx/timbra/storage"
)

// TestQueryOf: a download by UUID is SAT's Folio query with only the UUID and the requester;
// Retenciones ask for TipoSolicitud CFDI; onBehalfTin is RfcACuentaTerceros; the requester is
// the issuer of Emitidos and the receiver of Recibidos.
func TestQueryOf(t *testing.T) {
	jan, feb := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		r    storage.DownloadRequest
		want satws.Query
	}{
		{"by UUID", storage.DownloadRequest{DownloadTypeID: DownloadByUUID, SatQueryTypeID: "CFDI", RequesterTin: "EKU9003173C9", UUID: "96623061-61FE-49DE-B298-C7156476AA8B"},
			satws.Query{Operation: satws.ByUUID, Requester: "EKU9003173C9", UUID: "96623061-61FE-49DE-B298-C7156476AA8B"}},
		{"retenciones issued", storage.DownloadRequest{DownloadTypeID: "Emitidos", SatQueryTypeID: QueryRetenciones, RequesterTin: "EKU9003173C9", IssuerTin: "EKU9003173C9", StartDate: jan, EndDate: feb},
			satws.Query{Operation: satws.Issued, Requester: "EKU9003173C9", Issuer: "EKU9003173C9", Start: jan, End: feb, RequestType: satws.RequestCFDI}},
		{"received on behalf", storage.DownloadRequest{DownloadTypeID: "Recibidos", SatQueryTypeID: "Metadata", RequesterTin: "EKU9003173C9", RecipientTin: "EKU9003173C9",
			IssuerTin: "AAA010101AAA", OnBehalfTin: "CACX7605101P8", StartDate: jan, EndDate: feb},
			satws.Query{Operation: satws.Received, Requester: "EKU9003173C9", Receiver: "EKU9003173C9", Issuer: "AAA010101AAA", OnBehalf: "CACX7605101P8",
				Start: jan, End: feb, RequestType: satws.RequestMetadata}},
	} {
		got := queryOf(c.r)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got  %+v\n want %+v", c.name, got, c.want)
		}
		if err := got.Check(); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	w := &Worker{Endpoints: satws.EndpointsAt("http://cfdi"), Retenciones: satws.EndpointsAt("http://ret")}
	if w.endpointsOf(storage.DownloadRequest{SatQueryTypeID: QueryRetenciones}).Query != "http://ret"+satws.PathQuery ||
		w.endpointsOf(storage.DownloadRequest{SatQueryTypeID: "CFDI", DownloadTypeID: DownloadByUUID}).Query != "http://cfdi"+satws.PathQuery {
		t.Error("endpointsOf")
	}
}

// TestCheckParametersKinds: the rules of the three kinds, one failure each.
func TestCheckParametersKinds(t *testing.T) {
	const id = "96623061-61FE-49DE-B298-C7156476AA8B"
	for _, c := range []struct {
		name      string
		r         storage.DownloadRequest
		prop, msg string // "" for none
	}{
		{"by UUID", storage.DownloadRequest{DownloadTypeID: DownloadByUUID, SatQueryTypeID: "CFDI", UUID: id}, "", ""},
		{"retención by UUID", storage.DownloadRequest{DownloadTypeID: DownloadByUUID, SatQueryTypeID: QueryRetenciones, UUID: id}, "", ""},
		{"no UUID", storage.DownloadRequest{DownloadTypeID: DownloadByUUID, SatQueryTypeID: "CFDI"}, "Uuid", MsgUUIDRequired},
		{"short UUID", storage.DownloadRequest{DownloadTypeID: DownloadByUUID, SatQueryTypeID: "CFDI", UUID: "96623061"}, "Uuid", fmt.Sprintf(MsgBadUUID, "96623061")},
		{"UUID in braces", storage.DownloadRequest{DownloadTypeID: DownloadByUUID, SatQueryTypeID: "CFDI", UUID: "{" + id + "}"}, "Uuid", fmt.Sprintf(MsgBadUUID, "{"+id+"}")},
		{"metadata by UUID", storage.DownloadRequest{DownloadTypeID: DownloadByUUID, SatQueryTypeID: "Metadata", UUID: id}, "SatQueryTypeId", fmt.Sprintf(MsgUUIDQueryType, "Metadata")},
		{"filter by UUID", storage.DownloadRequest{DownloadTypeID: DownloadByUUID, SatQueryTypeID: "CFDI", UUID: id, OnBehalfTin: "CACX7605101P8"}, "OnBehalfTin", fmt.Sprintf(MsgUUIDNoFilter, "onBehalfTin")},
		{"UUID of a period", storage.DownloadRequest{DownloadTypeID: "Emitidos", SatQueryTypeID: "CFDI", UUID: id}, "Uuid", MsgUUIDOnly},
		{"on behalf", storage.DownloadRequest{DownloadTypeID: "Emitidos", SatQueryTypeID: "CFDI", OnBehalfTin: "CACX7605101P8"}, "", ""},
		{"on behalf of no day", storage.DownloadRequest{DownloadTypeID: "Emitidos", SatQueryTypeID: "CFDI", OnBehalfTin: "CACX760230AA1"}, "OnBehalfTin",
			"El RFC 'CACX760230AA1' no es válido: su fecha 760230 (AAMMDD) no existe en el calendario."},
		{"retenciones", storage.DownloadRequest{DownloadTypeID: "Emitidos", SatQueryTypeID: QueryRetenciones}, "", ""},
		{"retenciones of a complement", storage.DownloadRequest{DownloadTypeID: "Emitidos", SatQueryTypeID: QueryRetenciones, SatInvoiceComplement: "nomina12"},
			"SatInvoiceComplementId", fmt.Sprintf(MsgRetencionesNo, "satInvoiceComplementId")},
		{"received retenciones, every status", storage.DownloadRequest{DownloadTypeID: "Recibidos", SatQueryTypeID: QueryRetenciones}, "SatInvoiceStatusId", MsgReceivedXML},
		{"another download type", storage.DownloadRequest{DownloadTypeID: "Folio", SatQueryTypeID: "CFDI"}, "DownloadTypeId", fmt.Sprintf(MsgBadDownloadType, "Folio")},
	} {
		fs := checkParameters(&c.r)
		switch {
		case c.prop == "" && len(fs) > 0:
			t.Errorf("%s: %+v", c.name, fs)
		case c.prop != "" && (len(fs) != 1 || fs[0].PropertyName != c.prop || fs[0].ErrorMessage != c.msg):
			t.Errorf("%s: %+v, want %s %q", c.name, fs, c.prop, c.msg)
		}
	}
}

// TestReadRetencionesFile: a withholding CFDI of an XML package is indexed (where it is in the
// package) and read back with its UUID, issuer, receiver, date and totals; the file kept whole.
func TestReadRetencionesFile(t *testing.T) {
	doc := satwstest.Retenciones("aaaaaaaa-1111-4111-8111-111111111111", "EKU9003173C9", "AAA010101AAA", "2024-01-10T12:00:00")
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	f, _ := z.Create("aaaaaaaa-1111-4111-8111-111111111111.xml")
	f.Write(doc)
	z.Close()
	r, files := readZip(t, b.Bytes())
	e, err := indexXMLFile(r, files[0], "P_01")
	if err != nil || e.Package != "P_01" || e.RawSize != int64(len(doc)) {
		t.Fatalf("entry %+v: %v", e, err)
	}
	x, err := xmlOf(doc, "req", "P_01", 0)
	if err != nil {
		t.Fatal(err)
	}
	if x.InvoiceUUID != "AAAAAAAA-1111-4111-8111-111111111111" || x.XMLIssuer.Tin != "EKU9003173C9" || x.XMLIssuer.TaxRegime != "601" ||
		x.XMLRecipient.Tin != "AAA010101AAA" || x.XMLRecipient.LegalName != "RECEPTOR RET" || x.Date != "2024-01-10T12:00:00" ||
		x.Total != 1000 || x.SubTotal != 1000 || x.TotalWithheldTaxes == nil || *x.TotalWithheldTaxes != 100 || x.Currency != "MXN" ||
		x.Version != "2.0" || x.CertificateNumber != "30001000000500003416" || x.ExpeditionZipCode != "42501" || x.InvoiceType != "" ||
		x.DownloadRequestID != "req" || x.DownloadPackageID != "P_01" || x.Base64Content == "" || x.ID != entryID("req", "xml", 0) {
		t.Errorf("%+v", x)
	}
}
