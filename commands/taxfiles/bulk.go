package taxfiles

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

// The engine of `timbra tax-files bulk-upload`: validates each pair of a manifest locally, skips
// the pairs already current for their person, uploads the others (certificate, then key) with a
// bounded number of workers and retries, and records the outcome of every pair. It talks to the
// API through bulkAPI, so that it is tested with a fake.

// Outcomes of a pair in the report.
const (
	outcomeUploaded    = "uploaded"
	outcomeSkipped     = "skipped"
	outcomeFailed      = "failed"
	outcomeInterrupted = "interrupted" // not started, or abandoned, when the run was interrupted
)

// bulkPerson is a person of the tenant as the engine needs it.
type bulkPerson struct {
	ID  string
	Tin string
}

// bulkFile is a current tax file of the tenant.
type bulkFile struct {
	ID                string
	PersonID          string
	FileType          int
	CertificateNumber string // certificates only
	Sequence          int    // a certificate and the key that matches it share it
}

// bulkUpload is one upload request.
type bulkUpload struct {
	PersonID string
	Tin      string
	FileType int
	Content  []byte
	Password string // keys only
}

// bulkAPI is what the engine asks of the API.
type bulkAPI interface {
	// People lists every person the caller sees.
	People(ctx context.Context) ([]bulkPerson, error)
	// TaxFiles lists every current tax file the caller sees.
	TaxFiles(ctx context.Context) ([]bulkFile, error)
	// Upload sends one file and returns it as saved.
	Upload(ctx context.Context, in bulkUpload) (bulkFile, error)
	// Delete deletes a file just uploaded.
	Delete(ctx context.Context, id string) error
}

// bulkCert is what local validation learns of a pair.
type bulkCert struct {
	Number  string
	RFC     string
	ValidTo time.Time
	Kind    csd.Kind
}

// bulkValidator parses a certificate and checks, without opening it, that the key is an
// encrypted private key. Opening the key (the password) and matching it to the certificate is
// the server's: it must open every key it saves anyway, and one decryption per pair is the
// upload's floor.
type bulkValidator func(cer, key []byte) (bulkCert, error)

// retryAfterError is an API error that came with a Retry-After.
type retryAfterError struct {
	err   error
	after time.Duration
}

func (e *retryAfterError) Error() string { return e.err.Error() }
func (e *retryAfterError) Unwrap() error { return e.err }

// pairResult is one line of the report.
type pairResult struct {
	Source            string `json:"source"`
	Person            string `json:"person"`
	RFC               string `json:"rfc"`
	Cer               string `json:"cer"`
	Key               string `json:"key"`
	CertificateNumber string `json:"certificateNumber"`
	Outcome           string `json:"outcome"`
	Error             string `json:"error"`
	Attempts          int    `json:"attempts"`
	MS                int64  `json:"ms"`
}

// bulkReport is what --report writes and -o json prints.
type bulkReport struct {
	Manifest    string       `json:"manifest"`
	StartedAt   string       `json:"startedAt"`
	FinishedAt  string       `json:"finishedAt"`
	Interrupted bool         `json:"interrupted"`
	Total       int          `json:"total"`
	Uploaded    int          `json:"uploaded"`
	Skipped     int          `json:"skipped"`
	Failed      int          `json:"failed"`
	NotDone     int          `json:"interruptedPairs"`
	Pairs       []pairResult `json:"pairs"`
}

// bulkEngine runs one bulk upload.
type bulkEngine struct {
	API         bulkAPI
	Validate    bulkValidator
	Concurrency int
	MaxAttempts int           // tries of one request, the first included
	BaseDelay   time.Duration // the first backoff; doubles each retry
	MaxDelay    time.Duration // the longest backoff (and Retry-After honoured)
	Grace       time.Duration // how long a started pair may go on after an interruption
	FIEL        bool          // e.firma (types 2 and 3) instead of CSD (0 and 1)

	Now    func() time.Time
	Sleep  func(ctx context.Context, d time.Duration) error
	Jitter func(d time.Duration) time.Duration // a random duration in [0, d)
	Getenv func(string) (string, bool)
	// Done is called once per pair as it ends (from the workers, one at a time).
	Done func(r pairResult)

	mu      sync.Mutex
	claimed map[string]string // certificate number → source, within this run
}

