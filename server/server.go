// Package server is timbra's HTTP layer: the router, the middleware (trace id, recovery, auth,
// rate limit, time zone, body limit) and one file per resource. Handlers decode, call a
// service, and return what to encode; no business rule lives here.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/timbra-mx/timbra/internal/accounts"
	"github.com/timbra-mx/timbra/internal/catalogs"
	"github.com/timbra-mx/timbra/internal/downloadrequests"
	"github.com/timbra-mx/timbra/internal/downloadrules"
	"github.com/timbra-mx/timbra/internal/employment"
	"github.com/timbra-mx/timbra/internal/invoices"
	"github.com/timbra-mx/timbra/internal/mail"
	"github.com/timbra-mx/timbra/internal/manifests"
	"github.com/timbra-mx/timbra/internal/people"
	"github.com/timbra-mx/timbra/internal/products"
	"github.com/timbra-mx/timbra/internal/ratelimit"
	"github.com/timbra-mx/timbra/internal/requestlog"
	"github.com/timbra-mx/timbra/internal/satws"
	"github.com/timbra-mx/timbra/internal/secrets"
	"github.com/timbra-mx/timbra/internal/taxfiles"
	"github.com/timbra-mx/timbra/internal/tickets"
	"github.com/timbra-mx/timbra/internal/validations"
	"github.com/timbra-mx/timbra/internal/webhook"
	"github.com/timbra-mx/timbra/internal/webhooks"
	"github.com/timbra-mx/timbra/listener"
	"github.com/timbra-mx/timbra/storage"
)

// Config is what a server needs besides its data.
type Config struct {
	Environment string
	Version     string
	// AdminToken guards the operator API under /admin/v1; empty disables it.
	AdminToken string
	Logger     *slog.Logger
	Now        func() time.Time
	// StandardLimit is the requests per minute of each API key on endpoints whose limit the spec
	// does not name (family Standard); AnonymousLimit the same per address for requests without
	// a valid key.
	StandardLimit  int
	AnonymousLimit int
	// ShutdownTimeout bounds how long in-flight requests may take to finish on shutdown.
	ShutdownTimeout time.Duration
	// WebhookPolicy guards webhook destinations (its allow-list lets a development server reach
	// local receivers); WebhookCAFile adds a CA to trust when delivering.
	WebhookPolicy webhook.Policy
	WebhookCAFile string
	// WebhookConcurrency is how many attempts may be in flight to one destination (a webhook
	// or a listen session); 0 means webhooks.DefaultPerDestination.
	WebhookConcurrency int
	// Validations are the sources of the production SAT validations (trust store, lists, status).
	Validations validations.Config
	// Mail sends invoices by e-mail (POST /api/v4/invoices/send) from MailFrom; nil: no transport.
	Mail     mail.Transport
	MailFrom string
	// SatDownload is the SAT's bulk download web service the download requests' worker calls
	// (satws.SATEndpoints when empty; a local SAT's with satws.EndpointsAt); SatDownloadInterval
	// is the worker's round (30 s when 0) and SatDownloadBackoff its back-off (satws.DefaultBackoff).
	// SatRetenciones is SAT's service of withholding CFDIs (satws.SATRetencionesEndpoints when
	// empty), for the requests of query type Retenciones.
	SatDownload         satws.Endpoints
	SatRetenciones      satws.Endpoints
	SatDownloadInterval time.Duration
	SatDownloadBackoff  satws.Backoff
	// DownloadRulesEvery is how often an approved download rule creates its Automatic request
	// (downloadrequests.DefaultRulesEvery, a day, when 0).
	DownloadRulesEvery time.Duration
	// Node names this server among the nodes of a shared database (PostgreSQL); empty: the
	// host's name and the process id.
	Node string
}

// Defaults of Config.
const (
	DefaultStandardLimit   = 6000
	DefaultAnonymousLimit  = 1200
	DefaultShutdownTimeout = 30 * time.Second
)

