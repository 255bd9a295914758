// Package logs is `timbra logs`: the tenant's API requests, live.
package logs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fatih/color"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/tui"
	"github.com/urfave/cli/v2"
)

// NewCmd is `timbra logs`.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "logs",
		Usage: "Follow the API requests of your tenant as they are answered",
		Description: "`timbra logs tail` shows the requests made with your tenant's keys while it runs (and the\n" +
			"last 20 before it started), as the server answers them: a debugging view, not a stored log.\n\n" +
			"Examples:\n" +
			"  timbra logs tail\n" +
			"  timbra logs tail --filter-status-code 4XX,5XX --filter-http-method POST",
		Subcommands: []*cli.Command{newTailCmd(f, nil)},
	}
}

// Formats of the lines.
const (
	formatJSON = "json"
	formatText = "text"
)

type tailOptions struct {
	f        *cmdutil.Factory
	Statuses []string // 200, 4XX: a code or a class
	Methods  []string // upper case
	Paths    []string // a path, a prefix of whole segments, or a pattern with *
	JSON     bool
}

func newTailCmd(f *cmdutil.Factory, run cmdutil.RunFunc[tailOptions]) *cli.Command {
	o := &tailOptions{f: f}
	run = cmdutil.OrRun(run, tailRun)
	var statuses, methods, paths cli.StringSlice
	var format string
	return &cli.Command{
		Name:      "tail",
		Usage:     "Print your tenant's API requests as they are answered",
		UsageText: "timbra logs tail [--filter-status-code CODE[,CODE...]] [--filter-http-method METHOD[,METHOD...]] [--filter-request-path PATH[,PATH...]] [--format json|text]",
		Description: "Prints a line per request made with a key of your tenant once the server answers it: time,\n" +
			"method, path, status, latency, request ID (the answer's traceIdentifier) and, for a failure,\n" +
			"the error the caller got. The tenant's owner sees every person's requests; anyone else their\n" +
			"own. Nothing secret is shown: no bodies, no headers, the path without its query (only the\n" +
			"query's parameter names, in JSON). The last 20 requests come first, then the new ones, until\n" +
			"Ctrl-C; a dropped connection is opened again. A tail that falls behind (more than 256\n" +
			"requests) is dropped by the server, which never waits for it, and this command reconnects.\n\n" +
			"Filters take lists (comma-separated or repeated) and a line must pass each filter given:\n" +
			"a status code (404) or class (4XX), a method (POST), a request path (/api/v4/invoices,\n" +
			"which also matches the paths under it, or a pattern with * for one segment:\n" +
			"/api/v4/invoices/*/xml).\n\n" +
			"Lines are text on a terminal and JSON elsewhere, or as --format says; a JSON line is the\n" +
			"entry as the API streams it (GET /api/v4/logs/tail) with its schema version \"v\": 1.\n\n" +
			"Examples:\n" +
			"  timbra logs tail\n" +
			"  timbra logs tail --filter-status-code 4XX,5XX\n" +
			"  timbra logs tail --filter-http-method POST,DELETE --filter-request-path /api/v4/invoices\n" +
			"  timbra logs tail --format json | jq 'select(.latencyMs > 500)'",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "filter-status-code", Usage: "only these status `CODES` (200, 4XX)", Destination: &statuses},
			&cli.StringSliceFlag{Name: "filter-http-method", Usage: "only these `METHODS` (GET, POST, PUT, DELETE)", Destination: &methods},
			&cli.StringSliceFlag{Name: "filter-request-path", Usage: "only these request `PATHS` (a path and the paths under it, or a pattern with *)", Destination: &paths},
			&cli.StringFlag{Name: "format", Usage: "lines as `FORMAT`: json or text", DefaultText: "json when stdout is not a terminal, else text", Destination: &format},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			for _, v := range splitList(statuses.Value()) {
				v = strings.ToUpper(v)
				if !validStatus(v) {
					return cmdutil.UsageErrorf(c, "invalid value %q for --filter-status-code: give a code (404) or a class (4XX)", v)
				}
				o.Statuses = append(o.Statuses, v)
			}
			for _, v := range splitList(methods.Value()) {
				v = strings.ToUpper(v)
				if !slices.Contains([]string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}, v) {
					return cmdutil.UsageErrorf(c, "invalid value %q for --filter-http-method: use GET, POST, PUT, PATCH, DELETE, HEAD or OPTIONS", v)
				}
				o.Methods = append(o.Methods, v)
			}
			for _, v := range splitList(paths.Value()) {
				if _, err := path.Match(v, "/"); err != nil || !strings.HasPrefix(v, "/") {
					return cmdutil.UsageErrorf(c, "invalid value %q for --filter-request-path: give a path such as /api/v4/invoices", v)
				}
				o.Paths = append(o.Paths, strings.TrimSuffix(v, "/"))
			}
			switch format {
			case formatJSON:
				o.JSON = true
			case formatText:
			case "":
				o.JSON = !f.IO.OutTTY
			default:
				return cmdutil.UsageErrorf(c, "invalid value %q for --format: use json or text", format)
			}
			return run(c, o)
		},
	}
}

