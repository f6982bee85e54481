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

// textSink is a session.Sink for a person: notes and load progress as text on W
// (a bar redrawn in place on a terminal, a plain line every 10 s
// otherwise, so logs and CI keep readable output), and experiments
// through Started and Ended. Nil fields do nothing.
type textSink struct {
	W io.Writer
	// Started and Ended are the sink's ExperimentStarted and
	// ExperimentEnded.
	Started func(k, n int, label string, x run.Experiment)
	Ended   func(done []*result.Experiment, final bool) error

	bar *progress
}

// Note writes msg as a line, in the command line's words (flagWords).
func (t *textSink) Note(msg string) { fmt.Fprintln(t.W, flagWords(msg)) }

// LoadProgress draws the load's progress.
func (t *textSink) LoadProgress(p bulkload.Progress) {
	if t.bar == nil {
		t.bar = newProgress(t.W)
	}
	t.bar.report(p)
}

// LoadEnded ends the progress bar's line.
func (t *textSink) LoadEnded() {
	if t.bar != nil {
		t.bar.finish()
		t.bar = nil
	}
}

// ExperimentStarted calls Started.
func (t *textSink) ExperimentStarted(k, n int, label string, x run.Experiment) {
	if t.Started != nil {
		t.Started(k, n, label, x)
	}
}

// ExperimentEnded calls Ended.
func (t *textSink) ExperimentEnded(done []*result.Experiment, final bool) error {
	if t.Ended != nil {
		return t.Ended(done, final)
	}
	return nil
}

// progress shows a load's progress: a bar redrawn in place on a terminal,
// a plain line every period otherwise.
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
