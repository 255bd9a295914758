package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/storage"
)

// bboltFixture is a fixture on bbolt (the backup is bbolt's; PostgreSQL answers 409) holding
// mib events of 1 MiB each.
func bboltFixture(t *testing.T, mib int) *fixture {
	t.Helper()
	f := newFixture(t)
	if _, ok := f.srv.store.(*storage.Bolt); !ok {
		t.Skip("the backup copies a bbolt database; this store is PostgreSQL (TestBackupWhileWriting checks its 409)")
	}
	addEvents(t, f, mib)
	return f
}

// addEvents writes n events of 1 MiB to the fixture's tenant, one transaction each.
func addEvents(t *testing.T, f *fixture, n int) {
	t.Helper()
	if err := writeEvents(f, n); err != nil {
		t.Fatal(err)
	}
}

func writeEvents(f *fixture, n int) error {
	body := []byte(`{"data":"` + strings.Repeat("x", 1<<20) + `"}`)
	for range n {
		at := time.Now().UTC()
		err := f.srv.store.Update(context.Background(), func(tx storage.Tx) error {
			return tx.Events(f.creds.TenantKey).Put(storage.Event{ID: ids.New(at), Type: "invoice.stamped", RelatedObjectID: "big", CreatedAt: at, Body: body})
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// startBackup sends GET /admin/v1/backup on a connection of its own and reads the answer's
// head, not its body.
func startBackup(t *testing.T, f *fixture) (*bufio.Reader, *http.Response) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(f.http.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "GET /admin/v1/backup HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer op-token\r\n\r\n")
	br := bufio.NewReaderSize(conn, 64<<10)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.ContentLength <= 0 {
		t.Fatalf("backup: %d, length %d", resp.StatusCode, resp.ContentLength)
	}
	return br, resp
}

// checkBackup reads the rest of the backup and checks it is a sound database of its length.
func checkBackup(t *testing.T, resp *http.Response) {
	t.Helper()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("after %d of %d bytes: %v", len(body), resp.ContentLength, err)
	}
	path := filepath.Join(t.TempDir(), "backup.db")
	if err := os.WriteFile(path, body, 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := storage.Inspect(path)
	if err != nil || len(rep.Problems) > 0 {
		t.Fatalf("the backup is not sound: %v %v", err, rep.Problems)
	}
}

// TestBackupHoldsNoWrite: a backup whose client has stopped reading holds no write. The file
// grows from about 32 MiB past 64 MiB while the client reads nothing: bbolt maps the file
// again, which waits for every read transaction to end (a backup streamed from its read
// transaction held that write, and every later read and write, until its client read it all or
// was cut a minute later).
func TestBackupHoldsNoWrite(t *testing.T) {
	f := bboltFixture(t, 32)
	_, resp := startBackup(t, f) // its body is not read while the database grows
	done := make(chan error, 1)
	go func() { done <- writeEvents(f, 40) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("40 writes growing the file did not end in 30 s while a backup's client was not reading")
	}
	checkBackup(t, resp)
}

// TestBackupSlowDownload: a download slower than the write timeout goes on while it moves (each
// MiB has the timeout of its own): here 1 MiB read every quarter of the timeout, about 6 timeouts
// in all (the whole answer once had to be sent within one).
func TestBackupSlowDownload(t *testing.T) {
	f := bboltFixture(t, 24)
	old := writeTimeout
	writeTimeout = time.Second
	defer func() { writeTimeout = old }()
	_, resp := startBackup(t, f)
	r := &pacedReader{r: resp.Body, every: writeTimeout / 4}
	resp.Body = io.NopCloser(r)
	checkBackup(t, resp)
}

// pacedReader reads at most 1 MiB, then waits.
type pacedReader struct {
	r     io.Reader
	every time.Duration
	left  int
}

func (p *pacedReader) Read(b []byte) (int, error) {
	if p.left == 0 {
		time.Sleep(p.every)
		p.left = 1 << 20
	}
	n, err := p.r.Read(b[:min(len(b), p.left)])
	p.left -= n
	return n, err
}
