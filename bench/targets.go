package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/google/uuid"
	bolt "go.etcd.io/bbolt"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/server"
	"github.com/timbra-mx/timbra/storage"
)

// Paths and bodies of the measured requests.
const (
	PeoplePath = "/api/v4/people"
	KeysPath   = "/api/v4/apikeys"
	KeyBody    = `{"description":"bench"}`
)

// HighLimit is the rate limit given to the measured server: the limiter still counts every
// request, but never refuses one within a run.
const HighLimit = math.MaxInt32

// Timbra is a temporary database with one tenant, over which real servers are built.
type Timbra struct {
	Data  *server.Data
	Creds api.Credentials
	dir   string
}

// NewTimbra makes a database in a new folder under dir ("" for the system's temporary
// folder) and creates a tenant in it.
func NewTimbra(dir string) (*Timbra, error) { return NewTimbraOn(dir, "") }

// NewTimbraOn is NewTimbra on the PostgreSQL database at the URL database (its master key in
// the new folder), or on a bbolt file there when database is empty.
func NewTimbraOn(dir, database string) (*Timbra, error) {
	tmp, err := os.MkdirTemp(dir, "timbra-bench-")
	if err != nil {
		return nil, err
	}
	opt := server.DataOptions{Path: filepath.Join(tmp, "bench.db")}
	if database != "" {
		opt = server.DataOptions{Database: database, MasterKeyFile: filepath.Join(tmp, "master.key")}
	}
	d, err := server.OpenData(opt)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	t := &Timbra{Data: d, dir: tmp}
	t.Creds, err = t.Server(slog.New(slog.DiscardHandler)).Accounts().CreateTenant(context.Background(),
		api.TenantCreate{OwnerEmail: "bench@example.com"})
	if err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// Server is a real timbra server over the database, logging to logger, whose limits never
// refuse a request.
func (t *Timbra) Server(logger *slog.Logger) *server.Server {
	s, err := server.New(server.Config{
		Environment: t.Data.Environment, Version: "bench", Logger: logger,
		StandardLimit: HighLimit, AnonymousLimit: HighLimit, ShutdownTimeout: 5 * time.Second,
	}, t.Data.Store, t.Data.Keys)
	if err != nil {
		panic("bench server: " + err.Error()) // a bad webhook CA file or an unreadable catalog set; the bench has neither
	}
	return s
}

// Header is a new copy of the credentials headers of the tenant.
func (t *Timbra) Header() http.Header {
	return http.Header{"X-Tenant-Key": {t.Creds.TenantKey}, "X-Api-Key": {t.Creds.APIKey}}
}

// Close closes the database and removes its folder.
func (t *Timbra) Close() error {
	err := t.Data.Store.Close()
	return errors.Join(err, os.RemoveAll(t.dir))
}

// JSONLogger logs at info level as JSON to io.Discard: the whole cost of the request log
// without the cost of a terminal or file.
func JSONLogger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

// CaptureBody answers one request to h in process and returns the body, failing unless the
// status is 200.
func CaptureBody(h http.Handler, method, path string, header http.Header, body string) ([]byte, error) {
	var rd io.Reader
	if body != "" {
		rd = bytes.NewReader([]byte(body))
	}
	req := httptest.NewRequest(method, path, rd)
	req.Header = header
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return nil, fmt.Errorf("%s %s: status %d: %.300s", method, path, rec.Code, rec.Body.Bytes())
	}
	return rec.Body.Bytes(), nil
}

// Bare is the floor of an HTTP request: a net/http handler that writes a fixed body with the
// same content type, and nothing else.
func Bare(body []byte) http.Handler {
	length := strconv.Itoa(len(body))
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "application/json; charset=utf-8")
		h.Set("Content-Length", length)
		w.WriteHeader(http.StatusOK)
		w.Write(body)
	})
}

// Listening is a server on a loopback listener.
type Listening struct {
	URL  string
	stop func() error
}

// Close stops the server, letting in-flight requests finish.
func (l *Listening) Close() error { return l.stop() }

