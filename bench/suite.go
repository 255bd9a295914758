package bench

import (
	"bufio"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"runtime"
	"strings"
	"time"
)

// Options bound a suite run.
type Options struct {
	Duration    time.Duration // measured time of each scenario
	Warmup      time.Duration // unmeasured run before each scenario
	Concurrency int           // workers (and HTTP connections)
	MaxOps      int           // bound on the operations of one scenario, all workers together
	Timeout     time.Duration // bound on one HTTP request
	Dir         string        // where the temporary databases go; "" for the system's temporary folder
	// Only, when set, keeps the scenarios whose name it matches.
	Only *regexp.Regexp
	// DeliveryEvents is the size of the outbox the delivery engine drains; default
	// DefaultDeliveryEvents per second of Duration (at least 100).
	DeliveryEvents int
	// DrainCPUProfile, when set, is a file for a CPU profile of the drain alone (not its
	// preload).
	DrainCPUProfile string
	// ListenEvents and ListenWarmup are the measured and unmeasured events of the listen
	// scenario (and round trips of its floor): ListenEvents 0 means DefaultListenEvents; the load
	// command passes DefaultListenWarmup.
	ListenEvents, ListenWarmup int
	// ListenClients and ListenConcurrentEvents are the trigger clients and the measured events
	// of the concurrent listen scenario: 0 means DefaultListenClients,
	// DefaultListenConcurrentEvents. Its warm-up is ListenWarmup events.
	ListenClients, ListenConcurrentEvents int
	// APILoadClients is how many clients send GET /api/v4/people during the drain under API
	// load; 0 means DefaultAPILoadClients.
	APILoadClients int
	// APILoadRate paces those clients to this many requests per second in all; 0: to
	// DefaultAPILoadShare of what they get alone from the same server, measured just before;
	// below 0: each sends as fast as the server answers (a saturated server).
	APILoadRate int
	// FloorClients is the concurrency of the sign-and-POST floor of the deliveries (the attempts
	// the engine may have in flight to one destination); 0 means DefaultFloorClients.
	FloorClients int
	// IsolationEvents, IsolationBusy and IsolationWait bound the isolation scenarios: measured
	// triggers spread over the healthy destinations, triggers sent first to each hung destination,
	// and the wait for the measured deliveries after the last trigger. 0 means the defaults.
	IsolationEvents, IsolationBusy int
	IsolationWait                  time.Duration
	// Progress, when set, is told what runs.
	Progress func(format string, args ...any)
}

// Defaults of Options.
const (
	DefaultDuration    = 10 * time.Second
	DefaultWarmup      = time.Second
	DefaultConcurrency = 32
	DefaultMaxOps      = 4_000_000
	DefaultTimeout     = 10 * time.Second
)

func (o *Options) defaults() {
	if o.Duration <= 0 {
		o.Duration = DefaultDuration
	}
	if o.Warmup < 0 {
		o.Warmup = 0
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.MaxOps <= 0 {
		o.MaxOps = DefaultMaxOps
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Progress == nil {
		o.Progress = func(string, ...any) {}
	}
	if o.ListenEvents <= 0 {
		o.ListenEvents = DefaultListenEvents
	}
	if o.ListenWarmup < 0 {
		o.ListenWarmup = 0
	}
	if o.ListenClients <= 0 {
		o.ListenClients = DefaultListenClients
	}
	if o.ListenConcurrentEvents <= 0 {
		o.ListenConcurrentEvents = DefaultListenConcurrentEvents
	}
	if o.APILoadClients <= 0 {
		o.APILoadClients = DefaultAPILoadClients
	}
	if o.FloorClients <= 0 {
		o.FloorClients = DefaultFloorClients
	}
	if o.IsolationEvents <= 0 {
		o.IsolationEvents = DefaultIsolationEvents
	}
	if o.IsolationBusy <= 0 {
		o.IsolationBusy = DefaultIsolationBusy
	}
	if o.IsolationWait <= 0 {
		o.IsolationWait = DefaultIsolationWait
	}
	if o.DeliveryEvents <= 0 {
		o.DeliveryEvents = max(100, int(o.Duration.Seconds()*DefaultDeliveryEvents))
	}
}

// Names of the scenarios, in the order they run.
const (
	BareGET      = "bare GET (floor)"
	TimbraGET    = "timbra GET /api/v4/people, discard logger"
	TimbraGETLog = "timbra GET /api/v4/people, JSON request log"
	TimbraWrite  = "timbra POST /api/v4/apikeys"
	RawUpdate    = "raw bbolt Update, 1 Put"
	RawBatch     = "raw bbolt Batch, 1 Put"
)

// Machine is what the numbers depend on.
type Machine struct {
	GoVersion  string
	OS, Arch   string
	NumCPU     int
	GOMAXPROCS int
	CPU        string // model name, when the system tells it
	// Load is the system load average (1, 5, 15 min) when the run started, when the system
	// tells it: other work on the machine skews every number.
	Load string
}

// ThisMachine describes the running machine.
func ThisMachine() Machine {
	return Machine{runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0), cpuModel(), loadAverage()}
}

func loadAverage() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(raw)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return ""
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if name, value, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(name) == "model name" {
			return strings.TrimSpace(value)
		}
	}
	return ""
}

