package server

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/satws"
	"github.com/timbra-mx/timbra/internal/webhooks"
	"github.com/urfave/cli/v2"
)

// TestCommandsParse checks what each server command parses a command line into, apart from
// running it (each constructor takes the run function).
func TestCommandsParse(t *testing.T) {
	for _, k := range []string{"TIMBRA_ADDR", "TIMBRA_ADDR_FILE", "TIMBRA_ADMIN_TOKEN_FILE", "TIMBRA_LOG_FORMAT", "TIMBRA_LOG_LEVEL",
		"TIMBRA_RATE_LIMIT", "TIMBRA_WEBHOOK_ALLOW_CIDR", "TIMBRA_CATALOGS", "TIMBRA_TLS_CERT", "TIMBRA_TLS_KEY", "TIMBRA_WEBHOOK_CA_FILE",
		"TIMBRA_WEBHOOK_CONCURRENCY", "TIMBRA_STAMP_TRUST", "TIMBRA_LIST_69B", "TIMBRA_LIST_69BBIS", "TIMBRA_CFDI_STATUS_URL",
		"TIMBRA_SMTP_URL", "TIMBRA_SMTP_FROM", "TIMBRA_SMTP_PASSWORD_FILE", "TIMBRA_DATA", "TIMBRA_ENVIRONMENT", "TIMBRA_MASTER_KEY_FILE",
		"TIMBRA_STAMP_CERT", "TIMBRA_STAMP_KEY", "TIMBRA_STAMP_KEY_PASSWORD_FILE"} {
		cmdtest.Unsetenv(t, k)
	}
	f := cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "dev")
	errRan := errors.New("ran")
	t.Run("server", func(t *testing.T) {
		var got *serveOptions
		run := func(_ *cli.Context, o *serveOptions) error { got = o; return errRan }
		err := cmdtest.Parse(t, newServeCmd(f, run), "server")
		if !errors.Is(err, errRan) || got.Addr != "127.0.0.1:8080" || got.LogFormat != "text" || got.LogLevel != "info" ||
			got.WebhookConcurrency != webhooks.DefaultPerDestination || got.Data != "" || got.log == nil || got.SatDownloadURL != "sat" || got.DownloadRulesEvery != 24*time.Hour {
			t.Fatalf("defaults: err %v, options %+v", err, got)
		}
		err = cmdtest.Parse(t, newServeCmd(f, run), "server", "--addr", "127.0.0.1:0", "--addr-file", "addr", "--data", "./t.db",
			"--environment", "production", "--master-key-file", "k", "--admin-token-file", "tok", "--log-format", "json", "--log-level", "debug",
			"--rate-limit", "5", "--webhook-allow-cidr", "10.0.0.0/8", "--webhook-allow-cidr", "127.0.0.1/32", "--catalogs", "none",
			"--tls-cert", "c.pem", "--tls-key", "k.pem", "--webhook-ca-file", "ca.pem", "--webhook-concurrency", "64",
			"--stamp-trust", "certs", "--list-69b", "69b.csv", "--list-69bbis", "69bbis.csv", "--cfdi-status-url", "http://s",
			"--smtp-url", "smtp://u@h", "--smtp-from", "a@b.mx", "--smtp-password-file", "pw",
			"--stamp-cert", "pac.cer", "--stamp-key", "pac.key", "--stamp-key-password-file", "pac.pw", "--sat-download-url", "http://127.0.0.1:8089",
			"--sat-retenciones-url", "http://127.0.0.1:8090", "--sat-download-poll", "200ms", "--download-rules-every", "6h")
		if !errors.Is(err, errRan) {
			t.Fatalf("err %v", err)
		}
		want := serveOptions{dataOptions: dataOptions{Data: "./t.db", Environment: "production", MasterKeyFile: "k"},
			Addr: "127.0.0.1:0", AddrFile: "addr", AdminTokenFile: "tok", LogFormat: "json", LogLevel: "debug", RateLimit: 5,
			WebhookCAFile: "ca.pem", WebhookConcurrency: 64, TLSCert: "c.pem", TLSKey: "k.pem", Catalogs: "none",
			Validations: validationFlags{list69B: "69b.csv", list69BBis: "69bbis.csv", statusURL: "http://s"},
			Mail:        mailFlags{url: "smtp://u@h", from: "a@b.mx", passwordFile: "pw"},
			Stamp:       stampFlags{cert: "pac.cer", key: "pac.key", passwordFile: "pac.pw"}, SatDownloadURL: "http://127.0.0.1:8089",
			SatRetencionesURL: "http://127.0.0.1:8090", SatDownloadPoll: 200 * time.Millisecond, DownloadRulesEvery: 6 * time.Hour}
		g := *got
		if !reflect.DeepEqual(g.WebhookAllow.Value(), []string{"10.0.0.0/8", "127.0.0.1/32"}) ||
			!reflect.DeepEqual(g.Validations.stampTrust.Value(), []string{"certs"}) || g.log == nil {
			t.Fatalf("options %+v", g)
		}
		g.f, g.log, g.policy, g.WebhookAllow, g.Validations.stampTrust = nil, nil, want.policy, want.WebhookAllow, want.Validations.stampTrust
		if !reflect.DeepEqual(g, want) {
			t.Fatalf("options %+v\nwant    %+v", g, want)
		}
		for _, c := range []struct {
			args  []string
			usage string // a usage error, and the run not called
		}{
			{[]string{"server", "extra"}, `unexpected argument "extra"`},
			{[]string{"server", "--log-level", "loud"}, `--log-level "loud": use debug, info, warn or error`},
			{[]string{"server", "--log-format", "xml"}, `--log-format "xml": use text or json`},
			{[]string{"server", "--webhook-allow-cidr", "nope"}, "--webhook-allow-cidr: "},
			{[]string{"server", "--tls-cert", "c.pem"}, "--tls-cert and --tls-key go together"},
			{[]string{"server", "--tls-key", "k.pem"}, "--tls-cert and --tls-key go together"},
			{[]string{"server", "--webhook-concurrency", "0"}, "--webhook-concurrency: 0 is not between 1 and 64"},
			{[]string{"server", "--webhook-concurrency", "65"}, "--webhook-concurrency: 65 is not between 1 and 64"},
			{[]string{"server", "--sat-download-poll", "-1s"}, "--sat-download-poll must be 0 or more"},
			{[]string{"server", "--download-rules-every", "30s"}, "--download-rules-every must be 1m or more"},
			{[]string{"server", "--stamp-cert", "pac.cer"}, "--stamp-cert, --stamp-key and --stamp-key-password-file go together"},
			{[]string{"server", "--stamp-cert", "pac.cer", "--stamp-key", "pac.key"}, "--stamp-cert, --stamp-key and --stamp-key-password-file go together"},
			{[]string{"server", "--stamp-key-password-file", "pac.pw"}, "--stamp-cert, --stamp-key and --stamp-key-password-file go together"},
		} {
			t.Run(strings.Join(c.args, " "), func(t *testing.T) {
				var got *serveOptions
				err := cmdtest.Parse(t, newServeCmd(f, func(_ *cli.Context, o *serveOptions) error { got = o; return errRan }), c.args...)
				cmdtest.WantUsage(t, err, got != nil, c.usage)
			})
		}
	})
	t.Run("init", func(t *testing.T) {
		var got *initOptions
		run := func(_ *cli.Context, o *initOptions) error { got = o; return errRan }
		err := cmdtest.Parse(t, newInitCmd(f, run), "init", "--data", "./t.db")
		if !errors.Is(err, errRan) || got.Data != "./t.db" || got.OwnerEmail != DefaultOwnerEmail || got.JSON {
			t.Fatalf("err %v, options %+v", err, got)
		}
		err = cmdtest.Parse(t, newInitCmd(f, run), "init", "--data", "./live.db", "--environment", "production", "--owner-email", "me@example.com", "--json",
			"--stamp-cert", "pac.cer", "--stamp-key", "pac.key", "--stamp-key-password-file", "pac.pw")
		if !errors.Is(err, errRan) || got.Environment != "production" || got.OwnerEmail != "me@example.com" || !got.JSON ||
			got.Stamp != (stampFlags{cert: "pac.cer", key: "pac.key", passwordFile: "pac.pw"}) {
			t.Fatalf("err %v, options %+v", err, got)
		}
		got = nil
		cmdtest.WantUsage(t, cmdtest.Parse(t, newInitCmd(f, run), "init", "x"), got != nil, `unexpected argument "x"`)
		t.Setenv("TIMBRA_STAMP_KEY", "env.key") // a variable counts as its flag
		got = nil
		cmdtest.WantUsage(t, cmdtest.Parse(t, newInitCmd(f, run), "init", "--stamp-cert", "pac.cer"), got != nil, "go together: give all three, or none")
		err = cmdtest.Parse(t, newInitCmd(f, run), "init", "--stamp-cert", "pac.cer", "--stamp-key-password-file", "pac.pw")
		if !errors.Is(err, errRan) || got.Stamp.key != "env.key" {
			t.Fatalf("err %v, options %+v", err, got)
		}
		err = cmdtest.Parse(t, newInitCmd(f, run), "init", "--stamp-cert", "pac.cer", "--stamp-key", "flag.key", "--stamp-key-password-file", "pac.pw")
		if !errors.Is(err, errRan) || got.Stamp.key != "flag.key" {
			t.Fatalf("a flag wins over its variable: err %v, options %+v", err, got)
		}
	})
	t.Run("backup", func(t *testing.T) {
		var got *backupOptions
		run := func(_ *cli.Context, o *backupOptions) error { got = o; return errRan }
		err := cmdtest.Parse(t, newBackupCmd(f, run), "backup", "out.db", "--base-url", "http://h:1", "--admin-token-file", "tok")
		if !errors.Is(err, errRan) || got.File != "out.db" || got.BaseURL != "http://h:1" || got.TokenFile != "tok" {
			t.Fatalf("err %v, options %+v", err, got)
		}
		for _, c := range []struct {
			args  []string
			usage string
		}{
			{[]string{"backup"}, "give the backup FILE, exactly one argument"},
			{[]string{"backup", "a.db", "b.db"}, "give the backup FILE, exactly one argument"},
			{[]string{"backup", "out.db", "--base-url", "ftp://x"}, "invalid base URL"},
		} {
			got = nil
			cmdtest.WantUsage(t, cmdtest.Parse(t, newBackupCmd(f, run), c.args...), got != nil, c.usage)
		}
	})
	t.Run("restore", func(t *testing.T) {
		var got *restoreOptions
		run := func(_ *cli.Context, o *restoreOptions) error { got = o; return errRan }
		err := cmdtest.Parse(t, newRestoreCmd(f, run), "restore", "b.db", "--data", "./t.db", "--master-key-file", "k", "--force")
		if !errors.Is(err, errRan) || got.File != "b.db" || got.Data != "./t.db" || got.MasterKeyFile != "k" || !got.Force {
			t.Fatalf("err %v, options %+v", err, got)
		}
		got = nil
		cmdtest.WantUsage(t, cmdtest.Parse(t, newRestoreCmd(f, run), "restore", "--force"), got != nil, "give the backup FILE, exactly one argument")
	})
	t.Run("check", func(t *testing.T) {
		var got *checkOptions
		run := func(_ *cli.Context, o *checkOptions) error { got = o; return errRan }
		err := cmdtest.Parse(t, newCheckCmd(f, run), "check", "--data", "./t.db", "--master-key-file", "k")
		if !errors.Is(err, errRan) || got.Data != "./t.db" || got.MasterKeyFile != "k" {
			t.Fatalf("err %v, options %+v", err, got)
		}
		got = nil
		cmdtest.WantUsage(t, cmdtest.Parse(t, newCheckCmd(f, run), "check", "x.db"), got != nil, `unexpected argument "x.db"`)
	})
}

// TestSatRetencionesURL: --sat-retenciones-url names SAT's own retenciones addresses (sat) or a
// URL; left out, it follows --sat-download-url: SAT's own, or the local SAT's second service.
func TestSatRetencionesURL(t *testing.T) {
	for _, c := range []struct {
		url, download string
		want          satws.Endpoints
	}{
		{"", "sat", satws.SATRetencionesEndpoints},
		{"", "", satws.SATRetencionesEndpoints},
		{"sat", "http://127.0.0.1:8089", satws.SATRetencionesEndpoints},
		{"", "http://127.0.0.1:8089/", satws.EndpointsAt("http://127.0.0.1:8089/retenciones")},
		{"https://proxy.example/ret", "sat", satws.EndpointsAt("https://proxy.example/ret")},
	} {
		if got := satRetenciones(c.url, c.download); got != c.want {
			t.Errorf("satRetenciones(%q, %q) = %+v, want %+v", c.url, c.download, got, c.want)
		}
	}
	if satws.SATRetencionesEndpoints.Query != "https://retendescargamasivasolicitud.clouda.sat.gob.mx/SolicitaDescargaService.svc" {
		t.Errorf("SAT's retenciones query address: %s", satws.SATRetencionesEndpoints.Query)
	}
}