// Server serves the API over one store.
type Server struct {
	cfg       Config
	log       *slog.Logger
	accounts  *accounts.Service
	people    *people.Service
	webhooks  *webhooks.Service
	catalogs  *catalogs.Service
	employ    *employment.Service // employer and employee data
	taxFiles  *taxfiles.Service
	products  *products.Service
	rules     *downloadrules.Service // bulk-download rules (spec 2 §4.6)
	downloads *downloadrequests.Service
	manifests *manifests.Service
	worker    *downloadrequests.Worker // carries the download requests out at the SAT
	invoices  *invoices.Service
	tickets   *tickets.Service
	engine    *webhooks.Engine
	hub       *listener.Hub
	requests  *requestlog.Hub // each tenant's live request log
	limiter   *ratelimit.Limiter
	heavy     *heavyGate // load queries that read a whole collection
	// environment is the Timbra-Environment header's value, made once
	environment []string
	ws          *websocket.Upgrader // opens listen sessions
	mux         *routeMux
	metrics     *metrics
	store       storage.Store
	gauges      gaugedStore    // the store's figures for /metrics; nil when it has none
	shared      storage.Shared // the other nodes of a shared database; nil: this node is alone

	validations *validations.Service // SAT validations (spec 3 §4.7)

	standard, anonymous ratelimit.Family
	// probes (health and readiness) and the operator (its API and /metrics) are counted per
	// address apart from anonymous callers, so a busy portal or a scan never fails a probe
	probes, operatorFamily ratelimit.Family
	zones                  sync.Map // IANA name → *time.Location
}

// New returns a server over store, with secrets sealed under keys.
func New(cfg Config, store storage.Store, keys *secrets.Keys) (*Server, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.StandardLimit <= 0 {
		cfg.StandardLimit = DefaultStandardLimit
	}
	if cfg.AnonymousLimit <= 0 {
		cfg.AnonymousLimit = DefaultAnonymousLimit
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = DefaultShutdownTimeout
	}
	s := &Server{
		cfg:            cfg,
		log:            cfg.Logger,
		accounts:       &accounts.Service{Store: store, Keys: keys, Environment: cfg.Environment, Now: cfg.Now},
		limiter:        ratelimit.New(cfg.Now),
		heavy:          newHeavyGate(maxHeavy),
		environment:    []string{cfg.Environment},
		mux:            newRouteMux(),
		metrics:        newMetrics(),
		standard:       ratelimit.Family{Name: "Standard", Limit: cfg.StandardLimit, Window: time.Minute},
		anonymous:      ratelimit.Family{Name: "Anonymous", Limit: cfg.AnonymousLimit, Window: time.Minute},
		probes:         ratelimit.Family{Name: "Probe", Limit: cfg.AnonymousLimit, Window: time.Minute},
		operatorFamily: ratelimit.Family{Name: "Operator", Limit: cfg.AnonymousLimit, Window: time.Minute},
	}
	s.store = store
	s.gauges, _ = store.(gaugedStore)
	if p, ok := store.(interface{ RateTimes() storage.RateTimes }); ok {
		// with other nodes on the database, a subject's limit counts the requests of all
		s.limiter.Share(p.RateTimes(), func(err error) {
			cfg.Logger.Warn("rate limit: the shared times did not answer; the request passed", "err", err)
		})
	}
	if s.shared, _ = store.(storage.Shared); s.shared != nil && cfg.Node == "" {
		host, _ := os.Hostname()
		cfg.Node = fmt.Sprintf("%s-%d", host, os.Getpid())
		s.cfg.Node = cfg.Node
	}
	var err error
	if s.catalogs, err = catalogs.New(context.Background(), store); err != nil {
		return nil, err
	}
	s.people = &people.Service{Store: store, Keys: keys, Catalogs: s.catalogs, Now: cfg.Now}
	s.employ = &employment.Service{Store: store, Catalogs: s.catalogs, Now: cfg.Now}
	s.taxFiles = &taxfiles.Service{Store: store, Keys: keys, Now: cfg.Now}
	s.products = &products.Service{Store: store, Catalogs: s.catalogs, Now: cfg.Now}
	s.rules = &downloadrules.Service{Store: store, People: s.people, Environment: cfg.Environment, Now: cfg.Now}
	sat := cfg.SatDownload
	if sat == (satws.Endpoints{}) {
		sat = satws.SATEndpoints
	}
	retenciones := cfg.SatRetenciones
	if retenciones == (satws.Endpoints{}) {
		retenciones = satws.SATRetencionesEndpoints
	}
	s.worker = &downloadrequests.Worker{Store: store, TaxFiles: s.taxFiles, Endpoints: sat, Retenciones: retenciones,
		HTTP: &http.Client{}, // each SAT call has the worker's deadline
		Log:  s.log, Now: cfg.Now, Interval: cfg.SatDownloadInterval, Backoff: cfg.SatDownloadBackoff,
		RulesEvery: cfg.DownloadRulesEvery}
	s.manifests = &manifests.Service{Store: store, Now: cfg.Now}
	s.downloads = &downloadrequests.Service{Store: store, TaxFiles: s.taxFiles, Wake: s.worker.Wake, Now: cfg.Now}
	// in the test environment a receiver on the developer's machine may be plain http
	cfg.WebhookPolicy.PlainHTTPLoopback = cfg.Environment == accounts.EnvTest
	client, err := cfg.WebhookPolicy.Client(cfg.WebhookCAFile)
	if err != nil {
		return nil, fmt.Errorf("webhook client: %w", err)
	}
	s.hub = listener.NewHub()
	s.requests = requestlog.New()
	s.webhooks = webhooks.New(webhooks.Config{
		Store: store, Keys: keys, Now: cfg.Now, Environment: cfg.Environment, NewSecret: webhook.NewSecret,
		CheckURL: func(raw string) string {
			if ok, reason := cfg.WebhookPolicy.CheckURL(raw); !ok {
				return reason.Message()
			}
			return ""
		},
		Listeners: s.hub,
		Send: func(ctx context.Context, url string, h http.Header, body []byte) webhook.Attempt {
			a := webhook.Send(ctx, client, url, h, body)
			if ctx.Err() == nil { // a canceled attempt (shutdown) is no outcome
				s.metrics.delivery(a)
			}
			return a
		},
		Log:            cfg.Logger,
		PerDestination: cfg.WebhookConcurrency,
		Shared:         s.shared,
		Node:           cfg.Node,
	})
	s.engine = s.webhooks.Engine()
	if s.shared != nil {
		s.hub.Changed = s.webhooks.ListenerChanged // the other nodes learn of this node's sessions
	}
	s.worker.Events = s.webhooks
	s.invoices = &invoices.Service{Store: store, Keys: keys, Catalogs: s.catalogs, TaxFiles: s.taxFiles, Events: s.webhooks,
		Environment: cfg.Environment, Now: cfg.Now, Log: cfg.Logger}
	if s.validations, err = newValidations(cfg, store, s.invoices); err != nil {
		return nil, err
	}
	s.tickets = &tickets.Service{Store: store, Invoices: s.invoices, Environment: cfg.Environment, Now: cfg.Now, Catalogs: s.catalogs,
		Mail: &invoices.Sender{Store: store, Transport: cfg.Mail, From: cfg.MailFrom, PDF: invoices.SendPDF, Now: cfg.Now}}
	// Tickets left in progress by a stop while stamping go back to pending before any request.
	var before time.Time // alone: every ticket left stamping is this server's
	if s.shared != nil {
		before = cfg.Now().Add(-tickets.RecoverAfter)
	}
	if n, err := tickets.Recover(context.Background(), store, cfg.Now(), before); err != nil {
		return nil, fmt.Errorf("recover tickets: %w", err)
	} else if n > 0 {
		cfg.Logger.Warn("tickets left in progress by the last stop are pending again", "tickets", n)
	}
	s.routes()
	return s, nil
}

