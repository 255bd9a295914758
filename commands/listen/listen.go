package listen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fatih/color"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/webhook"
	"github.com/timbra-mx/timbra/listener"
	"github.com/timbra-mx/timbra/tui"
	"github.com/urfave/cli/v2"
)

// Formats of timbra listen's event lines.
const (
	listenFormatJSON = "json"
	listenFormatText = "text"
)

// maxForwardTimeout leaves the server's wait for an Ack (listener.AckWait) some slack.
const maxForwardTimeout = listener.AckWait - 10*time.Second

type listenOptions struct {
	f *cmdutil.Factory
	// Routes are the --forward-to targets (or the argument), URLs normalised; none: not
	// forwarding.
	Routes []listenRoute
	// FromWebhooks is the base URL of --forward-from-webhooks: a route per URL webhook of the
	// tenant, made at the start; "" for none.
	FromWebhooks string
	// Session is the session's name (--session): each name is its own listener, and only a
	// session of the same name replaces this one.
	Session string
	// Since is --since as the API takes it (an instant, RFC 3339, or an event id): the session
	// catches up first on what it missed since then; "" for none.
	Since          string
	Events         []string
	Headers        *headerFlag
	ForwardTimeout time.Duration
	SkipVerify     bool
	PrintSecret    bool
	JSON           bool
	TUI            bool // the live terminal view (stdout a terminal, no --format)
}

// listenRoute is one --forward-to: where, and the event types it takes (none: all).
type listenRoute struct {
	Types []string
	URL   string
}

// String is the route as --forward-to takes it.
func (r listenRoute) String() string {
	if len(r.Types) == 0 {
		return r.URL
	}
	return strings.Join(r.Types, ",") + "=" + r.URL
}

// forwarding tells whether the session forwards anywhere.
func (o *listenOptions) forwarding() bool { return len(o.Routes) > 0 || o.FromWebhooks != "" }

// NewCmd is `timbra listen`.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return newListenCmd(f, nil)
}

