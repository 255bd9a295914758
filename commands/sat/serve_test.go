package sat

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/satws"
	"github.com/timbra-mx/timbra/internal/satws/satwstest"
	"github.com/timbra-mx/timbra/internal/testpaths"
	"github.com/urfave/cli/v2"
)

// TestServe runs `timbra sat serve` on a free port with SAT's sample CFDI, reads the address
// from --addr-file, authenticates and queries with SAT's test e.firma, and stops on cancel.
func TestServe(t *testing.T) {
	cred := satwstest.EFirma(t)
	dir := t.TempDir()
	sample, err := os.ReadFile(testpaths.Shared("sat", "samples", "cfdi40-real.xml"))
	if err != nil {
		t.Skip("SAT's sample CFDI is not beside the repository")
	}
	os.WriteFile(filepath.Join(dir, "a.xml"), sample, 0o600)
	addrFile := filepath.Join(dir, "addr")
	var stderr bytes.Buffer
	f := cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &stderr}, "dev")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		app := &cli.App{Name: "timbra", Commands: []*cli.Command{newServeCmd(f, nil)}, ExitErrHandler: func(*cli.Context, error) {}}
		done <- app.RunContext(ctx, []string{"timbra", "serve", "--addr", "127.0.0.1:0", "--addr-file", addrFile, "--cfdis", dir})
	}()
	var addr string
	for i := 0; i < 200 && addr == ""; i++ {
		b, _ := os.ReadFile(addrFile)
		addr = strings.TrimSpace(string(b))
		time.Sleep(10 * time.Millisecond)
	}
	if addr == "" {
		t.Fatal("no --addr-file")
	}
	c := &satws.Client{Endpoints: satws.EndpointsAt("http://" + addr), Credential: cred}
	res, err := c.Query(ctx, satws.Query{Operation: satws.ByUUID, Requester: cred.RFC(), UUID: "96623061-61fe-49de-b298-c7156476aa8b"})
	if err != nil || !res.Accepted() {
		t.Fatalf("query: %+v %v", res, err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	if !strings.Contains(stderr.String(), "with 1 CFDIs") {
		t.Errorf("stderr %q", stderr.String())
	}
}
