package satws_test

import (
	"bytes"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/beevik/etree"
	"github.com/russellhaering/goxmldsig/etreeutils"

	"github.com/timbra-mx/timbra/internal/satws"
	"github.com/timbra-mx/timbra/internal/satws/satwstest"
)

func at(s string) time.Time {
	t, err := time.Parse(satws.DateFormat, s)
	if err != nil {
		panic(err)
	}
	return t
}

func digestOf(t *testing.T, msg []byte) string {
	t.Helper()
	m := regexp.MustCompile(`<DigestValue>([^<]*)</DigestValue>`).FindSubmatch(msg)
	if m == nil {
		t.Fatalf("no DigestValue in %s", msg)
	}
	return string(m[1])
}

// TestDigestsMatchPhpcfdiVectors: the digests of phpcfdi/sat-ws-descarga-masiva v1.1.1's
// request vectors (tests/_files/**, signed with SAT's test e.firma EKU9003173C9), which nodecfdi
// reproduces byte for byte and the SAT accepts in production from both.
func TestDigestsMatchPhpcfdiVectors(t *testing.T) {
	cred := satwstest.EFirma(t)
	created, _ := time.Parse(time.RFC3339, "2019-08-01T03:38:19Z")
	auth, err := cred.AuthenticateMessage(created, "uuid-cf6c80fb-00ae-44c0-af56-54ec65decbaa-1")
	if err != nil {
		t.Fatal(err)
	}
	if got := digestOf(t, auth); got != "nQnU35aTer+opzz7HKZiemZZRj8=" {
		t.Errorf("authenticate digest %s", got)
	}
	start, end := at("2019-01-01T00:00:00"), at("2019-01-01T00:04:00")
	cases := []struct {
		name string
		q    satws.Query
		want string
	}{
		{"issued", satws.Query{Operation: satws.Issued, Requester: "EKU9003173C9", Issuer: "EKU9003173C9", Start: start, End: end,
			RequestType: satws.RequestMetadata}, "BELGF9WsFcnEbvXILi03IoOZkjg="},
		{"received", satws.Query{Operation: satws.Received, Requester: "EKU9003173C9", Receiver: "EKU9003173C9", Start: start, End: end,
			RequestType: satws.RequestCFDI, InvoiceType: "N", Complement: "nomina12", Status: satws.StatusActive,
			OnBehalf: "XXX01010199A", Issuer: "AAA010101AAA"}, "kb02ycztMva0O2fcJU4VMV2gOkg="},
		{"item", satws.Query{Operation: satws.ByUUID, Requester: "EKU9003173C9", UUID: "96623061-61fe-49de-b298-c7156476aa8b"},
			"H2TUJWzcQWOWYmOUgFlHcBeZX08="},
	}
	for _, c := range cases {
		msg, err := cred.QueryMessage(c.q)
		if err != nil {
			t.Fatal(err)
		}
		if got := digestOf(t, msg); got != c.want {
			t.Errorf("%s: digest %s, want %s\n%s", c.name, got, c.want, msg)
		}
	}
	v, _ := cred.VerifyMessage("3f30a4e1-af73-4085-8991-e4d97eef16bd")
	if got := digestOf(t, v); got != "DVHsbfyUP1fm7CPdctOp8N6132E=" {
		t.Errorf("verify digest %s", got)
	}
	d, _ := cred.DownloadMessage("4e80345d-917f-40bb-a98f-4a73939343c5_01")
	if got := digestOf(t, d); got != "f0UuGyvdRtYmUtV7HA3c6lVwhdQ=" {
		t.Errorf("download digest %s", got)
	}
}

// needXMLSec1 skips without xmlsec1, except in CI, where it is installed and must run.
func needXMLSec1(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("xmlsec1")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("xmlsec1 is not installed (CI installs it: apt-get install xmlsec1)")
		}
		t.Skip("xmlsec1 is not installed: the signatures are not cross-checked (apt-get install xmlsec1)")
	}
	return p
}