func (e *bulkEngine) defaults() {
	if e.Concurrency < 1 {
		e.Concurrency = 4
	}
	if e.MaxAttempts < 1 {
		e.MaxAttempts = 6
	}
	if e.BaseDelay <= 0 {
		e.BaseDelay = 500 * time.Millisecond
	}
	if e.MaxDelay <= 0 {
		e.MaxDelay = 60 * time.Second
	}
	if e.Grace <= 0 {
		e.Grace = 15 * time.Second
	}
	if e.Now == nil {
		e.Now = time.Now
	}
	if e.Sleep == nil {
		e.Sleep = sleepCtx
	}
	if e.Jitter == nil {
		e.Jitter = func(d time.Duration) time.Duration {
			if d <= 0 {
				return 0
			}
			return rand.N(d)
		}
	}
	if e.Getenv == nil {
		e.Getenv = os.LookupEnv
	}
	e.claimed = map[string]string{}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (e *bulkEngine) fileTypes() (cer, key int) {
	if e.FIEL {
		return 2, 3
	}
	return 0, 1
}

// existing is what the tenant already has, by person.
type existing struct {
	certs map[string]map[string]int // person → certificate number → sequence
	keys  map[string]map[int]bool   // person → sequences of current keys
}

// Run uploads pairs and returns the result of each, in manifest order. When ctx ends, no pair
// starts; a pair under way goes on for at most Grace, and the pairs not done are reported as
// interrupted. The error is ctx's when interrupted, or what prevented the run from starting.
func (e *bulkEngine) Run(ctx context.Context, pairs []bulkPair) ([]pairResult, error) {
	e.defaults()
	// requests go on past an interruption, for at most Grace, so a pair under way ends cleanly
	reqCtx, cancelReq := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelReq()
	stopGrace := context.AfterFunc(ctx, func() {
		t := time.AfterFunc(e.Grace, cancelReq)
		context.AfterFunc(reqCtx, func() { t.Stop() })
	})
	defer stopGrace()

	var people []bulkPerson
	if _, err := e.retry(ctx, ctx, func(c context.Context) (err error) { people, err = e.API.People(c); return err }); err != nil {
		return nil, fmt.Errorf("list the people: %w", err)
	}
	var files []bulkFile
	if _, err := e.retry(ctx, ctx, func(c context.Context) (err error) { files, err = e.API.TaxFiles(c); return err }); err != nil {
		return nil, fmt.Errorf("list the tax files: %w", err)
	}
	byID := map[string]bulkPerson{}
	byRFC := map[string][]bulkPerson{}
	for _, p := range people {
		byID[p.ID] = p
		if p.Tin != "" {
			t := strings.ToUpper(p.Tin)
			byRFC[t] = append(byRFC[t], p)
		}
	}
	cerType, keyType := e.fileTypes()
	ex := existing{certs: map[string]map[string]int{}, keys: map[string]map[int]bool{}}
	for _, f := range files {
		switch f.FileType {
		case cerType:
			if ex.certs[f.PersonID] == nil {
				ex.certs[f.PersonID] = map[string]int{}
			}
			ex.certs[f.PersonID][f.CertificateNumber] = f.Sequence
		case keyType:
			if ex.keys[f.PersonID] == nil {
				ex.keys[f.PersonID] = map[int]bool{}
			}
			ex.keys[f.PersonID][f.Sequence] = true
		}
	}

	results := make([]pairResult, len(pairs))
	for i, p := range pairs {
		results[i] = pairResult{Source: p.Source, Person: p.Person, Cer: p.Cer, Key: p.Key, Outcome: outcomeInterrupted}
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	var doneMu sync.Mutex
	for range min(e.Concurrency, max(len(pairs), 1)) {
		wg.Go(func() {
			for i := range jobs {
				if ctx.Err() != nil {
					continue // interrupted: not started
				}
				r := &results[i]
				start := e.Now()
				e.pair(ctx, reqCtx, pairs[i], r, byID, byRFC, ex)
				r.MS = e.Now().Sub(start).Milliseconds()
				if e.Done != nil {
					doneMu.Lock()
					e.Done(*r)
					doneMu.Unlock()
				}
			}
		})
	}
feed:
	for i := range pairs {
		if ctx.Err() != nil {
			break // a worker may be waiting too: select would choose at random
		}
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	return results, ctx.Err()
}

// pair validates, checks and uploads one pair, filling r.
func (e *bulkEngine) pair(ctx, reqCtx context.Context, p bulkPair, r *pairResult, byID map[string]bulkPerson, byRFC map[string][]bulkPerson, ex existing) {
	fail := func(format string, a ...any) {
		r.Outcome, r.Error = outcomeFailed, fmt.Sprintf(format, a...)
	}
	if p.Problem != "" {
		fail("%s", p.Problem)
		return
	}
	// the person: an RFC names the one person whose tin it is
	var person bulkPerson
	if looksLikeRFC(p.Person) {
		r.RFC = strings.ToUpper(p.Person)
		switch ps := byRFC[r.RFC]; len(ps) {
		case 0:
			fail("no person has the RFC %s", r.RFC)
			return
		case 1:
			person = ps[0]
		default:
			fail("%d people have the RFC %s: give the person id", len(ps), r.RFC)
			return
		}
	} else {
		var ok bool
		if person, ok = byID[p.Person]; !ok {
			fail("no person with id %s", p.Person)
			return
		}
		r.RFC = strings.ToUpper(person.Tin)
	}
	r.Person = person.ID

	// local validation: what the pair itself shows fails it alone, before anything is sent
	cer, err := os.ReadFile(p.Cer)
	if err != nil {
		fail("certificate: %v", err)
		return
	}
	key, err := os.ReadFile(p.Key)
	if err != nil {
		fail("key: %v", err)
		return
	}
	password, err := p.Password.read(e.Getenv)
	if err != nil {
		fail("%v", err)
		return
	}
	cert, err := e.Validate(cer, key)
	if err != nil {
		fail("%s", scrub(err.Error(), password))
		return
	}
	r.CertificateNumber = cert.Number
	if r.RFC == "" {
		r.RFC = strings.ToUpper(cert.RFC)
	}
	if person.Tin == "" {
		fail("the person %s has no RFC (tin): set it with timbra people update --tin", person.ID)
		return
	}
	if !strings.EqualFold(cert.RFC, person.Tin) {
		fail("the certificate is of RFC %s, the person's RFC is %s", strings.ToUpper(cert.RFC), strings.ToUpper(person.Tin))
		return
	}
	switch {
	case e.FIEL && cert.Kind == csd.KindCSD:
		fail("a CSD certificate, not an e.firma: upload it without --fiel")
		return
	case !e.FIEL && cert.Kind == csd.KindFIEL:
		fail("an e.firma (FIEL) certificate, not a CSD: upload it with --fiel")
		return
	}
	if !cert.ValidTo.IsZero() && !e.Now().Before(cert.ValidTo) {
		fail("the certificate expired on %s", cert.ValidTo.UTC().Format(time.DateOnly))
		return
	}
	e.mu.Lock()
	first, dup := e.claimed[cert.Number]
	if !dup {
		e.claimed[cert.Number] = p.Source
	}
	e.mu.Unlock()
	if dup {
		r.Outcome = outcomeSkipped
		r.Error = "the same certificate as " + first
		return
	}

	// idempotence: a certificate already current with its key is done; a current certificate
	// without its key (a run interrupted between the two) gets only the key
	seq, cerDone := ex.certs[person.ID][cert.Number]
	if cerDone && seq != 0 && ex.keys[person.ID][seq] {
		r.Outcome = outcomeSkipped
		return
	}
	if ctx.Err() != nil {
		return // interrupted before anything was sent
	}
	cerType, keyType := e.fileTypes()
	send := func(in bulkUpload) (f bulkFile, err error) {
		n, err := e.retry(ctx, reqCtx, func(c context.Context) (err error) { f, err = e.API.Upload(c, in); return err })
		r.Attempts += n
		return f, err
	}
	if !cerDone {
		f, err := send(bulkUpload{PersonID: person.ID, Tin: person.Tin, FileType: cerType, Content: cer})
		if err != nil {
			e.failed(r, "certificate", err, password)
			return
		}
		seq = f.Sequence
	}
	// the server opens the key (its Password failure is the pair's) and gives it the sequence of
	// the current file with the same public key: the certificate's when they belong together
	k, err := send(bulkUpload{PersonID: person.ID, Tin: person.Tin, FileType: keyType, Content: key, Password: password})
	if err != nil {
		e.failed(r, "key", err, password)
		return
	}
	if k.Sequence != seq {
		r.Outcome, r.Error = outcomeFailed, fmt.Sprintf("the key is not the certificate's (certificate %s)", cert.Number)
		// the key saved alone is deleted (its content and password erased); the certificate
		// stays, as when a key is refused, and a run with the right key sends only the key
		n, err := e.retry(ctx, reqCtx, func(c context.Context) error { return e.API.Delete(c, k.ID) })
		r.Attempts += n
		if err != nil {
			r.Error += fmt.Sprintf("; deleting the key saved alone (tax file %s) failed: %s", k.ID, scrub(err.Error(), password))
		}
		return
	}
	r.Outcome = outcomeUploaded
}

func (e *bulkEngine) failed(r *pairResult, what string, err error, password string) {
	if errors.Is(err, context.Canceled) || errors.Is(err, errInterrupted) {
		r.Outcome, r.Error = outcomeInterrupted, what+": interrupted"
		return
	}
	r.Outcome, r.Error = outcomeFailed, what+": "+scrub(cmdutil.OneLine(err.Error()), password)
}

// scrub removes a password from a message, should any layer have echoed it.
func scrub(msg, password string) string {
	if password == "" {
		return msg
	}
	return strings.ReplaceAll(msg, password, "[password]")
}

// errInterrupted ends a request's retries when the run is interrupted; it is a context.Canceled,
// so that the command exits as interrupted.
var errInterrupted = fmt.Errorf("interrupted: %w", context.Canceled)

// retry calls do until it succeeds, fails for good or MaxAttempts tries were made, and returns
// the tries. 429, 5xx and transport failures are retried after an exponential backoff with
// jitter, or the Retry-After of the answer when longer. Requests use reqCtx; waits end with ctx.
func (e *bulkEngine) retry(ctx, reqCtx context.Context, do func(context.Context) error) (int, error) {
	for attempt := 1; ; attempt++ {
		err := do(reqCtx)
		if err == nil {
			return attempt, nil
		}
		if reqCtx.Err() != nil {
			return attempt, errInterrupted
		}
		retryable, after := retryable(err)
		if !retryable || attempt >= e.MaxAttempts {
			if retryable {
				err = fmt.Errorf("%w (gave up after %d attempts)", err, attempt)
			}
			return attempt, err
		}
		if ctx.Err() != nil {
			return attempt, errInterrupted
		}
		if err := e.Sleep(ctx, e.delay(attempt, after)); err != nil {
			return attempt, errInterrupted
		}
	}
}

// delay is the wait before the try after attempt: the backoff BaseDelay·2^(attempt-1) capped
// at MaxDelay, half of it fixed and half random; a Retry-After is waited in full (capped at
// MaxDelay) plus up to a tenth more, so that workers told the same time do not return at once.
func (e *bulkEngine) delay(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		d := min(retryAfter, e.MaxDelay)
		return d + e.Jitter(d/10+time.Millisecond)
	}
	b := e.BaseDelay << (attempt - 1)
	if b > e.MaxDelay || b <= 0 {
		b = e.MaxDelay
	}
	return b/2 + e.Jitter(b/2)
}

// retryable tells whether an error of a request may succeed on another try, and the wait the
// server asked for.
func retryable(err error) (bool, time.Duration) {
	var ra *retryAfterError
	var after time.Duration
	if errors.As(err, &ra) {
		after = ra.after
	}
	var ae *api.Error
	if !errors.As(err, &ae) {
		return false, 0
	}
	switch {
	case ae.Status == 0: // not reached: connection refused or reset, timeout
		return true, after
	case ae.Status == http.StatusTooManyRequests || ae.Status >= 500:
		return true, after
	}
	return false, 0
}

var rfcRE = regexp.MustCompile(`^[A-Za-zÑñ&]{3,4}[0-9]{6}[A-Za-z0-9]{3}$`)

// looksLikeRFC tells an RFC from a person id in a manifest.
func looksLikeRFC(s string) bool { return rfcRE.MatchString(s) }

// summarize fills the counts of a report.
func (rep *bulkReport) summarize(results []pairResult) {
	rep.Pairs = results
	rep.Total = len(results)
	for _, r := range results {
		switch r.Outcome {
		case outcomeUploaded:
			rep.Uploaded++
		case outcomeSkipped:
			rep.Skipped++
		case outcomeFailed:
			rep.Failed++
		default:
			rep.NotDone++
		}
	}
}

type bulkUploadOptions struct {
	f           *cmdutil.Factory
	Manifest    string
	Concurrency int
	MaxAttempts int
	Report      string
	FIEL        bool
}

func newBulkUploadCmd(f *cmdutil.Factory, run cmdutil.RunFunc[bulkUploadOptions]) *cli.Command {
	o := &bulkUploadOptions{f: f}
	run = cmdutil.OrRun(run, bulkUploadRun)
	return &cli.Command{
		Name:      "bulk-upload",
		Usage:     "Upload many certificates and keys from a CSV manifest or a folder",
		UsageText: "timbra tax-files bulk-upload MANIFEST [--concurrency N] [--report FILE] [--fiel] [-o json]",
		ArgsUsage: "MANIFEST",
		Description: "MANIFEST is a CSV file or a folder.\n\n" +
			"CSV: a header line person,cer,key,password (any order), then one pair per line. person is a\n" +
			"person id or an RFC (the person whose tin it is); cer and key are paths relative to the CSV;\n" +
			"password is file:PATH (its first line; relative to the CSV) or env:NAME (an environment\n" +
			"variable), never the password itself. Blank lines and lines starting with # are ignored; a\n" +
			"malformed line stops the run before anything is sent, naming its line number.\n\n" +
			"Folder: one subfolder per person named by its RFC, holding exactly one .cer, one .key and a\n" +
			"password.txt (first line). Names starting with a dot and other files are ignored.\n\n" +
			"Each pair is checked on this machine first (the certificate parses and is of the person's RFC\n" +
			"and not expired, the key is an encrypted private key); a bad pair fails alone, before a request.\n" +
			"The server opens the key (once: the costly part of an upload) and matches it: the certificate is\n" +
			"sent, then the key; a password it refuses leaves the certificate, and a key of another\n" +
			"certificate is deleted again, both reported as failed. A pair\n" +
			"whose certificate number is already a current certificate of the person, with its key, is\n" +
			"skipped (a current certificate without its key gets the key), so a run can be repeated. Requests\n" +
			"answered 429 or 5xx, or that do not reach the server, are retried with exponential backoff and\n" +
			"jitter, waiting at least the Retry-After the server gives (at most --max-attempts tries).\n\n" +
			"On a terminal a progress bar with the rate and time left is drawn on stderr; elsewhere one line per\n" +
			"pair is printed on stdout (outcome, where it was read, RFC, certificate number, error). -o json\n" +
			"prints the report instead. Ctrl-C starts no new pair, lets those under way finish (at most 15 s)\n" +
			"and writes the report: pairs not done are \"interrupted\"; run again to go on. Passwords are\n" +
			"never printed. The exit code is 1 when a pair failed, 130 when interrupted.\n\n" +
			"The report (--report, JSON) has the counts and, for every pair, source, person, rfc, cer, key,\n" +
			"certificateNumber, outcome (uploaded, skipped, failed or interrupted), error, attempts (upload\n" +
			"requests sent, retries included) and ms.\n\n" +
			"Examples:\n" +
			"  timbra tax-files bulk-upload pairs.csv --report report.json\n" +
			"  timbra tax-files bulk-upload ./csd --concurrency 16 -o json > report.json",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "concurrency", Aliases: []string{"c"}, Usage: "upload `N` pairs at a time", Value: 4, Destination: &o.Concurrency},
			&cli.IntFlag{Name: "max-attempts", Usage: "try a request at most `N` times", Value: 6, Destination: &o.MaxAttempts},
			&cli.StringFlag{Name: "report", Usage: "write the JSON report to `FILE`", TakesFile: true, Destination: &o.Report},
			&cli.BoolFlag{Name: "fiel", Usage: "e.firma (FIEL) pairs: fileType 2 and 3 instead of 0 and 1", Destination: &o.FIEL},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "manifest (a CSV file or a folder)"); err != nil {
				return err
			}
			o.Manifest = c.Args().First()
			if o.Concurrency < 1 || o.Concurrency > 256 {
				return cmdutil.UsageErrorf(c, "invalid value %d for --concurrency: 1 to 256", o.Concurrency)
			}
			if o.MaxAttempts < 1 {
				return cmdutil.UsageErrorf(c, "invalid value %d for --max-attempts: at least 1", o.MaxAttempts)
			}
			if o.Report != "" {
				if st, err := os.Stat(filepath.Dir(o.Report)); err != nil || !st.IsDir() {
					return cmdutil.UsageErrorf(c, "--report %s: the folder does not exist", o.Report)
				}
			}
			return run(c, o)
		},
	}
}