func newListenCmd(f *cmdutil.Factory, run cmdutil.RunFunc[listenOptions]) *cli.Command {
	o := &listenOptions{f: f, Headers: &headerFlag{}}
	run = cmdutil.OrRun(run, listenRun)
	routes := &rawValues{}
	var format string
	return &cli.Command{
		Name:      "listen",
		Usage:     "Receive your events here, as they happen, and forward them to a local server",
		UsageText: "timbra listen [PORT | --forward-to [TYPES=]URL ... | --forward-from-webhooks BASE_URL] [--session NAME] [--since WHEN] [--events TYPE[,TYPE...]] [--headers 'NAME: VALUE' ...] [--forward-timeout DURATION] [--skip-verify] [--format json|text] | --print-secret [--session NAME]",
		Description: "Opens a session with the server (a websocket) that receives the events of the types given\n" +
			"(default all) for you, as a webhook of kind cliListener would. Each event's signature is\n" +
			"checked with the listener's secret; a valid event is posted to --forward-to as a delivery\n" +
			"would be (exact body, webhook-id, webhook-timestamp and webhook-signature headers), and the\n" +
			"outcome (status and start of the answer, or the error) goes back to the server as the\n" +
			"delivery's attempt. An event whose signature does not verify is shown and not forwarded.\n\n" +
			"--forward-to takes a port (3000), host:port/path (localhost:3000/hooks) or a URL\n" +
			"(http://..., https://...); the default host is localhost and the default scheme http. A port\n" +
			"(or port/path, or URL) as the argument is the same: timbra listen 3000. It is repeatable, each\n" +
			"route optionally after the event types it takes and '=': exact types or namespace.*,\n" +
			"comma-separated ('invoice.*=localhost:3000/hooks'). An event goes to every route that takes\n" +
			"it, at once; the server records the first route that failed, else the first. Without\n" +
			"--events the session asks for the routes' types. --forward-from-webhooks BASE_URL adds a\n" +
			"route per enabled URL webhook of the tenant: its URL's path on BASE_URL, taking its event\n" +
			"types. At the start, and at each reconnection, timbra listen checks that something listens\n" +
			"at each target (a TCP connection, no request) and warns when nothing does.\n\n" +
			"--session NAME (default \"default\") names the session: each name of yours is its own\n" +
			"listener, with its own deliveries, types and secret, so several can run at once; a newer\n" +
			"session of the same name takes over and the older exits with code 1.\n\n" +
			"--since WHEN catches up first: the events since then (15m, 2h, 7d, an RFC 3339 time, or after\n" +
			"an event ID) of the session's types that it has not received successfully, at most 1000,\n" +
			"come first, oldest first and one at a time, marked replay; then live ones.\n\n" +
			"Each event carries its attempt's deadline: an event that comes too late (the process was\n" +
			"paused or the laptop slept) is not forwarded, and shown late, as the server has recorded it\n" +
			"failed; what is forwarded is what the server records.\n\n" +
			"Each event shows the moment it arrives, and again when your server answers. When stdout is\n" +
			"not a terminal or with --format json, that is two JSON lines (schema version v 1):\n" +
			"  {\"v\":1, \"phase\":\"received\", receivedAt, deliveryId, eventId, type, kind, headers, event,\n" +
			"   verified, forwarding, routes, replay, late}\n" +
			"  {\"v\":1, \"phase\":\"forwarded\", receivedAt, deliveryId, eventId, type, kind, verified,\n" +
			"   forward: {url, statusCode, error, errorClass, latencyMs, headers, excerpt}, forwards: [...],\n" +
			"   replay, late}\n" +
			"(the second only when the event was forwarded: forwarding is true; routes are the URLs it\n" +
			"goes to; forward is what the server records and forwards every route's; error is the whole\n" +
			"text, errorClass Timeout, ConnectionFailed or TlsFailed; latencyMs has decimals; phase\n" +
			"dropped, late true, for an event that waited past its deadline), else lines of text.\n" +
			"Connection news goes to stderr. The session reconnects by itself when the connection drops\n" +
			"or the server restarts, and catches up first on what it missed meanwhile (since the last\n" +
			"event it received, marked replay, each event once). Ctrl-C ends it with code 0.\n\n" +
			"--print-secret prints the listener's signing secret (whsec_...) of the session on stdout and\n" +
			"exits, leaving a running timbra listen alone: your local server needs the secret to verify\n" +
			"what is forwarded.\n\n" +
			"Examples:\n" +
			"  timbra listen 3000\n" +
			"  timbra listen --forward-to 3000/webhooks\n" +
			"  timbra listen --forward-to 'invoice.*=localhost:3000/hooks' --forward-to localhost:4000/all\n" +
			"  timbra listen --forward-from-webhooks http://localhost:3000\n" +
			"  timbra listen 4000 --session billing --events 'invoice.*' --since 15m\n" +
			"  timbra listen --forward-to https://localhost:8443/hooks --skip-verify --events invoice.canceled\n" +
			"  timbra listen --forward-to localhost:3000 --headers 'Authorization: Bearer dev' --format json\n" +
			"  export WEBHOOK_SECRET=\"$(timbra listen --print-secret --session billing)\"",
		Flags: []cli.Flag{
			&cli.GenericFlag{Name: "forward-to", Usage: "forward events to `[TYPES=]URL`: a port, host:port/path or http(s) URL, after the event types it takes (invoice.*,webhook.test=); repeatable", Value: routes},
			&cli.StringFlag{Name: "forward-from-webhooks", Usage: "forward each URL webhook's events to its path on `BASE_URL` (http://localhost:3000)"},
			&cli.StringFlag{Name: "session", Usage: "the session's `NAME`: each name of yours is its own listener (deliveries, types, secret); only a session of the same name replaces it", Value: defaultSession, Destination: &o.Session},
			&cli.StringFlag{Name: "since", Usage: "catch up first on the events since `WHEN` this session did not receive: how long ago (15m, 2h, 7d), an RFC 3339 time, or an event ID"},
			&cli.StringSliceFlag{Name: "events", Usage: "event `TYPES` to receive, comma-separated or repeated", DefaultText: "all"},
			&cli.GenericFlag{Name: "headers", Usage: "add the header `'NAME: VALUE'` to each forward (repeatable)", Value: o.Headers},
			&cli.DurationFlag{Name: "forward-timeout", Usage: "give up a forward after `DURATION`", Value: listener.DefaultForwardTimeout, Destination: &o.ForwardTimeout},
			&cli.BoolFlag{Name: "skip-verify", Usage: "accept any TLS certificate of the --forward-to server", Destination: &o.SkipVerify},
			&cli.BoolFlag{Name: "print-secret", Usage: "print the listener's signing secret and exit", Destination: &o.PrintSecret},
			&cli.StringFlag{Name: "format", Usage: "event lines as `FORMAT`: json or text", DefaultText: "json when stdout is not a terminal, else text", Destination: &format},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Len() == 1 && isTargetArg(c.Args().First()) {
				if c.IsSet("forward-to") {
					return cmdutil.UsageErrorf(c, "give the target once: %q or --forward-to", c.Args().First())
				}
				u, err := parseForwardTo(c.Args().First())
				if err != nil {
					return cmdutil.UsageErrorf(c, "invalid target %q: %v", c.Args().First(), err)
				}
				o.Routes = []listenRoute{{URL: u}}
			} else if c.Args().Len() > 0 {
				return cmdutil.UsageErrorf(c, "unexpected argument %q: give the port to forward to (timbra listen 3000) or --forward-to", c.Args().First())
			}
			for _, v := range routes.values {
				r, err := parseRoute(v)
				if err != nil {
					return cmdutil.UsageErrorf(c, "invalid value %q for --forward-to: %v", v, err)
				}
				o.Routes = append(o.Routes, r)
			}
			if c.IsSet("forward-from-webhooks") {
				u, err := parseForwardTo(c.String("forward-from-webhooks"))
				if err != nil {
					return cmdutil.UsageErrorf(c, "invalid value %q for --forward-from-webhooks: %v", c.String("forward-from-webhooks"), err)
				}
				o.FromWebhooks = u
			}
			if !o.PrintSecret && !o.forwarding() {
				for _, name := range []string{"headers", "forward-timeout", "skip-verify"} {
					if c.IsSet(name) {
						return cmdutil.UsageErrorf(c, "--%s needs --forward-to or --forward-from-webhooks", name)
					}
				}
			}
			if o.ForwardTimeout <= 0 || o.ForwardTimeout > maxForwardTimeout {
				return cmdutil.UsageErrorf(c, "invalid value %s for --forward-timeout: give a duration from 1ms to %s (the server waits %s for the outcome)",
					o.ForwardTimeout, maxForwardTimeout, listener.AckWait)
			}
			o.Session = strings.TrimSpace(o.Session)
			if !validSessionName(o.Session) {
				return cmdutil.UsageErrorf(c, "invalid value %q for --session: give 1 to 40 letters, digits, '.', '_' or '-'", o.Session)
			}
			if v := strings.TrimSpace(c.String("since")); c.IsSet("since") {
				since, err := parseSince(v, f.Now())
				if err != nil {
					return cmdutil.UsageErrorf(c, "invalid value %q for --since: %v", v, err)
				}
				o.Since = since
			}
			o.Events = cmdutil.CleanList(c.StringSlice("events"))
			switch format {
			case listenFormatJSON:
				o.JSON = true
			case listenFormatText:
			case "":
				o.JSON = !f.IO.OutTTY || f.JSON()
				o.TUI = !o.JSON && !o.PrintSecret
			default:
				return cmdutil.UsageErrorf(c, "invalid value %q for --format: use json or text", format)
			}
			return run(c, o)
		},
	}
}

