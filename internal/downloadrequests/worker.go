package downloadrequests

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/satws"
	"github.com/timbra-mx/timbra/internal/taxfiles"
	"github.com/timbra-mx/timbra/storage"
)

// Worker carries the active requests out at the SAT: one step per due request (a query, a
// verification, or the downloads), several at once, round robin over tenants, so one tenant's
// slow or hung SAT exchange holds only its own turns. Rounds every Interval or when woken.
type Worker struct {
	Store storage.Store
	// TaxFiles opens the requester's e.firma (*taxfiles.Service).
	TaxFiles EFirmas
	// Endpoints are the SAT's (satws.SATEndpoints) or a local SAT's (satws.EndpointsAt).
	Endpoints satws.Endpoints
	HTTP      *http.Client
	Log       *slog.Logger
	Now       func() time.Time
	// Interval between rounds (30 s when 0); Backoff spaces a request's verifications and
	// retries (satws.DefaultBackoff when zero).
	Interval time.Duration
	Backoff  satws.Backoff
	// Concurrency is how many requests take a step at once across tenants (DefaultConcurrency
	// when 0), PerTenant how many of one tenant (DefaultPerTenant when 0).
	Concurrency, PerTenant int
	// CallTimeout bounds one SAT call: authentication, query, verification (DefaultCallTimeout
	// when 0); DownloadTimeout one package's download (DefaultDownloadTimeout when 0). A call
	// past its deadline is retried with back-off.
	CallTimeout, DownloadTimeout time.Duration
	// TempDir holds a package while it downloads (os.TempDir when empty).
	TempDir string
	// RulesEvery is how often an approved rule creates its Automatic request (RunRules;
	// DefaultRulesEvery when 0).
	RulesEvery time.Duration
	// Events records download_request.completed and .failed with the change (nil: none).
	Events Emitter
	// Retenciones are the addresses of SAT's service of withholding CFDIs, for the requests of
	// query type Retenciones (satws.SATRetencionesEndpoints, or a local SAT's).
	Retenciones satws.Endpoints

	wakeOnce sync.Once
	wake     chan struct{}

	turns  turns      // the steps running (dispatch.go)
	tokens tokenCache // the SAT tokens of each e.firma (tokens.go)
}

// EFirmas opens a person's current e.firma; *taxfiles.Service is one.
type EFirmas interface {
	EFirma(ctx context.Context, tenantID, personID string) (*csd.Certificate, *csd.PrivateKey, error)
}

func (w *Worker) init() { w.wakeOnce.Do(func() { w.wake = make(chan struct{}, 1) }) }

// Wake starts a round at once.
func (w *Worker) Wake() {
	w.init()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *Worker) now() time.Time {
	if w.Now != nil {
		return w.Now().UTC()
	}
	return time.Now().UTC()
}

func (w *Worker) log() *slog.Logger {
	if w.Log != nil {
		return w.Log
	}
	return slog.New(slog.DiscardHandler)
}

