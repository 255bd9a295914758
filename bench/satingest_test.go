package bench

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/satws"
	"github.com/timbra-mx/timbra/internal/satws/satwstest"
	"github.com/timbra-mx/timbra/internal/taxfiles"
	"github.com/timbra-mx/timbra/server"
	"github.com/timbra-mx/timbra/storage"
)

// satIngestCFDI is a small stamped-looking CFDI 4.0 (about 1 KB) issued by EKU9003173C9 in
// January 2024, as the local SAT answers it.
func satIngestCFDI(i int) (name string, xml []byte) {
	uuid := fmt.Sprintf("%08X-0000-4000-8000-%012X", i, i)
	date := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute).Format("2006-01-02T15:04:05")
	return uuid + ".xml", fmt.Appendf(nil, `<?xml version="1.0" encoding="UTF-8"?>
<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4" xmlns:tfd="http://www.sat.gob.mx/TimbreFiscalDigital" Version="4.0" Serie="A" Folio="%d" Fecha="%s" SubTotal="100.00" Moneda="MXN" Total="116.00" TipoDeComprobante="I" Exportacion="01" LugarExpedicion="42501" NoCertificado="30001000000500003416">
  <cfdi:Emisor Rfc="EKU9003173C9" Nombre="ESCUELA KEMPER URGATE" RegimenFiscal="601"/>
  <cfdi:Receptor Rfc="AAA0101%02dAA1" Nombre="CLIENTE" DomicilioFiscalReceptor="42501" RegimenFiscalReceptor="601" UsoCFDI="G03"/>
  <cfdi:Impuestos TotalImpuestosTrasladados="16.00"/>
  <cfdi:Complemento><tfd:TimbreFiscalDigital Version="1.1" UUID="%s" FechaTimbrado="%s" RfcProvCertif="SAT970701NN3"/></cfdi:Complemento>
</cfdi:Comprobante>`, i, date, i%100, uuid, date)
}

// heapInUse is the Go heap's bytes in objects, live or not yet collected, and the live heap
// the last collection marked, read without stopping the world, in MB.
func heapInUse() (objects, live float64) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return float64(s[0].Value.Uint64()) / (1 << 20), float64(s[1].Value.Uint64()) / (1 << 20)
}

// peakMemory runs fn while it samples the resident memory, the heap's objects and the live
// heap every 5 ms; it answers each before fn and the highest seen, in MB.
func peakMemory(fn func()) (rssBase, rssPeak, heapBase, heapPeak, liveBase, livePeak float64) {
	runtime.GC()
	rssBase = rssMB()
	heapBase, liveBase = heapInUse()
	rssPeak, heapPeak, livePeak = rssBase, heapBase, liveBase
	stop := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
				h, l := heapInUse()
				rssPeak, heapPeak, livePeak = max(rssPeak, rssMB()), max(heapPeak, h), max(livePeak, l)
			}
		}
	})
	fn()
	close(stop)
	sampler.Wait()
	return
}

// satServe starts `timbra sat serve` over dir in its own process (so the memory measured is the
// server's alone) and answers its address; it stops with the benchmark.
func satServe(b *testing.B, dir string) string {
	b.Helper()
	gotool, err := exec.LookPath("go")
	if err != nil {
		b.Skip("no go tool to build timbra")
	}
	bin := filepath.Join(b.TempDir(), "timbra")
	if out, err := exec.Command(gotool, "build", "-o", bin, "github.com/timbra-mx/timbra/cmd/timbra").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	addrFile := filepath.Join(b.TempDir(), "sat.addr")
	cmd := exec.Command(bin, "sat", "serve", "--addr", "127.0.0.1:0", "--addr-file", addrFile, "--cfdis", dir)
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if a, _ := os.ReadFile(addrFile); len(strings.TrimSpace(string(a))) > 0 {
			return "http://" + strings.TrimSpace(string(a))
		}
	}
	b.Fatal("timbra sat serve wrote no address")
	return ""
}