// isTargetArg tells whether the argument of timbra listen is a forward target: a port (3000),
// a port and path (3000/hooks) or an http(s) URL, not a word that a typo made.
func isTargetArg(s string) bool {
	port, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(s), ":"), "/")
	lower := strings.ToLower(s)
	return (port != "" && strings.Trim(port, "0123456789") == "") ||
		strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://")
}

// rawValues is a repeatable flag kept as given (a string slice flag would split values at
// commas, which a route's types use).
type rawValues struct{ values []string }

func (v *rawValues) Set(s string) error { v.values = append(v.values, s); return nil }
func (v *rawValues) String() string {
	if v == nil {
		return ""
	}
	return strings.Join(v.values, " ")
}

// parseRoute reads one --forward-to: a target (see parseForwardTo), or event types and a
// target: 'invoice.*,webhook.test=localhost:3000/hooks'. The types are exact types or
// "namespace.*" patterns, comma-separated; "*" alone is every type.
func parseRoute(s string) (listenRoute, error) {
	types, target, ok := strings.Cut(s, "=")
	if !ok || !looksLikeTypes(types) {
		u, err := parseForwardTo(s)
		return listenRoute{URL: u}, err
	}
	var r listenRoute
	all := false
	for _, t := range strings.Split(types, ",") {
		t = strings.TrimSpace(t)
		switch {
		case t == "":
			return listenRoute{}, errors.New("an empty event type before '='")
		case t == "*":
			all = true
		case strings.Contains(strings.TrimSuffix(t, "*"), "*") || (strings.HasSuffix(t, "*") && !strings.HasSuffix(t, ".*")):
			return listenRoute{}, fmt.Errorf("the pattern %q: a * ends a namespace (invoice.*)", t)
		}
		r.Types = append(r.Types, t)
	}
	if all {
		r.Types = nil
	}
	u, err := parseForwardTo(target)
	if err != nil {
		return listenRoute{}, err
	}
	r.URL = u
	return r, nil
}

