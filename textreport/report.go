// Package textreport writes the results of experiments as text: a summary that
// begins with the original TAOBench lines, so existing scripts keep working,
// the fidelity table, and HDR histogram logs; the JSON document is result's
// (result.WriteJSON), and --format chooses among both (Reporters).
// docs/results.md defines every line and key.
package textreport

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/taobench/taobench/internal/termsafe"
	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
)

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
func WriteText(w io.Writer, e *result.Experiment) error { return WriteTextRun(w, nil, e) }

// WriteTextRun is WriteText with what the experiment's run recorded (nil:
// nothing): the client's line after the original's.
func WriteTextRun(w io.Writer, run *result.Run, e *result.Experiment) error {
	s := e.Sum()
	var b strings.Builder

	// The original's lines, number formats included.
	fmt.Fprintf(&b, "Experiment description: %d threads, %s seconds (warmup), %s seconds (experiment)\n",
		e.Threads, num(e.Warmup.Seconds()), num(e.Duration.Seconds()))
	fmt.Fprintf(&b, "Total runtime (sec): %s\n", num(e.TotalRuntime.Seconds()))
	fmt.Fprintf(&b, "Runtime excluding warmup (sec): %s\n", num(e.Measured.Seconds()))
	fmt.Fprintf(&b, "Total completed operations excluding warmup: %d\n", s.Requests())
	fmt.Fprintf(&b, "Throughput excluding warmup: %s\n", num(e.Throughput()))
	fmt.Fprintf(&b, "Number of overtime operations: %d\n", e.Overtime)
	fmt.Fprintf(&b, "Number of failed operations: %d\n", s.Failed())
	fmt.Fprintf(&b, "%d operations;", s.Requests())
	for _, br := range brackets {
		if st := s.Stats(br.series...); st.Count > 0 {
			writeBracket(&b, br.name, st)
		}
	}
	writeBracket(&b, "WRITE", s.Stats("write"))
	b.WriteString("\n")
	if run != nil && run.Client != (result.Client{}) {
		b.WriteString("client: " + termsafe.Escape(run.Client.String()) + "\n")
	}

	if e.Interrupted {
		fmt.Fprintf(&b, "interrupted: measured %s s of %s s\n", num(e.Measured.Seconds()), num(e.Duration.Seconds()))
	}
	if n, longest, _ := e.NoService(); n > 0 {
		fmt.Fprintf(&b, "no service: in %d of the measured window's %d whole seconds requests were due and the database answered none (longest gap %d s); the throughput above averages over the whole window\n",
			n, int(e.Measured/time.Second), longest)
	}
	if o := e.OpenLoop; o.Rate > 0 {
		fmt.Fprintf(&b, "target rate: %s req/s (%s arrivals), achieved %s req/s (%.1f%%); %d of %d scheduled requests issued\n",
			num(o.Rate), o.Arrival, num(e.Throughput()), 100*e.Throughput()/o.Rate, o.Scheduled-o.NotIssued, o.Scheduled)
		if !o.Reached() {
			fmt.Fprintf(&b, "target rate not reached: %d scheduled requests were never issued, every client being busy until the end; latencies include the queueing. Give more --threads, or a lower --rate\n",
				o.NotIssued)
		}
	}

	// Percentiles, per class then per kind of single-operation request.
	fmt.Fprintf(&b, "\n%-16s %10s %10s %10s %10s %10s %10s %10s\n",
		"latency (ms)", "count", "mean", "p50", "p90", "p99", "p99.9", "max")
	for _, name := range metrics.SeriesNames() {
		st := s.Stats(name)
		if st.Count == 0 {
			continue
		}
		fmt.Fprintf(&b, "%-16s %10d %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f\n", name, st.Count,
			st.Mean/1000, st.P50/1000, st.P90/1000, st.P99/1000, st.P999/1000, st.Max/1000)
	}
	writeIntervals(&b, e.Intervals(result.Confidence))
	if e.OpenLoop.Rate > 0 {
		// Service time: from the actual start, without the queueing.
		fmt.Fprintf(&b, "\n%-16s %10s %10s %10s %10s %10s %10s %10s\n",
			"service (ms)", "count", "mean", "p50", "p90", "p99", "p99.9", "max")
		for c := range tao.NumClasses {
			st := s.ServiceStats(c.String())
			if st.Count == 0 {
				continue
			}
			fmt.Fprintf(&b, "%-16s %10d %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f\n", c, st.Count,
				st.Mean/1000, st.P50/1000, st.P90/1000, st.P99/1000, st.P999/1000, st.Max/1000)
		}
	}

	if s.InjectedStats(metrics.All).Count > 0 {
		// Injected latency is part of the latencies above; here it is alone.
		b.WriteString("\ninjected latency (ms), included above:")
		for c := range tao.NumClasses {
			if st := s.InjectedStats(c.String()); st.Count > 0 {
				fmt.Fprintf(&b, " %s mean %.3f p99 %.3f;", c, st.Mean/1000, st.P99/1000)
			}
		}
		b.WriteString("\n")
	}

	b.WriteString("\noutcomes:")
	for o := range tao.NumOutcomes {
		fmt.Fprintf(&b, " %s %d", o, s.Outcome(o))
	}
	fmt.Fprintf(&b, "\nattempts: %d (%d retries)\n", s.Attempts(), s.Attempts()-s.Requests())
	if c := e.Counters; c != nil && c.Txns[tao.WriteTxn] > 0 {
		o := &c.Outcomes[tao.WriteTxn]
		fmt.Fprintf(&b, "write transactions: %d committed, aborted by precondition_failed %d, unique_violation %d, conflict %d, timeout %d, error %d",
			o[tao.OK], o[tao.PreconditionFailed], o[tao.UniqueViolation], o[tao.ConflictObject]+o[tao.ConflictAssociation],
			o[tao.Timeout], o[tao.Error])
		// Each injected failure leaves something different behind
		// (docs/experiments.md), so each is named.
		for _, f := range []tao.Outcome{tao.FailedAfterReserve, tao.FailedAfterPrimaryCommit, tao.FailedAfterPrimaryRollback} {
			if o[f] > 0 {
				fmt.Fprintf(&b, ", %s %d", f, o[f])
			}
		}
		fmt.Fprintf(&b, "; no-op writes (committed, found no row) %d\n", c.NoopWrites)
	}

	c := e.Contention()
	fmt.Fprintf(&b, "contention: object lock conflict %.3f%%, association lock conflict %.3f%%, overall %.3f%%; "+
		"unique association exists %.3f%%, overall with unique %.3f%%; precondition failed %.3f%%\n",
		c.ObjectLockConflictPct, c.AssociationLockConflictPct, c.OverallPct,
		c.UniqueAssociationExistsPct, c.OverallWithUniquePct, c.PreconditionFailedPct)
	if len(e.ErrorCodes) > 0 {
		// Which conflict it was (a deadlock, a lock wait timeout, a
		// serialization failure) is the database's code, not the outcome.
		b.WriteString("attempts by the database's code:")
		for i, k := range e.ErrorCodes.Sorted() {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(" " + termsafe.Escape(k.String()))
		}
		b.WriteString("\n")
	}
	if c.WriteWriteConflictPct > 0 {
		// TAOBench §3.3's view: write-write conflicts, racing inserts apart.
		fmt.Fprintf(&b, "write-write conflicts: %.3f%% of write requests, %.3f%% of write transactions (TAO: 10.1%%); "+
			"racing inserts %.3f%% of write requests, %.1f%% of write-write conflicts (TAO: over 97.3%%)\n",
			c.WriteWriteConflictPct, c.WriteTxnConflictPct, c.RacingInsertConflictPct, c.RacingInsertSharePct)
		// Who decided them: the server, by an error code, or the engine
		// without error (an upsert finding the row a racing copy wrote).
		fmt.Fprintf(&b, "  as the database reported them: server-signalled (by code) %.3f%% of write requests, %.3f%% of write transactions; "+
			"resolved without error %.3f%% of write requests, racing copies that found their row %.3f%%\n",
			c.ServerSignalledConflictPct, c.WriteTxnSignalledPct, c.ResolvedWithoutErrorPct, c.RacingCopiesResolvedPct)
	}

	if len(e.Fidelity) > 0 {
		b.WriteString("\n")
		if err := WriteFidelity(&b, e.Fidelity); err != nil {
			return err
		}
	}
	if lost, tl := s.Lost(); lost > 0 {
		var errs, timeouts int64
		for _, l := range tl {
			errs += l.Errors
			timeouts += l.Timeouts
		}
		fmt.Fprintf(&b, "lost requests: %d (errors %d, timeouts %d) between %ds and %ds of the measured window\n",
			lost, errs, timeouts, tl[0].Second, tl[len(tl)-1].Second+1)
	}
	writeConsistency(&b, e.Consistency, e.Sum())
	writeConcurrent(&b, e)
	writeResources(&b, e.Resources)
	writeEndpoints(&b, e)
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func writeBracket(b *strings.Builder, name string, st metrics.LatencyStats) {
	fmt.Fprintf(b, " [%s: Count=%d Max=%.2f Min=%.2f Avg=%.2f]", name, st.Count, st.Max, st.Min, st.Mean)
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

// WriteFidelity writes fidelity rows as a table: each figure's target,
// what the database returned, the tolerance and the verdict.
func WriteFidelity(w io.Writer, rows []result.FidelityRow) error {
	if len(rows) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-42s %10s %10s %10s %9s %8s  %s\n", "fidelity (what the database returned)", "target", "observed", "tolerance", "n", "result", "note")
	for _, r := range rows {
		fmt.Fprintf(&b, "%-42s %10.4f %10.4f %10.4f %9d %8s  %s\n", r.Figure, r.Target, r.Observed, r.Tolerance, r.N, r.Verdict, r.Note)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