// Report is the outcome of a suite run.
type Report struct {
	Command    string // how the run was started, when known
	Started    time.Time
	Machine    Machine
	Options    Options
	Dir        string // where the databases were
	BodyBytes  int    // body of the GET answer, also written by the bare handler
	ValueBytes int    // value written by the raw bbolt transactions
	Results    []Result
	Deliveries []DeliveryResult // webhook delivery scenarios (deliveries.go)
	Listen     *ListenResult    // listen latency and its echo floor (listen.go), when run
	// ListenConcurrent is the listen latency with concurrent trigger clients, and its floor.
	ListenConcurrent *ListenResult
	Isolation        []IsolationResult // healthy destinations beside hung ones, and the floor (isolation.go)
	LoadAtEnd        string            // load average when the last scenario finished
}

// Result finds a result by scenario name.
func (r *Report) Result(name string) (Result, bool) {
	for _, x := range r.Results {
		if x.Name == name {
			return x, true
		}
	}
	return Result{}, false
}

// RunSuite runs every scenario in turn, each after its own warm-up, on loopback servers and
// temporary databases it removes afterwards. It stops at the first scenario with a failure
// and returns the report so far with the error.
func RunSuite(opt Options) (rep *Report, err error) {
	opt.defaults()
	rep = &Report{Started: time.Now().UTC(), Machine: ThisMachine(), Options: opt, Dir: opt.Dir}
	if rep.Dir == "" {
		rep.Dir = os.TempDir()
	}
	var closers []func() error
	defer func() {
		for i := len(closers) - 1; i >= 0; i-- {
			err = errors.Join(err, closers[i]())
		}
	}()

	t, err := NewTimbra(opt.Dir)
	if err != nil {
		return rep, err
	}
	closers = append(closers, t.Close)
	quiet, logged := t.Server(slog.New(slog.DiscardHandler)), t.Server(JSONLogger())
	body, err := CaptureBody(quiet.Handler(), http.MethodGet, PeoplePath, t.Header(), "")
	if err != nil {
		return rep, err
	}
	rep.BodyBytes = len(body)
	raw, err := OpenRawBolt(opt.Dir)
	if err != nil {
		return rep, err
	}
	closers = append(closers, raw.Close)
	rep.ValueBytes = len(RawValue("0199c3f4-7a10-7c3e-9d41-2f6b8e0a1c57"))

	serve := func(l *Listening, err error) (string, error) {
		if err != nil {
			return "", err
		}
		closers = append(closers, l.Close)
		return l.URL, nil
	}
	bareURL, err := serve(ServeBare(Bare(body)))
	if err != nil {
		return rep, err
	}
	quietURL, err := serve(ServeTimbra(quiet))
	if err != nil {
		return rep, err
	}
	loggedURL, err := serve(ServeTimbra(logged))
	if err != nil {
		return rep, err
	}

	// httpScenario gives each scenario its own client, so its warm-up opens its connections.
	httpScenario := func(method, url, body string) func(int) func() error {
		c := Client(opt.Concurrency, opt.Timeout)
		closers = append(closers, func() error { c.CloseIdleConnections(); return nil })
		return func(int) func() error { return HTTPOp(c, method, url, t.Header(), body) }
	}
	rawScenario := func(batch bool) func(int) func() error {
		return func(int) func() error { return func() error { return raw.Put(batch) } }
	}
	scenarios := []struct {
		name  string
		newOp func(int) func() error
	}{
		{BareGET, httpScenario(http.MethodGet, bareURL+PeoplePath, "")},
		{TimbraGET, httpScenario(http.MethodGet, quietURL+PeoplePath, "")},
		{TimbraGETLog, httpScenario(http.MethodGet, loggedURL+PeoplePath, "")},
		{TimbraWrite, httpScenario(http.MethodPost, quietURL+KeysPath, KeyBody)},
		{RawUpdate, rawScenario(false)},
		{RawBatch, rawScenario(true)},
	}
	for _, sc := range scenarios {
		if opt.Only != nil && !opt.Only.MatchString(sc.name) {
			continue
		}
		if opt.Warmup > 0 {
			opt.Progress("warm-up %s (%s)", sc.name, opt.Warmup)
			if err := Run(sc.name+" (warm-up)", opt.Concurrency, opt.Warmup, opt.MaxOps, sc.newOp).Err(); err != nil {
				return rep, err
			}
		}
		opt.Progress("measure %s (%s, %d workers)", sc.name, opt.Duration, opt.Concurrency)
		r := Run(sc.name, opt.Concurrency, opt.Duration, opt.MaxOps, sc.newOp)
		rep.Results = append(rep.Results, r)
		opt.Progress("  %.0f/s p50 %s p99 %s errors %d", r.PerSecond(), ms(r.P50), ms(r.P99), r.Errors)
		if err := r.Err(); err != nil {
			return rep, err
		}
	}
	if err := runDeliveries(opt, rep); err != nil {
		return rep, err
	}
	if err := runListen(opt, rep); err != nil {
		return rep, err
	}
	if err := runIsolation(opt, rep); err != nil {
		return rep, err
	}
	rep.LoadAtEnd = loadAverage()
	return rep, nil
}

