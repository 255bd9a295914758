package commands

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/csd/csdtest"
)

const keyPW = "  clave con espacios  "

// taxFilesAPI answers the tax-file endpoints with fixed records.
func taxFilesAPI(t *testing.T) *fakeAPI {
	return newFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == "POST" && r.URL.Path == "/api/v4/tax-files":
			var in api.TaxFileUpload
			json.NewDecoder(r.Body).Decode(&in)
			x := api.TaxFile{ID: fmt.Sprintf("tf-%d", in.FileType), PersonID: in.PersonID, Tin: "EKU9003173C9", FileType: in.FileType, Sequence: 1}
			if in.FileType%2 == 0 {
				x.CertificateNumber = strp("30001000000500003416")
			}
			writeEnvelope(w, 200, x, "", "t")
		case strings.HasSuffix(r.URL.Path, "/default-references"):
			writeEnvelope(w, 200, []api.TaxFile{
				{ID: "tf-0", PersonID: "p-1", Tin: "EKU9003173C9", FileType: 0, Sequence: 1, CertificateNumber: strp("30001000000500003416"), ValidTo: strp("2027-05-18T11:43:51")},
				{ID: "tf-1", PersonID: "p-1", Tin: "EKU9003173C9", FileType: 1, Sequence: 1},
			}, "", "t")
		case strings.HasSuffix(r.URL.Path, "/default-values"):
			writeEnvelope(w, 200, []api.TaxFile{
				{ID: "tf-0", PersonID: "p-1", Tin: "EKU9003173C9", FileType: 0, Base64File: base64.StdEncoding.EncodeToString([]byte("CERT")), Password: keyPW, Sequence: 1},
				{ID: "tf-1", PersonID: "p-1", Tin: "EKU9003173C9", FileType: 1, Base64File: base64.StdEncoding.EncodeToString([]byte("PRIVATEKEY")), Password: keyPW, Sequence: 1},
			}, "", "t")
		case r.Method == "DELETE":
			writeEnvelope(w, 200, true, "", "t")
		case r.Method == "GET" && r.URL.Path == "/api/v4/tax-files":
			writeEnvelope(w, 200, api.NewPage([]api.TaxFile{{ID: "tf-0", PersonID: "p-1", Tin: "EKU9003173C9", CertificateNumber: strp("30001000000500003416"), Sequence: 1}}, 1, 10, 1), "", "t")
		default:
			writeEnvelope(w, 404, nil, "No such resource", "t")
		}
	})
}

func TestTaxFilesUploadSendsCertificateThenKey(t *testing.T) {
	isolate(t)
	srv := taxFilesAPI(t)
	useAPI(t, srv.URL)
	dir := t.TempDir()
	cer, key := filepath.Join(dir, "a.cer"), filepath.Join(dir, "a.key")
	must(t, os.WriteFile(cer, []byte("CERT"), 0o600))
	must(t, os.WriteFile(key, []byte("KEY"), 0o600))

	// on a terminal the password is asked once, and kept as typed (spaces included)
	r := run1(t, runOpts{inTTY: true, stdin: keyPW + "\n"}, "tax-files", "upload", "--person", "p-1", "--cer", cer, "--key", key)
	wantCode(t, r, 0)
	if n := strings.Count(r.err, "Password of the private key: "); n != 1 {
		t.Fatalf("asked %d times: %q", n, r.err)
	}
	reqs := srv.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	var first, second api.TaxFileUpload
	must(t, json.Unmarshal([]byte(reqs[0].Body), &first))
	must(t, json.Unmarshal([]byte(reqs[1].Body), &second))
	if first.FileType != 0 || first.Password != "" || first.Base64File != base64.StdEncoding.EncodeToString([]byte("CERT")) || first.PersonID != "p-1" {
		t.Errorf("certificate request %+v", first)
	}
	if second.FileType != 1 || second.Password != keyPW || second.Base64File != base64.StdEncoding.EncodeToString([]byte("KEY")) {
		t.Errorf("key request %+v", second)
	}
	wantContains(t, "stdout", r.out, "tf-0\tp-1\tEKU9003173C9\tCSD certificate\t30001000000500003416", "tf-1\tp-1\tEKU9003173C9\tCSD key")
	wantNotContains(t, "output", r.out+r.err, keyPW)

	// e.firma from an environment variable: types 2 and 3
	t.Setenv("FIEL_PW", "fiel-pw")
	r = run1(t, runOpts{}, "tax-files", "upload", "--person", "p-1", "--cer", cer, "--key", key, "--fiel", "--password-env", "FIEL_PW", "-o", "json")
	wantCode(t, r, 0)
	reqs = srv.requests()
	must(t, json.Unmarshal([]byte(reqs[2].Body), &first))
	must(t, json.Unmarshal([]byte(reqs[3].Body), &second))
	if first.FileType != 2 || second.FileType != 3 || second.Password != "fiel-pw" {
		t.Errorf("FIEL requests %+v %+v", first, second)
	}
	var saved []api.TaxFile
	if err := json.Unmarshal([]byte(r.out), &saved); err != nil || len(saved) != 2 {
		t.Errorf("JSON output %q: %v", r.out, err)
	}

	// no terminal and no password option: nothing is sent; a password never comes from a flag
	n := len(srv.requests())
	wantCode(t, run1(t, runOpts{}, "tax-files", "upload", "--person", "p-1", "--cer", cer, "--key", key), 2)
	wantCode(t, run1(t, runOpts{}, "tax-files", "upload", "--person", "p-1", "--cer", cer, "--key", key, "--password", "x"), 2)
	wantCode(t, run1(t, runOpts{}, "tax-files", "upload", "--person", "p-1", "--cer", cer, "--key", key, "--password-env", "TIMBRA_NOT_SET_PW"), 2)
	if len(srv.requests()) != n {
		t.Error("a request was sent")
	}
}

