package commands

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fatih/color"
	"github.com/timbra-mx/timbra/internal/api"
)

// printer renders a command's data the way the output asks: an aligned table with a header on
// a terminal, tab-separated rows with a header line elsewhere, indented JSON with --output json.
type printer struct {
	io   *IOStreams
	json bool
	now  time.Time
	loc  *time.Location // zone of the times shown; nil for UTC (or the local zone on a terminal)
}

func (f *Factory) printer() *printer {
	p := &printer{io: f.IO, json: f.JSON(), now: f.Now()}
	if f.TimeZone != "" {
		p.loc, _ = time.LoadLocation(f.TimeZone) // validated when the flag was parsed
	}
	return p
}

// writeJSON writes v as indented JSON, without escaping <, > and &.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// table writes rows under headers. data is what --output json prints instead (for example the
// whole paged list); empty tells what to say on a terminal when there is no row.
func (p *printer) table(data any, headers []string, rows [][]string, empty string) error {
	if p.json {
		return writeJSON(p.io.Out, data)
	}
	if !p.io.OutTTY {
		var b strings.Builder
		b.WriteString(strings.Join(headers, "\t"))
		b.WriteByte('\n')
		for _, r := range rows {
			for i, c := range r {
				if i > 0 {
					b.WriteByte('\t')
				}
				b.WriteString(oneLine(c))
			}
			b.WriteByte('\n')
		}
		_, err := io.WriteString(p.io.Out, b.String())
		return err
	}
	if len(rows) == 0 && empty != "" {
		fmt.Fprintln(p.io.Err, empty)
		return nil
	}
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(headers, "\t"))
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = oneLine(c)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// colour the header after alignment: escape codes would count as width
	out := buf.String()
	head, rest, _ := strings.Cut(out, "\n")
	bold := color.New(color.Bold)
	if p.io.ColorOut() {
		bold.EnableColor()
	} else {
		bold.DisableColor()
	}
	_, err := io.WriteString(p.io.Out, bold.Sprint(strings.TrimRight(head, " "))+"\n"+trimLines(rest))
	return err
}

// field is one `label: value` line of a record.
type field struct {
	Label string
	Value string
}

// fields writes a record as `label: value` lines (aligned on a terminal), or data as JSON.
func (p *printer) fields(data any, fs []field) error {
	if p.json {
		return writeJSON(p.io.Out, data)
	}
	if !p.io.OutTTY {
		var b strings.Builder
		for _, f := range fs {
			if f.Value == "" {
				fmt.Fprintf(&b, "%s:\n", f.Label)
				continue
			}
			fmt.Fprintf(&b, "%s: %s\n", f.Label, oneLine(f.Value))
		}
		_, err := io.WriteString(p.io.Out, b.String())
		return err
	}
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 1, ' ', 0)
	for _, f := range fs {
		fmt.Fprintf(tw, "%s:\t%s\n", f.Label, oneLine(f.Value))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := io.WriteString(p.io.Out, trimLines(buf.String()))
	return err
}

// time shows a date-time of the API: relative on a terminal ("3 minutes ago"), RFC 3339
// otherwise. A value that does not parse is shown as it came.
func (p *printer) time(s string) string {
	if s == "" {
		return ""
	}
	t, err := api.ParseTime(s)
	if err != nil {
		return s
	}
	if p.io.OutTTY {
		return relativeTime(p.now, t, p.loc)
	}
	if p.loc != nil {
		return t.In(p.loc).Format(time.RFC3339)
	}
	return t.UTC().Format(time.RFC3339)
}

// relativeTime says how long ago (or in how long) t is from now; past a month, the date.
func relativeTime(now, t time.Time, loc *time.Location) string {
	d := now.Sub(t)
	future := d < 0
	if future {
		d = -d
	}
	var n int
	var unit string
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		n, unit = int(d/time.Minute), "minute"
	case d < 24*time.Hour:
		n, unit = int(d/time.Hour), "hour"
	case d < 30*24*time.Hour:
		n, unit = int(d/(24*time.Hour)), "day"
	default:
		if loc == nil {
			loc = time.Local
		}
		return t.In(loc).Format("2006-01-02")
	}
	if n != 1 {
		unit += "s"
	}
	if future {
		return fmt.Sprintf("in %d %s", n, unit)
	}
	return fmt.Sprintf("%d %s ago", n, unit)
}

// oneLine keeps a cell on its line: tabs and line breaks become spaces.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\t\r\n") {
		return s
	}
	return strings.NewReplacer("\t", " ", "\r\n", " ", "\r", " ", "\n", " ").Replace(s)
}

// trimLines removes the padding tabwriter leaves at the end of lines.
func trimLines(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if strings.HasSuffix(l, "\n") {
			lines[i] = strings.TrimRight(l[:len(l)-1], " ") + "\n"
		} else {
			lines[i] = strings.TrimRight(l, " ")
		}
	}
	return strings.Join(lines, "")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// warn writes a warning line on stderr, in yellow on a terminal.
func (s *IOStreams) warn(msg string) {
	c := color.New(color.FgYellow)
	if s.ColorErr() {
		c.EnableColor()
	} else {
		c.DisableColor()
	}
	fmt.Fprintln(s.Err, c.Sprint(msg))
}