// Run does rounds until ctx ends, then waits for the steps it started (their SAT calls end
// with ctx): every Interval the rules that are due and the requests that are due, and when woken
// (a new request, a step that ended) the requests that are due.
func (w *Worker) Run(ctx context.Context) {
	w.init()
	defer w.turns.steps.Wait()
	interval := w.Interval
	if interval <= 0 {
		interval = 30 * time.Second
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	rules := true
	for {
		if rules {
			if _, err := w.RunRules(ctx); err != nil && ctx.Err() == nil {
				w.log().Error("download rules run", "err", err)
			}
		}
		if _, err := w.dispatch(ctx); err != nil && ctx.Err() == nil {
			w.log().Error("download requests round", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			rules = true
		case <-w.wake:
			rules = false
		}
	}
}

// Round runs the rules that are due (RunRules), then takes one step on every active request
// that is due and not already running, within the worker's limits, and waits for those steps.
func (w *Worker) Round(ctx context.Context) error {
	if _, err := w.RunRules(ctx); err != nil {
		return err
	}
	started, err := w.dispatch(ctx)
	started.Wait()
	return err
}

func (w *Worker) backoff() satws.Backoff {
	if w.Backoff.Initial > 0 {
		return w.Backoff
	}
	return satws.DefaultBackoff
}

// later is the next attempt after n retries.
func (w *Worker) later(n int) time.Time {
	b := w.backoff()
	d := b.Initial
	for i := 0; i < n && (b.Max == 0 || d < b.Max); i++ {
		d = time.Duration(float64(d) * max(b.Factor, 1))
	}
	if b.Max > 0 && d > b.Max {
		d = b.Max
	}
	return w.now().Add(d)
}

// save stores the request; when it becomes Completed or Failed, its event is emitted in the
// same transaction.
func (w *Worker) save(ctx context.Context, r storage.DownloadRequest) error {
	r.UpdatedAt = w.now()
	emitted := false
	err := w.Store.Update(ctx, func(tx storage.Tx) error {
		emitted = false
		old, err := tx.DownloadRequests(r.TenantID).Get(r.ID)
		if errors.Is(err, storage.ErrNotFound) {
			return nil // deleted meanwhile
		}
		if err != nil {
			return err
		}
		if err := tx.DownloadRequests(r.TenantID).Put(r); err != nil {
			return err
		}
		ev := eventOf(old.DownloadRequestStatusID, r.DownloadRequestStatusID)
		if ev == "" || w.Events == nil {
			return nil
		}
		var person *string
		if r.PersonID != "" {
			person = &r.PersonID
		}
		if _, err := w.Events.EmitIn(tx, r.TenantID, ev, r.ID, person); err != nil {
			return err
		}
		emitted = true
		return nil
	})
	if err == nil && emitted {
		w.Events.WakeEngine(r.TenantID)
	}
	return err
}

func (w *Worker) fail(ctx context.Context, r storage.DownloadRequest, code, msg string) error {
	r.DownloadRequestStatusID, r.Active, r.NextAttemptDate = StatusFailed, false, nil
	r.SatStatusCode, r.SatMessage = code, msg
	return w.save(ctx, r)
}

// retry records a temporary failure and when to try again.
func (w *Worker) retry(ctx context.Context, r storage.DownloadRequest, err error) error {
	r.RetriesCount++
	next := w.later(r.RetriesCount)
	r.NextAttemptDate = &next
	r.SatMessage = err.Error()
	return w.save(ctx, r)
}

// temporary tells whether a failed call may succeed later: the service's 5xx or unreachable,
// or a call past its deadline.
func temporary(err error) bool {
	var f *satws.Fault
	return errors.As(err, &f) && f.Temporary() || errors.Is(err, errDeadline)
}

func (w *Worker) step(ctx context.Context, a ref) error {
	var r storage.DownloadRequest
	if err := w.Store.View(ctx, func(tx storage.Tx) error {
		var err error
		r, err = tx.DownloadRequests(a.tenant).Get(a.id)
		return err
	}); errors.Is(err, storage.ErrNotFound) {
		return nil // deleted meanwhile
	} else if err != nil {
		return err
	}
	now := w.now()
	if !r.Active || r.NextAttemptDate != nil && now.Before(*r.NextAttemptDate) {
		return nil
	}
	r.LastAttemptDate = &now
	cert, key, err := w.TaxFiles.EFirma(ctx, r.TenantID, r.PersonID)
	if errors.Is(err, taxfiles.ErrNoEFirma) {
		return w.fail(ctx, r, "", fmt.Sprintf(MsgNoEFirma, r.PersonID))
	}
	if err != nil {
		return w.retry(ctx, r, err)
	}
	defer key.Zero()
	c := w.session(r, cert, key)
	defer c.close()
	if r.SatRequestID == "" {
		return w.query(ctx, c, r)
	}
	if r.SatRequestStatusID != strconv.Itoa(satws.StateFinished) {
		return w.verify(ctx, c, r)
	}
	return w.download(ctx, c, r)
}

func (w *Worker) query(ctx context.Context, c *session, r storage.DownloadRequest) error {
	res, err := c.Query(ctx, queryOf(r))
	if len(res.Request) > 0 {
		r.RawRequest, r.RawResponse = res.Request, res.Response
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err() // stopping: the step is taken again
		}
		if temporary(err) {
			return w.retry(ctx, r, err)
		}
		return w.fail(ctx, r, "", err.Error())
	}
	r.SatStatusCode, r.SatMessage = strconv.Itoa(res.Code), res.Message
	switch {
	case res.Accepted():
		r.SatRequestID, r.SatRequestStatusID, r.DownloadRequestStatusID = res.RequestID, strconv.Itoa(satws.StateAccepted), StatusInProgress
		next := w.later(0)
		r.NextAttemptDate = &next
		return w.save(ctx, r)
	case res.Code == satws.CodeUncontrolled:
		return w.retry(ctx, r, fmt.Errorf("SAT %d: %s", res.Code, res.Message))
	}
	r.SatRequestStatusID = strconv.Itoa(satws.StateRejected)
	return w.fail(ctx, r, r.SatStatusCode, r.SatMessage)
}

func (w *Worker) verify(ctx context.Context, c *session, r storage.DownloadRequest) error {
	v, err := c.Verify(ctx, r.SatRequestID)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if temporary(err) {
			return w.retry(ctx, r, err)
		}
		return w.fail(ctx, r, "", err.Error())
	}
	if v.Code == satws.CodeUncontrolled {
		return w.retry(ctx, r, fmt.Errorf("SAT %d: %s", v.Code, v.Message))
	}
	if v.Code != satws.CodeAccepted {
		return w.fail(ctx, r, strconv.Itoa(v.Code), v.Message)
	}
	r.SatRequestStatusID = strconv.Itoa(v.State)
	r.SatStatusCode, r.SatMessage = strconv.Itoa(v.StateCode), v.Message
	switch {
	case v.Pending():
		r.RetriesCount++
		next := w.later(r.RetriesCount)
		r.NextAttemptDate = &next
		return w.save(ctx, r)
	case v.State == satws.StateFinished:
		r.InvoiceCount, r.PackageIDs, r.NextAttemptDate = v.Count, v.PackageIDs, nil
		if err := w.save(ctx, r); err != nil {
			return err
		}
		return w.download(ctx, c, r)
	case v.State == satws.StateRejected && v.StateCode == satws.CodeNotFound:
		// nothing in the period: done, with nothing to download
		r.DownloadRequestStatusID, r.Active, r.NextAttemptDate, r.InvoiceCount = StatusCompleted, false, nil, 0
		return w.save(ctx, r)
	}
	return w.fail(ctx, r, strconv.Itoa(v.StateCode), v.Message)
}

