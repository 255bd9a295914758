package cfdi

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/timbra-mx/timbra/internal/testpaths"
)

// satDir is ../shared/sat from the repository's root (testpaths.Shared), or the
// test is skipped.
func satDir(t testing.TB) string {
	t.Helper()
	d, err := filepath.Abs(testpaths.Shared("sat"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(d, "samples")); err != nil {
		t.Skipf("SAT resources not found at %s (../shared/sat beside the repository): %v", d, err)
	}
	return d
}

func satFile(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(satDir(t), rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const (
	xslt40  = "resources/www.sat.gob.mx/sitio_internet/cfd/4/cadenaoriginal_4_0/cadenaoriginal_4_0.xslt"
	xsltTFD = "resources/www.sat.gob.mx/sitio_internet/cfd/TimbreFiscalDigital/cadenaoriginal_TFD_1_1.xslt"
)

func needTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not installed (Debian package %s): the cross-check is skipped", name, name)
	}
	return p
}

// xsltproc applies SAT's stylesheet (a path under ../shared/sat) to the XML files and returns
// each output.
func xsltprocFiles(t testing.TB, stylesheet string, files ...string) [][]byte {
	t.Helper()
	bin := needTool(t, "xsltproc")
	xsl := filepath.Join(satDir(t), stylesheet)
	out := make([][]byte, len(files))
	for i, f := range files {
		var stderr bytes.Buffer
		cmd := exec.Command(bin, xsl, f)
		cmd.Stderr = &stderr
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("xsltproc %s %s: %v\n%s", stylesheet, f, err, stderr.String())
		}
		out[i] = b
	}
	return out
}

func xsltproc(t testing.TB, stylesheet string, doc []byte) []byte {
	t.Helper()
	f := filepath.Join(t.TempDir(), "doc.xml")
	if err := os.WriteFile(f, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	return xsltprocFiles(t, stylesheet, f)[0]
}
