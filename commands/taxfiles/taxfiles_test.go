package taxfiles

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

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/csd/csdtest"
)

const keyPW = "  clave con espacios  "

// taxFilesAPI answers the tax-file endpoints with fixed records.
func taxFilesAPI(t *testing.T) *cmdtest.FakeAPI {
	return cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == "POST" && r.URL.Path == "/api/v4/tax-files":
			var in api.TaxFileUpload
			json.NewDecoder(r.Body).Decode(&in)
			x := api.TaxFile{ID: fmt.Sprintf("tf-%d", in.FileType), PersonID: in.PersonID, Tin: "EKU9003173C9", FileType: in.FileType, Sequence: 1}
			if in.FileType%2 == 0 {
				x.CertificateNumber = strp("30001000000500003416")
			}
			cmdtest.WriteEnvelope(w, 200, x, "", "t")
		case strings.HasSuffix(r.URL.Path, "/default-references"):
			cmdtest.WriteEnvelope(w, 200, []api.TaxFile{
				{ID: "tf-0", PersonID: "p-1", Tin: "EKU9003173C9", FileType: 0, Sequence: 1, CertificateNumber: strp("30001000000500003416"), ValidTo: strp("2027-05-18T11:43:51")},
				{ID: "tf-1", PersonID: "p-1", Tin: "EKU9003173C9", FileType: 1, Sequence: 1},
			}, "", "t")
		case strings.HasSuffix(r.URL.Path, "/default-values"):
			cmdtest.WriteEnvelope(w, 200, []api.TaxFile{
				{ID: "tf-0", PersonID: "p-1", Tin: "EKU9003173C9", FileType: 0, Base64File: base64.StdEncoding.EncodeToString([]byte("CERT")), Password: keyPW, Sequence: 1},
				{ID: "tf-1", PersonID: "p-1", Tin: "EKU9003173C9", FileType: 1, Base64File: base64.StdEncoding.EncodeToString([]byte("PRIVATEKEY")), Password: keyPW, Sequence: 1},
			}, "", "t")
		case r.Method == "DELETE":
			cmdtest.WriteEnvelope(w, 200, true, "", "t")
		case r.Method == "GET" && r.URL.Path == "/api/v4/tax-files":
			cmdtest.WriteEnvelope(w, 200, api.NewPage([]api.TaxFile{{ID: "tf-0", PersonID: "p-1", Tin: "EKU9003173C9", CertificateNumber: strp("30001000000500003416"), Sequence: 1}}, 1, 10, 1), "", "t")
		default:
			cmdtest.WriteEnvelope(w, 404, nil, "No such resource", "t")
		}
	})
}

func TestTaxFilesUploadSendsCertificateThenKey(t *testing.T) {
	cmdtest.Isolate(t)
	srv := taxFilesAPI(t)
	cmdtest.UseAPI(t, srv.URL)
	dir := t.TempDir()
	cer, key := filepath.Join(dir, "a.cer"), filepath.Join(dir, "a.key")
	must(t, os.WriteFile(cer, []byte("CERT"), 0o600))
	must(t, os.WriteFile(key, []byte("KEY"), 0o600))

	// on a terminal the password is asked once, and kept as typed (spaces included)
	r := run1(t, cmdtest.Opts{InTTY: true, Stdin: keyPW + "\n"}, "tax-files", "upload", "--person", "p-1", "--cer", cer, "--key", key)
	cmdtest.WantCode(t, r, 0)
	if n := strings.Count(r.Err, "Password of the private key: "); n != 1 {
		t.Fatalf("asked %d times: %q", n, r.Err)
	}
	reqs := srv.Requests()
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
	cmdtest.WantContains(t, "stdout", r.Out, "tf-0\tp-1\tEKU9003173C9\tCSD certificate\t30001000000500003416", "tf-1\tp-1\tEKU9003173C9\tCSD key")
	cmdtest.WantNotContains(t, "output", r.Out+r.Err, keyPW)

	// e.firma from an environment variable: types 2 and 3
	t.Setenv("FIEL_PW", "fiel-pw")
	r = run1(t, cmdtest.Opts{}, "tax-files", "upload", "--person", "p-1", "--cer", cer, "--key", key, "--fiel", "--password-env", "FIEL_PW", "-o", "json")
	cmdtest.WantCode(t, r, 0)
	reqs = srv.Requests()
	must(t, json.Unmarshal([]byte(reqs[2].Body), &first))
	must(t, json.Unmarshal([]byte(reqs[3].Body), &second))
	if first.FileType != 2 || second.FileType != 3 || second.Password != "fiel-pw" {
		t.Errorf("FIEL requests %+v %+v", first, second)
	}
	var saved []api.TaxFile
	if err := json.Unmarshal([]byte(r.Out), &saved); err != nil || len(saved) != 2 {
		t.Errorf("JSON output %q: %v", r.Out, err)
	}

	// no terminal and no password option: nothing is sent; a password never comes from a flag
	n := len(srv.Requests())
	cmdtest.WantCode(t, run1(t, cmdtest.Opts{}, "tax-files", "upload", "--person", "p-1", "--cer", cer, "--key", key), 2)
	cmdtest.WantCode(t, run1(t, cmdtest.Opts{}, "tax-files", "upload", "--person", "p-1", "--cer", cer, "--key", key, "--password", "x"), 2)
	cmdtest.WantCode(t, run1(t, cmdtest.Opts{}, "tax-files", "upload", "--person", "p-1", "--cer", cer, "--key", key, "--password-env", "TIMBRA_NOT_SET_PW"), 2)
	if len(srv.Requests()) != n {
		t.Error("a request was sent")
	}
}

