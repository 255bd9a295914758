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
// its key and waits until the output shows its text; then it quits and compares the last view
// with testdata/<test>.golden (go test ./tui -update rewrites them).
func inspectGolden(t *testing.T, w, h int, steps ...[2]string) {
	t.Helper()
	m := NewInspect(InspectOptions{API: newFakeAPI(), BaseURL: "http://127.0.0.1:8080", Location: time.UTC})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h))
	wait := func(text string) {
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(text)) },
			teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
	}
	wait("listener of p-2")
	for _, s := range steps {
		tm.Send(inspectKey(s[0]))
		wait(s[1])
	}
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second))
	golden.RequireEqual(t, []byte(fm.View()))
}

func TestGoldenInspectWebhooks(t *testing.T) { inspectGolden(t, 110, 9) }

func TestGoldenInspectResendQuestion(t *testing.T) {
	inspectGolden(t, 110, 14, [2]string{"enter", "3 of 3 deliveries"}, [2]string{"r", "[y/n]"})
}

func TestGoldenInspectDelivery(t *testing.T) {
	inspectGolden(t, 100, 32, [2]string{"enter", "3 of 3 deliveries"}, [2]string{"end", "> 2025-03-10 12:01:00"},
		[2]string{"enter", `"id": "evt-1"`})
}
