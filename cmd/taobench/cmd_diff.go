package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/taobench/taobench/diff"
	"github.com/taobench/taobench/internal/flagx"
	"github.com/taobench/taobench/internal/termsafe"
	"github.com/taobench/taobench/stats"
)

// cmdDiff compares two results files figure by figure, each change with
// its interval and a verdict corrected for the number of figures
// (docs/results.md, "Comparing runs").
func cmdDiff(_ context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	confidence := fs.Float64("confidence", 0.95, "the confidence of the intervals and verdicts: two runs of one configuration get a verdict other than \"no difference detectable\" with chance at most 1 - confidence")
	flagArgs, files := flagx.SplitArgs(fs, args)
	if err := parse(fs, flagArgs); err != nil {
		return err
	}
	if !(*confidence > 0 && *confidence < 1) {
		return badInput("diff: --confidence %g: give a level between 0 and 1, such as 0.95", *confidence)
	}
	if len(files) != 2 {
		return badInput("diff: %d results files given; give two, the base then the new: taobench diff base.json new.json", len(files))
	}
	runs, err := readResults("diff", files)
	if err != nil {
		return err
	}
	r, err := diff.Compare(runs[0].Doc, runs[1].Doc, *confidence)
	if err != nil {
		return badInputErr(fmt.Errorf("diff: %w", err))
	}
	w := e.stdout
	fmt.Fprintf(w, "base: %s (%s)\nnew:  %s (%s)\n", termsafe.Escape(files[0]), termsafe.Escape(runs[0].Doc.Run.Database),
		termsafe.Escape(files[1]), termsafe.Escape(runs[1].Doc.Run.Database))
	if r.Comparable() {
		fmt.Fprintln(w, "comparable: same workload, graph, clients, schedule and taobench version")
	} else {
		fmt.Fprintf(w, "NOT COMPARABLE: %s\n", termsafe.Escape(strings.Join(r.Differences, "; ")))
	}
	fmt.Fprintf(w, "changes of new against base with their %g%% intervals; verdicts from Holm-adjusted p-values over the %d figures tested\n", 100*r.Confidence, r.Tested)
	col := "exp"
	if r.Repeats[0] > 0 {
		col = "config"
		fmt.Fprintf(w, "both runs repeated (%d and %d repeats): each configuration's mean across its repeats, intervals from the spread between repeats (docs/results.md \"Repeats\")\n", r.Repeats[0], r.Repeats[1])
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, col+"\tfigure\tbase\tnew\tchange\tinterval\tHolm p\tverdict\t")
	for _, f := range r.Figures {
		p := "-"
		if !math.IsNaN(f.AdjustedP) {
			p = fmt.Sprintf("%.3g", f.AdjustedP)
		}
		verdict := f.Verdict
		if f.Note != "" {
			verdict += ": " + f.Note
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", f.Experiment, f.Name, value(f.Base, f.Unit), value(f.New, f.Unit),
			signed(f.ChangePct), interval(f), p, verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\noverall: %s\n", r.Overall)
	return nil
}

func value(iv stats.Interval, unit string) string {
	if unit == "µs" {
		return fmt.Sprintf("%.3f ms", iv.Estimate/1000)
	}
	return fmt.Sprintf("%.4g %s", iv.Estimate, unit)
}

func signed(pct float64) string {
	if math.IsNaN(pct) {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", pct)
}

func interval(f diff.Figure) string {
	if f.Note != "" || math.IsNaN(f.LoPct) {
		return "-"
	}
	return fmt.Sprintf("[%+.1f%%, %+.1f%%]", f.LoPct, f.HiPct)
}