// ms shows a latency in milliseconds with microsecond precision.
func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d)/float64(time.Millisecond)) }

// Markdown writes the report as markdown: machine facts, the results and the ratios to the
// floors.
func (r *Report) Markdown() string {
	var b strings.Builder
	m := r.Machine
	fmt.Fprintf(&b, "### Load harness, %s\n\n", r.Started.Format("2006-01-02 15:04 UTC"))
	if r.Command != "" {
		fmt.Fprintf(&b, "Command: `%s`\n\n", r.Command)
	}
	fmt.Fprintf(&b, "Machine: %s %s/%s, NumCPU %d, GOMAXPROCS %d", m.GoVersion, m.OS, m.Arch, m.NumCPU, m.GOMAXPROCS)
	if m.CPU != "" {
		fmt.Fprintf(&b, ", CPU %s", m.CPU)
	}
	if m.Load != "" {
		fmt.Fprintf(&b, ", load average at start %s", m.Load)
		if r.LoadAtEnd != "" {
			fmt.Fprintf(&b, ", at end %s", r.LoadAtEnd)
		}
	}
	fmt.Fprintf(&b, ". Client and servers share these CPUs (loopback TCP, one process).\n\n")
	o := r.Options
	fmt.Fprintf(&b, "Each scenario: %s warm-up, then %s measured, %d concurrent workers (keep-alive, one connection each), "+
		"at most %d operations. GET body %d bytes (the bare handler writes the same bytes); raw bbolt value %d bytes. Databases under %s.\n\n",
		o.Warmup, o.Duration, o.Concurrency, o.MaxOps, r.BodyBytes, r.ValueBytes, r.Dir)

	if len(r.Results) == 0 {
		r.deliveriesMarkdown(&b)
		r.listenMarkdown(&b)
		r.isolationMarkdown(&b)
		return b.String()
	}
	b.WriteString("| scenario | ops | errors | ops/s | p50 | p99 | max |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, x := range r.Results {
		note := ""
		if x.ByCount {
			note = " (stopped by the operation bound)"
		}
		fmt.Fprintf(&b, "| %s%s | %d | %d | %.0f | %s | %s | %s |\n", x.Name, note, x.Ops, x.Errors, x.PerSecond(), ms(x.P50), ms(x.P99), ms(x.Max))
	}

	pairs := [][2]string{
		{TimbraGET, BareGET},
		{TimbraGETLog, BareGET},
		{TimbraGETLog, TimbraGET},
		{TimbraWrite, RawUpdate},
		{TimbraWrite, RawBatch},
		{RawBatch, RawUpdate},
	}
	b.WriteString("\nRatios (A / B): throughput below 1 means A is slower; latency above 1 means A takes longer.\n\n")
	b.WriteString("| A | B | ops/s A/B | p50 A/B | p99 A/B |\n|---|---|---:|---:|---:|\n")
	for _, p := range pairs {
		a, okA := r.Result(p[0])
		c, okB := r.Result(p[1])
		if !okA || !okB {
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", p[0], p[1],
			ratio(a.PerSecond(), c.PerSecond()), ratio(float64(a.P50), float64(c.P50)), ratio(float64(a.P99), float64(c.P99)))
	}
	b.WriteString("\n")
	r.deliveriesMarkdown(&b)
	r.listenMarkdown(&b)
	r.isolationMarkdown(&b)
	return b.String()
}

func ratio(a, b float64) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", a/b)
}
