package cmdutil

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fatih/color"
	"github.com/timbra-mx/timbra/internal/api"
)

// Printer renders a command's data the way the output asks: an aligned table with a header on
// a terminal, tab-separated rows with a header line elsewhere, indented JSON with --output json.
type Printer struct {
	JSON bool           // --output json
	Loc  *time.Location // zone of the times shown; nil for UTC (or the local zone on a terminal)
	io   *IOStreams
	now  time.Time
}

// Printer is the printer of the output options of f.
func (f *Factory) Printer() *Printer {
	p := &Printer{io: f.IO, JSON: f.JSON(), now: f.Now()}
	if f.TimeZone != "" {
		p.Loc, _ = time.LoadLocation(f.TimeZone) // validated when the flag was parsed
	}
	return p
}

// WriteJSON writes v as indented JSON, without escaping <, > and &.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Table writes rows under headers. data is what --output json prints instead (for example the
// whole paged list); empty tells what to say on a terminal when there is no row.
func (p *Printer) Table(data any, headers []string, rows [][]string, empty string) error {
	if p.JSON {
		return WriteJSON(p.io.Out, data)
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
				b.WriteString(OneLine(c))
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
			cells[i] = OneLine(c)
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

// Field is one `label: value` line of a record.
type Field struct {
	Label string
	Value string
}

// Fields writes a record as `label: value` lines (aligned on a terminal), or data as JSON.
func (p *Printer) Fields(data any, fs []Field) error {
	if p.JSON {
		return WriteJSON(p.io.Out, data)
	}
	if !p.io.OutTTY {
		var b strings.Builder
		for _, f := range fs {
			if f.Value == "" {
				fmt.Fprintf(&b, "%s:\n", f.Label)
				continue
			}
			fmt.Fprintf(&b, "%s: %s\n", f.Label, OneLine(f.Value))
		}
		_, err := io.WriteString(p.io.Out, b.String())
		return err
	}
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 1, ' ', 0)
	for _, f := range fs {
		fmt.Fprintf(tw, "%s:\t%s\n", f.Label, OneLine(f.Value))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := io.WriteString(p.io.Out, trimLines(buf.String()))
	return err
}

// Time shows a date-Time of the API: relative on a terminal ("3 minutes ago"), RFC 3339
// otherwise. A value that does not parse is shown as it came.
func (p *Printer) Time(s string) string {
	if s == "" {
		return ""
	}
	t, err := api.ParseTime(s)
	if err != nil {
		return s
	}
	if p.io.OutTTY {
		return RelativeTime(p.now, t, p.Loc)
	}
	if p.Loc != nil {
		return t.In(p.Loc).Format(time.RFC3339)
	}
	return t.UTC().Format(time.RFC3339)
}

// RelativeTime says how long ago (or in how long) t is from now; past a month, the date.
func RelativeTime(now, t time.Time, loc *time.Location) string {
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

// OneLine keeps a cell on its line: tabs and line breaks become spaces.
func OneLine(s string) string {
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

func YesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// Warn writes a warning line on stderr, in yellow on a terminal.
func (s *IOStreams) Warn(msg string) {
	c := color.New(color.FgYellow)
	if s.ColorErr() {
		c.EnableColor()
	} else {
		c.DisableColor()
	}
	fmt.Fprintln(s.Err, c.Sprint(msg))
}

// APITime shows a date-time of a webhook, delivery or event. Off a terminal it is shown as the
// API gave it: webhook and delivery times are already in the zone of --time-zone (without
// offset), or UTC with a trailing Z. On a terminal it is relative ("3 minutes ago"), a time
// without offset being read in the zone of --time-zone.
func (p *Printer) APITime(s string) string {
	if s == "" || !p.io.OutTTY {
		return s
	}
	t, err := ParseAPITime(s, p.Loc)
	if err != nil {
		return s
	}
	return RelativeTime(p.now, t, p.Loc)
}

// ParseAPITime reads a date-time with an offset or Z, or without one in loc (UTC when nil).
func ParseAPITime(s string, loc *time.Location) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if loc == nil {
		loc = time.UTC
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date-time", s)
}

// StatusColor is the colour of a webhook or delivery status on a terminal.
func StatusColor(status string) *color.Color {
	switch status {
	case api.WebhookEnabled, "succeeded":
		return color.New(color.FgGreen)
	case api.WebhookDisabled, api.DeliveryFailed:
		return color.New(color.FgRed)
	case api.DeliveryPending:
		return color.New(color.FgYellow)
	}
	return nil
}

// ColorStatus colours text by status when stdout may be coloured.
func (p *Printer) ColorStatus(status, text string) string {
	c := StatusColor(status)
	if c == nil || p.JSON || !p.io.ColorOut() {
		return text
	}
	c.EnableColor()
	return c.Sprint(text)
}

// StatusTable is table with the cells of the column named statusHeader coloured by status on a
// colour terminal. The colour goes in after alignment, where escape codes cannot count as width.
func (p *Printer) StatusTable(data any, headers []string, rows [][]string, empty, statusHeader string) error {
	if p.JSON || !p.io.OutTTY || !p.io.ColorOut() {
		return p.Table(data, headers, rows, empty)
	}
	var buf bytes.Buffer
	ios := *p.io
	ios.Out = &buf
	q := *p
	q.io = &ios
	if err := q.Table(data, headers, rows, empty); err != nil {
		return err
	}
	_, err := io.WriteString(p.io.Out, colorColumn(buf.String(), headers, statusHeader, func(cell string) *color.Color {
		status, _, _ := strings.Cut(cell, " ")
		return StatusColor(status)
	}))
	return err
}

var ansiEscape = regexp.MustCompile("\x1b\\[[0-9;]*m")

// colorColumn colours the cells of one column of an aligned table (header on the first line),
// by the colour colorOf gives each cell's text.
func colorColumn(table string, headers []string, name string, colorOf func(string) *color.Color) string {
	lines := strings.SplitAfter(table, "\n")
	if len(lines) < 2 {
		return table
	}
	head := []rune(ansiEscape.ReplaceAllString(lines[0], ""))
	// the column starts where its header does; headers are searched in order, so that one
	// header inside another cannot mislead
	start, end, pos := -1, -1, 0
	for _, h := range headers {
		at := runeSearch(head, []rune(h), pos)
		if at < 0 {
			return table
		}
		if start >= 0 && end < 0 {
			end = at
		}
		if h == name && start < 0 {
			start = at
		}
		pos = at + len([]rune(h))
	}
	if start < 0 {
		return table
	}
	for i := 1; i < len(lines); i++ {
		line, nl := strings.CutSuffix(lines[i], "\n")
		r := []rune(line)
		if len(r) <= start {
			continue
		}
		stop := len(r)
		if end >= 0 && end < stop {
			stop = end
		}
		cell := strings.TrimRight(string(r[start:stop]), " ")
		c := colorOf(cell)
		if c == nil || cell == "" {
			continue
		}
		c.EnableColor()
		pad := string(r[start+len([]rune(cell)) : stop])
		lines[i] = string(r[:start]) + c.Sprint(cell) + pad + string(r[stop:])
		if nl {
			lines[i] += "\n"
		}
	}
	return strings.Join(lines, "")
}

// runeSearch is the index in runes of sub in s at or after from, or -1.
func runeSearch(s, sub []rune, from int) int {
	for i := from; i+len(sub) <= len(s); i++ {
		if string(s[i:i+len(sub)]) == string(sub) {
			return i
		}
	}
	return -1
}
