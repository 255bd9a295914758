package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/commands"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/csd/csdtest"
	"github.com/timbra-mx/timbra/server"
)

// The bulk upload of tax files, measured end to end: `timbra tax-files bulk-upload` (the real
// command, in process) over 1,000 generated pairs against a real server on loopback, at
// concurrency 1, 4 and 16, each run on a fresh copy of one database that already holds the 1,000
// people; and the floor, the key decryption and certificate parse of every pair alone, at the
// same concurrency. Run both in one process:
//
//	go test ./bench -run '^$' -bench 'TaxFiles' -benchtime 1x
//
// Setup (people, pairs) is made once per process and is not measured.

const taxBenchPairs = 1000

// taxBenchSet is the shared setup: a closed database holding the people (copied for each run),
// the pairs on disk and their manifest.
type taxBenchSet struct {
	template string // folder of the database with the people, and of the pairs
	creds    api.Credentials
	manifest string
	cer, key [][]byte
	password string
	err      error
}

var (
	taxBenchOnce sync.Once
	taxBench     taxBenchSet
)

// benchRFC is the i-th RFC of the set: three letters, a date, a homoclave.
func benchRFC(i int) string {
	l := func(n int) byte { return byte('A' + n%26) }
	return fmt.Sprintf("%c%c%c010101%c%c1", l(i/676), l(i/26), l(i), l(i/7), l(i/3))
}

// TestMain removes the shared setup of the tax-file benchmarks when the process ends.
func TestMain(m *testing.M) {
	code := m.Run()
	if taxBench.template != "" {
		os.RemoveAll(taxBench.template)
	}
	os.Exit(code)
}

func taxBenchSetup(b *testing.B) *taxBenchSet {
	taxBenchOnce.Do(func() { taxBench.err = taxBench.make() })
	if taxBench.err != nil {
		b.Fatal(taxBench.err)
	}
	return &taxBench
}

func (s *taxBenchSet) make() error {
	t, err := NewTimbra("")
	if err != nil {
		return err
	}
	s.template = t.dir
	s.creds = t.Creds
	h := t.Server(slog.New(slog.DiscardHandler)).Handler()
	// the people, four at a time (argon2id password hashing makes each create cost ~100 ms)
	errs := make(chan error, taxBenchPairs)
	next := make(chan int)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i := range next {
				body := fmt.Sprintf(`{"legalName":"Bench %d","email":"bench%d@example.com","password":"Clave#2025","tin":"%s"}`, i, i, benchRFC(i))
				if err := inProcess(h, "POST", PeoplePath, t.Header(), body, 200, nil); err != nil {
					errs <- err
				}
			}
		})
	}
	for i := range taxBenchPairs {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return fmt.Errorf("create people: %w", err)
	}
	if err := t.Data.Store.Close(); err != nil {
		return err
	}

	// the pairs: a few cached keys reused across people, distinct certificate numbers
	keys := csdtest.Keys(8, 2048)
	dir := filepath.Join(s.template, "pairs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	s.password = csdtest.DefaultPassword
	if err := os.WriteFile(filepath.Join(dir, "pw.txt"), []byte(s.password+"\n"), 0o600); err != nil {
		return err
	}
	var csv strings.Builder
	csv.WriteString("person,cer,key,password\n")
	for i := range taxBenchPairs {
		rfc := benchRFC(i)
		p, err := csdtest.NewPair(csdtest.Options{RFC: rfc, Key: keys[i%len(keys)], Serial: fmt.Sprintf("30001%015d", i)})
		if err != nil {
			return err
		}
		s.cer, s.key = append(s.cer, p.Cer), append(s.key, p.Key)
		for name, content := range map[string][]byte{rfc + ".cer": p.Cer, rfc + ".key": p.Key} {
			if err := os.WriteFile(filepath.Join(dir, name), content, 0o600); err != nil {
				return err
			}
		}
		fmt.Fprintf(&csv, "%s,%s.cer,%s.key,file:pw.txt\n", rfc, rfc, rfc)
	}
	s.manifest = filepath.Join(dir, "pairs.csv")
	return os.WriteFile(s.manifest, []byte(csv.String()), 0o600)
}