// download fetches every package not yet stored: each to a temporary file first (streamed,
// never held whole), then stored and indexed in one transaction.
func (w *Worker) download(ctx context.Context, c *session, r storage.DownloadRequest) error {
	done := map[string]bool{}
	for _, p := range r.Downloaded {
		done[p] = true
	}
	for _, p := range r.PackageIDs {
		if done[p] {
			continue
		}
		f, err := os.CreateTemp(w.TempDir, "timbra-package-*.zip")
		if err != nil {
			return err
		}
		res, err := c.Download(ctx, p, f)
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if temporary(err) {
				return w.retry(ctx, r, err)
			}
			return w.fail(ctx, r, "", err.Error())
		}
		if res.Code != satws.CodeAccepted {
			f.Close()
			os.Remove(f.Name())
			if res.Code == satws.CodeUncontrolled {
				return w.retry(ctx, r, fmt.Errorf("SAT %d: %s", res.Code, res.Message))
			}
			return w.fail(ctx, r, strconv.Itoa(res.Code), res.Message)
		}
		err = w.store(ctx, &r, p, f)
		f.Close()
		os.Remove(f.Name())
		if err != nil {
			return err
		}
	}
	r.DownloadRequestStatusID, r.Active, r.NextAttemptDate = StatusCompleted, false, nil
	return w.save(ctx, r)
}