// looksLikeTypes tells whether the text before a route's '=' is event types (invoice.*,
// webhook.test) rather than part of a URL (its query).
func looksLikeTypes(s string) bool {
	if strings.TrimSpace(s) == "*" {
		return true
	}
	return strings.ContainsAny(s, ".*") && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.*, ") == ""
}

// parseForwardTo reads --forward-to: a port (3000), a port and path (3000/hooks), host:port and
// path (localhost:3000/hooks), or an http or https URL. It returns the URL.
func parseForwardTo(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", errors.New("give a port, host:port/path or URL")
	}
	if !strings.Contains(s, "://") {
		port, _, _ := strings.Cut(s, "/")
		switch {
		case port != "" && strings.Trim(port, "0123456789") == "":
			s = "localhost:" + s
		case strings.HasPrefix(s, ":"), strings.HasPrefix(s, "/"):
			s = "localhost" + s
		}
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", errors.New("not a URL")
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("the scheme %q is not http or https", u.Scheme)
	}
	if u.User != nil {
		return "", errors.New("no credentials in the URL: pass them with --headers")
	}
	if u.Hostname() == "" {
		return "", errors.New("no host")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("invalid port %q", p)
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return "", errors.New("empty port")
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String(), nil
}

// headerFlag is --headers 'NAME: VALUE', repeatable. (A string slice flag would split values at
// commas.)
type headerFlag struct {
	h http.Header
}

// headersOfListen are set by the forward itself.
var headersOfListen = []string{"webhook-id", "webhook-timestamp", "webhook-signature", "content-type", "content-length", "user-agent", "host"}

func (hf *headerFlag) Set(v string) error {
	name, value, ok := strings.Cut(v, ":")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if !ok || name == "" {
		return errors.New("want 'NAME: VALUE'")
	}
	for _, r := range name {
		if r > 0x7e || r <= ' ' || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", r) {
			return fmt.Errorf("%q is not a header name", name)
		}
	}
	if strings.ContainsAny(value, "\r\n\x00") {
		return errors.New("a header value is one line")
	}
	for _, reserved := range headersOfListen {
		if strings.EqualFold(name, reserved) {
			return fmt.Errorf("%s is set by timbra listen", http.CanonicalHeaderKey(name))
		}
	}
	if hf.h == nil {
		hf.h = http.Header{}
	}
	hf.h.Add(name, value)
	return nil
}

func (hf *headerFlag) String() string {
	if hf == nil || len(hf.h) == 0 {
		return ""
	}
	var parts []string
	for k, vs := range hf.h {
		for _, v := range vs {
			parts = append(parts, k+": "+v)
		}
	}
	return strings.Join(parts, ", ")
}

func listenRun(c *cli.Context, o *listenOptions) error {
	ctx := c.Context
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	routes := o.Routes
	if o.FromWebhooks != "" && !o.PrintSecret {
		more, err := webhookRoutes(ctx, client, o.FromWebhooks)
		if err != nil {
			return err
		}
		if len(more) == 0 {
			fmt.Fprintf(o.f.IO.Err, "Warning: the tenant has no enabled URL webhook: --forward-from-webhooks %s forwards nothing.\n", o.FromWebhooks)
		}
		routes = append(routes, more...)
	}
	events := o.Events
	if len(events) == 0 {
		events = routeTypes(routes)
	}
	wsURL, err := listener.DialURL(client.BaseURL, events)
	if err != nil {
		return err
	}
	if o.Session != defaultSession {
		wsURL = withQuery(wsURL, "session", o.Session)
	}
	reconnectURL := wsURL
	if o.Since != "" && !o.PrintSecret {
		wsURL = withQuery(wsURL, "since", o.Since)
	}
	if o.PrintSecret {
		wsURL = withProbe(wsURL)
	}
	header := http.Header{}
	header.Set("X-TENANT-KEY", client.TenantKey)
	header.Set("X-API-KEY", client.APIKey)
	if client.UserAgent != "" {
		header.Set("User-Agent", client.UserAgent)
	}
	if client.TimeZone != "" {
		header.Set("X-TIME-ZONE", client.TimeZone)
	}
	l := &listenPrinter{f: o.f, o: o, loc: time.Local, routes: routes}
	if o.f.TimeZone != "" {
		l.loc, _ = time.LoadLocation(o.f.TimeZone) // validated when the flag was parsed
	}
	lc := &listener.Client{URL: wsURL, ReconnectURL: reconnectURL, Header: header, Now: o.f.Now, OnReady: l.ready, OnReceived: l.received, OnEvent: l.event,
		OnDisconnect: l.disconnected}
	if len(routes) > 0 && !o.PrintSecret {
		hc := listener.NewForwardClient(o.ForwardTimeout, o.SkipVerify)
		for _, r := range routes {
			lc.Routes = append(lc.Routes, listener.Route{Types: r.Types, Forward: &listener.Forwarder{URL: r.URL, Header: o.Headers.h, Client: hc}})
		}
		l.check = func() []targetDown { return checkRoutes(ctx, lc.Routes) }
	}
	if o.TUI {
		err = listenTUI(ctx, o, client, lc, l)
	} else {
		err = lc.Run(ctx)
	}
	var he *listener.HandshakeError
	switch {
	case err == nil && o.PrintSecret:
		if l.secret == "" { // interrupted before the ready
			return ctx.Err()
		}
		_, err := fmt.Fprintln(o.f.IO.Out, l.secret)
		return err
	case err == nil:
		return nil
	case errors.Is(err, listener.ErrReplaced):
		//lint:ignore ST1005 the exact line users see and the developer guide quotes
		return fmt.Errorf("Replaced: another timbra listen of yours took over the session %q; this one stops (give each its own --session NAME to run both).", o.Session)
	case errors.As(err, &he):
		return handshakeError(he)
	case !l.connected && isNetError(err):
		return &api.Error{Details: fmt.Sprintf("cannot reach %s: %v", client.BaseURL, err)}
	}
	return err
}

