package admin

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
)

const testAdminToken = "op-token-0123456789"

// adminAPI is a fake operator API that wants the bearer token.
func adminAPI(t *testing.T) *cmdtest.FakeAPI {
	return cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+testAdminToken {
			cmdtest.WriteEnvelope(w, 401, nil, "Invalid operator token", "t-401")
			return
		}
		if r.Header.Get("X-API-KEY") != "" || r.Header.Get("X-TENANT-KEY") != "" {
			cmdtest.WriteEnvelope(w, 400, nil, "tenant headers sent to the operator API", "t")
			return
		}
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/admin/v1/tenants":
			var in api.TenantCreate
			_ = json.NewDecoder(r.Body).Decode(&in)
			if in.OwnerEmail == "taken@example.com" {
				cmdtest.WriteEnvelope(w, 400, []any{cmdtest.Failure("OwnerEmail", "El correo ya existe.")}, "One or more validation errors occurred.", "t")
				return
			}
			cmdtest.WriteEnvelope(w, 201, api.Credentials{TenantKey: "tk-1", APIKey: "sk_test_new_0123456789", PersonID: "p-owner", Environment: "test"}, "", "t")
		case r.Method == http.MethodGet && r.URL.Path == "/admin/v1/tenants":
			cmdtest.WriteEnvelope(w, 200, []api.Tenant{
				{ID: "tk-1", OwnerPersonID: "p-owner", OwnerEmail: "ana@example.com", People: 3, CreatedAt: "2025-03-01T00:00:00.000"},
			}, "", "t")
		case r.Method == http.MethodPost && r.URL.Path == "/admin/v1/tenants/tk-1/credits":
			var in api.CreditGrant
			_ = json.NewDecoder(r.Body).Decode(&in)
			person := in.PersonID
			if person == "" {
				person = "p-owner"
			}
			cmdtest.WriteEnvelope(w, 200, api.CreditBalances{TenantKey: "tk-1", PersonID: person, Balances: []api.Balance{
				{CreditType: 1, Available: float64(1000 + in.Amount)}, {CreditType: 2, Available: 1000}, {CreditType: 3, Available: 0},
			}}, "", "t")
		default:
			cmdtest.WriteEnvelope(w, 404, nil, "No such resource", "t")
		}
	})
}

func TestAdminTenantsCreate(t *testing.T) {
	cmdtest.Isolate(t)
	srv := adminAPI(t)
	t.Setenv("TIMBRA_ADMIN_TOKEN", testAdminToken)
	r := runArgs(t, "admin", "tenants", "create", "--owner-email", "ana@example.com", "--owner-name", "Ana López", "--base-url", srv.URL)
	cmdtest.WantCode(t, r, 0)
	want := "Tenant key: tk-1\nAPI key: sk_test_new_0123456789\nPerson ID: p-owner\nEnvironment: test\n"
	if r.Out != want {
		t.Errorf("stdout %q, want %q", r.Out, want)
	}
	req := srv.Last(t)
	var body api.TenantCreate
	if err := json.Unmarshal([]byte(req.Body), &body); err != nil || body != (api.TenantCreate{OwnerEmail: "ana@example.com", OwnerLegalName: "Ana López"}) {
		t.Errorf("body %s (%v)", req.Body, err)
	}

	r = runArgs(t, "admin", "tenants", "create", "--owner-email", "ana@example.com", "--base-url", srv.URL, "-o", "json")
	cmdtest.WantCode(t, r, 0)
	var creds api.Credentials
	if err := json.Unmarshal([]byte(r.Out), &creds); err != nil || creds.TenantKey != "tk-1" || creds.APIKey == "" {
		t.Errorf("JSON %q (%v)", r.Out, err)
	}

	r = runArgs(t, "admin", "tenants", "create", "--owner-email", "taken@example.com", "--base-url", srv.URL)
	cmdtest.WantCode(t, r, 1)
	if r.Err != "OwnerEmail: El correo ya existe.\n" {
		t.Errorf("stderr %q", r.Err)
	}
}