// splitList is the values of a repeatable flag whose values may also be comma-separated.
func splitList(vs []string) []string {
	var out []string
	for _, v := range vs {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func validStatus(v string) bool {
	if len(v) != 3 || v[0] < '1' || v[0] > '5' {
		return false
	}
	if v[1:] == "XX" {
		return true
	}
	_, err := strconv.Atoi(v)
	return err == nil
}

// match tells whether an entry passes the filters.
func (o *tailOptions) match(e api.RequestLogEntry) bool {
	if len(o.Methods) > 0 && !slices.Contains(o.Methods, e.Method) {
		return false
	}
	if len(o.Statuses) > 0 && !slices.ContainsFunc(o.Statuses, func(s string) bool {
		code := strconv.Itoa(e.Status)
		return s == code || (strings.HasSuffix(s, "XX") && len(code) == 3 && code[0] == s[0])
	}) {
		return false
	}
	if len(o.Paths) > 0 && !slices.ContainsFunc(o.Paths, func(p string) bool {
		if strings.Contains(p, "*") {
			ok, _ := path.Match(p, e.Path)
			return ok
		}
		return e.Path == p || strings.HasPrefix(e.Path, p+"/")
	}) {
		return false
	}
	return true
}

// Reconnection: the wait after a failure doubles from retryFirst to retryMax; a stream silent
// for longer than silence (the server pings every 15 s) is taken for dead.
var (
	retryFirst = time.Second
	retryMax   = 10 * time.Second
	silence    = 45 * time.Second
)

// lineVersion is the schema version of the JSON lines (the field v).
const lineVersion = 1

// tailer prints the entries of one `logs tail`, across reconnections.
type tailer struct {
	o    *tailOptions
	loc  *time.Location
	seen []string // the request ids printed last, so the recent entries a reconnection replays are not printed twice
	// ready tells that the stream being followed said ready (a reconnection starts over)
	ready bool
}

func tailRun(c *cli.Context, o *tailOptions) error {
	ctx := c.Context
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	t := &tailer{o: o, loc: time.Local}
	if o.f.TimeZone != "" {
		t.loc, _ = time.LoadLocation(o.f.TimeZone) // validated when the flag was parsed
	}
	connected := false
	wait, attempt := retryFirst, 0
	for {
		t.ready = false
		err := t.follow(ctx, client, &connected)
		if ctx.Err() != nil {
			return nil // Ctrl-C
		}
		var ae *api.Error
		if errors.As(err, &ae) && (ae.Status != 0 || !connected) {
			return err // refused (401, 403, 429…), or never reached
		}
		if t.ready { // it ran, then ended: start over
			wait, attempt = retryFirst, 0
		}
		attempt++
		what := "Disconnected"
		if attempt > 1 {
			what = "Still disconnected"
		}
		reason := "the server ended the stream"
		if err != nil {
			reason = cmdutil.OneLine(err.Error())
		}
		fmt.Fprintf(o.f.IO.Err, "%s: %s; reconnecting in %s\n", what, reason, wait)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		wait = min(wait*2, retryMax)
	}
}

// errDropped is a tail the server dropped because it fell behind.
var errDropped = errors.New("the server dropped this tail: it fell behind (more than 256 requests)")

// follow opens the stream once and prints its entries until it ends.
func (t *tailer) follow(ctx context.Context, client *api.Client, connected *bool) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	s, err := client.OpenRequestLog(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	alive := make(chan struct{}, 1)
	go func() { // the watchdog: a silent stream is closed, so Next returns
		timer := time.NewTimer(silence)
		defer timer.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-alive:
				timer.Reset(silence)
			case <-timer.C:
				cancel(fmt.Errorf("no word from the server in %s", silence))
				s.Close()
				return
			}
		}
	}()
	for {
		event, data, err := s.Next()
		if err != nil {
			if cause := context.Cause(ctx); cause != nil && ctx.Err() != nil {
				return cause
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		select {
		case alive <- struct{}{}:
		default:
		}
		switch event {
		case "ready":
			var r struct{ TenantID, PersonID, Scope string }
			_ = json.Unmarshal(data, &r)
			if *connected {
				fmt.Fprintln(t.o.f.IO.Err, "Reconnected.")
			} else {
				whose := "every person's requests"
				if r.Scope == "person" {
					whose = "your own requests (the owner sees everyone's)"
				}
				fmt.Fprintf(t.o.f.IO.Err, "Ready: tailing the API requests of tenant %s, %s%s; Ctrl-C to stop\n", r.TenantID, whose, t.filters())
			}
			*connected, t.ready = true, true
		case "request":
			var e api.RequestLogEntry
			if err := json.Unmarshal(data, &e); err != nil {
				return fmt.Errorf("an entry of the stream: %v", err)
			}
			t.print(e)
		case "dropped":
			return errDropped
		}
	}
}

// filters describes the filters given, for the Ready line.
func (t *tailer) filters() string {
	var parts []string
	for _, f := range []struct {
		name string
		vs   []string
	}{{"status", t.o.Statuses}, {"method", t.o.Methods}, {"path", t.o.Paths}} {
		if len(f.vs) > 0 {
			parts = append(parts, f.name+" "+strings.Join(f.vs, ","))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// print writes an entry that passes the filters and was not printed already.
func (t *tailer) print(e api.RequestLogEntry) {
	if slices.Contains(t.seen, e.RequestID) || !t.o.match(e) {
		return
	}
	t.seen = append(t.seen, e.RequestID)
	if len(t.seen) > 64 {
		t.seen = t.seen[len(t.seen)-64:]
	}
	w := t.o.f.IO.Out
	if t.o.JSON {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if enc.Encode(struct {
			V int `json:"v"`
			api.RequestLogEntry
		}{lineVersion, e}) == nil {
			_, _ = w.Write(buf.Bytes())
		}
		return
	}
	fmt.Fprintln(w, t.textLine(e))
}

// textLine is an entry as one line: when, method and path, status, latency, request id, and
// the error of a failure; the status coloured on a terminal as listen colours a forward's.
func (t *tailer) textLine(e api.RequestLogEntry) string {
	colorOf := func(attrs ...color.Attribute) *color.Color {
		c := color.New(attrs...)
		if t.o.f.IO.ColorOut() {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
		return c
	}
	c := colorOf(color.FgRed)
	switch {
	case e.Status < 300:
		c = colorOf(color.FgGreen)
	case e.Status < 500:
		c = colorOf(color.FgYellow)
	}
	latency := tui.Latency(time.Duration(e.LatencyMs * float64(time.Millisecond)))
	line := fmt.Sprintf("%s  %-6s %s  %s  %s  %s", e.Time.In(t.loc).Format("2006-01-02 15:04:05"), e.Method, e.Path,
		c.Sprint(strconv.Itoa(e.Status)+" "+http.StatusText(e.Status)), latency, e.RequestID)
	if e.Error != "" {
		line += "  " + c.Sprint(cmdutil.OneLine(e.Error))
	}
	return line
}