func TestTaxFilesDefaults(t *testing.T) {
	isolate(t)
	srv := taxFilesAPI(t)
	useAPI(t, srv.URL)
	r := runArgs(t, "tax-files", "defaults", "p-1")
	wantCode(t, r, 0)
	if last := srv.last(t); last.Path != "/api/v4/tax-files/p-1/default-references" {
		t.Errorf("path %s", last.Path)
	}
	wantContains(t, "stdout", r.out, "tf-0\tp-1\tEKU9003173C9\tCSD certificate\t30001000000500003416\t1\t2027-05-18T11:43:51Z")

	// values: the password shows only as set, the content as its size
	r = runArgs(t, "tax-files", "defaults", "p-1", "--values")
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.out, "Password: set (not shown)", "Content: 4 bytes", "Content: 10 bytes")
	wantNotContains(t, "stdout", r.out, strings.TrimSpace(keyPW), base64.StdEncoding.EncodeToString([]byte("CERT")))

	dir := filepath.Join(t.TempDir(), "out")
	r = runArgs(t, "tax-files", "defaults", "p-1", "--values", "--out-dir", dir, "-o", "json")
	wantCode(t, r, 0)
	wantNotContains(t, "stdout", r.out, strings.TrimSpace(keyPW), base64.StdEncoding.EncodeToString([]byte("CERT")))
	var views []map[string]any
	must(t, json.Unmarshal([]byte(r.out), &views))
	if len(views) != 2 || views[0]["passwordSet"] != true || views[0]["password"] != "" || views[0]["base64File"] != "" || views[1]["writtenTo"] != filepath.Join(dir, "EKU9003173C9.key") {
		t.Errorf("views %v", views)
	}
	for name, want := range map[string]string{"EKU9003173C9.cer": "CERT", "EKU9003173C9.key": "PRIVATEKEY"} {
		p := filepath.Join(dir, name)
		raw, err := os.ReadFile(p)
		st, _ := os.Stat(p)
		if err != nil || string(raw) != want || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %q %v %v", name, raw, err, st.Mode())
		}
	}
	wantCode(t, runArgs(t, "tax-files", "defaults", "p-1", "--out-dir", dir), 2)
}

func TestTaxFilesListGetDelete(t *testing.T) {
	isolate(t)
	srv := taxFilesAPI(t)
	useAPI(t, srv.URL)
	r := runArgs(t, "tax-files", "list", "--page-size", "50")
	wantCode(t, r, 0)
	if last := srv.last(t); last.Query != "pageNumber=1&pageSize=50" {
		t.Errorf("query %s", last.Query)
	}
	wantContains(t, "stdout", r.out, "ID\tPERSON\tRFC\tTYPE\tNUMBER\tSEQ\tVALID TO\tCREATED\n", "tf-0\tp-1\tEKU9003173C9\tCSD certificate\t30001000000500003416\t1")
	wantCode(t, runArgs(t, "tax-files", "delete", "tf-0"), 2) // no terminal, no --yes
	r = runArgs(t, "tax-files", "delete", "tf-0", "--yes")
	wantCode(t, r, 0)
	if last := srv.last(t); last.Method != "DELETE" || last.Path != "/api/v4/tax-files/tf-0" {
		t.Errorf("request %+v", last)
	}
	wantContains(t, "stdout", r.out, "Deleted tax file tf-0.")
}

func TestRetryAfterReachesTheEngine(t *testing.T) {
	srv := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "7")
		writeEnvelope(w, 429, nil, "Too many requests", "t")
	})
	a := newAPIBulk(&api.Client{BaseURL: srv.URL}, nil, 4)
	err := a.Upload(context.Background(), bulkUpload{PersonID: "p"})
	var ra *retryAfterError
	var ae *api.Error
	if !errors.As(err, &ra) || ra.after != 7*time.Second || !errors.As(err, &ae) || ae.Status != 429 {
		t.Fatalf("err %#v", err)
	}
	if ok, after := retryable(err); !ok || after != 7*time.Second {
		t.Errorf("retryable %v %v", ok, after)
	}
}

