package bench

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestIsolationScenariosSmoke runs the isolation scenario and its floor briefly through the
// suite (-only isolation): every trigger must be accepted, the hung destinations must hold
// requests when measuring starts, and the run must end (the hung attempts cut). It makes no
// timing assertion: how many events arrive within the wait is the measurement.
func TestIsolationScenariosSmoke(t *testing.T) {
	start := time.Now()
	rep, err := RunSuite(Options{Dir: t.TempDir(), Only: regexp.MustCompile("isolation"), Duration: 150 * time.Millisecond,
		IsolationEvents: 30, IsolationBusy: 5, IsolationWait: 300 * time.Millisecond, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 0 || len(rep.Deliveries) != 0 || rep.Listen != nil || rep.ListenConcurrent != nil {
		t.Fatalf("-only isolation ran other scenarios")
	}
	if len(rep.Isolation) != 2 || rep.Isolation[0].Name != IsolationFloor || rep.Isolation[1].Name != IsolationScenario {
		t.Fatalf("isolation results: %+v", rep.Isolation)
	}
	for _, r := range rep.Isolation {
		if r.Errors != 0 || len(r.Dests) != 3 || r.All.Triggered == 0 || r.All.Delivered > r.All.Triggered || r.Trigger.P50 <= 0 {
			t.Errorf("%s: %+v", r.Name, r)
		}
		for _, d := range r.Dests {
			if d.Triggered == 0 || d.Delivered > d.Triggered || (d.Delivered > 0 && d.Latency.P50 <= 0) {
				t.Errorf("%s, %s: %+v", r.Name, d.Name, d)
			}
		}
	}
	if h := rep.Isolation[1]; !h.Hung || h.Busy != 5 || h.HeldStart[0] == 0 || h.HeldStart[1] == 0 {
		t.Errorf("the hung destinations were not busy: %+v", h)
	}
	md := rep.Markdown()
	for _, want := range []string{"#### Isolation", IsolationFloor, IsolationScenario, "tenant B: listen session", "hung / floor", "Target p99"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	t.Logf("both isolation scenarios in %s", time.Since(start).Round(time.Millisecond))
}
