package downloadrequests

import (
	"archive/zip"
	"bytes"
	"testing"
)

// TestParseDate: an offset is taken to Mexico City's wall clock (as the SAT's dates are), a
// date without one is that wall clock.
func TestParseDate(t *testing.T) {
	for in, want := range map[string]string{
		"2025-01-01T00:00:00.000-06:00": "2025-01-01T00:00:00",
		"2025-01-01T06:00:00Z":          "2025-01-01T00:00:00",
		"2025-07-01T12:30:00":           "2025-07-01T12:30:00",
		"2025-07-01":                    "2025-07-01T00:00:00",
	} {
		got, ok := parseDate(in)
		if !ok || got.Format(wallLayout) != want {
			t.Errorf("parseDate(%q) = %v %v, want %s", in, got, ok, want)
		}
	}
	if _, ok := parseDate("01/07/2025"); ok {
		t.Error("a date that is not ISO 8601 passed")
	}
}

// TestReadMetadata: lines end in CRLF and a bare LF stays in its field; the _tercero file is
// not metadata lines; a cancelled line has its date.
func TestReadMetadata(t *testing.T) {
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	f, _ := z.Create("ABC_01.txt")
	f.Write([]byte("Uuid~RfcEmisor~NombreEmisor~RfcReceptor~NombreReceptor~RfcPac~FechaEmision~FechaCertificacionSat~Monto~EfectoComprobante~Estatus~FechaCancelacion\r\n" +
		"aaaaaaaa-0000-4000-8000-000000000001~EKU9003173C9~ESCUELA\nKEMPER~AAA010101AAA~\"B\"~SAT970701NN3~2024-01-05 10:00:00~2024-01-05 10:01:00~1160.50~I~0~2024-02-01 09:00:00\r\n"))
	g, _ := z.Create("ABC_01_tercero.txt")
	g.Write([]byte("Uuid~RfcACuentaTerceros~NombreACuentaTerceros\r\nx~y~z\r\n"))
	z.Close()
	r, err := zip.NewReader(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	ms, err := readMetadata(r, "req", "ABC_01")
	if err != nil || len(ms) != 1 {
		t.Fatalf("%+v %v", ms, err)
	}
	m := ms[0]
	if m.InvoiceUUID != "AAAAAAAA-0000-4000-8000-000000000001" || m.IssuerName != "ESCUELA\nKEMPER" || m.RecipientName != `"B"` || m.Amount != 1160.5 ||
		m.Status != 0 || m.CancellationDate == nil || *m.CancellationDate != "2024-02-01T09:00:00" || m.SatCertificationDate != "2024-01-05T10:01:00" {
		t.Errorf("%+v", m)
	}
}
