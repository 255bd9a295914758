package bench

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/catalogs/source"
	"github.com/timbra-mx/timbra/internal/testpaths"
	"github.com/timbra-mx/timbra/server"
)

// catalogServer is one server with the whole SAT source imported, shared by the catalog
// benchmarks (the import takes seconds).
var catalogServer struct {
	once sync.Once
	t    *Timbra
	s    *server.Server
	err  error
}

func withCatalogs(b *testing.B) (*server.Server, http.Header) {
	b.Helper()
	dir := testpaths.Shared("catalogs")
	if _, err := os.Stat(filepath.Join(dir, "tables.list")); err != nil {
		b.Skipf("the SAT catalog source %s is absent", dir)
	}
	catalogServer.once.Do(func() {
		t, err := NewTimbra(os.TempDir())
		if err != nil {
			catalogServer.err = err
			return
		}
		s := t.Server(slog.New(slog.DiscardHandler))
		src, err := source.Open(context.Background(), dir, source.Options{})
		if err != nil {
			catalogServer.err = err
			return
		}
		defer src.Close()
		_, catalogServer.err = s.Catalogs().Import(context.Background(), src, time.Now(), nil)
		catalogServer.t, catalogServer.s = t, s
	})
	if catalogServer.err != nil {
		b.Fatal(catalogServer.err)
	}
	return catalogServer.s, catalogServer.t.Header()
}

// searchTerms are what people type into a product-code search: words, words with accents or
// without, a phrase, key prefixes, and the worst cases (one letter, a stop word).
var searchTerms = []string{"leche", "lápiz", "lapices", "tornillos", "servicios de consultoría", "computadora portatil",
	"5010", "01010101", "a", "de", "s"}

// BenchmarkCatalogSearch answers GET /api/v4/catalogs/SatProductCodes/<term> (page of 50) in
// process over the 52,514 records of c_ClaveProdServ: authentication, rate limit, the search,
// the envelope and its JSON. Each term is a sub-benchmark reporting its own p50 and p99.
func BenchmarkCatalogSearch(b *testing.B) {
	s, header := withCatalogs(b)
	h := s.Handler()
	for _, term := range searchTerms {
		req := httptest.NewRequest(http.MethodGet, "/api/v4/catalogs/SatProductCodes/"+url.PathEscape(term), nil)
		req.Header = header
		serve(b, h, req) // the first search loads the catalog and its index
		b.Run(term, func(b *testing.B) {
			b.ReportAllocs()
			var lat []time.Duration
			for b.Loop() {
				start := time.Now()
				serve(b, h, req)
				lat = append(lat, time.Since(start))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}

func serve(b *testing.B, h http.Handler, req *http.Request) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		b.Fatalf("%s: status %d: %s", req.URL.Path, rec.Code, rec.Body)
	}
}

// BenchmarkCatalogGet is the floor of the search: GET /api/v4/catalogs/SatProductCodes/key/<id>,
// the same request path with a map lookup instead of the search.
func BenchmarkCatalogGet(b *testing.B) {
	s, header := withCatalogs(b)
	req := httptest.NewRequest(http.MethodGet, "/api/v4/catalogs/SatProductCodes/key/44121706", nil)
	req.Header = header
	h := s.Handler()
	serve(b, h, req)
	b.ReportAllocs()
	for b.Loop() {
		serve(b, h, req)
	}
}

// BenchmarkCatalogLoadAll: 100 callers at once ask for the whole of c_ClaveProdServ
// (GET /api/v4/catalogs/SatProductCodes/load, 52,514 records, 5.3 MB of JSON) over loopback TCP,
// as clients that keep a copy of a catalog do, reading every byte; plain (identity) and with
// gzip. Reported: the process's resident memory at its highest over what it was before the
// callers (peak-MB), and the answers per second.
//
//	go test ./bench -run '^$' -bench 'CatalogLoadAll' -benchtime 1x
func BenchmarkCatalogLoadAll(b *testing.B) {
	if rssMB() == 0 {
		b.Skip("no /proc/self/status on this system")
	}
	s, header := withCatalogs(b)
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	for _, enc := range []string{"identity", "gzip"} {
		b.Run(enc, func(b *testing.B) {
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 100, DisableCompression: true}}
			get := func() int64 {
				req, _ := http.NewRequest(http.MethodGet, ts.URL+"/api/v4/catalogs/SatProductCodes/load", nil)
				req.Header = header.Clone()
				req.Header.Set("Accept-Encoding", enc)
				resp, err := client.Do(req)
				if err != nil {
					b.Error(err)
					return 0
				}
				defer resp.Body.Close()
				n, _ := io.Copy(io.Discard, resp.Body)
				if resp.StatusCode != 200 {
					b.Errorf("status %d", resp.StatusCode)
				}
				return n
			}
			get() // the catalog read and its answer made once, before measuring
			runtime.GC()
			debug.FreeOSMemory()
			for range b.N {
				var elapsed time.Duration
				var bytes atomic.Int64
				base, peak := peakRSS(func() {
					t0 := time.Now()
					var wg sync.WaitGroup
					for range 100 {
						wg.Go(func() { bytes.Add(get()) })
					}
					wg.Wait()
					elapsed = time.Since(t0)
				})
				b.ReportMetric(peak-base, "peak-MB")
				b.ReportMetric(100/elapsed.Seconds(), "answers/s")
				b.ReportMetric(float64(bytes.Load())/100/1e6, "MB/answer")
			}
		})
	}
}