// Webhooks is the events and webhooks service (other areas emit events through it).
func (s *Server) Webhooks() *webhooks.Service { return s.webhooks }

// RunEngine sends webhook deliveries until ctx ends (Serve runs it; tests over Handler may).
func (s *Server) RunEngine(ctx context.Context) error { return s.engine.Run(ctx) }

// RunDownloads carries the bulk download requests out at the SAT, and runs the approved download
// rules, until ctx ends (Serve runs it; tests over Handler may).
func (s *Server) RunDownloads(ctx context.Context) { s.worker.Run(ctx) }

// Accounts is the accounts service (tenant creation at init).
func (s *Server) Accounts() *accounts.Service { return s.accounts }

// Handler is the whole API as one handler.
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serveHTTP) }

// Serve answers on ln until ctx ends, then stops accepting, lets in-flight requests finish
// (up to the shutdown timeout) and returns nil.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		// a request whose headers pass MaxHeaderBytes is answered in the envelope (serveHTTP);
		// the server itself refuses, in plain text, only what passes this
		MaxHeaderBytes: 1 << 20,
		ErrorLog:       slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:    func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		ConnContext:    connContext,
	}
	engineCtx, stopEngine := context.WithCancel(context.WithoutCancel(ctx))
	engineDone := make(chan struct{})
	go func() {
		defer close(engineDone)
		s.engine.Run(engineCtx)
	}()
	defer func() { stopEngine(); <-engineDone }() // after HTTP: in-flight attempts finish too
	scheduledDone := make(chan struct{})
	go func() {
		defer close(scheduledDone)
		if s.shared == nil {
			s.scheduled(engineCtx)
			return
		}
		// with other nodes, one of them at a time does the scheduled work
		s.shared.Lead(engineCtx, "scheduled", func(ctx context.Context) {
			s.log.Info("leading the scheduled work (download requests, cancellations, purges)", "node", s.cfg.Node)
			s.scheduled(ctx)
		})
	}()
	defer func() { stopEngine(); <-scheduledDone }()
	srv.RegisterOnShutdown(s.requests.CloseAll) // tails are streams: Shutdown would wait for them
	serving := envelopeErrors(ln, s.log)
	// a connection that has not sent a byte yet (a preconnect, a client's spare dial) holds
	// nothing in flight, but net/http waits for it 5 s: it is closed when shutdown starts
	srv.RegisterOnShutdown(serving.closeSilent)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(serving) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.log.Info("shutting down", "timeout", s.cfg.ShutdownTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	s.hub.CloseAll() // listen sessions are hijacked connections: Shutdown does not end them
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// scheduled does the work that runs on its own, not asked by a request, until ctx ends: the
// download requests' worker and rules, the expiry of unanswered cancellations and, with other
// nodes (a node alone purges from its engine), the purge of old events.
func (s *Server) scheduled(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { s.worker.Run(ctx) })
	wg.Go(func() { s.sweepCancellations(ctx) })
	if s.shared != nil {
		wg.Go(func() { s.engine.PurgeEvery(ctx, time.Hour) })
		wg.Go(func() { s.recoverTickets(ctx) })
	}
	wg.Wait()
}

