// Package bench holds timbra's load and latency harnesses. Run measures any operation from
// many workers; the scenarios in scenarios.go put the real server, a bare net/http handler and
// raw bbolt behind it, so that timbra is always compared with its floor on the same machine in
// the same run. The results go to BENCHMARKS.md (see bench/load for the command).
package bench

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"time"
)

// Result is what one scenario measured.
type Result struct {
	Name    string
	Ops     int           // operations finished, failed ones included
	Errors  int           // failed operations (transport error or non-2xx status)
	First   string        // the first failure, for the message
	Elapsed time.Duration // from the first operation started to the last one finished
	P50     time.Duration
	P99     time.Duration
	Max     time.Duration
	// ByCount tells a worker stopped because it reached its share of the operation bound
	// before the duration ended.
	ByCount bool
}

// PerSecond is the throughput: operations per second over the elapsed time.
func (r Result) PerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Ops) / r.Elapsed.Seconds()
}

// Err is nil when the scenario did something and nothing failed.
func (r Result) Err() error {
	switch {
	case r.Errors > 0:
		return fmt.Errorf("%s: %d of %d operations failed; first: %s", r.Name, r.Errors, r.Ops, r.First)
	case r.Ops == 0:
		return fmt.Errorf("%s: no operation ran", r.Name)
	}
	return nil
}

// Run calls the operations of concurrency workers (newOp makes one per worker, before the
// clock starts) until d has passed, and times every call. Each worker makes at least one
// call and at most maxOps/concurrency, so a run is bounded in time (d plus one call) and in
// count; latencies go to a slice per worker allocated up front, so recording does not
// allocate while measuring.
func Run(name string, concurrency int, d time.Duration, maxOps int, newOp func(worker int) func() error) Result {
	concurrency = max(concurrency, 1)
	per := max(maxOps/concurrency, 1)
	type worker struct {
		op     func() error
		lat    []time.Duration
		errors int
		first  error
		full   bool
	}
	ws := make([]worker, concurrency)
	for i := range ws {
		ws[i] = worker{op: newOp(i), lat: make([]time.Duration, 0, per)}
	}
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for i := range ws {
		w := &ws[i]
		wg.Go(func() {
			for {
				t0 := time.Now()
				err := w.op()
				t1 := time.Now()
				w.lat = append(w.lat, t1.Sub(t0))
				if err != nil {
					if w.errors == 0 {
						w.first = err
					}
					w.errors++
				}
				if len(w.lat) == cap(w.lat) {
					w.full = !t1.After(deadline)
					return
				}
				if t1.After(deadline) {
					return
				}
			}
		})
	}
	wg.Wait()
	r := Result{Name: name, Elapsed: time.Since(start)}
	n := 0
	for _, w := range ws {
		n += len(w.lat)
	}
	all := make([]time.Duration, 0, n)
	for _, w := range ws {
		all = append(all, w.lat...)
		r.Errors += w.errors
		if w.first != nil && r.First == "" {
			r.First = w.first.Error()
		}
		r.ByCount = r.ByCount || w.full
	}
	r.Ops = len(all)
	slices.Sort(all)
	r.P50, r.P99 = percentile(all, 0.50), percentile(all, 0.99)
	if len(all) > 0 {
		r.Max = all[len(all)-1]
	}
	return r
}

// percentile is the nearest-rank percentile p (0 < p ≤ 1) of sorted latencies.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
