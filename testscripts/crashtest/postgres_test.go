package crashtest

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/storage"
	"github.com/timbra-mx/timbra/storage/pgtest"
)

// TestPostgresNodeKilledDuringADrain: two real server nodes on one PostgreSQL database share the
// triggers of a drain; the node sending to the webhook is killed with SIGKILL while most
// deliveries are pending; the other node takes the webhook once the dead node's lease expires
// and every accepted event reaches the receiver at least once, with no more twice than the
// engine's bound.
func TestPostgresNodeKilledDuringADrain(t *testing.T) {
	url := pgtest.URL(t)
	dir := t.TempDir()
	open := func() (storage.Store, error) { return storage.OpenPostgres(context.Background(), url) }
	drainThroughAKill(t, deployment{
		dir: dir, nodes: 2, open: open,
		db: []string{"--database", url, "--master-key-file", filepath.Join(dir, "master.key")},
		holder: func(t *testing.T, tenant, hook string, nodes []*proc) int {
			st, err := open()
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			deadline := time.Now().Add(30 * time.Second)
			for time.Now().Before(deadline) {
				var l storage.Lease
				var ok bool
				err := st.View(context.Background(), func(tx storage.Tx) error {
					l, ok, err = tx.Leases().Get("d/" + tenant + "/" + hook)
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				for i, n := range nodes { // a node's default name ends in its process id
					if ok && strings.HasSuffix(l.Node, "-"+strconv.Itoa(n.cmd.Process.Pid)) {
						return i
					}
				}
				time.Sleep(20 * time.Millisecond)
			}
			t.Fatal("no node holds the webhook's lease")
			return -1
		},
	})
}
