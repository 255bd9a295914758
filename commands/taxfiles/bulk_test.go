package taxfiles

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
)

// secretPW is the password of the fake pairs; no output may contain it.
const secretPW = "S3cr3t-Contraseña-42"

// fakeBulk is bulkAPI in memory: people, the files uploaded, and a hook deciding each upload's
// answer.
type fakeBulk struct {
	mu      sync.Mutex
	people  []bulkPerson
	files   []bulkFile
	uploads []bulkUpload
	deleted []string
	seq     int
	// answer, when set, decides an upload's error (nil stores the file); n counts the uploads
	// of the same person and type so far, this one included.
	answer func(in bulkUpload, n int) error
	tries  map[string]int
}

func (f *fakeBulk) People(context.Context) ([]bulkPerson, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.people), nil
}

func (f *fakeBulk) TaxFiles(context.Context) ([]bulkFile, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.files), nil
}

func (f *fakeBulk) Upload(ctx context.Context, in bulkUpload) (bulkFile, error) {
	f.mu.Lock()
	if f.tries == nil {
		f.tries = map[string]int{}
	}
	k := fmt.Sprintf("%s/%d", in.PersonID, in.FileType)
	f.tries[k]++
	n := f.tries[k]
	answer := f.answer
	f.mu.Unlock()
	if answer != nil {
		if err := answer(in, n); err != nil {
			return bulkFile{}, err
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	// as the server: a key the password does not open is refused; a fake certificate is
	// "NUMBER RFC", a fake key "key of NUMBER", and a key takes the sequence of the person's
	// current certificate of that number (the same public key), or a new one
	if (in.FileType == 1 || in.FileType == 3) && in.Password != secretPW {
		return bulkFile{}, &api.Error{Status: 400, Failures: []api.Failure{{PropertyName: "Password", ErrorMessage: "La contraseña de la llave privada (.key) es incorrecta o el archivo no es una llave privada."}}}
	}
	f.uploads = append(f.uploads, in)
	x := bulkFile{ID: fmt.Sprintf("file-%d", len(f.uploads)), PersonID: in.PersonID, FileType: in.FileType}
	if in.FileType == 0 || in.FileType == 2 {
		x.CertificateNumber, _, _ = strings.Cut(string(in.Content), " ")
	} else {
		for _, c := range f.files {
			if c.PersonID == in.PersonID && c.FileType == in.FileType-1 && "key of "+c.CertificateNumber == string(in.Content) {
				x.Sequence = c.Sequence
			}
		}
	}
	if x.Sequence == 0 {
		f.seq++
		x.Sequence = f.seq
	}
	f.files = append(f.files, x)
	return x, nil
}

func (f *fakeBulk) Delete(ctx context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.deleted = append(f.deleted, id)
	f.files = slices.DeleteFunc(f.files, func(x bulkFile) bool { return x.ID == id })
	return nil
}

func (f *fakeBulk) uploadCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.uploads)
}

// fakeValidate reads a fake certificate "NUMBER RFC" and checks that the key looks like one
// ("key of …"), without a password, as the real check cannot open it.
func fakeValidate(cer, key []byte) (bulkCert, error) {
	number, rfc, ok := strings.Cut(string(cer), " ")
	if !ok {
		return bulkCert{}, errors.New("certificate: not an X.509 certificate")
	}
	if !strings.HasPrefix(string(key), "key of ") {
		return bulkCert{}, errors.New("key: not an encrypted private key")
	}
	return bulkCert{Number: number, RFC: rfc, ValidTo: time.Now().Add(24 * time.Hour)}, nil
}

