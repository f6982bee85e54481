package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/tao"
)

// The tables the command prints from the data session returns.

// rateNote describes an experiment's loop for its opening line.
func rateNote(rate float64, a run.Arrival) string {
	if rate == 0 {
		return ", closed loop"
	}
	return fmt.Sprintf(", target rate %s req/s (%s arrivals)", strconv.FormatFloat(rate, 'f', -1, 64), a)
}

// writeHoldTable prints the lock-hold table.
func writeHoldTable(w io.Writer, info *result.Run, rows []session.HoldRow) {
	fmt.Fprintf(w, "lock hold time (TAOBench §6.2, Fig. 12): workload %s on %s, %d edges, retries %d\n", info.Workload, info.Database, info.Edges, info.Retries)
	fmt.Fprintln(w, "conflict %: writes that met a lock conflict (object or association; any attempt); timeout %, failed %: final outcome of writes")
	if len(rows) > 0 && rows[0].TargetRate > 0 {
		fmt.Fprintf(w, "open loop at %s req/s offered; latency from each request's intended start; * marks a step whose clients could not issue that rate (raise --threads)\n", strconv.FormatFloat(rows[0].TargetRate, 'f', -1, 64))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "hold\twrites\treq/s\tconflict %\tobj conflict %\tassoc conflict %\ttimeout %\tfailed %\tp50 ms\tp99 ms\t")
	for _, r := range rows {
		hold := r.Hold
		if !r.Reached {
			hold += "*"
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f\t%.2f\t\n", hold, r.Writes, r.Throughput,
			r.ConflictPct, r.ObjConflictPct, r.AssocConflict, r.TimeoutPct, r.FailedPct, r.P50Ms, r.P99Ms)
	}
	tw.Flush()
}

// writeWaitTable prints the precondition-wait table.
func writeWaitTable(w io.Writer, info *result.Run, threads int, rows []session.WaitRow) {
	fmt.Fprintf(w, "precondition wait (TAOBench §6.3, Fig. 13): workload %s on %s, %d edges, %d threads, retries %d\n",
		info.Workload, info.Database, info.Edges, threads, info.Retries)
	fmt.Fprintln(w, "failed %: writes with a version precondition that failed on it, by the wait drawn; ratio: to the first positive wait's")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "wait\tpreconditioned\tfailed\tfailed %\tratio\t")
	for _, r := range rows {
		ratio := "-"
		if r.Ratio > 0 {
			ratio = fmt.Sprintf("%.2f", r.Ratio)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.3f\t%s\t\n", r.Wait, r.Checked, r.Failed, r.FailedPct, ratio)
	}
	tw.Flush()
}