// routeTypes are the event types a session asks for so that each route gets what it takes:
// the routes' types together, or none (every type) when a route takes every type or there is
// no route.
func routeTypes(routes []listenRoute) []string {
	var types []string
	for _, r := range routes {
		if len(r.Types) == 0 {
			return nil
		}
		for _, t := range r.Types {
			if !slices.Contains(types, t) {
				types = append(types, t)
			}
		}
	}
	return types
}

// webhookRoutes are the routes of --forward-from-webhooks: one per enabled URL webhook of the
// tenant, to its URL's path and query on base, taking its enabled event types.
func webhookRoutes(ctx context.Context, client *api.Client, base string) ([]listenRoute, error) {
	b, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	var routes []listenRoute
	for page := 1; ; page++ {
		p, err := client.ListWebhooks(ctx, page, 50)
		if err != nil {
			return nil, err
		}
		for _, w := range p.Items {
			if w.Kind != api.WebhookKindURL || w.Status != api.WebhookEnabled || w.URL == nil {
				continue
			}
			u, err := url.Parse(*w.URL)
			if err != nil {
				continue
			}
			t := *b
			t.Path = strings.TrimRight(b.Path, "/") + "/" + strings.TrimLeft(u.Path, "/")
			t.RawPath, t.RawQuery = "", u.RawQuery
			r := listenRoute{URL: t.String()}
			if !slices.Contains(w.EnabledEvents, "*") {
				r.Types = w.EnabledEvents
			}
			routes = append(routes, r)
		}
		if page >= p.TotalPages {
			return routes, nil
		}
	}
}

// targetDown is a route's target where nothing listens, and why.
type targetDown struct {
	url string
	err error
}

// checkRoutes checks that something listens at each route's target (Forwarder.Reachable), at
// once.
func checkRoutes(ctx context.Context, routes []listener.Route) []targetDown {
	errs := make([]error, len(routes))
	var wg sync.WaitGroup
	for i, r := range routes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = r.Forward.Reachable(ctx)
		}()
	}
	wg.Wait()
	var down []targetDown
	for i, err := range errs {
		if err != nil {
			down = append(down, targetDown{routes[i].Forward.URL, err})
		}
	}
	return down
}

func isNetError(err error) bool {
	var ne net.Error
	return errors.As(err, &ne)
}

// handshakeError is the API error of a refused session, read from the envelope answered.
func handshakeError(he *listener.HandshakeError) *api.Error {
	e := &api.Error{Status: he.StatusCode}
	var env api.RawEnvelope
	if err := json.Unmarshal(he.Body, &env); err != nil {
		e.Details = "the server refused the listen session"
		return e
	}
	e.Message, e.Details, e.TraceID, e.Data = env.Message, env.Details, env.TraceIdentifier, env.Data
	if len(env.Data) > 0 && env.Data[0] == '[' {
		_ = json.Unmarshal(env.Data, &e.Failures)
	}
	return e
}

// listenPrinter shows a session: connection news on stderr, one line per event on stdout. The
// listener calls it from one goroutine at a time.
type listenPrinter struct {
	f         *cmdutil.Factory
	o         *listenOptions
	loc       *time.Location
	connected bool // a Ready came
	webhookID string
	secret    string
	// routes are where events go; check tells at which of their targets nothing listens (nil
	// without a route).
	routes []listenRoute
	check  func() []targetDown
}