// fakePairs writes n fake pairs for the people P0..Pn-1 (RFC AAA0101010A0 + i) and returns
// them and the people.
func fakePairs(t *testing.T, n int) ([]bulkPair, []bulkPerson) {
	t.Helper()
	dir := t.TempDir()
	pw := filepath.Join(dir, "pw.txt")
	if err := os.WriteFile(pw, []byte(secretPW+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var pairs []bulkPair
	var people []bulkPerson
	for i := range n {
		rfc := fmt.Sprintf("AAA010101%03d", i)
		number := fmt.Sprintf("300010000005%08d", i)
		cer := filepath.Join(dir, fmt.Sprintf("%d.cer", i))
		key := filepath.Join(dir, fmt.Sprintf("%d.key", i))
		must(t, os.WriteFile(cer, []byte(number+" "+rfc), 0o600))
		must(t, os.WriteFile(key, []byte("key of "+number), 0o600))
		people = append(people, bulkPerson{ID: fmt.Sprintf("person-%d", i), Tin: rfc})
		pairs = append(pairs, bulkPair{Source: fmt.Sprintf("m.csv:%d", i+2), Person: rfc, Cer: cer, Key: key, Password: bulkSecret{File: pw}})
	}
	return pairs, people
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// sleeper records the waits of the engine without waiting.
type sleeper struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeper) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

func newEngine(api bulkAPI, s *sleeper) *bulkEngine {
	return &bulkEngine{API: api, Validate: fakeValidate, Concurrency: 2, Sleep: s.sleep, Jitter: func(d time.Duration) time.Duration { return d - 1 }}
}

func outcomes(rs []pairResult) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Outcome)
	}
	return out
}

func TestBulkUploadsCertificateThenKey(t *testing.T) {
	pairs, people := fakePairs(t, 3)
	fb := &fakeBulk{people: people}
	rs, err := newEngine(fb, &sleeper{}).Run(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	if got := outcomes(rs); !slices.Equal(got, []string{"uploaded", "uploaded", "uploaded"}) {
		t.Fatalf("outcomes %v", got)
	}
	for i, r := range rs {
		if r.Person != people[i].ID || r.RFC != people[i].Tin || r.CertificateNumber != fmt.Sprintf("300010000005%08d", i) || r.Attempts != 2 || r.Error != "" || r.Cer != pairs[i].Cer {
			t.Errorf("pair %d: %+v", i, r)
		}
	}
	// per person: the certificate (type 0, no password), then the key (type 1, the password)
	byPerson := map[string][]bulkUpload{}
	for _, u := range fb.uploads {
		byPerson[u.PersonID] = append(byPerson[u.PersonID], u)
	}
	for id, us := range byPerson {
		if len(us) != 2 || us[0].FileType != 0 || us[0].Password != "" || us[1].FileType != 1 || us[1].Password != secretPW || us[0].Tin == "" {
			t.Errorf("%s: uploads %+v", id, us)
		}
	}
}

func TestBulkRetries429HonouringRetryAfter(t *testing.T) {
	pairs, people := fakePairs(t, 1)
	fb := &fakeBulk{people: people, answer: func(in bulkUpload, n int) error {
		if in.FileType == 0 && n <= 2 {
			return &retryAfterError{err: &api.Error{Status: http.StatusTooManyRequests, Details: "Too many requests"}, after: 7 * time.Second}
		}
		return nil
	}}
	s := &sleeper{}
	rs, err := newEngine(fb, s).Run(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].Outcome != outcomeUploaded || rs[0].Attempts != 4 {
		t.Fatalf("result %+v, want uploaded after 4 requests", rs[0])
	}
	if len(s.waits) != 2 {
		t.Fatalf("waits %v, want 2", s.waits)
	}
	for _, w := range s.waits {
		// the full Retry-After, plus at most a tenth of it
		if w < 7*time.Second || w > 7*time.Second+701*time.Millisecond {
			t.Errorf("wait %v, want Retry-After 7s plus jitter", w)
		}
	}
}

func TestBulkRetries5xxWithExponentialBackoff(t *testing.T) {
	pairs, people := fakePairs(t, 1)
	fb := &fakeBulk{people: people, answer: func(in bulkUpload, n int) error {
		switch {
		case in.FileType == 1 && n == 1:
			return &api.Error{Status: 503}
		case in.FileType == 1 && n == 2:
			return &api.Error{Details: "cannot reach http://127.0.0.1:1: connection refused"} // not reached
		case in.FileType == 1 && n == 3:
			return &api.Error{Status: 500}
		}
		return nil
	}}
	s := &sleeper{}
	e := newEngine(fb, s)
	e.BaseDelay = time.Second
	var jitters []time.Duration
	e.Jitter = func(d time.Duration) time.Duration { jitters = append(jitters, d); return 0 }
	rs, err := e.Run(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].Outcome != outcomeUploaded || rs[0].Attempts != 5 {
		t.Fatalf("result %+v", rs[0])
	}
	// backoff 1s, 2s, 4s: half fixed, half random
	if want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second}; !slices.Equal(s.waits, want) || !slices.Equal(jitters, want) {
		t.Errorf("waits %v jitter ranges %v, want %v", s.waits, jitters, want)
	}
}