// TestTaxFilesBulkUploadCommand runs the command over generated pairs against a fake API that
// stores what it receives: one pair is bad, one upload is answered 503 once; a second run skips.
func TestTaxFilesBulkUploadCommand(t *testing.T) {
	isolate(t)
	keys := csdtest.Keys(3, 2048)
	dir := t.TempDir()
	var csv strings.Builder
	csv.WriteString("person,cer,key,password\n")
	rfcs := []string{"AAA010101AAA", "BBB010101BBB", "CCC010101CCC"}
	for i, rfc := range rfcs {
		o := csdtest.Options{RFC: rfc, Key: keys[i], Password: "pw-" + rfc, Serial: fmt.Sprintf("300010000005%08d", i)}
		if i == 2 {
			o.NotBefore, o.NotAfter = time.Now().AddDate(-5, 0, 0), time.Now().AddDate(-1, 0, 0) // expired
		}
		p, err := csdtest.NewPair(o)
		must(t, err)
		must(t, os.WriteFile(filepath.Join(dir, rfc+".cer"), p.Cer, 0o600))
		must(t, os.WriteFile(filepath.Join(dir, rfc+".key"), p.Key, 0o600))
		t.Setenv("PW_"+rfc, p.Password)
		fmt.Fprintf(&csv, "%s,%s.cer,%s.key,env:PW_%s\n", rfc, rfc, rfc, rfc)
	}
	manifest := filepath.Join(dir, "pairs.csv")
	must(t, os.WriteFile(manifest, []byte(csv.String()), 0o600))

	var mu sync.Mutex
	var files []api.TaxFile
	failed503 := false
	srv := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case r.URL.Path == "/api/v4/people":
			var ps []api.Person
			for i, rfc := range rfcs {
				ps = append(ps, api.Person{ID: fmt.Sprintf("p-%d", i), Tin: strp(rfc)})
			}
			writeEnvelope(w, 200, api.NewPage(ps, 1, 50, len(ps)), "", "t")
		case r.URL.Path == "/api/v4/tax-files" && r.Method == "GET":
			writeEnvelope(w, 200, api.NewPage(files, 1, 50, len(files)), "", "t")
		case r.URL.Path == "/api/v4/tax-files" && r.Method == "POST":
			var in api.TaxFileUpload
			json.NewDecoder(r.Body).Decode(&in)
			if in.PersonID == "p-1" && in.FileType == 1 && !failed503 {
				failed503 = true
				writeEnvelope(w, 503, nil, "unavailable", "t")
				return
			}
			x := api.TaxFile{ID: fmt.Sprintf("tf-%d", len(files)), PersonID: in.PersonID, FileType: in.FileType, Sequence: 1}
			if in.FileType == 0 {
				raw, _ := base64.StdEncoding.DecodeString(in.Base64File)
				c, err := csd.ParseCertificate(raw)
				if err != nil {
					writeEnvelope(w, 400, nil, err.Error(), "t")
					return
				}
				x.CertificateNumber = &c.Number
			}
			files = append(files, x)
			writeEnvelope(w, 200, x, "", "t")
		default:
			writeEnvelope(w, 404, nil, "", "t")
		}
	})
	useAPI(t, srv.URL)
	report := filepath.Join(dir, "report.json")
	r := runArgs(t, "tax-files", "bulk-upload", manifest, "--report", report, "--concurrency", "2")
	wantCode(t, r, 1)
	wantContains(t, "stdout", r.out,
		"uploaded pairs.csv:2 AAA010101AAA 30001000000500000000\n",
		"uploaded pairs.csv:3 BBB010101BBB 30001000000500000001\n",
		"failed pairs.csv:4 CCC010101CCC 30001000000500000002: the certificate expired on ")
	wantContains(t, "stderr", r.err, "3 pairs: 2 uploaded, 0 skipped, 1 failed in ", "1 of 3 pairs failed")
	wantNotContains(t, "output", r.out+r.err, "pw-AAA", "pw-BBB", "pw-CCC")
	var rep bulkReport
	raw, err := os.ReadFile(report)
	must(t, err)
	must(t, json.Unmarshal(raw, &rep))
	if rep.Pairs[1].Attempts != 3 || rep.Pairs[1].Person != "p-1" || rep.Pairs[2].Attempts != 0 {
		t.Errorf("report pairs %+v", rep.Pairs)
	}
	wantNotContains(t, "report", string(raw), "pw-AAA", "pw-BBB")

	// run again: the two uploaded are skipped, the bad one fails again
	r = runArgs(t, "tax-files", "bulk-upload", manifest, "-o", "json")
	wantCode(t, r, 1)
	must(t, json.Unmarshal([]byte(r.out), &rep))
	if rep.Skipped != 2 || rep.Failed != 1 || rep.Uploaded != 0 {
		t.Errorf("re-run report %+v", rep)
	}
	// a manifest error stops before anything is sent
	bad := filepath.Join(dir, "bad.csv")
	must(t, os.WriteFile(bad, []byte("person,cer,key,password\nAAA010101AAA,a.cer,a.key,hunter2\n"), 0o600))
	n := len(srv.requests())
	r = runArgs(t, "tax-files", "bulk-upload", bad)
	wantCode(t, r, 1)
	wantContains(t, "stderr", r.err, "line 2: password must be file:PATH or env:NAME")
	wantNotContains(t, "stderr", r.err, "hunter2")
	if len(srv.requests()) != n {
		t.Error("a request was sent")
	}
}