func (l *listenPrinter) ready(r listener.Ready, reconnected bool) error {
	changed := r.WebhookID != l.webhookID || r.Secret != l.secret
	l.connected, l.webhookID, l.secret = true, r.WebhookID, r.Secret
	if l.o.PrintSecret {
		return listener.ErrStop
	}
	w := l.f.IO.Err
	if reconnected {
		fmt.Fprintln(w, "Reconnected.")
		if r.Replaying > 0 {
			fmt.Fprintf(w, "Catching up: %d events missed while disconnected first, oldest first, then live ones.\n", r.Replaying)
		}
		if !changed {
			l.warnTarget()
			return nil
		}
	}
	events := strings.Join(r.Events, ",")
	if events == "" || events == "*" {
		events = "all events"
	}
	forward := "not forwarding (no --forward-to)"
	if len(l.routes) > 0 {
		forward = "forwarding to " + routesText(l.routes)
	}
	session, printSecret := "", "timbra listen --print-secret"
	if l.o.Session != defaultSession {
		session = " (session " + l.o.Session + ")"
		printSecret += " --session " + l.o.Session
	}
	fmt.Fprintf(w, "Ready: listening for %s as webhook %s%s; %s; secret %s (%s)\n",
		events, r.WebhookID, session, forward, secretHint(r.Secret), printSecret)
	if r.Replaying > 0 && !reconnected {
		fmt.Fprintf(w, "Catching up: %d missed events since %s first, oldest first, then live ones.\n", r.Replaying, l.o.Since)
	} else if l.o.Since != "" && !reconnected {
		fmt.Fprintf(w, "Catching up: nothing missed since %s.\n", l.o.Since)
	}
	l.warnTarget()
	return nil
}

// warnTarget says so for each route's target where nothing listens.
func (l *listenPrinter) warnTarget() {
	if l.check == nil {
		return
	}
	for _, d := range l.check() {
		fmt.Fprintf(l.f.IO.Err, "Warning: nothing answers at %s (%s): start your server there, or each event will fail with %s.\n",
			d.url, cmdutil.OneLine(d.err.Error()), webhook.ErrorConnectionFailed)
	}
}

