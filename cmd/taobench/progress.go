package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/taobench/taobench/load"
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

func (p *progress) report(pr load.Progress) {
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
