package taxfiles

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
)

func TestCSVManifest(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "pairs.csv")
	csv := "# operators' pairs\n" +
		"cer,person,key,password\n" +
		"\n" +
		"a/EKU.cer,EKU9003173C9,a/EKU.key,file:a/pw.txt\n" +
		"/abs/x.cer, 0195b3c2-7d1e-7a40-9c3b-5e8f1a2b4c6d ,/abs/x.key,env:CSD_PW_1\n"
	pairs, err := parseCSVManifest(strings.NewReader(csv), name)
	if err != nil {
		t.Fatal(err)
	}
	want := []bulkPair{
		{Source: "pairs.csv:4", Person: "EKU9003173C9", Cer: filepath.Join(dir, "a/EKU.cer"), Key: filepath.Join(dir, "a/EKU.key"), Password: bulkSecret{File: filepath.Join(dir, "a/pw.txt")}},
		{Source: "pairs.csv:5", Person: "0195b3c2-7d1e-7a40-9c3b-5e8f1a2b4c6d", Cer: "/abs/x.cer", Key: "/abs/x.key", Password: bulkSecret{Env: "CSD_PW_1"}},
	}
	if len(pairs) != len(want) {
		t.Fatalf("pairs %+v", pairs)
	}
	for i := range want {
		if pairs[i] != want[i] {
			t.Errorf("pair %d\n%+v, want\n%+v", i, pairs[i], want[i])
		}
	}
}

func TestCSVManifestErrorsNameTheirLines(t *testing.T) {
	for _, tc := range []struct {
		name, csv string
		want      []string
	}{
		{"no header", "", []string{"no header line: want person,cer,key,password"}},
		{"unknown column", "person,cer,key,pass\n", []string{`line 1: unknown column "pass": the header is person,cer,key,password`}},
		{"missing column", "# c\nperson,cer,key\n", []string{`line 2: missing column "password": the header is person,cer,key,password`}},
		{"twice", "person,cer,key,key\n", []string{`line 1: column "key" given twice`}},
		{"lines", "person,cer,key,password\n" +
			"EKU9003173C9,a.cer,a.key,file:pw\n" +
			"# a comment\n" +
			"EKU9003173C9,a.cer,a.key\n" +
			"EKU9003173C9,,a.key,env:X\n" +
			"EKU9003173C9,a.cer,a.key," + secretPW + "\n" +
			"EKU9003173C9,a.cer,a.key,env:1X\n" +
			"EKU9003173C9,\"a.cer,a.key,env:X\n",
			[]string{
				"line 4: 3 fields, want 4 (person,cer,key,password)",
				"line 5: empty cer",
				"line 6: password must be file:PATH or env:NAME",
				"line 7: password must be file:PATH or env:NAME",
				"line 8: extraneous or missing \" in quoted-field",
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseCSVManifest(strings.NewReader(tc.csv), "m.csv")
			var me *manifestError
			if !errors.As(err, &me) {
				t.Fatalf("err %v, want a manifest error", err)
			}
			if strings.Join(me.Lines, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("lines\n%s\nwant\n%s", strings.Join(me.Lines, "\n"), strings.Join(tc.want, "\n"))
			}
			if strings.Contains(err.Error(), secretPW) {
				t.Errorf("the error quotes a password: %v", err)
			}
		})
	}
}

func TestFolderManifest(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o600))
	}
	write("EKU9003173C9/00001000000500003416.cer", "c")
	write("EKU9003173C9/CSD_EKU.KEY", "k")
	write("EKU9003173C9/password.txt", "pw")
	write("EKU9003173C9/notes.md", "ignored")
	write("aaa010101aaa/a.cer", "c")
	write("aaa010101aaa/b.cer", "c")
	write("aaa010101aaa/password.txt", "pw")
	write(".git/HEAD", "ignored")
	write("README.txt", "ignored")
	pairs, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 2 {
		t.Fatalf("pairs %+v", pairs)
	}
	good := pairs[0]
	if good.Person != "EKU9003173C9" || good.Problem != "" || good.Cer != filepath.Join(dir, "EKU9003173C9/00001000000500003416.cer") ||
		good.Key != filepath.Join(dir, "EKU9003173C9/CSD_EKU.KEY") || good.Password.File != filepath.Join(dir, "EKU9003173C9/password.txt") {
		t.Errorf("good pair %+v", good)
	}
	bad := pairs[1]
	if bad.Person != "AAA010101AAA" || bad.Problem != "2 .cer files (a.cer, b.cer), want one; no .key file" {
		t.Errorf("bad pair %+v", bad)
	}
	if _, err := readManifest(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no subfolder") {
		t.Errorf("empty folder: %v", err)
	}
}