// pairLine is the one line of a pair printed when stdout is not a terminal.
func pairLine(r pairResult) string {
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	s := fmt.Sprintf("%s %s %s %s", r.Outcome, r.Source, dash(r.RFC), dash(r.CertificateNumber))
	if r.Error != "" {
		s += ": " + cmdutil.OneLine(r.Error)
	}
	return s
}

func bulkUploadRun(c *cli.Context, o *bulkUploadOptions) error {
	ctx := c.Context
	pairs, err := readManifest(o.Manifest)
	if err != nil {
		return err
	}
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	eng := &bulkEngine{
		API:         newAPIBulk(client, o.f.HTTP, o.Concurrency),
		Validate:    validateWithCSD,
		Concurrency: o.Concurrency,
		MaxAttempts: o.MaxAttempts,
		FIEL:        o.FIEL,
	}
	return runBulk(ctx, o, eng, pairs)
}

// runBulk runs the engine over pairs with the output and report the options ask for.
func runBulk(ctx context.Context, o *bulkUploadOptions, eng *bulkEngine, pairs []bulkPair) error {
	ios := o.f.IO
	started := time.Now()
	prog := &bulkProgress{total: len(pairs), start: started}
	var drawer *progressDrawer
	if ios.ErrTTY && !o.f.JSON() {
		width := 80
		if fd, ok := ios.Err.(interface{ Fd() uintptr }); ok {
			if w, _, err := term.GetSize(int(fd.Fd())); err == nil && w > 0 {
				width = w
			}
		}
		drawer = startProgress(ios.Err, prog, time.Now, width, 200*time.Millisecond)
	}
	eng.Done = func(r pairResult) {
		prog.add(r)
		switch {
		case drawer != nil:
			if r.Outcome == outcomeFailed {
				drawer.println(pairLine(r))
			}
		case !o.f.JSON():
			fmt.Fprintln(ios.Out, pairLine(r))
		}
	}
	results, runErr := eng.Run(ctx, pairs)
	if drawer != nil {
		drawer.finish()
	}
	if results == nil {
		return runErr
	}
	finished := time.Now()
	rep := &bulkReport{
		Manifest:    o.Manifest,
		StartedAt:   started.UTC().Format(time.RFC3339Nano),
		FinishedAt:  finished.UTC().Format(time.RFC3339Nano),
		Interrupted: runErr != nil,
	}
	rep.summarize(results)
	if o.Report != "" {
		if err := writeReport(o.Report, rep); err != nil {
			return err
		}
	}
	if o.f.JSON() {
		if err := cmdutil.WriteJSON(ios.Out, rep); err != nil {
			return err
		}
	} else {
		elapsed := finished.Sub(started)
		summary := fmt.Sprintf("%d pairs: %d uploaded, %d skipped, %d failed", rep.Total, rep.Uploaded, rep.Skipped, rep.Failed)
		if rep.NotDone > 0 {
			summary += fmt.Sprintf(", %d interrupted", rep.NotDone)
		}
		done := rep.Uploaded + rep.Skipped + rep.Failed
		summary += fmt.Sprintf(" in %s (%.1f pairs/s).", elapsed.Round(time.Millisecond), float64(done)/max(elapsed.Seconds(), 1e-9))
		if o.Report != "" {
			summary += " Report: " + o.Report
		}
		fmt.Fprintln(ios.Err, summary)
	}
	if runErr != nil {
		return runErr
	}
	if rep.Failed > 0 {
		return cli.Exit(fmt.Sprintf("%d of %d pairs failed", rep.Failed, rep.Total), 1)
	}
	return nil
}

// writeReport writes the report whole or not at all (a temporary file renamed over it).
func writeReport(path string, rep *bulkReport) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".report-*.json")
	if err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := cmdutil.WriteJSON(tmp, rep); err != nil {
		tmp.Close()
		return fmt.Errorf("write the report: %w", err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("write the report: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	return nil
}