func TestTaxFilesDefaults(t *testing.T) {
	cmdtest.Isolate(t)
	srv := taxFilesAPI(t)
	cmdtest.UseAPI(t, srv.URL)
	r := runArgs(t, "tax-files", "defaults", "p-1")
	cmdtest.WantCode(t, r, 0)
	if last := srv.Last(t); last.Path != "/api/v4/tax-files/p-1/default-references" {
		t.Errorf("path %s", last.Path)
	}
	cmdtest.WantContains(t, "stdout", r.Out, "tf-0\tp-1\tEKU9003173C9\tCSD certificate\t30001000000500003416\t1\t2027-05-18T11:43:51Z")

	// values: the password shows only as set, the content as its size
	r = runArgs(t, "tax-files", "defaults", "p-1", "--values")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "Password: set (not shown)", "Content: 4 bytes", "Content: 10 bytes")
	cmdtest.WantNotContains(t, "stdout", r.Out, strings.TrimSpace(keyPW), base64.StdEncoding.EncodeToString([]byte("CERT")))

	dir := filepath.Join(t.TempDir(), "out")
	r = runArgs(t, "tax-files", "defaults", "p-1", "--values", "--out-dir", dir, "-o", "json")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantNotContains(t, "stdout", r.Out, strings.TrimSpace(keyPW), base64.StdEncoding.EncodeToString([]byte("CERT")))
	var views []map[string]any
	must(t, json.Unmarshal([]byte(r.Out), &views))
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
	cmdtest.WantCode(t, runArgs(t, "tax-files", "defaults", "p-1", "--out-dir", dir), 2)
}

func TestTaxFilesListGetDelete(t *testing.T) {
	cmdtest.Isolate(t)
	srv := taxFilesAPI(t)
	cmdtest.UseAPI(t, srv.URL)
	r := runArgs(t, "tax-files", "list", "--page-size", "50")
	cmdtest.WantCode(t, r, 0)
	if last := srv.Last(t); last.Query != "pageNumber=1&pageSize=50" {
		t.Errorf("query %s", last.Query)
	}
	cmdtest.WantContains(t, "stdout", r.Out, "ID\tPERSON\tRFC\tTYPE\tNUMBER\tSEQ\tVALID TO\tCREATED\n", "tf-0\tp-1\tEKU9003173C9\tCSD certificate\t30001000000500003416\t1")
	cmdtest.WantCode(t, runArgs(t, "tax-files", "delete", "tf-0"), 2) // no terminal, no --yes
	r = runArgs(t, "tax-files", "delete", "tf-0", "--yes")
	cmdtest.WantCode(t, r, 0)
	if last := srv.Last(t); last.Method != "DELETE" || last.Path != "/api/v4/tax-files/tf-0" {
		t.Errorf("request %+v", last)
	}
	cmdtest.WantContains(t, "stdout", r.Out, "Deleted tax file tf-0.")
}