// recoverTickets puts back to pending, every minute until ctx ends, the tickets a node of the
// shared database left stamping when it died (tickets.RecoverAfter).
func (s *Server) recoverTickets(ctx context.Context) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := s.cfg.Now()
		if n, err := tickets.Recover(ctx, s.store, now, now.Add(-tickets.RecoverAfter)); err != nil && ctx.Err() == nil {
			s.log.Error("recover tickets left stamping", "err", err)
		} else if n > 0 {
			s.log.Warn("tickets left stamping by a node that stopped are pending again", "tickets", n)
		}
	}
}

// CancellationSweep is how often the server accepts the cancellations whose recipient did not
// answer within invoices.AnswerWindow.
const CancellationSweep = time.Minute

// sweepCancellations runs invoices.ExpireCancellations at start and every CancellationSweep
// until ctx ends.
func (s *Server) sweepCancellations(ctx context.Context) {
	t := time.NewTicker(CancellationSweep)
	defer t.Stop()
	for {
		if n, err := s.invoices.ExpireCancellations(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("expiring unanswered cancellations", "err", err)
		} else if n > 0 {
			s.log.Info("cancellations accepted without an answer in 72 hours", "invoices", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// WriteAddrFile writes the bound address to path atomically (a reader never sees half of it).
func WriteAddrFile(path, addr string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".addr-*")
	if err != nil {
		return err
	}
	if _, err := tmp.WriteString(addr + "\n"); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// routeMux is the ServeMux that also keeps the patterns registered on it, in order, so the route
// table can be listed (the OpenAPI document is checked against it). Pages for browsers (the
// portal's web pages, HandlePage) are kept apart: they are not routes of the API.
type routeMux struct {
	*http.ServeMux
	patterns []string
	pages    []string
}

// HandlePage registers a page for browsers, not listed among the API's patterns.
func (m *routeMux) HandlePage(pattern string, h http.Handler) {
	m.ServeMux.Handle(pattern, h)
	m.pages = append(m.pages, pattern)
}

// Pages are the registered pages' patterns in the order they were registered.
func (m *routeMux) Pages() []string { return slices.Clone(m.pages) }

func newRouteMux() *routeMux { return &routeMux{ServeMux: http.NewServeMux()} }

func (m *routeMux) Handle(pattern string, h http.Handler) {
	m.ServeMux.Handle(pattern, h)
	m.patterns = append(m.patterns, pattern)
}

func (m *routeMux) HandleFunc(pattern string, h func(http.ResponseWriter, *http.Request)) {
	m.Handle(pattern, http.HandlerFunc(h))
}

// Patterns are the registered patterns in the order they were registered.
func (m *routeMux) Patterns() []string { return slices.Clone(m.patterns) }