// Bounds of one transaction of a package's store: memory stays flat in the package's size.
const (
	packageChunk     = storage.PackageChunkSize
	chunksPerCommit  = 8    // 8 MiB of the package
	entriesPerCommit = 1000 // index entries
)

// store keeps one downloaded package and indexes what it holds in bounded transactions: the
// first marks the package as being stored on the request (clearing what a store cut short
// left), then the package's chunks and its index entries in batches, and the last records the
// package as downloaded. A crash re-downloads at most that package.
func (w *Worker) store(ctx context.Context, r *storage.DownloadRequest, packageID string, f *os.File) error {
	info, err := f.Stat()
	if err != nil {
		return err
	}
	z, err := openZip(f, info.Size())
	if err != nil {
		return fmt.Errorf("package %s: %w", packageID, err)
	}
	kind := storage.ItemXML
	if r.SatQueryTypeID == "Metadata" {
		kind = storage.ItemMetadata
	}
	// in: each transaction checks the request is still there
	in := func(fn func(rs storage.DownloadRequests) error) error {
		return w.Store.Update(ctx, func(tx storage.Tx) error {
			rs := tx.DownloadRequests(r.TenantID)
			if _, err := rs.Get(r.ID); err != nil {
				return err
			}
			return fn(rs)
		})
	}
	err = w.Store.Update(ctx, func(tx storage.Tx) error {
		rs := tx.DownloadRequests(r.TenantID)
		cur, err := rs.Get(r.ID)
		if err != nil {
			return err
		}
		before := 0
		if p := cur.Storing; p != nil {
			before = p.ItemsBefore
			if _, err := rs.TruncateItems(r.ID, p.Kind, before); err != nil {
				return err
			}
			if err := rs.DeletePackage(r.ID, p.Package); err != nil {
				return err
			}
		} else if _, before, err = rs.Items(r.ID, kind, 0, 0); err != nil {
			return err
		}
		if err := rs.DeletePackage(r.ID, packageID); err != nil {
			return err
		}
		next := *r
		next.Storing = &storage.PackageStore{Package: packageID, Kind: kind, ItemsBefore: before}
		return rs.Put(next)
	})
	if err != nil {
		return err
	}

	// the package as the SAT sent it
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	buf := make([]byte, chunksPerCommit*packageChunk)
	for i := 0; ; {
		n, rerr := io.ReadFull(f, buf)
		if n > 0 {
			err := in(func(rs storage.DownloadRequests) error {
				for off := 0; off < n; off += packageChunk {
					if err := rs.PutPackageChunk(r.ID, packageID, i, buf[off:min(off+packageChunk, n)]); err != nil {
						return err
					}
					i++
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		if errors.Is(rerr, io.EOF) || errors.Is(rerr, io.ErrUnexpectedEOF) {
			break
		}
		if rerr != nil {
			return rerr
		}
	}

	// its index, a batch at a time
	var batch [][]byte
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := in(func(rs storage.DownloadRequests) error {
			for _, it := range batch {
				if err := rs.AddItem(r.ID, kind, it); err != nil {
					return err
				}
			}
			return nil
		})
		batch = batch[:0]
		return err
	}
	add := func(b []byte) error {
		if batch = append(batch, b); len(batch) == entriesPerCommit {
			return flush()
		}
		return nil
	}
	if kind == storage.ItemMetadata {
		err = eachMetadata(z, r.ID, packageID, func(m api.DownloadMetadataItem) error {
			b, err := json.Marshal(m)
			if err != nil {
				return err
			}
			return add(b)
		})
	} else {
		err = z.each(func(zf zipEntry) error {
			e, err := indexXMLFile(z, zf, packageID)
			if err != nil {
				return err
			}
			return add(e.encode())
		})
	}
	if err == nil {
		err = flush()
	}
	if err != nil {
		return err
	}

	r.Downloaded = append(r.Downloaded, packageID)
	r.Storing = nil
	r.UpdatedAt = w.now()
	return in(func(rs storage.DownloadRequests) error { return rs.Put(*r) })
}