func xmlsec1(t *testing.T, doc []byte, certPEM string, args ...string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	f := filepath.Join(dir, "msg.xml")
	if err := os.WriteFile(f, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	all := append([]string{"--verify", "--pubkey-cert-pem", certPEM}, args...)
	out, err := exec.Command(needXMLSec1(t), append(all, f)...).CombinedOutput()
	return string(out), err
}

// operationDocument is the body's operation element as a document of its own, with the
// namespaces in scope declared on it: what the SAT verifies.
func operationDocument(t *testing.T, msg []byte) []byte {
	t.Helper()
	doc := etree.NewDocument()
	if err := doc.ReadFromBytes(msg); err != nil {
		t.Fatal(err)
	}
	body := doc.Root().SelectElement("Body")
	op := body.ChildElements()[0]
	ctx, err := etreeutils.NSBuildParentContext(op)
	if err != nil {
		t.Fatal(err)
	}
	el, err := etreeutils.NSDetatch(ctx, op)
	if err != nil {
		t.Fatal(err)
	}
	out := etree.NewDocument()
	out.SetRoot(el)
	b, err := out.WriteToBytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestXMLSec1VerifiesMessages: xmlsec1 verifies every signed message with the e.firma's
// certificate: the authentication's signature over the timestamp (by its u:Id) in the whole
// envelope, and the other messages' enveloped signatures over the body's operation element. A
// changed byte fails.
func TestXMLSec1VerifiesMessages(t *testing.T) {
	needXMLSec1(t)
	cred := satwstest.EFirma(t)
	certPEM := filepath.Join(t.TempDir(), "efirma.pem")
	if err := os.WriteFile(certPEM, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cred.Cert.Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	auth, err := cred.AuthenticateMessage(time.Now(), "")
	if err != nil {
		t.Fatal(err)
	}
	idAttr := []string{"--id-attr:Id", satws.NSUtility + ":Timestamp"}
	if out, err := xmlsec1(t, auth, certPEM, idAttr...); err != nil {
		t.Fatalf("xmlsec1 refused the authentication: %v\n%s\n%s", err, out, auth)
	}
	tampered := bytes.Replace(auth, []byte("<u:Expires>"), []byte("<u:Expires>2"), 1)
	if out, err := xmlsec1(t, tampered, certPEM, idAttr...); err == nil {
		t.Fatalf("xmlsec1 accepted a changed timestamp:\n%s", out)
	}

	q, err := cred.QueryMessage(satws.Query{Operation: satws.Received, Requester: "EKU9003173C9", Receiver: "EKU9003173C9",
		Start: at("2024-01-01T00:00:00"), End: at("2024-02-01T00:00:00"), RequestType: satws.RequestCFDI, Status: satws.StatusActive,
		Issuer: "AAA&010101AAA"})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := cred.VerifyMessage("3f30a4e1-af73-4085-8991-e4d97eef16bd")
	d, _ := cred.DownloadMessage("3f30a4e1-af73-4085-8991-e4d97eef16bd_01")
	i, _ := cred.QueryMessage(satws.Query{Operation: satws.Issued, Requester: "EKU9003173C9", Issuer: "EKU9003173C9",
		Receivers: []string{"AAA010101AAA", "XAXX010101000"}, Start: at("2024-01-01T00:00:00"), End: at("2024-02-01T00:00:00"),
		RequestType: satws.RequestMetadata})
	for name, msg := range map[string][]byte{"received": q, "issued": i, "verify": v, "download": d} {
		doc := operationDocument(t, msg)
		if out, err := xmlsec1(t, doc, certPEM); err != nil {
			t.Errorf("xmlsec1 refused %s: %v\n%s\n%s", name, err, out, doc)
		}
		bad := bytes.Replace(doc, []byte(`RfcSolicitante="EKU9003173C9"`), []byte(`RfcSolicitante="EKU9003173C8"`), 1)
		if out, err := xmlsec1(t, bad, certPEM); err == nil || !strings.Contains(out, "fail") {
			t.Errorf("xmlsec1 accepted a changed %s: %v\n%s", name, err, out)
		}
	}
}
