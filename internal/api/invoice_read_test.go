package api

import "testing"

func TestInvoiceFileLocalName(t *testing.T) {
	for _, c := range []struct{ name, ext, want string }{
		{"5A6B7C8D-1234-4ABC-9DEF-0123456789AB.xml", "xml", "5A6B7C8D-1234-4ABC-9DEF-0123456789AB.xml"}, // timbra's form: not joined twice
		{"5A6B7C8D.PDF", "pdf", "5A6B7C8D.PDF"},
		{"5A6B7C8D", "xml", "5A6B7C8D.xml"}, // a bare name gets its extension
		{"5A6B7C8D", ".xml", "5A6B7C8D.xml"},
		{"factura.xml", "", "factura.xml"},
		{"../../.bashrc", "", ""},
		{"../evil", "xml", ""},
		{`..\evil.xml`, "xml", ""},
		{"/etc/passwd", "", ""},
		{".hidden.xml", "xml", ""},
		{"-", "", ""},
		{"--out.xml", "xml", ""},
		{"", "", ""},
		{"a\nb.xml", "xml", ""},
		{"a\x00b.xml", "xml", ""},
	} {
		got, err := InvoiceFile{FileName: c.name, FileExtension: c.ext}.LocalName()
		if got != c.want || (err == nil) != (c.want != "") {
			t.Errorf("LocalName(%q, %q) = %q, %v; want %q", c.name, c.ext, got, err, c.want)
		}
	}
}