func TestAdminTokenSources(t *testing.T) {
	cmdtest.Isolate(t)
	srv := adminAPI(t)
	t.Setenv("TIMBRA_BASE_URL", srv.URL)

	// nothing: the default file is missing
	r := runArgs(t, "admin", "tenants", "list")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stderr", r.Err, "no operator token", cmdutil.DefaultDataPath()+".admin-token")

	// the default file beside the default database
	def := cmdutil.DefaultDataPath() + ".admin-token"
	if runtime.GOOS == "linux" && !strings.HasPrefix(def, os.Getenv("XDG_DATA_HOME")+string(filepath.Separator)) {
		t.Fatalf("default token file %s not under XDG_DATA_HOME", def)
	}
	if err := os.MkdirAll(filepath.Dir(def), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(def, []byte(testAdminToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runArgs(t, "admin", "tenants", "list")
	cmdtest.WantCode(t, r, 0)

	// TIMBRA_ADMIN_TOKEN_FILE, then TIMBRA_ADMIN_TOKEN before it, then --admin-token-file before both
	other := filepath.Join(t.TempDir(), "tok")
	if err := os.WriteFile(other, []byte("wrong-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TIMBRA_ADMIN_TOKEN_FILE", other)
	r = runArgs(t, "admin", "tenants", "list")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stderr", r.Err, "401: Invalid operator token")

	t.Setenv("TIMBRA_ADMIN_TOKEN", testAdminToken)
	r = runArgs(t, "admin", "tenants", "list")
	cmdtest.WantCode(t, r, 0)

	r = runArgs(t, "admin", "tenants", "list", "--admin-token-file", other)
	cmdtest.WantCode(t, r, 1)
	r = runArgs(t, "admin", "tenants", "list", "--admin-token-file", def)
	cmdtest.WantCode(t, r, 0)

	r = runArgs(t, "admin", "tenants", "list", "--admin-token-file", filepath.Join(t.TempDir(), "missing"))
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stderr", r.Err, "--admin-token-file")
	cmdtest.WantNotContains(t, "stderr", r.Err, testAdminToken)
}

func TestAdminBaseURL(t *testing.T) {
	dir := cmdtest.Isolate(t)
	srv := adminAPI(t)
	t.Setenv("TIMBRA_ADMIN_TOKEN", testAdminToken)

	// from the profile
	if err := cmdutil.SaveConfig(dir, &cmdutil.Config{Profiles: map[string]cmdutil.Profile{"default": {BaseURL: srv.URL, TenantKey: "x"}}}); err != nil {
		t.Fatal(err)
	}
	r := runArgs(t, "admin", "tenants", "list")
	cmdtest.WantCode(t, r, 0)

	// the environment over the profile
	t.Setenv("TIMBRA_BASE_URL", "http://127.0.0.1:1")
	r = runArgs(t, "admin", "tenants", "list")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stderr", r.Err, "cannot reach http://127.0.0.1:1")

	// the flag over both, given before or after the subcommand
	r = runArgs(t, "admin", "--base-url", srv.URL, "tenants", "list")
	cmdtest.WantCode(t, r, 0)
	r = runArgs(t, "admin", "tenants", "list", "--base-url", srv.URL)
	cmdtest.WantCode(t, r, 0)
}

func TestAdminTenantsList(t *testing.T) {
	cmdtest.Isolate(t)
	srv := adminAPI(t)
	t.Setenv("TIMBRA_ADMIN_TOKEN", testAdminToken)
	t.Setenv("TIMBRA_BASE_URL", srv.URL)
	r := runArgs(t, "admin", "tenants", "list")
	cmdtest.WantCode(t, r, 0)
	want := "TENANT\tOWNER EMAIL\tOWNER ID\tPEOPLE\tCREATED\ntk-1\tana@example.com\tp-owner\t3\t2025-03-01T00:00:00Z\n"
	if r.Out != want {
		t.Errorf("stdout %q, want %q", r.Out, want)
	}
	r = runArgs(t, "admin", "tenants", "list", "-o", "json")
	cmdtest.WantCode(t, r, 0)
	var ts []api.Tenant
	if err := json.Unmarshal([]byte(r.Out), &ts); err != nil || len(ts) != 1 || ts[0].People != 3 {
		t.Errorf("JSON %q (%v)", r.Out, err)
	}
}

func TestAdminCreditsGrant(t *testing.T) {
	cmdtest.Isolate(t)
	srv := adminAPI(t)
	t.Setenv("TIMBRA_ADMIN_TOKEN", testAdminToken)
	t.Setenv("TIMBRA_BASE_URL", srv.URL)
	r := runArgs(t, "admin", "credits", "grant", "--tenant", "tk-1", "--type", "1", "--amount", "-5", "--person", "p-9")
	cmdtest.WantCode(t, r, 0)
	want := "TYPE\tNAME\tAVAILABLE\n1\tstamps\t995\n2\tvalidation\t1000\n3\ttickets\t0\n"
	if r.Out != want {
		t.Errorf("stdout %q, want %q", r.Out, want)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(srv.Last(t).Body), &body); err != nil {
		t.Fatal(err)
	}
	if body["personId"] != "p-9" || body["creditType"] != float64(1) || body["amount"] != float64(-5) {
		t.Errorf("body %v", body)
	}

	r = runArgs(t, "admin", "credits", "grant", "--tenant", "tk-1", "--type", "2", "--amount", "10", "-o", "json")
	cmdtest.WantCode(t, r, 0)
	var out api.CreditBalances
	if err := json.Unmarshal([]byte(r.Out), &out); err != nil || out.PersonID != "p-owner" || len(out.Balances) != 3 {
		t.Errorf("JSON %q (%v)", r.Out, err)
	}

	r = runArgs(t, "admin", "credits", "grant", "--tenant", "nope", "--type", "1", "--amount", "1")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stderr", r.Err, "404")
}