func TestBulkGivesUpAfterMaxAttemptsAndOtherPairsGoOn(t *testing.T) {
	pairs, people := fakePairs(t, 3)
	fb := &fakeBulk{people: people, answer: func(in bulkUpload, n int) error {
		if in.PersonID == "person-1" {
			return &api.Error{Status: 502, Details: "bad gateway"}
		}
		return nil
	}}
	e := newEngine(fb, &sleeper{})
	e.MaxAttempts = 4
	rs, err := e.Run(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	if got := outcomes(rs); !slices.Equal(got, []string{"uploaded", "failed", "uploaded"}) {
		t.Fatalf("outcomes %v", got)
	}
	if rs[1].Attempts != 4 || !strings.Contains(rs[1].Error, "certificate: 502") || !strings.Contains(rs[1].Error, "gave up after 4 attempts") {
		t.Errorf("failed pair %+v", rs[1])
	}
}

func TestBulkDoesNotRetryA400(t *testing.T) {
	pairs, people := fakePairs(t, 1)
	fb := &fakeBulk{people: people, answer: func(in bulkUpload, n int) error {
		if in.FileType == 1 {
			return &api.Error{Status: 400, Failures: []api.Failure{{PropertyName: "Password", ErrorMessage: "La contraseña de la llave privada (.key) es incorrecta o el archivo no es una llave privada."}}}
		}
		return nil
	}}
	s := &sleeper{}
	rs, _ := newEngine(fb, s).Run(context.Background(), pairs)
	if rs[0].Outcome != outcomeFailed || rs[0].Attempts != 2 || len(s.waits) != 0 || !strings.Contains(rs[0].Error, "key: 400 Bad Request; Password: La contraseña") {
		t.Fatalf("result %+v waits %v", rs[0], s.waits)
	}
}

func TestBulkRespectsTheConcurrencyBound(t *testing.T) {
	pairs, people := fakePairs(t, 20)
	const bound = 3
	var mu sync.Mutex
	inflight, most := 0, 0
	full := make(chan struct{})
	var once sync.Once
	fb := &fakeBulk{people: people}
	fb.answer = func(bulkUpload, int) error {
		mu.Lock()
		inflight++
		most = max(most, inflight)
		if inflight == bound {
			once.Do(func() { close(full) })
		}
		mu.Unlock()
		<-full // the first uploads wait until the bound is reached, so it must be reached
		mu.Lock()
		inflight--
		mu.Unlock()
		return nil
	}
	e := newEngine(fb, &sleeper{})
	e.Concurrency = bound
	rs, err := e.Run(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	if most != bound {
		t.Errorf("at most %d uploads at once, want %d", most, bound)
	}
	for _, r := range rs {
		if r.Outcome != outcomeUploaded {
			t.Fatalf("result %+v", r)
		}
	}
}

func TestBulkInterruptionFinishesThePairUnderWayAndStartsNoOther(t *testing.T) {
	pairs, people := fakePairs(t, 5)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fb := &fakeBulk{people: people, answer: func(in bulkUpload, n int) error {
		if in.PersonID == "person-2" && in.FileType == 0 {
			cancel() // Ctrl-C while the certificate of the third pair is being sent
		}
		return nil
	}}
	e := newEngine(fb, &sleeper{})
	e.Concurrency = 1
	var done []string
	e.Done = func(r pairResult) { done = append(done, r.Source) }
	rs, err := e.Run(ctx, pairs)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if got := outcomes(rs); !slices.Equal(got, []string{"uploaded", "uploaded", "uploaded", "interrupted", "interrupted"}) {
		t.Fatalf("outcomes %v", got)
	}
	if len(done) != 3 || fb.uploadCount() != 6 {
		t.Errorf("done %v, %d uploads", done, fb.uploadCount())
	}
	// a re-run does the rest and skips what is done
	rs, err = newEngine(fb, &sleeper{}).Run(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	if got := outcomes(rs); !slices.Equal(got, []string{"skipped", "skipped", "skipped", "uploaded", "uploaded"}) {
		t.Fatalf("re-run outcomes %v", got)
	}
}

func TestBulkInterruptionDuringABackoffAbandonsThePair(t *testing.T) {
	pairs, people := fakePairs(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fb := &fakeBulk{people: people, answer: func(in bulkUpload, n int) error {
		return &retryAfterError{err: &api.Error{Status: 429}, after: time.Hour}
	}}
	e := newEngine(fb, nil)
	e.Sleep = func(ctx context.Context, d time.Duration) error {
		cancel()
		<-ctx.Done()
		return ctx.Err()
	}
	rs, err := e.Run(ctx, pairs)
	if !errors.Is(err, context.Canceled) || rs[0].Outcome != outcomeInterrupted || rs[0].Error != "certificate: interrupted" || rs[0].Attempts != 1 {
		t.Fatalf("err %v result %+v", err, rs[0])
	}
}

func TestBulkIsIdempotent(t *testing.T) {
	pairs, people := fakePairs(t, 4)
	fb := &fakeBulk{people: people}
	if _, err := newEngine(fb, &sleeper{}).Run(context.Background(), pairs[:2]); err != nil {
		t.Fatal(err)
	}
	// the third person has its certificate but not its key (a run stopped between the two)
	fb.seq++
	fb.files = append(fb.files, bulkFile{PersonID: "person-2", FileType: 0, CertificateNumber: "30001000000500000002", Sequence: fb.seq})
	before := fb.uploadCount()
	rs, err := newEngine(fb, &sleeper{}).Run(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	if got := outcomes(rs); !slices.Equal(got, []string{"skipped", "skipped", "uploaded", "uploaded"}) {
		t.Fatalf("outcomes %v", got)
	}
	sent := fb.uploads[before:]
	if len(sent) != 3 || sent[0].PersonID == "person-2" && sent[0].FileType == 0 {
		t.Fatalf("sent %+v", sent)
	}
	for _, u := range sent {
		if u.PersonID == "person-2" && u.FileType != 1 {
			t.Errorf("person-2 got its certificate again: %+v", u)
		}
	}
	if rs[0].Attempts != 0 || rs[0].CertificateNumber == "" {
		t.Errorf("skipped pair %+v", rs[0])
	}
	// the same certificate twice in one manifest: the second is skipped
	dup := []bulkPair{pairs[3], pairs[3]}
	dup[1].Source = "m.csv:9"
	rs, _ = newEngine(fb, &sleeper{}).Run(context.Background(), dup)
	if rs[1].Outcome != outcomeSkipped {
		t.Errorf("duplicate %+v", rs[1])
	}
}

// TestBulkBadPairsFailAlone: what the pair itself shows fails before anything is sent; a
// password the server refuses leaves the certificate (a run with the right password sends only
// the key); a key of another certificate is deleted once the server's answer shows it.
func TestBulkBadPairsFailAlone(t *testing.T) {
	pairs, people := fakePairs(t, 8)
	dir := t.TempDir()
	wrong := filepath.Join(dir, "wrong.txt")
	must(t, os.WriteFile(wrong, []byte("not-"+secretPW), 0o600))
	notAKey := filepath.Join(dir, "not.key")
	must(t, os.WriteFile(notAKey, []byte("-----BEGIN PRIVATE KEY-----"), 0o600))
	pairs[1].Password = bulkSecret{File: wrong}                       // the password does not open the key
	pairs[2].Key = pairs[3].Key                                       // the key of another certificate
	pairs[3].Person = "ZZZ010101ZZZ"                                  // nobody has this RFC
	pairs[4].Person = "person-0"                                      // by id: person-0's RFC is not the certificate's
	pairs[5].Password = bulkSecret{Env: "TIMBRA_TEST_UNSET_PASSWORD"} // not set
	pairs[6].Cer = filepath.Join(dir, "missing.cer")
	pairs[7].Key = notAKey
	fb := &fakeBulk{people: people}
	e := newEngine(fb, &sleeper{})
	e.Getenv = func(string) (string, bool) { return "", false }
	rs, err := e.Run(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		outcome, err string
		attempts     int
	}{
		{"uploaded", "", 2},
		{"failed", "key: 400 Bad Request; Password: La contraseña", 2},
		{"failed", "the key is not the certificate's (certificate 30001000000500000002)", 3},
		{"failed", "no person has the RFC ZZZ010101ZZZ", 0},
		{"failed", "the certificate is of RFC AAA010101004, the person's RFC is AAA010101000", 0},
		{"failed", "the environment variable TIMBRA_TEST_UNSET_PASSWORD of the password is not set", 0},
		{"failed", "certificate: open", 0},
		{"failed", "key: not an encrypted private key", 0},
	}
	for i, w := range want {
		if rs[i].Outcome != w.outcome || !strings.HasPrefix(rs[i].Error, w.err) || rs[i].Attempts != w.attempts {
			t.Errorf("pair %d: %s %q after %d requests, want %s %q after %d", i, rs[i].Outcome, rs[i].Error, rs[i].Attempts, w.outcome, w.err, w.attempts)
		}
	}
	if strings.Contains(rs[1].Error, "not-"+secretPW) {
		t.Errorf("the wrong password is in the error: %q", rs[1].Error)
	}
	// saved: the good pair, pair 1's certificate, pair 2's certificate and its wrong key, which
	// was then deleted
	if fb.uploadCount() != 5 || len(fb.deleted) != 1 {
		t.Errorf("%d uploads and %v deleted, want 5 and one", fb.uploadCount(), fb.deleted)
	}
	for _, x := range fb.files {
		if x.PersonID == "person-2" && x.FileType == 1 {
			t.Errorf("the wrong key is still current: %+v", x)
		}
	}

	// a run with the right password sends only pair 1's key
	pairs[1].Password = pairs[0].Password
	before := fb.uploadCount()
	rs, err = newEngine(fb, &sleeper{}).Run(context.Background(), pairs[:2])
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].Outcome != outcomeSkipped || rs[1].Outcome != outcomeUploaded || rs[1].Attempts != 1 || fb.uploadCount() != before+1 {
		t.Errorf("second run: %+v, %d uploads", rs, fb.uploadCount()-before)
	}
}

func TestBulkResolvesPeople(t *testing.T) {
	pairs, people := fakePairs(t, 2)
	people = append(people, bulkPerson{ID: "twin", Tin: people[1].Tin})
	pairs[0].Person = "person-0"
	fb := &fakeBulk{people: people}
	rs, _ := newEngine(fb, &sleeper{}).Run(context.Background(), pairs)
	if rs[0].Outcome != outcomeUploaded || rs[0].Person != "person-0" || rs[0].RFC != "AAA010101000" {
		t.Errorf("by id: %+v", rs[0])
	}
	if rs[1].Outcome != outcomeFailed || rs[1].Error != "2 people have the RFC AAA010101001: give the person id" {
		t.Errorf("ambiguous RFC: %+v", rs[1])
	}
}

func TestRetryAfterParsing(t *testing.T) {
	now := time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"":                              0,
		"3":                             3 * time.Second,
		"-1":                            0,
		"soon":                          0,
		"Mon, 10 Mar 2025 12:00:30 GMT": 30 * time.Second,
	} {
		if got := parseRetryAfter(v, now); got != want {
			t.Errorf("%q: %v, want %v", v, got, want)
		}
	}
}

func TestProgressLine(t *testing.T) {
	start := time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)
	p := &bulkProgress{total: 1000, start: start}
	for range 240 {
		p.add(pairResult{Outcome: outcomeUploaded})
	}
	for range 8 {
		p.add(pairResult{Outcome: outcomeSkipped})
	}
	for range 2 {
		p.add(pairResult{Outcome: outcomeFailed})
	}
	got := p.line(start.Add(10*time.Second), 100)
	want := "[##########..............................] 250/1000  25%  25.0/s ETA 30s  ✓240 ↷8 ✗2"
	if got != want {
		t.Errorf("line\n%q, want\n%q", got, want)
	}
	if got := p.line(start.Add(10*time.Second), 30); got != "250/1000  25%  25.0/s ETA 30s  ✓240 ↷8 ✗2" {
		t.Errorf("narrow line %q", got)
	}
	if got := shortDuration(3*time.Minute + 10*time.Second); got != "3m10s" {
		t.Errorf("%q", got)
	}
}
