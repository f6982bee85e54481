package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/taobench/taobench/bulkload"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
)

// progress shows a load's progress: a bar redrawn in place on a terminal,
// a plain line every 10 s otherwise (logs and CI keep readable output).
type progress struct {
	w      io.Writer
	tty    bool
	last   time.Time
	drawn  bool
	period time.Duration
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w, period: 10 * time.Second}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.tty = true
	}
	return p
}

func (p *progress) report(pr bulkload.Progress) {
	frac := 0.0
	if pr.TotalNodes > 0 {
		frac = float64(pr.Nodes) / float64(pr.TotalNodes)
	}
	secs := pr.Elapsed.Seconds()
	rate := float64(pr.Rows) / max(secs, 1e-9)
	left := "?"
	if frac > 0 && !pr.Done {
		left = (time.Duration(secs*(1-frac)/frac) * time.Second).Round(time.Second).String()
	}
	if pr.Done {
		left = "0s"
	}
	if p.tty {
		const width = 30
		n := int(frac * width)
		bar := strings.Repeat("=", n) + strings.Repeat(" ", width-n)
		fmt.Fprintf(p.w, "\r[%s] %3.0f%% %d rows %.0f rows/s, %s left   ", bar, frac*100, pr.Rows, rate, left)
		p.drawn = true
		return
	}
	now := time.Now()
	if pr.Done || now.Sub(p.last) >= p.period {
		p.last = now
		fmt.Fprintf(p.w, "load: %3.0f%% %d rows %.0f rows/s, %s left\n", frac*100, pr.Rows, rate, left)
	}
}

func (p *progress) finish() {
	if p.drawn {
		fmt.Fprintln(p.w)
	}
}

// cliSink is how a command shows a session's work: notes and load
// progress on stderr, load progress also to the metrics server, and
// experiments through the command's own functions (nil: nothing).
type cliSink struct {
	e       *env
	bar     *progress
	started func(k, n int, label string, x run.Experiment)
	ended   func(done []*result.Experiment, final bool) error
}

func (c *cliSink) Note(msg string) { fmt.Fprintln(c.e.stderr, msg) }

func (c *cliSink) LoadProgress(p bulkload.Progress) {
	if c.bar == nil {
		c.bar = newProgress(c.e.stderr)
	}
	if c.e.live != nil {
		c.e.live.Load.Observe(p)
	}
	c.bar.report(p)
}

func (c *cliSink) LoadEnded() {
	if c.bar != nil {
		c.bar.finish()
		c.bar = nil
	}
}

func (c *cliSink) ExperimentStarted(k, n int, label string, x run.Experiment) {
	if c.started != nil {
		c.started(k, n, label, x)
	}
}

func (c *cliSink) ExperimentEnded(done []*result.Experiment, final bool) error {
	if c.ended != nil {
		return c.ended(done, final)
	}
	return nil
}