// BenchmarkSATIngest: a request of n CFDIs (one package) from a local SAT (`timbra sat serve`,
// its own process), carried out by the server's download worker: create
// (POST /download-requests) to Completed (GET until then). Metrics: cfdi/s (n over the wall
// time), wall-s, cpu-s (this process's CPU time over the same span), heap-MB, live-MB and
// rss-MB (the highest above the level before the run: the heap's objects, the live heap at the
// last collection, the resident memory), pkg-MB (the ZIP stored), index-MB and index-B/cfdi
// (the CFDIs' index entries, in all and per CFDI), db-MB (the file), and xmls1-ms and xmlsN-ms
// (GET …/xmls of the first and the last page of 100, after the run). Run each size in its own
// process (RSS never goes down):
//
//	go test ./bench -run '^$' -bench 'SATIngest/n=10000$' -benchtime 1x
//
// SAT's test e.firma signs the queries: it skips without it.
func BenchmarkSATIngest(b *testing.B) {
	cer, key, pw := satwstest.Files()
	cerB, err1 := os.ReadFile(cer)
	keyB, err2 := os.ReadFile(key)
	pwB, err3 := os.ReadFile(pw)
	if err1 != nil || err2 != nil || err3 != nil {
		b.Skip("SAT's test e.firma is not beside the repository")
	}
	for _, n := range []int{1000, 10000, 30000, 100000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			for i := range n {
				name, x := satIngestCFDI(i)
				if err := os.WriteFile(filepath.Join(dir, name), x, 0o600); err != nil {
					b.Fatal(err)
				}
			}
			satURL := satServe(b, dir)
			for range b.N {
				satIngestOnce(b, n, satURL, cerB, keyB, strings.TrimSpace(string(pwB)))
			}
		})
	}
}

