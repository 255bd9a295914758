package webhook

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/testpaths"
)

// referenceDir holds the Standard Webhooks reference verifier (npm standardwebhooks).
var referenceDir = testpaths.Repo("testscripts", "compat", "standardwebhooks")

// TestReferenceVerifier signs deliveries with Sign and Headers and has the reference library
// (new Webhook(secret).verify(payload, headers), npm standardwebhooks) verify them. It needs
// node and `npm ci --prefix testscripts/compat/standardwebhooks`; it skips without them, unless
// TIMBRA_REQUIRE_COMPAT=1 (CI), where it fails.
func TestReferenceVerifier(t *testing.T) {
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(referenceDir, "node_modules", "standardwebhooks", "package.json"))
	}
	if err != nil {
		msg := "needs node and the Standard Webhooks reference verifier: run 'npm ci --prefix testscripts/compat/standardwebhooks' (" + err.Error() + ")"
		if os.Getenv("TIMBRA_REQUIRE_COMPAT") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}

	type refCase struct {
		Name       string            `json:"name"`
		Secret     string            `json:"secret"`
		Headers    map[string]string `json:"headers"`
		BodyBase64 string            `json:"bodyBase64"`
		wantValid  bool
		firstSig   string // our signature under Secret, to compare with the library's sign
	}
	// The reference library checks the timestamp against its own clock (5 minutes either way):
	// sign with the current time.
	now := time.Now()
	oldSecret, newSecret, otherSecret := NewSecret(), NewSecret(), NewSecret()
	large := `{"items":[` + strings.Repeat(`{"rfc":"EKU9003173C9","total":"1160.00"},`, 2000) + `{}]}`
	bodies := []struct {
		name string
		body string
	}{
		{"event envelope", `{"id":"` + testID + `","type":"invoice.canceled","createdAt":"2026-01-01T00:00:00.000Z","personId":null,"data":{"relatedObject":{"id":"a1","type":"invoice","url":"/api/v4/invoices/a1"},"status":"Cancelada","previousStatus":"Vigente"}}`},
		{"unicode body", `{"nombre":"Facturación Ñandú — Müller 日本語 😀","descripción":"pago en señal de ¡éxito!","esc":"\u00e9\u2028"}`},
		{"empty body", ``},
		{"pretty JSON with newlines", "{\n  \"type\": \"webhook.test\",\n  \"data\": {}\n}\n"},
		{"large body", large},
	}

	var cases []refCase
	add := func(name, secret, id string, ts time.Time, sig string, body []byte, valid bool, first string) {
		h := Headers(id, ts, sig)
		cases = append(cases, refCase{
			Name:   name,
			Secret: secret,
			Headers: map[string]string{
				"webhook-id":        h.Get(HeaderID),
				"webhook-timestamp": h.Get(HeaderTimestamp),
				"webhook-signature": h.Get(HeaderSignature),
			},
			BodyBase64: base64.StdEncoding.EncodeToString(body),
			wantValid:  valid,
			firstSig:   first,
		})
	}
	for i, b := range bodies {
		id := "evt_" + strings.Repeat("x", i) + testID
		body := []byte(b.body)
		one, err := Sign([]string{newSecret}, id, now, body)
		if err != nil {
			t.Fatal(err)
		}
		add(b.name+", one secret", newSecret, id, now, one, body, true, one)
		two, err := Sign([]string{newSecret, oldSecret}, id, now, body)
		if err != nil {
			t.Fatal(err)
		}
		oldOnly, _ := Sign([]string{oldSecret}, id, now, body)
		add(b.name+", two secrets, verified with the new one", newSecret, id, now, two, body, true, one)
		add(b.name+", two secrets, verified with the old one", oldSecret, id, now, two, body, true, oldOnly)
	}
	// The reference library must refuse what Verify refuses: the oracle is not blind.
	body := []byte(bodies[0].body)
	good, _ := Sign([]string{newSecret}, testID, now, body)
	add("wrong secret", otherSecret, testID, now, good, body, false, "")
	add("tampered body", newSecret, testID, now, good, bytes.Replace(body, []byte("Cancelada"), []byte("Vigente"), 1), false, "")
	stale := now.Add(-10 * time.Minute)
	staleSig, _ := Sign([]string{newSecret}, testID, stale, body)
	add("stale timestamp", newSecret, testID, stale, staleSig, body, false, "")

	in, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "verify.mjs")
	cmd.Dir = referenceDir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node verify.mjs: %v\n%s", err, stderr.String())
	}
	var results []struct {
		Name     string  `json:"name"`
		Verified bool    `json:"verified"`
		Error    *string `json:"error"`
		Sign     string  `json:"sign"`
	}
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("node output %q: %v", out, err)
	}
	if len(results) != len(cases) {
		t.Fatalf("node answered %d results for %d cases", len(results), len(cases))
	}
	for i, c := range cases {
		r := results[i]
		msg := ""
		if r.Error != nil {
			msg = *r.Error
		}
		switch {
		case r.Name != c.Name:
			t.Errorf("result %d is %q, want %q", i, r.Name, c.Name)
		case r.Verified != c.wantValid:
			t.Errorf("%s: reference verified=%v (%s), want %v", c.Name, r.Verified, msg, c.wantValid)
		case c.firstSig != "" && r.Sign != c.firstSig:
			t.Errorf("%s: reference signs %s, timbra %s", c.Name, r.Sign, c.firstSig)
		default:
			t.Logf("%s: reference verified=%v %s", c.Name, r.Verified, msg)
		}
		// Verify agrees with the reference on every case.
		h := Headers(c.Headers["webhook-id"], time.Time{}, c.Headers["webhook-signature"])
		h.Set(HeaderTimestamp, c.Headers["webhook-timestamp"])
		b, _ := base64.StdEncoding.DecodeString(c.BodyBase64)
		if err := Verify(c.Secret, h, b, now, DefaultTolerance); (err == nil) != c.wantValid {
			t.Errorf("%s: Verify = %v, want valid=%v", c.Name, err, c.wantValid)
		}
	}
}
