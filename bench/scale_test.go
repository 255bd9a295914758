package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/accounts"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/internal/invoices"
	"github.com/timbra-mx/timbra/storage"
	"github.com/timbra-mx/timbra/storage/pgtest"
)

// stampedInvoice is invoice i of a tenant as stamping stores it: the answer's fields and a
// 6 KB XML.
func stampedInvoice(i int, at time.Time, xml []byte) storage.Invoice {
	recipient := fmt.Sprintf("AAA0101%02dAA1", i%10)
	series := "A"
	if i%1000 == 0 {
		series = "R" // one in a thousand: a rare filter
	}
	date := at.In(cfdi.Mexico).Format(cfdi.DateLayout) // a CFDI's Fecha: Mexico City's time
	v := api.Invoice{ID: ids.New(at), VersionCode: "4.0", Date: date, Subtotal: "100.00", Total: "116.00",
		UUID: fmt.Sprintf("%08X-0000-4000-8000-000000000000", i), Status: invoices.StatusValid, TypeCode: "I", CurrencyCode: "MXN",
		Issuer:    api.InvoiceIssuer{Tin: "EKU9003173C9", LegalName: "ESCUELA KEMPER URGATE", TaxRegimeCode: "601"},
		Recipient: api.InvoiceRecipient{Tin: recipient, LegalName: "CLIENTE", ZipCode: "42501", TaxRegimeCode: "601", CfdiUseCode: "G01"},
		Items:     []api.InvoiceItem{{ItemCode: "44121706", Quantity: "2", UnitOfMeasurementCode: "H87", Description: "Lápiz", UnitPrice: "50.00", Amount: "100.00", TaxObjectCode: "02"}}}
	view, _ := json.Marshal(v)
	return storage.Invoice{ID: v.ID, ResponseID: ids.New(at), PersonID: "owner", UUID: v.UUID, TypeCode: "I", IssuerTin: "EKU9003173C9",
		RecipientTin: recipient, Total: "116.00", Status: invoices.StatusValid, Date: date, Series: series, View: view, XML: xml,
		CreatedAt: at, UpdatedAt: at}
}

// invoiceXML is a stamped CFDI's size of XML.
var invoiceXML = []byte(`<?xml version="1.0" encoding="UTF-8"?><cfdi:Comprobante ` + strings.Repeat("x", 6000) + `/>`)

// scaleAt is when the i-th of n records of the scale benchmark is made: spread over the 29 days
// before now.
func scaleAt(now time.Time, n, i int) time.Time {
	return now.Add(-29 * 24 * time.Hour).Add(time.Duration(i) * (29 * 24 * time.Hour / time.Duration(n)))
}

// scaleWeek is a week of the scale benchmark's invoices (Mexico City days, as their dates are),
// and how many of n invoices are dated in it (of them, with recipient, those of the tenth
// recipient AAA010103AA1 only).
func scaleWeek(now time.Time) (from, to string, count func(n int, recipient bool) int) {
	day := func(t time.Time) string { return t.In(cfdi.Mexico).Format(time.DateOnly) }
	from, to = day(now.Add(-15*24*time.Hour)), day(now.Add(-9*24*time.Hour))
	return from, to, func(n int, recipient bool) int {
		c := 0
		for i := range n {
			if d := day(scaleAt(now, n, i)); d >= from && d <= to && (!recipient || i%10 == 3) {
				c++
			}
		}
		return c
	}
}