func satIngestOnce(b *testing.B, n int, satURL string, cerB, keyB []byte, password string) {
	b.StopTimer()
	tmp := b.TempDir()
	dbPath := filepath.Join(tmp, "bench.db")
	d, err := server.OpenData(server.DataOptions{Path: dbPath})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Store.Close()
	s, err := server.New(server.Config{
		Environment: d.Environment, Version: "bench", Logger: slog.New(slog.DiscardHandler),
		StandardLimit: HighLimit, AnonymousLimit: HighLimit, ShutdownTimeout: 5 * time.Second,
		SatDownload: satws.EndpointsAt(satURL), SatDownloadInterval: 5 * time.Millisecond,
		SatDownloadBackoff: satws.Backoff{Initial: 5 * time.Millisecond, Max: 10 * time.Millisecond, Factor: 2},
	}, d.Store, d.Keys)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	creds, err := s.Accounts().CreateTenant(ctx, api.TenantCreate{OwnerEmail: "bench@example.com"})
	if err != nil {
		b.Fatal(err)
	}
	rfc := "EKU9003173C9"
	err = d.Store.Update(ctx, func(tx storage.Tx) error {
		o, err := tx.People(creds.TenantKey).Get(creds.PersonID)
		if err != nil {
			return err
		}
		o.Tin = &rfc
		return tx.People(creds.TenantKey).Put(o)
	})
	if err != nil {
		b.Fatal(err)
	}
	owner := auth.Caller{TenantID: creds.TenantKey, PersonID: creds.PersonID, IsOwner: true}
	for _, f := range []struct {
		kind     string
		content  []byte
		password string
	}{{"2", cerB, ""}, {"3", keyB, password}} {
		id, content, pw := creds.PersonID, base64.StdEncoding.EncodeToString(f.content), f.password
		if _, err := s.TaxFiles().Upload(ctx, owner, taxfiles.Upload{PersonID: &id, FileType: []byte(f.kind), Base64File: &content, Password: &pw}); err != nil {
			b.Fatal(err)
		}
	}
	h := s.Handler()
	call := func(method, path, body string) api.DownloadRequest {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header = http.Header{"X-Tenant-Key": {creds.TenantKey}, "X-Api-Key": {creds.APIKey}, "Content-Type": {"application/json"}}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var env struct{ Data api.DownloadRequest }
		if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &env) != nil {
			b.Fatalf("%s %s: %d %.300s", method, path, rec.Code, rec.Body)
		}
		return env.Data
	}
	done := make(chan struct{})
	go func() { defer close(done); s.RunDownloads(ctx) }()
	defer func() { cancel(); <-done }()

	var r api.DownloadRequest
	var wall time.Duration
	cpu0 := cpuSeconds()
	b.StartTimer()
	rssBase, rssPeak, heapBase, heapPeak, liveBase, livePeak := peakMemory(func() {
		t0 := time.Now()
		r = call("POST", "/api/v4/download-requests", `{"startDate":"2024-01-01T00:00:00","endDate":"2024-12-31T23:59:59","requesterTin":"EKU9003173C9","downloadTypeId":"Emitidos","satQueryTypeId":"CFDI"}`)
		for deadline := time.Now().Add(5 * time.Minute); r.DownloadRequestStatusID != "Completed"; {
			if r.DownloadRequestStatusID == "Failed" || time.Now().After(deadline) {
				b.Fatalf("not completed: %+v", r)
			}
			time.Sleep(2 * time.Millisecond)
			r = call("GET", "/api/v4/download-requests/"+r.ID, "")
		}
		wall = time.Since(t0)
	})
	b.StopTimer()
	cpu := cpuSeconds() - cpu0
	if r.InvoiceCount != n {
		b.Fatalf("%d CFDIs, want %d", r.InvoiceCount, n)
	}
	// a page of xmls (100 CFDIs, each read from the package), the first and the last
	xmlsPage := func(page int) float64 {
		req := httptest.NewRequest("GET", fmt.Sprintf("/api/v4/download-requests/%s/xmls?pageNumber=%d&pageSize=100", r.ID, page), nil)
		req.Header = http.Header{"X-Tenant-Key": {creds.TenantKey}, "X-Api-Key": {creds.APIKey}}
		rec := httptest.NewRecorder()
		t0 := time.Now()
		h.ServeHTTP(rec, req)
		took := time.Since(t0)
		var env struct {
			Data api.PagedList[api.DownloadXML]
		}
		if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &env) != nil || len(env.Data.Items) == 0 || env.Data.TotalCount != n {
			b.Fatalf("xmls page %d: %d %.300s", page, rec.Code, rec.Body)
		}
		return float64(took.Microseconds()) / 1000
	}
	xmlsFirst, xmlsLast := xmlsPage(1), xmlsPage((n+99)/100)
	var pkg, index int64
	err = d.Store.View(ctx, func(tx storage.Tx) error {
		rs := tx.DownloadRequests(creds.TenantKey)
		for _, p := range r.PackageIDs {
			cw := &countingWriter{}
			if err := rs.Package(r.ID, p, cw); err != nil {
				return err
			}
			pkg += cw.n
		}
		for off := 0; off < n; off += 1000 {
			items, _, err := rs.Items(r.ID, storage.ItemXML, off, 1000)
			if err != nil {
				return err
			}
			for _, it := range items {
				index += int64(len(it))
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	info, err := os.Stat(dbPath)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(n)/wall.Seconds(), "cfdi/s")
	b.ReportMetric(wall.Seconds(), "wall-s")
	b.ReportMetric(cpu, "cpu-s")
	b.ReportMetric(heapPeak-heapBase, "heap-MB")
	b.ReportMetric(livePeak-liveBase, "live-MB")
	b.ReportMetric(rssPeak-rssBase, "rss-MB")
	b.ReportMetric(float64(pkg)/(1<<20), "pkg-MB")
	b.ReportMetric(float64(index)/(1<<20), "index-MB")
	b.ReportMetric(float64(info.Size())/(1<<20), "db-MB")
	b.ReportMetric(float64(index)/float64(n), "index-B/cfdi")
	b.ReportMetric(xmlsFirst, "xmls1-ms")
	b.ReportMetric(xmlsLast, "xmlsN-ms")
	b.StartTimer()
}

// cpuSeconds is the CPU time (user and system) this process has used: the server's part of an
// ingest (the local SAT runs in its own process), which other loads on the machine slow down
// less than the wall time.
func cpuSeconds() float64 {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()).Seconds()
}

type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

var _ io.Writer = (*countingWriter)(nil)
