// Command load measures timbra against its floors on loopback TCP and prints a markdown
// report (see BENCHMARKS.md):
//
//	go run ./bench/load [-duration 10s] [-concurrency 32] [-out FILE] [-only deliveries|listen|isolation]
//
// It exits 1 when any measured operation fails.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime/pprof"
	"strings"

	"github.com/timbra-mx/timbra/bench"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opt bench.Options
	fs.DurationVar(&opt.Duration, "duration", bench.DefaultDuration, "measured time of each scenario")
	fs.DurationVar(&opt.Warmup, "warmup", bench.DefaultWarmup, "unmeasured run before each scenario")
	fs.IntVar(&opt.Concurrency, "concurrency", bench.DefaultConcurrency, "concurrent workers (and HTTP connections)")
	fs.IntVar(&opt.MaxOps, "max-ops", bench.DefaultMaxOps, "bound on the operations of one scenario")
	fs.DurationVar(&opt.Timeout, "timeout", bench.DefaultTimeout, "bound on one HTTP request")
	fs.StringVar(&opt.Dir, "dir", "", "folder for the temporary databases (default: the system's temporary folder); fsync cost depends on its file system")
	out := fs.String("out", "", "also write the report to this file")
	only := fs.String("only", "", "run only the scenarios whose name matches this regular expression (deliveries: the webhook delivery scenarios; drains: the two drains; "+
		"listen: the listen latency scenarios and their echo floors; 'listen concurrent': the concurrent one; isolation: healthy destinations beside hung ones, and the floor)")
	fs.IntVar(&opt.DeliveryEvents, "delivery-events", 0, "pending deliveries the engine drains (default 1000 per second of -duration)")
	fs.IntVar(&opt.ListenEvents, "listen-events", bench.DefaultListenEvents, "measured sequential events of the listen scenario (and echo round trips of its floor)")
	fs.IntVar(&opt.ListenWarmup, "listen-warmup", bench.DefaultListenWarmup, "unmeasured events before them (both listen scenarios)")
	fs.IntVar(&opt.ListenClients, "listen-clients", bench.DefaultListenClients, "concurrent trigger clients of the concurrent listen scenario")
	fs.IntVar(&opt.ListenConcurrentEvents, "listen-concurrent-events", bench.DefaultListenConcurrentEvents, "measured events of the concurrent listen scenario (and echo round trips of its floor)")
	fs.IntVar(&opt.APILoadClients, "api-load-clients", bench.DefaultAPILoadClients, "clients sending GET /api/v4/people during the drain under API load")
	fs.IntVar(&opt.APILoadRate, "api-load-rate", 0, "requests per second those clients offer in all (0: a tenth of what they get alone from the same server, measured just before; -1: each as fast as the server answers)")
	fs.IntVar(&opt.FloorClients, "floor-clients", bench.DefaultFloorClients, "concurrent clients of the sign-and-POST delivery floor (the attempts the engine keeps in flight to one destination)")
	fs.IntVar(&opt.IsolationEvents, "isolation-events", bench.DefaultIsolationEvents, "measured triggers of the isolation scenarios, spread over the healthy destinations")
	fs.IntVar(&opt.IsolationBusy, "isolation-busy", bench.DefaultIsolationBusy, "triggers sent first to each hung destination")
	fs.DurationVar(&opt.IsolationWait, "isolation-wait", bench.DefaultIsolationWait, "wait for the measured deliveries after the last trigger of the isolation scenarios")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the measured scenarios (client and servers) to this file")
	fs.StringVar(&opt.DrainCPUProfile, "drain-cpuprofile", "", "write a CPU profile of the delivery engine's drain alone (not its preload) to this file")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "load: unexpected arguments: %s\n", strings.Join(fs.Args(), " "))
		return 2
	}
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			fmt.Fprintf(stderr, "load: -only: %v\n", err)
			return 2
		}
		opt.Only = re
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintf(stderr, "load: %v\n", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(stderr, "load: %v\n", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	opt.Progress = func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }

	rep, err := bench.RunSuite(opt)
	rep.Command = strings.Join(append([]string{"go run ./bench/load"}, args...), " ")
	md := rep.Markdown()
	fmt.Fprint(stdout, md)
	if *out != "" {
		if werr := os.WriteFile(*out, []byte(md), 0o644); werr != nil {
			fmt.Fprintf(stderr, "load: %v\n", werr)
			return 1
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "\nload: FAILED: %v\n", err)
		return 1
	}
	return 0
}