// ServeTimbra serves s on 127.0.0.1 through its own Serve (the production path).
func ServeTimbra(s *server.Server) (*Listening, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	return &Listening{URL: "http://" + ln.Addr().String(), stop: func() error { cancel(); return <-done }}, nil
}

// ServeBare serves h on 127.0.0.1 with the settings server.Serve uses.
func ServeBare(h http.Handler) (*Listening, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	return &Listening{URL: "http://" + ln.Addr().String(), stop: func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := srv.Shutdown(ctx)
		if serr := <-done; !errors.Is(serr, http.ErrServerClosed) {
			err = errors.Join(err, serr)
		}
		return err
	}}, nil
}

// Client is an HTTP client for concurrency workers on one host: keep-alive, enough idle
// connections for every worker, no proxy, no compression, and a timeout on every request.
func Client(concurrency int, timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:        2 * concurrency,
			MaxIdleConnsPerHost: 2 * concurrency,
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true,
		},
	}
}

// HTTPOp makes the operation of one worker: one request, its body read to the end (so the
// connection is reused); a transport error or a status outside 2xx is a failure. The worker
// keeps its own copy of header.
func HTTPOp(c *http.Client, method, url string, header http.Header, body string) func() error {
	header = header.Clone()
	return func() error {
		var rd io.Reader
		if body != "" {
			rd = bytes.NewReader([]byte(body))
		}
		req, err := http.NewRequest(method, url, rd)
		if err != nil {
			return err
		}
		req.Header = header
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			raw, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
			return fmt.Errorf("%s %s: status %d: %s", method, url, resp.StatusCode, raw)
		}
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
}

// RawBolt is the floor of a write: a bbolt file opened as storage.Open opens it, with one
// bucket.
type RawBolt struct {
	DB  *bolt.DB
	dir string
}

var rawBucket = []byte("bench")

// OpenRawBolt makes a bbolt file in a new folder under dir ("" for the system's temporary
// folder).
func OpenRawBolt(dir string) (*RawBolt, error) {
	tmp, err := os.MkdirTemp(dir, "raw-bolt-")
	if err != nil {
		return nil, err
	}
	db, err := bolt.Open(filepath.Join(tmp, "raw.db"), 0o600, &bolt.Options{Timeout: 2 * time.Second})
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	db.MaxBatchDelay = storage.MaxBatchDelay
	err = db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(rawBucket)
		return err
	})
	if err != nil {
		db.Close()
		os.RemoveAll(tmp)
		return nil, err
	}
	return &RawBolt{DB: db, dir: tmp}, nil
}

// Close closes the file and removes its folder.
func (r *RawBolt) Close() error {
	err := r.DB.Close()
	return errors.Join(err, os.RemoveAll(r.dir))
}

// rawRecord is shaped like a stored API key, so its JSON is about the same size.
type rawRecord struct {
	ID          string    `json:"id"`
	TenantID    string    `json:"tenantId"`
	PersonID    string    `json:"personId"`
	Environment string    `json:"environment"`
	Value       []byte    `json:"value"`
	Lookup      []byte    `json:"lookup"`
	Status      int       `json:"status"`
	Description string    `json:"description"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// RawValue is the JSON value written under id: about 300 bytes.
func RawValue(id string) []byte {
	now := time.Now().UTC()
	v, _ := json.Marshal(rawRecord{
		ID: id, TenantID: "0199c3f4-7a10-7c3e-9d41-2f6b8e0a1c55", PersonID: "0199c3f4-7a10-7c3e-9d41-2f6b8e0a1c56",
		Environment: "test", Value: make([]byte, 60), Lookup: make([]byte, 32), Status: 1,
		Description: "bench", CreatedAt: now, UpdatedAt: now,
	})
	return v
}

// Put writes one new record under a new UUIDv7 key, in its own transaction (db.Update) or
// in a shared one (db.Batch).
func (r *RawBolt) Put(batch bool) error {
	id := uuid.Must(uuid.NewV7()).String()
	k, v := []byte(id), RawValue(id)
	fn := func(tx *bolt.Tx) error { return tx.Bucket(rawBucket).Put(k, v) } // idempotent
	if batch {
		return r.DB.Batch(fn)
	}
	return r.DB.Update(fn)
}
