package cmdutil

import (
	"bytes"
	"testing"
	"time"

	"github.com/fatih/color"
)

func TestRelativeTime(t *testing.T) {
	now := time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		t    time.Time
		want string
	}{
		{now.Add(-30 * time.Second), "just now"},
		{now.Add(-1 * time.Minute), "1 minute ago"},
		{now.Add(-3*time.Minute - 10*time.Second), "3 minutes ago"},
		{now.Add(-1 * time.Hour), "1 hour ago"},
		{now.Add(-23 * time.Hour), "23 hours ago"},
		{now.Add(-48 * time.Hour), "2 days ago"},
		{now.Add(2 * time.Hour), "in 2 hours"},
		{time.Date(2024, 12, 25, 23, 0, 0, 0, time.UTC), "2024-12-25"},
	}
	for _, c := range cases {
		if got := RelativeTime(now, c.t, time.UTC); got != c.want {
			t.Errorf("relativeTime(%v) = %q, want %q", c.t, got, c.want)
		}
	}
	// past a month, the date in the zone asked for
	mx, err := time.LoadLocation("America/Mexico_City")
	if err != nil {
		t.Fatal(err)
	}
	if got := RelativeTime(now, time.Date(2025, 1, 1, 3, 0, 0, 0, time.UTC), mx); got != "2024-12-31" {
		t.Errorf("got %q", got)
	}
}

func TestPrinterTime(t *testing.T) {
	p := &Printer{io: &IOStreams{}, now: time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)}
	for in, want := range map[string]string{
		"2025-03-10T11:00:00.000":   "2025-03-10T11:00:00Z",
		"2025-03-10T11:00:00.123Z":  "2025-03-10T11:00:00Z",
		"2025-03-10T05:00:00-06:00": "2025-03-10T11:00:00Z",
		"yesterday":                 "yesterday",
		"":                          "",
	} {
		if got := p.Time(in); got != want {
			t.Errorf("time(%q) = %q, want %q", in, got, want)
		}
	}
	p.io.OutTTY = true
	if got := p.Time("2025-03-10T11:00:00.000"); got != "1 hour ago" {
		t.Errorf("terminal time %q", got)
	}
}

func TestTablePlainKeepsCellsOnOneLine(t *testing.T) {
	var out bytes.Buffer
	p := &Printer{io: &IOStreams{Out: &out, Err: &out}}
	if err := p.Table(nil, []string{"A", "B"}, [][]string{{"x\ty", "line\nbreak"}}, "none"); err != nil {
		t.Fatal(err)
	}
	if out.String() != "A\tB\nx y\tline break\n" {
		t.Errorf("%q", out.String())
	}
	out.Reset()
	if err := p.Table(nil, []string{"A", "B"}, nil, "none"); err != nil {
		t.Fatal(err)
	}
	if out.String() != "A\tB\n" {
		t.Errorf("an empty list prints its header line when piped: %q", out.String())
	}
}

func TestFieldsTerminalAligned(t *testing.T) {
	var out bytes.Buffer
	p := &Printer{io: &IOStreams{Out: &out, OutTTY: true}}
	if err := p.Fields(nil, []Field{{"ID", "1"}, {"Created", "now"}, {"Empty", ""}}); err != nil {
		t.Fatal(err)
	}
	want := "ID:      1\nCreated: now\nEmpty:\n"
	if out.String() != want {
		t.Errorf("%q, want %q", out.String(), want)
	}
}

func TestColorColumn(t *testing.T) {
	red := func(string) *color.Color { return color.New(color.FgRed) }
	in := "\x1b[1mID  STATUS    NEXT\x1b[0m\nä1  failed    x\nb2  pending\nc3\n"
	got := colorColumn(in, []string{"ID", "STATUS", "NEXT"}, "STATUS", red)
	want := "\x1b[1mID  STATUS    NEXT\x1b[0m\nä1  \x1b[31mfailed\x1b[0m    x\nb2  \x1b[31mpending\x1b[0m\nc3\n"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