// fillScale gives the tenant n of every listed record over the last 29 days: people, API keys,
// invoices (as stamped), events, deliveries to one webhook, Auto CFDI tickets and current tax
// files. It returns the webhook's id and how many bytes the invoices added to the file.
func fillScale(b *testing.B, st storage.Store, keys *accounts.Service, tenant, owner string, n int, now time.Time) (hook string, invoiceBytes int64) {
	b.Helper()
	size := func() int64 {
		g, err := st.(interface {
			Gauges(context.Context) (storage.Gauges, error)
		}).Gauges(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		return g.SizeBytes
	}
	at := func(i int) time.Time { return scaleAt(now, n, i) }
	hook = ids.New(now.Add(-30 * 24 * time.Hour))
	url := "https://example.com/hook"
	put := func(what string, each func(tx storage.Tx, i int) error) {
		for chunk := 0; chunk < n; chunk += 5_000 {
			err := st.Update(context.Background(), func(tx storage.Tx) error {
				for i := chunk; i < min(chunk+5_000, n); i++ {
					if err := each(tx, i); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatalf("%s: %v", what, err)
			}
		}
	}
	err := st.Update(context.Background(), func(tx storage.Tx) error {
		return tx.Webhooks(tenant).Put(storage.Webhook{ID: hook, Kind: "url", URL: &url, Status: "enabled", EnabledEvents: []string{"*"},
			Secret: []byte("sealed"), CreatedAt: now, UpdatedAt: now})
	})
	if err != nil {
		b.Fatal(err)
	}
	put("people", func(tx storage.Tx, i int) error {
		return tx.People(tenant).Put(storage.Person{ID: ids.New(at(i)), LegalName: fmt.Sprintf("Persona %d", i),
			Email: fmt.Sprintf("p%d@scale.test", i), CreatedAt: at(i), UpdatedAt: at(i)})
	})
	// keys through the service (their values sealed as it seals them), 32 at a time
	c := auth.Caller{TenantID: tenant, PersonID: owner, IsOwner: true}
	var wg sync.WaitGroup
	work := make(chan int)
	for range 32 {
		wg.Go(func() {
			for range work {
				if _, err := keys.CreateKey(context.Background(), c, api.APIKeyCreate{}); err != nil {
					b.Error(err)
				}
			}
		})
	}
	for i := range n - 1 { // the owner's first key is there
		work <- i
	}
	close(work)
	wg.Wait()
	before := size()
	put("invoices", func(tx storage.Tx, i int) error { return tx.Invoices(tenant).Put(stampedInvoice(i, at(i), invoiceXML)) })
	invoiceBytes = size() - before
	body := []byte(`{"id":"x","type":"invoice.stamped","data":"` + strings.Repeat("x", 360) + `"}`)
	put("events", func(tx storage.Tx, i int) error {
		e := storage.Event{ID: ids.New(at(i)), Type: "invoice.stamped", RelatedObjectID: fmt.Sprintf("inv-%d", i), CreatedAt: at(i), Body: body}
		if i%10 == 0 { // a tenth are the test events of one webhook: one object with many events
			e.Type, e.RelatedObjectID = "webhook.test", hook
		}
		if err := tx.Events(tenant).Put(e); err != nil {
			return err
		}
		code := 204
		return tx.Deliveries(tenant).Put(storage.Delivery{ID: ids.New(at(i)), WebhookID: hook, EventID: e.ID, EventType: e.Type,
			Kind: "automatic", Status: "succeeded", Attempts: 1, MaxAttempts: 8, LastStatusCode: &code, CreatedAt: at(i), UpdatedAt: at(i)})
	})
	put("tickets", func(tx storage.Tx, i int) error {
		day := at(i).In(cfdi.Mexico).Format(time.DateOnly)
		return tx.Tickets(tenant).Put(storage.Ticket{ID: ids.New(at(i)), Number: fmt.Sprintf("T-%07d", i), IssuerPersonID: owner,
			RecordedByPersonID: owner, PaidAt: at(i), PaidDay: day, RecordedDay: day, PaymentFormCode: "01", Items: json.RawMessage(`[]`),
			Subtotal: "100.00", Discount: "0", Transfers: "16.00", Withheld: "0", Total: "116.00", Status: "pending", CreatedAt: at(i), UpdatedAt: at(i)})
	})
	put("tax files", func(tx storage.Tx, i int) error {
		from, to := at(i), at(i).Add(4*365*24*time.Hour)
		return tx.TaxFiles(tenant).Put(storage.TaxFile{ID: ids.New(at(i)), PersonID: owner, Tin: "EKU9003173C9", FileType: i % 2,
			Content: []byte("sealed"), PublicKeyID: fmt.Sprintf("pk%d", i), ValidFrom: &from, ValidTo: &to, Sequence: i, CreatedAt: at(i), UpdatedAt: at(i)})
	})
	return hook, invoiceBytes
}

// BenchmarkScale: the first page of every list of a tenant holding n of each record (people, API
// keys, invoices, events, a webhook's deliveries, tickets, tax files) for n = 1,000, 10,000 and
// 100,000, through the whole server in process (authentication included); the databases are
// asked in turn, request by request, so the machine's drift falls on all three alike. Each list
// reports its median and p99 at each size and x1k, its median over the median at 1,000 (the
// target: at most 1.5, the cost does not grow with the data). Then a new invoice written at each
// size (with its event and delivery, one Batch, as stamping writes them): its median, p99, x1k
// and CPU. Then the backup of each database: its time, and the bytes the invoices added to the
// file, per invoice; and the time to open that backup as the server opens its file, first as
// a file not closed (open), then once closed (reopen).
//
//	go test ./bench -run '^$' -bench 'Scale$' -benchtime 200x -timeout 30m
func BenchmarkScale(b *testing.B) { scale(b, func() string { return "" }) }

// BenchmarkScalePostgres is BenchmarkScale on three schemas of the PostgreSQL database of
// TIMBRA_TEST_POSTGRES (skipped without it); the bytes per invoice are the growth of the
// tables, the backup is pg_dump's and not measured.
//
//	TIMBRA_TEST_POSTGRES=postgres://root@127.0.0.1:5432/test?sslmode=disable \
//	go test ./bench -run '^$' -bench 'ScalePostgres' -benchtime 200x -timeout 60m
func BenchmarkScalePostgres(b *testing.B) { scale(b, func() string { return pgtest.URL(b) }) }

// scale runs the scale benchmark on the databases that database gives (a PostgreSQL URL, or ""
// for a bbolt file).
func scale(b *testing.B, database func() string) {
	now := time.Now().UTC()
	sizes := []int{1_000, 10_000, 100_000}
	type db struct {
		t      *Timbra
		h      http.Handler
		header http.Header
		hook   string
		invB   int64
	}
	dbs := make([]db, len(sizes))
	for i, n := range sizes {
		t, err := NewTimbraOn(b.TempDir(), database())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { t.Close() })
		srv := t.Server(slog.New(slog.DiscardHandler))
		hook, invB := fillScale(b, t.Data.Store, srv.Accounts(), t.Creds.TenantKey, t.Creds.PersonID, n, now)
		dbs[i] = db{t: t, h: srv.Handler(), header: t.Header(), hook: hook, invB: invB}
	}
	weekFrom, weekTo, weekCount := scaleWeek(now)
	lists := []struct {
		name, path string
		total      func(n int) int // the totalCount wanted; nil: n (or n+1, the owner's own)
	}{
		{"people", "/api/v4/people", nil},
		{"apikeys", "/api/v4/apikeys", nil},
		{"invoices", "/api/v4/invoices", nil},
		{"invoices-recipient", "/api/v4/invoices?recipientTin=AAA010103AA1", func(n int) int { return n / 10 }},
		{"invoices-series-rare", "/api/v4/invoices?series=r", func(n int) int { return n / 1000 }},
		{"invoices-recipient-status", "/api/v4/invoices?recipientTin=AAA010103AA1&status=Vigente", func(n int) int { return n / 10 }},
		{"invoices-week", "/api/v4/invoices?from={from}&to={to}", func(n int) int { return weekCount(n, false) }},
		{"invoices-recipient-week", "/api/v4/invoices?recipientTin=AAA010103AA1&from={from}&to={to}", func(n int) int { return weekCount(n, true) }},
		{"events", "/api/v4/events", nil},
		{"events-related", "/api/v4/events?relatedObjectId={hook}", func(n int) int { return n / 10 }},
		{"events-related-type", "/api/v4/events?relatedObjectId={hook}&type=webhook.test", func(n int) int { return n / 10 }},
		{"deliveries", "/api/v4/webhooks/{hook}/deliveries", nil},
		{"tickets", "/api/v4/auto-invoice/tickets", nil},
		{"tickets-status", "/api/v4/auto-invoice/tickets?status=pending", func(n int) int { return n }},
		{"tickets-issuer", "/api/v4/auto-invoice/tickets?issuerId={owner}", func(n int) int { return n }},
		{"tickets-issuer-status", "/api/v4/auto-invoice/tickets?issuerId={owner}&status=pending", func(n int) int { return n }},
		{"tax-files", "/api/v4/tax-files", nil},
	}
	for _, l := range lists {
		b.Run(l.name, func(b *testing.B) {
			lat := make([][]time.Duration, len(sizes))
			for range b.N {
				for i := range sizes {
					path := strings.NewReplacer("{hook}", dbs[i].hook, "{owner}", dbs[i].t.Creds.PersonID, "{from}", weekFrom, "{to}", weekTo).Replace(l.path)
					req := httptest.NewRequest(http.MethodGet, path, nil)
					req.Header = dbs[i].header
					rec := httptest.NewRecorder()
					t0 := time.Now()
					dbs[i].h.ServeHTTP(rec, req)
					lat[i] = append(lat[i], time.Since(t0))
					want := []int{sizes[i], sizes[i] + 1}
					if l.total != nil {
						want = []int{l.total(sizes[i])}
					}
					if rec.Code != http.StatusOK || !slices.ContainsFunc(want, func(n int) bool {
						return strings.Contains(rec.Body.String(), fmt.Sprintf(`"totalCount":%d`, n))
					}) {
						b.Fatalf("%s at %d: %d %.300s", path, sizes[i], rec.Code, rec.Body)
					}
				}
			}
			reportBySize(b, sizes, lat)
		})
	}
	// a new invoice at each size: the invoice, its invoice.stamped event and the event's delivery
	// in one Batch, as stamping writes them (their indexes and kept counts included); the
	// databases in turn, as the lists. CPU is the process's, the fsyncs' system time included.
	written := make([]int, len(sizes))
	b.Run("invoice-write", func(b *testing.B) {
		lat := make([][]time.Duration, len(sizes))
		cpu := make([]time.Duration, len(sizes))
		body := []byte(`{"id":"x","type":"invoice.stamped","data":"` + strings.Repeat("x", 360) + `"}`)
		for range b.N {
			for i, n := range sizes {
				at := time.Now()
				inv := stampedInvoice(n+written[i], at, invoiceXML)
				written[i]++
				e := storage.Event{ID: ids.New(at), Type: "invoice.stamped", RelatedObjectID: inv.ID, CreatedAt: at, Body: body}
				d := storage.Delivery{ID: ids.New(at), WebhookID: dbs[i].hook, EventID: e.ID, EventType: e.Type, Kind: "automatic",
					Status: "pending", MaxAttempts: 8, NextAttemptAt: &at, CreatedAt: at, UpdatedAt: at}
				tenant := dbs[i].t.Creds.TenantKey
				c0, t0 := processCPU(), time.Now()
				err := dbs[i].t.Data.Store.Batch(context.Background(), func(tx storage.Tx) error {
					if err := tx.Invoices(tenant).Put(inv); err != nil {
						return err
					}
					if err := tx.Events(tenant).Create(e); err != nil {
						return err
					}
					return tx.Deliveries(tenant).Create([]storage.Delivery{d})
				})
				lat[i] = append(lat[i], time.Since(t0))
				cpu[i] += processCPU() - c0
				if err != nil {
					b.Fatalf("write at %d: %v", n, err)
				}
			}
		}
		reportBySize(b, sizes, lat)
		for i, n := range sizes {
			b.ReportMetric(float64(cpu[i].Microseconds())/float64(b.N), fmt.Sprintf("%dk-cpu-us", n/1000))
		}
	})
	b.Run("backup", func(b *testing.B) {
		for range b.N {
			for i, n := range sizes {
				b.ReportMetric(float64(dbs[i].invB)/float64(n)/1024, fmt.Sprintf("%dk-KB/invoice", n/1000))
				st, ok := dbs[i].t.Data.Store.(*storage.Bolt)
				if !ok {
					continue // PostgreSQL's backup is pg_dump
				}
				t0 := time.Now()
				written, err := st.WriteBackup(context.Background(), io.Discard)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(time.Since(t0).Seconds(), fmt.Sprintf("%dk-s", n/1000))
				b.ReportMetric(float64(written)/1e6, fmt.Sprintf("%dk-MB", n/1000))
			}
		}
	})
	// opening each database's backup as the server opens its file: a backup, as a file the
	// server did not close, has no list of free pages and bbolt walks the pages to find them
	// (open: grows with the file); closed by the server, it opens at once (reopen). Once per
	// size, whatever b.N (each copy is the whole file).
	b.Run("open", func(b *testing.B) {
		for i, n := range sizes {
			st, ok := dbs[i].t.Data.Store.(*storage.Bolt)
			if !ok {
				continue // PostgreSQL opens a pool
			}
			path := filepath.Join(b.TempDir(), fmt.Sprintf("copy-%d.db", n))
			t0 := time.Now()
			f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o600)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := st.WriteBackup(context.Background(), f); err != nil {
				b.Fatal(err)
			}
			copied := time.Since(t0) // what GET /admin/v1/backup's copy beside the database takes
			// on disk before the open's clock starts: its first commit would flush the copy
			if err := f.Sync(); err != nil {
				b.Fatal(err)
			}
			if err := f.Close(); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(copied.Seconds(), fmt.Sprintf("%dk-copy-s", n/1000))
			open := func() time.Duration {
				t0 := time.Now()
				c, err := storage.Open(path)
				took := time.Since(t0)
				if err != nil {
					b.Fatalf("open the copy at %d: %v", n, err)
				}
				if err := c.Close(); err != nil {
					b.Fatal(err)
				}
				return took
			}
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			// the copy has no list of free pages, as a file the server did not close; once
			// closed, it has
			b.ReportMetric(ms(open()), fmt.Sprintf("%dk-open-ms", n/1000))
			b.ReportMetric(ms(open()), fmt.Sprintf("%dk-reopen-ms", n/1000))
			os.Remove(path)
		}
	})
}

// reportBySize reports, for each size, the median and p99 of its latencies in ms and, past the
// first, its median over the first's (the metric "<n>k-x1k" when the first size is 1,000).
func reportBySize(b *testing.B, sizes []int, lat [][]time.Duration) {
	var base time.Duration
	for i, n := range sizes {
		l := lat[i]
		slices.Sort(l)
		med := l[len(l)/2]
		b.ReportMetric(float64(med.Microseconds())/1000, fmt.Sprintf("%dk-ms", n/1000))
		b.ReportMetric(float64(l[len(l)*99/100].Microseconds())/1000, fmt.Sprintf("%dk-p99-ms", n/1000))
		if i == 0 {
			base = med
		} else {
			b.ReportMetric(float64(med)/float64(base), fmt.Sprintf("%dk-x%dk", n/1000, sizes[0]/1000))
		}
	}
}

// peakRSS runs fn while it samples the process's resident memory every 5 ms; it returns the
// resident memory before fn and the highest seen, in MB.
func peakRSS(fn func()) (base, peak float64) {
	base = rssMB()
	peak = base
	stop := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
				peak = max(peak, rssMB())
			}
		}
	})
	fn()
	close(stop)
	sampler.Wait()
	return base, peak
}