// TestBulkOutputNeverShowsAPassword runs the command's output paths (lines, progress bar, JSON
// and the report) over pairs whose errors would carry the password.
func TestBulkOutputNeverShowsAPassword(t *testing.T) {
	for _, mode := range []string{"lines", "tty", "json"} {
		t.Run(mode, func(t *testing.T) {
			pairs, people := fakePairs(t, 4)
			dir := t.TempDir()
			wrong := filepath.Join(dir, "wrong.txt")
			must(t, os.WriteFile(wrong, []byte(secretPW+"x\n"), 0o600))
			pairs[1].Password = bulkSecret{File: wrong} // the validator quotes the password it got
			fb := &fakeBulk{people: people, answer: func(in bulkUpload, n int) error {
				if in.PersonID == "person-2" && in.FileType == 1 {
					// a server that echoes the password it was sent
					return &api.Error{Status: 400, Failures: []api.Failure{{PropertyName: "Password", ErrorMessage: "bad " + in.Password}}}
				}
				return nil
			}}
			var out, errb bytes.Buffer
			ios := &cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb, ErrTTY: mode == "tty", OutTTY: mode == "tty"}
			f := cmdutil.NewFactory(ios, "dev")
			if mode == "json" {
				f.Output = cmdutil.OutputJSON
			}
			report := filepath.Join(dir, "report.json")
			o := &bulkUploadOptions{f: f, Manifest: "m.csv", Report: report, Concurrency: 2}
			err := runBulk(context.Background(), o, newEngine(fb, &sleeper{}), pairs)
			if err == nil || err.Error() != "2 of 4 pairs failed" {
				t.Fatalf("err %v", err)
			}
			raw, rerr := os.ReadFile(report)
			must(t, rerr)
			for name, s := range map[string]string{"stdout": out.String(), "stderr": errb.String(), "report": string(raw)} {
				if strings.Contains(s, secretPW) {
					t.Errorf("%s shows the password:\n%s", name, s)
				}
			}
			var rep bulkReport
			must(t, json.Unmarshal(raw, &rep))
			if rep.Total != 4 || rep.Uploaded != 2 || rep.Failed != 2 || rep.Interrupted || len(rep.Pairs) != 4 {
				t.Errorf("report %+v", rep)
			}
			p := rep.Pairs[2]
			if p.Person != "person-2" || p.RFC != "AAA010101002" || p.Cer != pairs[2].Cer || p.Key != pairs[2].Key || p.CertificateNumber != "30001000000500000002" ||
				p.Outcome != "failed" || p.Error != "key: 400 Bad Request; Password: bad [password]" || p.Attempts != 2 {
				t.Errorf("report pair %+v", p)
			}
			switch mode {
			case "lines":
				if !strings.Contains(out.String(), "uploaded m.csv:2 AAA010101000 30001000000500000000\n") ||
					!strings.Contains(out.String(), "failed m.csv:4 AAA010101002 30001000000500000002: key: 400 Bad Request; Password: bad [password]\n") {
					t.Errorf("stdout:\n%s", out.String())
				}
				if !strings.Contains(errb.String(), "4 pairs: 2 uploaded, 0 skipped, 2 failed in ") {
					t.Errorf("stderr:\n%s", errb.String())
				}
			case "tty":
				if out.Len() != 0 || !strings.Contains(errb.String(), "] 4/4 100%") || !strings.Contains(errb.String(), clearLine+"failed m.csv:4") {
					t.Errorf("stdout %q stderr %q", out.String(), errb.String())
				}
			case "json":
				var got bulkReport
				if err := json.Unmarshal(out.Bytes(), &got); err != nil || got.Failed != 2 {
					t.Errorf("stdout is not the report: %v\n%s", err, out.String())
				}
			}
		})
	}
}

// TestBulkInterruptedWritesTheReport: Ctrl-C during a run still writes the report, with the
// pairs not done as interrupted, and the command ends as interrupted.
func TestBulkInterruptedWritesTheReport(t *testing.T) {
	pairs, people := fakePairs(t, 4)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fb := &fakeBulk{people: people, answer: func(in bulkUpload, n int) error {
		if in.PersonID == "person-1" && in.FileType == 1 {
			cancel()
		}
		return nil
	}}
	var out, errb bytes.Buffer
	f := cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb}, "dev")
	report := filepath.Join(t.TempDir(), "report.json")
	e := newEngine(fb, &sleeper{})
	e.Concurrency = 1
	err := runBulk(ctx, &bulkUploadOptions{f: f, Manifest: "m.csv", Report: report}, e, pairs)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if code := f.ExitCode(ctx, err); code != 130 {
		t.Errorf("exit code %d, want 130", code)
	}
	raw, rerr := os.ReadFile(report)
	must(t, rerr)
	var rep bulkReport
	must(t, json.Unmarshal(raw, &rep))
	if !rep.Interrupted || rep.Uploaded != 2 || rep.NotDone != 2 || rep.Pairs[3].Outcome != outcomeInterrupted {
		t.Errorf("report %+v", rep)
	}
	cmdtest.WantContains(t, "stderr", errb.String(), "4 pairs: 2 uploaded, 0 skipped, 0 failed, 2 interrupted in ")
}
