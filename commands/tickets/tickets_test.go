package tickets

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/internal/api"
)

// A file of tickets records each in turn: a refused one does not stop the rest, and the exit
// status says how many failed.
func TestTicketsRecordMany(t *testing.T) {
	cmdtest.Isolate(t)
	srv := cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		var in api.TicketInput
		json.NewDecoder(r.Body).Decode(&in)
		if in.Number == "T-1" {
			cmdtest.WriteEnvelope(w, 400, nil, "Ya existe un ticket con el número T-1.", "t")
			return
		}
		cmdtest.WriteEnvelope(w, 200, api.Ticket{ID: "tk-" + in.Number, Number: in.Number, Status: "pending", Total: "29.00"}, "", "t")
	})
	cmdtest.UseAPI(t, srv.URL)
	file := filepath.Join(t.TempDir(), "tickets.json")
	os.WriteFile(file, []byte(` [{"number": "T-4"}, {"number": "T-1"}]`), 0o644)

	r := runArgs(t, "tickets", "record", "--file", file)
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stdout", r.Out, "NUMBER\tSTATUS\tID\tTOTAL / ERROR\n", "T-4\tpending\ttk-T-4\t29.00\n", "T-1\tfailed\t\t")
	cmdtest.WantContains(t, "stderr", r.Err, "1 of 2 tickets were not recorded")
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}

	// one ticket prints its fields
	r = run1(t, cmdtest.Opts{Stdin: `{"number": "T-5"}`}, "tickets", "record", "--file", "-")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "ID: tk-T-5\n", "Number: T-5\n", "Status: pending\n")
}

// Wrong command lines are refused before anything is sent.
func TestTicketsUsageErrors(t *testing.T) {
	cmdtest.Isolate(t)
	srv := cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) { cmdtest.WriteEnvelope(w, 500, nil, "", "t") })
	cmdtest.UseAPI(t, srv.URL)
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`[{"number": 1}]`), 0o644)
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"tickets", "invoice", "tk-1"}, "give the customer: --recipient-id, or --tin"},
		{[]string{"tickets", "cancel", "tk-1"}, "refusing to cancel without confirmation: stdin is not a terminal; pass --yes"},
		{[]string{"tickets", "get"}, "missing argument: id"},
		{[]string{"tickets", "list", "--page-size", "0"}, "--page-size"},
		{[]string{"tickets", "record", "--file", bad}, "is not a JSON array of tickets"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := runArgs(t, c.args...)
			cmdtest.WantCode(t, r, 2)
			cmdtest.WantContains(t, "stderr", r.Err, c.msg, "Run 'timbra "+strings.Join(c.args[:2], " ")+" --help'.")
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}