// fresh copies the database with the people into a new folder and opens it.
func (s *taxBenchSet) fresh(b *testing.B) *Timbra {
	dir := b.TempDir()
	for _, name := range []string{"bench.db", "bench.db.key"} {
		raw, err := os.ReadFile(filepath.Join(s.template, name))
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), raw, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	d, err := server.OpenData(server.DataOptions{Path: filepath.Join(dir, "bench.db")})
	if err != nil {
		b.Fatal(err)
	}
	return &Timbra{Data: d, Creds: s.creds, dir: dir}
}

// bulkReport is the part of the command's JSON report the benchmark checks.
type bulkReport struct {
	Total, Uploaded, Skipped, Failed int
	Pairs                            []struct{ Outcome, Error string }
}

func BenchmarkTaxFilesBulkUpload(b *testing.B) {
	s := taxBenchSetup(b)
	for _, c := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("concurrency=%d", c), func(b *testing.B) {
			b.Setenv("TIMBRA_CONFIG_DIR", b.TempDir())
			b.Setenv("TIMBRA_KEYRING", "file")
			b.Setenv("TIMBRA_PROFILE", "")
			b.Setenv("TIMBRA_TENANT_KEY", s.creds.TenantKey)
			b.Setenv("TIMBRA_API_KEY", s.creds.APIKey)
			var elapsed time.Duration
			b.StopTimer()
			for range b.N {
				t := s.fresh(b)
				l, err := ServeTimbra(t.Server(slog.New(slog.DiscardHandler)))
				if err != nil {
					b.Fatal(err)
				}
				b.Setenv("TIMBRA_BASE_URL", l.URL)
				var out, errb bytes.Buffer
				ios := &cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb}
				args := []string{"tax-files", "bulk-upload", s.manifest, "--concurrency", fmt.Sprint(c), "-o", "json"}
				b.StartTimer()
				start := time.Now()
				code := commands.Run(context.Background(), args, ios)
				elapsed += time.Since(start)
				b.StopTimer()
				l.Close()
				t.Close()
				var rep bulkReport
				if err := json.Unmarshal(out.Bytes(), &rep); err != nil || code != 0 || rep.Uploaded != taxBenchPairs {
					first := ""
					for _, p := range rep.Pairs {
						if p.Error != "" {
							first = p.Error
							break
						}
					}
					b.Fatalf("exit %d, %d of %d uploaded (%v); first error %q; stderr %s", code, rep.Uploaded, taxBenchPairs, err, first, errb.String())
				}
			}
			b.ReportMetric(float64(b.N*taxBenchPairs)/elapsed.Seconds(), "pairs/s")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkTaxFilesFloor is what a pair costs at the least: opening its key with the password
// (PBKDF2 and 3DES) and parsing its certificate, nothing else, by c workers over the 1,000 pairs.
func BenchmarkTaxFilesFloor(b *testing.B) {
	s := taxBenchSetup(b)
	for _, c := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("concurrency=%d", c), func(b *testing.B) {
			var elapsed time.Duration
			for range b.N {
				start := time.Now()
				next := make(chan int)
				var failed sync.Once
				var ferr error
				var wg sync.WaitGroup
				for range c {
					wg.Go(func() {
						for i := range next {
							k, err := csd.ParsePrivateKey(s.key[i], []byte(s.password))
							if err == nil {
								var cert *csd.Certificate
								if cert, err = csd.ParseCertificate(s.cer[i]); err == nil && !cert.Matches(k) {
									err = fmt.Errorf("pair %d does not match", i)
								}
							}
							if err != nil {
								failed.Do(func() { ferr = err })
							}
						}
					})
				}
				for i := range taxBenchPairs {
					next <- i
				}
				close(next)
				wg.Wait()
				elapsed += time.Since(start)
				if ferr != nil {
					b.Fatal(ferr)
				}
			}
			b.ReportMetric(float64(b.N*taxBenchPairs)/elapsed.Seconds(), "pairs/s")
			b.ReportMetric(0, "ns/op")
		})
	}
}