func TestRetryAfterReachesTheEngine(t *testing.T) {
	srv := cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "7")
		cmdtest.WriteEnvelope(w, 429, nil, "Too many requests", "t")
	})
	a := newAPIBulk(&api.Client{BaseURL: srv.URL}, nil, 4)
	_, err := a.Upload(context.Background(), bulkUpload{PersonID: "p"})
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
	cmdtest.Isolate(t)
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
	srv := cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case r.URL.Path == "/api/v4/people":
			var ps []api.Person
			for i, rfc := range rfcs {
				ps = append(ps, api.Person{ID: fmt.Sprintf("p-%d", i), Tin: strp(rfc)})
			}
			cmdtest.WriteEnvelope(w, 200, api.NewPage(ps, 1, 50, len(ps)), "", "t")
		case r.URL.Path == "/api/v4/tax-files" && r.Method == "GET":
			cmdtest.WriteEnvelope(w, 200, api.NewPage(files, 1, 50, len(files)), "", "t")
		case r.URL.Path == "/api/v4/tax-files" && r.Method == "POST":
			var in api.TaxFileUpload
			json.NewDecoder(r.Body).Decode(&in)
			if in.PersonID == "p-1" && in.FileType == 1 && !failed503 {
				failed503 = true
				cmdtest.WriteEnvelope(w, 503, nil, "unavailable", "t")
				return
			}
			x := api.TaxFile{ID: fmt.Sprintf("tf-%d", len(files)), PersonID: in.PersonID, FileType: in.FileType, Sequence: 1}
			if in.FileType == 0 {
				raw, _ := base64.StdEncoding.DecodeString(in.Base64File)
				c, err := csd.ParseCertificate(raw)
				if err != nil {
					cmdtest.WriteEnvelope(w, 400, nil, err.Error(), "t")
					return
				}
				x.CertificateNumber = &c.Number
			}
			files = append(files, x)
			cmdtest.WriteEnvelope(w, 200, x, "", "t")
		default:
			cmdtest.WriteEnvelope(w, 404, nil, "", "t")
		}
	})
	cmdtest.UseAPI(t, srv.URL)
	report := filepath.Join(dir, "report.json")
	r := runArgs(t, "tax-files", "bulk-upload", manifest, "--report", report, "--concurrency", "2")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stdout", r.Out,
		"uploaded pairs.csv:2 AAA010101AAA 30001000000500000000\n",
		"uploaded pairs.csv:3 BBB010101BBB 30001000000500000001\n",
		"failed pairs.csv:4 CCC010101CCC 30001000000500000002: the certificate expired on ")
	cmdtest.WantContains(t, "stderr", r.Err, "3 pairs: 2 uploaded, 0 skipped, 1 failed in ", "1 of 3 pairs failed")
	cmdtest.WantNotContains(t, "output", r.Out+r.Err, "pw-AAA", "pw-BBB", "pw-CCC")
	var rep bulkReport
	raw, err := os.ReadFile(report)
	must(t, err)
	must(t, json.Unmarshal(raw, &rep))
	if rep.Pairs[1].Attempts != 3 || rep.Pairs[1].Person != "p-1" || rep.Pairs[2].Attempts != 0 {
		t.Errorf("report pairs %+v", rep.Pairs)
	}
	cmdtest.WantNotContains(t, "report", string(raw), "pw-AAA", "pw-BBB")

	// run again: the two uploaded are skipped, the bad one fails again
	r = runArgs(t, "tax-files", "bulk-upload", manifest, "-o", "json")
	cmdtest.WantCode(t, r, 1)
	must(t, json.Unmarshal([]byte(r.Out), &rep))
	if rep.Skipped != 2 || rep.Failed != 1 || rep.Uploaded != 0 {
		t.Errorf("re-run report %+v", rep)
	}
	// a manifest error stops before anything is sent
	bad := filepath.Join(dir, "bad.csv")
	must(t, os.WriteFile(bad, []byte("person,cer,key,password\nAAA010101AAA,a.cer,a.key,hunter2\n"), 0o600))
	n := len(srv.Requests())
	r = runArgs(t, "tax-files", "bulk-upload", bad)
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stderr", r.Err, "line 2: password must be file:PATH or env:NAME")
	cmdtest.WantNotContains(t, "stderr", r.Err, "hunter2")
	if len(srv.Requests()) != n {
		t.Error("a request was sent")
	}
}

// TestTaxFilesUploadExplained: a refused key names the file and the password's flags.
func TestTaxFilesUploadExplained(t *testing.T) {
	cmdtest.Isolate(t)
	srv := cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		var in api.TaxFileUpload
		json.NewDecoder(r.Body).Decode(&in)
		if in.FileType == 0 {
			cmdtest.WriteEnvelope(w, 200, api.TaxFile{ID: "tf-0", PersonID: "p-1", FileType: 0}, "", "t")
			return
		}
		cmdtest.WriteEnvelope(w, 400, []any{cmdtest.Failure("Password", "La contraseña no abre la llave privada.")}, "One or more validation failures have occurred.", "t")
	})
	cmdtest.UseAPI(t, srv.URL)
	dir := t.TempDir()
	cer, key := filepath.Join(dir, "a.cer"), filepath.Join(dir, "a.key")
	must(t, os.WriteFile(cer, []byte("CERT"), 0o600))
	must(t, os.WriteFile(key, []byte("KEY"), 0o600))
	t.Setenv("KEY_PW", "wrong")
	r := run1(t, cmdtest.Opts{}, "tax-files", "upload", "--person", "p-1", "--cer", cer, "--key", key, "--password-env", "KEY_PW")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stderr", r.Err, "Password: La contraseña no abre la llave privada. (--password-file, --password-env or --password-stdin)\n")
}