// writeCompareTable prints the compare table: names are the steps, series
// the latencies' (LatencyOf).
func writeCompareTable(w io.Writer, info *result.Run, names []string, rows []session.CompareRow, series string) {
	fmt.Fprintf(w, "compare (TAOBench Tables 6, 7): %s on %s, %d edges, retries %d; latency of %s requests\n",
		strings.Join(names, " vs "), info.Database, info.Edges, info.Retries, series)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "metric\t" + strings.Join(names, "\t") + "\t"
	for _, n := range names[1:] {
		head += "% diff " + n + "\t"
	}
	fmt.Fprintln(tw, head)
	for _, r := range rows {
		line := r.Metric + "\t"
		for _, v := range r.Values {
			line += fmt.Sprintf("%.3f\t", v)
		}
		for _, d := range r.DiffPct {
			if math.IsNaN(d) {
				line += "-\t"
			} else {
				line += fmt.Sprintf("%+.1f%%\t", d)
			}
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
}

// openLoopNote says, under a table of open-loop steps, what load was
// offered and which steps' clients could not issue it: their latencies
// then include queueing for a client as well as for the database.
func openLoopNote(w io.Writer, done []*result.Experiment, names []string) {
	if len(done) == 0 || done[0].OpenLoop.Rate == 0 {
		return
	}
	var short []string
	for i, x := range done {
		if !x.OpenLoop.Reached() {
			short = append(short, fmt.Sprintf("%s (%d of %d scheduled requests not issued)", names[i], x.OpenLoop.NotIssued, x.OpenLoop.Scheduled))
		}
	}
	fmt.Fprintf(w, "open loop at %s req/s offered (%s arrivals); latency from each request's intended start\n",
		strconv.FormatFloat(done[0].OpenLoop.Rate, 'f', -1, 64), done[0].OpenLoop.Arrival)
	if len(short) > 0 {
		fmt.Fprintf(w, "rate not reached, raise --threads: %s\n", strings.Join(short, "; "))
	}
}

// writeSweepHeader and writeSweepRow print the sweep's table: latencies in
// ms from the intended start, p50/p99/p99.9 for all requests and per class.
func writeSweepHeader(w io.Writer) {
	fmt.Fprintf(w, "%10s %10s %6s %7s %7s %9s  %-22s", "target/s", "achieved/s", "ok", "errors%", "failed%", "contend%", "all p50/p99/p99.9 ms")
	for c := range tao.NumClasses {
		fmt.Fprintf(w, "  %-22s", c.String()+" p50/p99/p99.9")
	}
	fmt.Fprintln(w)
}

func writeSweepRow(w io.Writer, r session.Row) {
	ok := "yes"
	if !r.Reached {
		ok = "NO"
	}
	fmt.Fprintf(w, "%10.0f %10.1f %6s %7.3f %7.3f %9.4f  %-22s", r.Target, r.Achieved, ok, r.ErrorsPct, r.FailedPct, r.ContentionPct, triple(r.All))
	for c := range tao.NumClasses {
		fmt.Fprintf(w, "  %-22s", triple(r.Classes[c]))
	}
	fmt.Fprintln(w)
}

func triple(st metrics.LatencyStats) string {
	if st.Count == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f/%.2f/%.2f", st.P50/1000, st.P99/1000, st.P999/1000)
}

// writeSweepEnd says why a sweep stopped, when it did before its rates
// ran out.
func writeSweepEnd(w io.Writer, end session.SweepEnd) {
	switch {
	case end.Unsaturated:
		fmt.Fprintf(w, "stopped after %d steps without saturating: give a higher --start or --max-steps\n", end.Steps)
	case end.Saturated != "":
		fmt.Fprintf(w, "saturated at a target of %g req/s: %s\n", end.Rate, end.Saturated)
	}
}

// writeProbe prints probe n's verdict (from 1) against the SLAs.
func writeProbe(w io.Writer, n int, x *result.Experiment, slas []session.SLA) {
	line, pass := session.Verdict(x, slas)
	word := "pass"
	if !pass {
		word = "FAIL"
	}
	fmt.Fprintf(w, "probe %d: target %.0f req/s: %s: %s\n", n, x.OpenLoop.Rate, word, line)
}

// writeRating prints the rating r found in at most maxProbes probes; a
// rating of 0 (even the lowest target failed) is the caller's to report.
func writeRating(w io.Writer, r session.Rating, maxProbes int) {
	switch {
	case r.OutOfProbes:
		fmt.Fprintf(w, "stopped after %d probes (--max-probes)\n", maxProbes)
	case r.AtMaxRate:
		fmt.Fprintf(w, "the next probe would pass the most taobench issues (%g req/s)\n", float64(run.MaxRate))
	}
	fmt.Fprintf(w, "rating: %.0f req/s, the highest target at which every session.SLA held", r.Rate)
	if r.Failed > 0 {
		fmt.Fprintf(w, " (%.0f req/s failed)", r.Failed)
	}
	fmt.Fprintln(w)
}

// writeProbesTitle opens a sweep's or a rating's output: what every probe
// (or step: per) runs, and after it what it is measured against (more).
func writeProbesTitle(w io.Writer, title string, info *result.Run, x run.Experiment, a run.Arrival, per, more string) {
	fmt.Fprintf(w, "%s: workload %s on %s, %d clients, %v warmup + %v per %s, %s arrivals%s\n",
		title, info.Workload, info.Database, x.Threads, x.Warmup, x.Duration, per, a, more)
}

// writePaperTable prints the table of one of the paper's experiments, with
// the steps done (none: nothing), under it the open loop's note.
func writePaperTable(w io.Writer, p *session.Paper, threads int) {
	if p == nil || len(p.Done) == 0 {
		return
	}
	switch rows := p.Table.(type) {
	case []session.HoldRow:
		if len(rows) > 0 {
			writeHoldTable(w, p.Info, rows)
		}
	case []session.WaitRow:
		writeWaitTable(w, p.Info, threads, rows)
		openLoopNote(w, p.Done, p.Labels)
	case []session.CompareRow:
		writeCompareTable(w, p.Info, p.Labels, rows, session.LatencyOf(p.Done))
		openLoopNote(w, p.Done, p.Labels)
	}
}
