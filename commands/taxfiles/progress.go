package taxfiles

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// bulkProgress counts the pairs of a bulk upload as they end and draws the progress line of a
// terminal: a bar, done/total, the rate in pairs per second and the time left.
type bulkProgress struct {
	mu       sync.Mutex
	total    int
	start    time.Time
	uploaded int
	skipped  int
	failed   int
	other    int
}

func (p *bulkProgress) add(r pairResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch r.Outcome {
	case outcomeUploaded:
		p.uploaded++
	case outcomeSkipped:
		p.skipped++
	case outcomeFailed:
		p.failed++
	default:
		p.other++
	}
}

// line renders the progress at now, in at most width columns.
func (p *bulkProgress) line(now time.Time, width int) string {
	p.mu.Lock()
	done := p.uploaded + p.skipped + p.failed + p.other
	up, sk, fl, total := p.uploaded, p.skipped, p.failed, p.total
	p.mu.Unlock()
	elapsed := now.Sub(p.start)
	rate := 0.0
	if elapsed > 0 {
		rate = float64(done) / elapsed.Seconds()
	}
	eta := "--"
	switch {
	case done >= total:
		eta = "0s"
	case rate > 0:
		eta = shortDuration(time.Duration(float64(total-done) / rate * float64(time.Second)))
	}
	pct := 100
	if total > 0 {
		pct = done * 100 / total
	}
	tail := fmt.Sprintf(" %d/%d %3d%% %5.1f/s ETA %s  ✓%d ↷%d ✗%d", done, total, pct, rate, eta, up, sk, fl)
	barWidth := min(40, width-len([]rune(tail))-2)
	if barWidth < 5 {
		return strings.TrimSpace(tail)
	}
	filled := barWidth * pct / 100
	return "[" + strings.Repeat("#", filled) + strings.Repeat(".", barWidth-filled) + "]" + tail
}

// shortDuration is a duration in whole seconds, minutes or hours: 45s, 3m10s, 2h05m.
func shortDuration(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s/60%60)
}

// progressDrawer redraws the progress line on a terminal every tick, and prints messages above
// it. All writes to w go through it while it runs.
type progressDrawer struct {
	mu    sync.Mutex
	w     io.Writer
	p     *bulkProgress
	now   func() time.Time
	width int
	stop  chan struct{}
	done  chan struct{}
}

func startProgress(w io.Writer, p *bulkProgress, now func() time.Time, width int, tick time.Duration) *progressDrawer {
	d := &progressDrawer{w: w, p: p, now: now, width: width, stop: make(chan struct{}), done: make(chan struct{})}
	d.draw()
	go func() {
		defer close(d.done)
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				d.draw()
			case <-d.stop:
				return
			}
		}
	}()
	return d
}

const clearLine = "\r\x1b[K"

func (d *progressDrawer) draw() {
	d.mu.Lock()
	defer d.mu.Unlock()
	fmt.Fprint(d.w, clearLine+d.p.line(d.now(), d.width))
}

// println writes a line above the progress line.
func (d *progressDrawer) println(s string) {
	d.mu.Lock()
	fmt.Fprint(d.w, clearLine+s+"\n"+d.p.line(d.now(), d.width))
	d.mu.Unlock()
}

// finish draws the last state and ends the line.
func (d *progressDrawer) finish() {
	close(d.stop)
	<-d.done
	d.mu.Lock()
	defer d.mu.Unlock()
	fmt.Fprint(d.w, clearLine+d.p.line(d.now(), d.width)+"\n")
}
