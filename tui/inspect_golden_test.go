package tui

import (
	"bytes"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
)

// inspectGolden runs the inspector over the fake API in teatest at w×h, and for each step sends
// its key (step[0]) and waits until the output shows its texts (step[1:]); then it quits and
// compares the last view with testdata/<test>.golden (go test ./tui -update rewrites them).
func inspectGolden(t *testing.T, f *fakeAPI, w, h int, steps ...[]string) {
	t.Helper()
	m := NewInspect(InspectOptions{API: f, BaseURL: "http://127.0.0.1:8080", Location: time.UTC})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h))
	wait := func(texts ...string) {
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			for _, text := range texts {
				if !bytes.Contains(b, []byte(text)) {
					return false
				}
			}
			return true
		}, teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
	}
	wait("listener of p-2")
	for _, s := range steps {
		tm.Send(inspectKey(s[0]))
		wait(s[1:]...)
	}
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second))
	golden.RequireEqual(t, []byte(fm.View()))
}

// openWH1 opens the first webhook and waits for its deliveries and its queue.
var openWH1 = []string{"enter", "3 of 3 deliveries", "Queue     empty"}

func TestGoldenInspectWebhooks(t *testing.T) { inspectGolden(t, newFakeAPI(), 110, 9) }

func TestGoldenInspectResendQuestion(t *testing.T) {
	inspectGolden(t, newFakeAPI(), 110, 15, openWH1, []string{"r", "[y/n]"})
}

func TestGoldenInspectDelivery(t *testing.T) {
	inspectGolden(t, newFakeAPI(), 100, 32, openWH1, []string{"end", "> 2025-03-10 12:01:00"},
		[]string{"enter", `"id": "evt-1"`})
}

func TestGoldenInspectQueue(t *testing.T) {
	f := newFakeAPI()
	f.queues["wh-1"] = busyQueue()
	inspectGolden(t, f, 110, 15, []string{"enter", "3 of 3 deliveries", "last error Timeout"})
}