// routesText is the routes for people: each URL, with the types it takes in parentheses.
func routesText(routes []listenRoute) string {
	parts := make([]string, len(routes))
	for i, r := range routes {
		parts[i] = r.URL
		if len(r.Types) > 0 {
			parts[i] += " (" + strings.Join(r.Types, ",") + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// secretHint shows the start of a secret, enough to tell two apart.
func secretHint(s string) string {
	const show = len("whsec_") + 4
	if len(s) <= show {
		return "…"
	}
	return s[:show] + "…"
}

func (l *listenPrinter) disconnected(err error, retryIn time.Duration, attempt int) {
	what := "Disconnected"
	if attempt > 1 {
		what = "Still disconnected"
	}
	fmt.Fprintf(l.f.IO.Err, "%s: %s; reconnecting in %s\n", what, cmdutil.OneLine(err.Error()), retryIn.Round(100*time.Millisecond))
}

// listenLineVersion is the schema version of the JSON lines (the field v). Version 1: two
// phases per forwarded event, the error's whole text, the latency in fractional milliseconds.
const listenLineVersion = 1

// JSON line phases.
const (
	phaseReceived  = "received"
	phaseForwarded = "forwarded"
	phaseDropped   = "dropped"
)

// listenReceived is the JSON line of an event as it arrives.
type listenReceived struct {
	V          int               `json:"v"`
	Phase      string            `json:"phase"` // received
	ReceivedAt string            `json:"receivedAt"`
	DeliveryID string            `json:"deliveryId"`
	EventID    string            `json:"eventId"`
	Type       string            `json:"type"`
	Kind       string            `json:"kind"`
	Headers    map[string]string `json:"headers"`
	Event      json.RawMessage   `json:"event"`
	Verified   bool              `json:"verified"`
	// Forwarding tells that a line of phase forwarded follows with the outcome; Routes are the
	// URLs it goes to (the routes that take its type).
	Forwarding bool     `json:"forwarding"`
	Routes     []string `json:"routes"`
	// Replay marks an event of the catch-up (--since); Late one that came past its attempt's
	// deadline (the session was paused or asleep): not forwarded, as the server recorded it
	// failed.
	Replay bool `json:"replay"`
	Late   bool `json:"late"`
}

// listenForwarded is the JSON line of an event's forward once it ended.
type listenForwarded struct {
	V          int    `json:"v"`
	Phase      string `json:"phase"` // forwarded
	ReceivedAt string `json:"receivedAt"`
	DeliveryID string `json:"deliveryId"`
	EventID    string `json:"eventId"`
	Type       string `json:"type"`
	Kind       string `json:"kind"`
	Verified   bool   `json:"verified"`
	// Forward is the outcome the server records (the first route that failed, else the
	// first); Forwards every route's, in the order of the routes.
	Forward  *listenForward  `json:"forward"`
	Forwards []listenForward `json:"forwards"`
	Replay   bool            `json:"replay"`
	// Late (phase dropped, forward null): the event waited for a forward slot past its
	// attempt's deadline and was not forwarded.
	Late bool `json:"late"`
}

type listenForward struct {
	URL        string `json:"url"`
	StatusCode *int   `json:"statusCode"`
	// Error is the whole text of why there was no complete answer; ErrorClass its class
	// (Timeout, ConnectionFailed, TlsFailed), as the delivery's lastError says it.
	Error      *string           `json:"error"`
	ErrorClass *string           `json:"errorClass"`
	LatencyMS  float64           `json:"latencyMs"`
	Headers    map[string]string `json:"headers"`
	Excerpt    string            `json:"excerpt"`
}

// latencyMS is a duration in milliseconds, to the microsecond.
func latencyMS(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}

// lowerHeaders is a header as one value per lower-case name (values joined with ", ").
func lowerHeaders(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, vs := range h {
		out[strings.ToLower(k)] = strings.Join(vs, ", ")
	}
	return out
}

// received shows an event the moment it arrives: its JSON line, or its line of text (the
// final one when it is not forwarded).
func (l *listenPrinter) received(r listener.EventResult) {
	ios := l.f.IO
	e := r.Event
	if !r.Verified {
		c := color.New(color.FgRed, color.Bold)
		if ios.ColorErr() {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
		fmt.Fprintln(ios.Err, c.Sprintf("SIGNATURE VERIFICATION FAILED for event %s (delivery %s): %v; not forwarded.", e.EventID, e.DeliveryID, r.VerifyError))
	}
	if l.o.JSON {
		line := listenReceived{
			V: listenLineVersion, Phase: phaseReceived, ReceivedAt: jsonTime(r.ReceivedAt),
			DeliveryID: e.DeliveryID, EventID: e.EventID, Type: e.EventType, Kind: e.Kind,
			Headers: e.Headers, Verified: r.Verified, Forwarding: r.Pending, Routes: r.Targets, Replay: e.Replay, Late: r.Late,
		}
		if line.Routes == nil {
			line.Routes = []string{}
		}
		if line.Headers == nil {
			line.Headers = map[string]string{}
		}
		if json.Valid([]byte(e.Body)) {
			line.Event = json.RawMessage(e.Body)
		} else {
			line.Event, _ = json.Marshal(e.Body)
		}
		l.writeJSON(line)
		return
	}
	_, _ = io.WriteString(ios.Out, l.textLine(r)+"\n")
}

// event shows the outcome of a forward (an event not forwarded was shown when it arrived).
func (l *listenPrinter) event(r listener.EventResult) {
	fr := r.Forward
	if r.Late && fr == nil {
		l.dropped(r)
		return
	}
	if fr == nil {
		return
	}
	if !l.o.JSON {
		_, _ = io.WriteString(l.f.IO.Out, l.textLine(r)+"\n")
		return
	}
	e := r.Event
	line := listenForwarded{
		V: listenLineVersion, Phase: phaseForwarded, ReceivedAt: jsonTime(r.ReceivedAt),
		DeliveryID: e.DeliveryID, EventID: e.EventID, Type: e.EventType, Kind: e.Kind, Verified: r.Verified, Replay: e.Replay,
	}
	one := forwardJSON(fr)
	line.Forward = &one
	for i := range r.Forwards {
		line.Forwards = append(line.Forwards, forwardJSON(&r.Forwards[i]))
	}
	if line.Forwards == nil {
		line.Forwards = []listenForward{one}
	}
	l.writeJSON(line)
}

// dropped shows an event that waited for a forward slot past its deadline: not forwarded.
func (l *listenPrinter) dropped(r listener.EventResult) {
	if !l.o.JSON {
		_, _ = io.WriteString(l.f.IO.Out, l.textLine(r)+"\n")
		return
	}
	e := r.Event
	l.writeJSON(listenForwarded{V: listenLineVersion, Phase: phaseDropped, ReceivedAt: jsonTime(r.ReceivedAt),
		DeliveryID: e.DeliveryID, EventID: e.EventID, Type: e.EventType, Kind: e.Kind, Verified: r.Verified,
		Forwards: []listenForward{}, Replay: e.Replay, Late: true})
}

func forwardJSON(fr *listener.ForwardResult) listenForward {
	f := listenForward{URL: fr.URL, StatusCode: fr.StatusCode, LatencyMS: latencyMS(fr.Latency),
		Headers: lowerHeaders(fr.Header), Excerpt: fr.Excerpt}
	if fr.Error != "" {
		text, class := fr.ErrorText(), fr.Error
		f.Error, f.ErrorClass = &text, &class
	}
	return f
}

func jsonTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func (l *listenPrinter) writeJSON(v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err == nil {
		_, _ = l.f.IO.Out.Write(buf.Bytes())
	}
}

// textLine is an event as text: when, type, event id, kind, and what the forward did (or
// that it is under way); a line per route it went to.
func (l *listenPrinter) textLine(r listener.EventResult) string {
	e := r.Event
	colorOf := func(attrs ...color.Attribute) *color.Color {
		c := color.New(attrs...)
		if l.f.IO.ColorOut() {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
		return c
	}
	kind := e.Kind
	if e.Replay {
		kind += ", replay"
	}
	head := fmt.Sprintf("%s  %s  %s  [%s]", r.ReceivedAt.In(l.loc).Format("2006-01-02 15:04:05"), e.EventType, e.EventID, kind)
	switch {
	case r.Late:
		return head + "  " + colorOf(color.FgYellow).Sprint(lateText)
	case !r.Verified:
		return head + "  " + colorOf(color.FgRed, color.Bold).Sprint("signature NOT verified: not forwarded")
	case r.Pending:
		return head + "  -> POST " + strings.Join(r.Targets, ", ") + "  …"
	case r.Forward == nil:
		return head + "  (not forwarded)"
	}
	forwards := r.Forwards
	if len(forwards) == 0 {
		forwards = []listener.ForwardResult{*r.Forward}
	}
	lines := make([]string, len(forwards))
	for i, fr := range forwards {
		lines[i] = fmt.Sprintf("%s  -> POST %s  %s  %s", head, fr.URL, l.outcomeText(&fr, colorOf), tui.Latency(fr.Latency))
	}
	return strings.Join(lines, "\n")
}

// lateText says why an event was not forwarded: it came past its attempt's deadline.
const lateText = "late (paused or asleep past the server's deadline): not forwarded; recorded failed"

// outcomeText is what a forward's target answered, coloured.
func (l *listenPrinter) outcomeText(fr *listener.ForwardResult, colorOf func(...color.Attribute) *color.Color) string {
	if fr.Error != "" {
		msg := fr.Error
		if fr.StatusCode != nil {
			msg = strconv.Itoa(*fr.StatusCode) + " " + msg
		}
		if fr.Err != nil {
			msg += " (" + cmdutil.OneLine(fr.Err.Error()) + ")"
		}
		return colorOf(color.FgRed).Sprint(msg)
	}
	code := *fr.StatusCode
	c := colorOf(color.FgRed)
	if code >= 200 && code <= 299 {
		c = colorOf(color.FgGreen)
	}
	return c.Sprint(strconv.Itoa(code) + " " + http.StatusText(code))
}

// withProbe marks a session URL as a probe: the server answers the Ready (with the secret) and
// closes, without replacing a running session.
func withProbe(wsURL string) string { return withQuery(wsURL, listener.ProbeQuery, "1") }

// withQuery sets a query parameter of a session URL.
func withQuery(wsURL, key, value string) string {
	u, err := url.Parse(wsURL)
	if err != nil {
		return wsURL // DialURL made it; it parses
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}

// parseSince reads --since: an event id (a GUID) as it is, or how long ago (15m, 2h, 7d) or an
// RFC 3339 time as the instant, UTC to the millisecond.
func parseSince(s string, now time.Time) (string, error) {
	if len(s) == 36 && strings.Count(s, "-") == 4 {
		return strings.ToLower(s), nil
	}
	var t time.Time
	if v, err := time.Parse(time.RFC3339Nano, s); err == nil {
		t = v
	} else if n, ok := strings.CutSuffix(s, "d"); ok && n != "" && strings.Trim(n, "0123456789") == "" {
		days, _ := strconv.Atoi(n)
		t = now.AddDate(0, 0, -days)
	} else if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		t = now.Add(-d)
	} else {
		return "", errors.New("give how long ago (15m, 2h, 7d), an RFC 3339 time or an event ID")
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z"), nil
}

// defaultSession is the name of a session without --session.
const defaultSession = "default"

// validSessionName tells whether a session's name is 1 to 40 letters, digits, '.', '_' or '-'
// (the server's rule).
func validSessionName(name string) bool {
	if name == "" || len(name) > 40 {
		return false
	}
	return strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == ""
}
