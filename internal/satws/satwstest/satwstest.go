// Package satwstest gives tests SAT's test e.firma (EKU9003173C9, from the shared folder beside
// the repository) as a satws.Credential, and a CSD of the same RFC, which the service refuses.
package satwstest

import (
	"bytes"
	"os"
	"testing"

	"github.com/timbra-mx/timbra/internal/satws"
	"github.com/timbra-mx/timbra/internal/testpaths"
)

// Files are the paths of SAT's test e.firma: certificate, key, password.
func Files() (cer, key, password string) {
	return testpaths.Shared("sat", "certs", "efirma", "EKU9003173C9.cer"),
		testpaths.Shared("sat", "certs", "efirma", "EKU9003173C9.key"),
		testpaths.Shared("sat", "certs", "efirma", "EKU9003173C9.password.txt")
}

func read(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("SAT's test e.firma is not beside the repository (%v)", err)
	}
	return b
}

// EFirma is SAT's test e.firma of EKU9003173C9 (serial 30001000000500003415).
func EFirma(t testing.TB) *satws.Credential {
	t.Helper()
	cer, key, pw := Files()
	c, err := satws.OpenCredential(read(t, cer), read(t, key), bytes.TrimSpace(read(t, pw)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// CSD is the certificate and key of SAT's test CSD of EKU9003173C9 (not an e.firma) and its
// password.
func CSD(t testing.TB) (cer, key, password []byte) {
	t.Helper()
	return read(t, testpaths.Shared("sat", "certs", "EKU9003173C9.cer")), read(t, testpaths.Shared("sat", "certs", "EKU9003173C9.key")),
		bytes.TrimSpace(read(t, testpaths.Shared("sat", "certs", "EKU9003173C9.password.txt")))
}
