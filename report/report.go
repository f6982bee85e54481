// Package report writes the results of experiments: a text summary that
// begins with the original TAOBench lines, so existing scripts keep working,
// and a JSON document with fixed keys for tools. docs/results.md defines every
// line and key.
package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/tao"
)

// Experiment is the result of one experiment.
type Experiment struct {
	Threads          int
	Warmup, Duration time.Duration // configured
	TotalRuntime     time.Duration // wall time including warmup
	Measured         time.Duration // measured window actually run (shorter if interrupted)
	Interrupted      bool          // Ctrl-C ended it early
	Started          time.Time     // when the experiment began
	FirstRequest     time.Duration // from Started to the first request issued
	Summary          *metrics.Summary
}

// Run is what all experiments of a run share; it is written once in the JSON.
type Run struct {
	Database   string // already redacted by the caller
	Workload   string
	Seed       uint64
	Edges      int64
	Retries    int
	Started    time.Time
	Version    string
	NotApplied []string
}

func (e *Experiment) summary() *metrics.Summary {
	if e.Summary == nil {
		return metrics.NewSummary()
	}
	return e.Summary
}

// throughput is requests per second of the measured window.
func (e *Experiment) throughput() float64 {
	if e.Measured <= 0 {
		return 0
	}
	return float64(e.summary().Requests()) / e.Measured.Seconds()
}

// bracket is one category of the original's latency line: the union of the
// named series.
type bracket struct {
	name   string
	series []string
}

// brackets are in the original's order (its Operation enum); WRITE, the
// aggregate of single writes, always comes last.
var brackets = []bracket{
	{"INSERT", []string{"obj_add", "edge_add"}},
	{"READ", []string{"read"}},
	{"UPDATE", []string{"obj_update", "edge_update"}},
	{"DELETE", []string{"obj_delete", "edge_delete"}},
	{"READTRANSACTION", []string{"read_txn"}},
	{"WRITETRANSACTION", []string{"write_txn"}},
}

// WriteText writes the summary of one experiment, ending with a blank line.
func WriteText(w io.Writer, e *Experiment) error {
	s := e.summary()
	var b strings.Builder

	// The original's lines, number formats included.
	fmt.Fprintf(&b, "Experiment description: %d threads, %s seconds (warmup), %s seconds (experiment)\n",
		e.Threads, num(e.Warmup.Seconds()), num(e.Duration.Seconds()))
	fmt.Fprintf(&b, "Total runtime (sec): %s\n", num(e.TotalRuntime.Seconds()))
	fmt.Fprintf(&b, "Runtime excluding warmup (sec): %s\n", num(e.Measured.Seconds()))
	fmt.Fprintf(&b, "Total completed operations excluding warmup: %d\n", s.Requests())
	fmt.Fprintf(&b, "Throughput excluding warmup: %s\n", num(e.throughput()))
	fmt.Fprintf(&b, "Number of overtime operations: 0\n")
	fmt.Fprintf(&b, "Number of failed operations: %d\n", s.Failed())
	fmt.Fprintf(&b, "%d operations;", s.Requests())
	for _, br := range brackets {
		if st := s.Stats(br.series...); st.Count > 0 {
			writeBracket(&b, br.name, st)
		}
	}
	writeBracket(&b, "WRITE", s.Stats("write"))
	b.WriteString("\n")

	if e.Interrupted {
		fmt.Fprintf(&b, "interrupted: measured %s s of %s s\n", num(e.Measured.Seconds()), num(e.Duration.Seconds()))
	}

	// Percentiles, per class then per kind of single-operation request.
	fmt.Fprintf(&b, "\n%-16s %10s %10s %10s %10s %10s %10s %10s\n",
		"latency (ms)", "count", "mean", "p50", "p90", "p99", "p99.9", "max")
	for _, name := range seriesNames() {
		st := s.Stats(name)
		if st.Count == 0 {
			continue
		}
		fmt.Fprintf(&b, "%-16s %10d %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f\n", name, st.Count,
			st.Mean/1000, st.P50/1000, st.P90/1000, st.P99/1000, st.P999/1000, st.Max/1000)
	}

	b.WriteString("\noutcomes:")
	for o := range tao.NumOutcomes {
		fmt.Fprintf(&b, " %s %d", o, s.Outcome(o))
	}
	fmt.Fprintf(&b, "\nattempts: %d (%d retries)\n", s.Attempts(), s.Attempts()-s.Requests())

	c := s.Contention()
	fmt.Fprintf(&b, "contention: object lock conflict %.3f%%, association lock conflict %.3f%%, "+
		"unique association exists %.3f%%, precondition failed %.3f%%, overall %.3f%%\n",
		c.ObjectLockConflictPct, c.AssociationLockConflictPct, c.UniqueAssociationExistsPct,
		c.PreconditionFailedPct, c.OverallPct)

	if lost, tl := s.Lost(); lost > 0 {
		var errs, timeouts int64
		for _, l := range tl {
			errs += l.Errors
			timeouts += l.Timeouts
		}
		fmt.Fprintf(&b, "lost requests: %d (errors %d, timeouts %d) between %ds and %ds of the measured window\n",
			lost, errs, timeouts, tl[0].Second, tl[len(tl)-1].Second+1)
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func writeBracket(b *strings.Builder, name string, st metrics.LatencyStats) {
	fmt.Fprintf(b, " [%s: Count=%d Max=%.2f Min=%.2f Avg=%.2f]", name, st.Count, st.Max, st.Min, st.Mean)
}

// seriesNames lists the classes, then the kinds, in their canonical order.
func seriesNames() []string {
	var names []string
	for c := range tao.NumClasses {
		names = append(names, c.String())
	}
	for k := range tao.NumKinds {
		names = append(names, k.String())
	}
	return names
}

// num formats x like C++'s default stream output (6 significant digits,
// trailing zeros dropped), as the original prints, but never in exponent form
// so a simple [0-9.]+ pattern always matches.
func num(x float64) string {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return "0"
	}
	decimals := min(max(5-int(math.Floor(math.Log10(math.Abs(x)))), 0), 6)
	s := strconv.FormatFloat(x, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
