// Package fidelity checks a run against the workload it was meant to be:
// clients count what the database returned and wrote (result.Counters:
// edge-read hits, list sizes, shards per transaction, new rows,
// preconditions that became real checks, outcomes), and Compare sets each
// figure beside its target with a stated tolerance, as result.FidelityRow
// values. docs/results.md defines every figure.
package fidelity

import (
	"fmt"
	"math"
	"strings"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// Tolerances. A share passes within Sigmas standard errors of its
// target (the sampling error of n observations) plus the row's stated
// model error: how far the model may put the database from the target
// (runs' own writes move lists, the graph's expectations are averages).
// No fixed floor: at 100,000 observations a 19.6% share must be within
// about 0.5 + 0.5 points. A share whose tolerance is not below its target
// cannot be told from 0 and is skipped, as are rows of fewer than
// MinObservations. A mean passes within MeanTolerance of its target,
// relative: its spread (list sizes up to the limit) has no closed form.
const (
	Sigmas          = 4
	MeanTolerance   = 0.25
	MinObservations = 50
)

// Model errors of the share rows (docs/results.md, "Fidelity").
const (
	// ModelTargeted is the model error of a share the generator aims at
	// key by key (hits, non-empty lists, counts, spans, new adds): only
	// other clients' writes during the run move what a key finds.
	ModelTargeted = 0.005
	// ModelGraph is that of a share the graph's expectation sets (lists of
	// one edge), averaged over sampled degrees of each outdegree piece.
	ModelGraph = 0.01
)

// share makes a row of an observed share hits/n against target, passing
// within Sigmas standard errors plus model.
func share(figure string, target, model float64, hits, n int64, note string) result.FidelityRow {
	r := result.FidelityRow{Figure: figure, Target: target, N: n, P: -1, Note: note}
	if n > 0 {
		r.Observed = float64(hits) / float64(n)
	}
	r.Tolerance = Sigmas*math.Sqrt(math.Max(target*(1-target), 0)/math.Max(float64(n), 1)) + model
	r.Verdict = verdict(n, math.Abs(r.Observed-target) <= r.Tolerance)
	if target > 0 && r.Tolerance >= target && r.Verdict != result.Skipped {
		r.Verdict = result.Skipped
		if n := needed(target, model); n > 0 {
			r.Note = fmt.Sprintf("too few to tell %.4f from 0 (need %d); %s", target, n, note)
		} else {
			r.Note = fmt.Sprintf("%.4f is within the row's model error %.3f of 0: no count tells it from 0; %s", target, model, note)
		}
	}
	return r
}

// Share is share for the rows of other packages (fidelity/expect).
func Share(figure string, target, model float64, hits, n int64, note string) result.FidelityRow {
	return share(figure, target, model, hits, n, note)
}

// Verdict is a row's verdict: skipped below MinObservations, else pass
// when ok.
func Verdict(n int64, ok bool) string { return verdict(n, ok) }

// needed is the observations a share of target needs for its tolerance to
// fall below the target; 0 when none suffice (target within the model error).
func needed(target, model float64) int64 {
	if target <= model {
		return 0
	}
	d := (target - model) / Sigmas
	return int64(math.Ceil(target*(1-target)/(d*d))) + 1
}

// atLeast makes a row that passes when the observed share is at least target.
func atLeast(figure string, target float64, hits, n int64, note string) result.FidelityRow {
	r := share(figure, target, ModelTargeted, hits, n, note)
	r.Verdict = verdict(n, r.Observed >= target-r.Tolerance)
	return r
}

func verdict(n int64, ok bool) string {
	switch {
	case n < MinObservations:
		return result.Skipped
	case ok:
		return result.Pass
	}
	return result.Fail
}

// Compare sets what c counted beside the plan's targets t (recorded with
// the run, fidelity/expect.Targets) for workload w.
// A figure whose target is Natural, or which w never exercises, is left out.
func Compare(w *workload.Workload, t *result.Targets, c *result.Counters) []result.FidelityRow {
	var rows []result.FidelityRow
	if t.EdgeHitRate != workload.Natural && c.PointReads > 0 {
		rows = append(rows, share("edge_point_read finds an edge", t.EdgeHitRate, ModelTargeted, c.PointHits, c.PointReads, sourceNote("edge_hit_rate", t.EdgeHitRate)))
	}
	if c.RangeReads > 0 {
		if t.RangeNonEmpty != workload.Natural {
			rows = append(rows, share("edge_range_read returns edges", t.RangeNonEmpty, ModelTargeted, c.RangeNonEmpty, c.RangeReads, sourceNote("range_nonempty", t.RangeNonEmpty)))
		}
		note := fmt.Sprintf("workload target %.3f, graph expectation at correlation %.4f", w.RangeSizeOne, t.Correlation)
		if !t.SizeOneReached {
			note = fmt.Sprintf("the graph cannot reach the workload's %.3f at any correlation; target is the nearest, at correlation %.4f", w.RangeSizeOne, t.Correlation)
		}
		rows = append(rows, share("non-empty ranges of 1 edge", t.RangeSizeOne, ModelGraph, c.RangeSizes[0], c.RangeNonEmpty, note))
		mean := result.FidelityRow{Figure: "rows per edge_range_read (mean)", Target: t.MeanRangeRows, N: c.RangeReads, P: -1,
			Note: limitsNote(w)}
		mean.Observed = float64(c.RangeRows) / float64(c.RangeReads)
		mean.Tolerance = MeanTolerance * t.MeanRangeRows
		mean.Verdict = verdict(c.RangeReads, math.Abs(mean.Observed-t.MeanRangeRows) <= mean.Tolerance)
		rows = append(rows, mean)
		rows = append(rows, sizedRangeRows(w, t, c)...)
	}
	if c.CountReads > 0 && t.CountNonZero != workload.Natural {
		rows = append(rows, share("edge_count_read counts edges", t.CountNonZero, ModelTargeted, c.CountNonEmpty, c.CountReads, sourceNote("count_nonzero", t.CountNonZero)))
	}
	if c.TimeReads > 0 && t.TimeRangeNonEmpty != workload.Natural {
		rows = append(rows, share("edge_time_read returns edges", t.TimeRangeNonEmpty, ModelTargeted, c.TimeNonEmpty, c.TimeReads, sourceNote("time_range_nonempty", t.TimeRangeNonEmpty)))
	}
	if n := c.Txns[tao.WriteTxn]; n > 0 {
		// At the database: the stores write a bidirectional edge's inverse
		// in the transaction, TAO apart from it (gen/spans.go), so the
		// database sees more spanning than TAOBench's figure, which counts
		// keys; the next row checks that figure.
		rows = append(rows, share("write transactions spanning shards", t.MultiShardWriteTxnsAtDB, ModelGraph, c.MultiShardDB[tao.WriteTxn], n,
			fmt.Sprintf("at the database, inverse rows included: the plan's expectation for keys spanning %.3f (%s) plus inverses", t.MultiShardWriteTxns, sourceNote("multi_shard_write_txns", t.MultiShardWriteTxns))))
		rows = append(rows, share("write transactions' keys spanning shards", t.MultiShardWriteTxns, ModelTargeted, c.MultiShard[tao.WriteTxn], n,
			"by id1, as TAOBench counts; "+sourceNote("multi_shard_write_txns", t.MultiShardWriteTxns)+"; TAO writes inverses apart from the transaction"))
	}
	if n := c.Txns[tao.ReadTxn]; n > 0 {
		rows = append(rows, share("read transactions spanning shards", t.MultiShardReadTxns, ModelTargeted, c.MultiShard[tao.ReadTxn], n, ""))
	}
	if c.Adds > 0 {
		rows = append(rows, share("edge_add inserting a new association", t.EdgeAddNew, ModelTargeted, c.AddsNew, c.Adds, "as the database reported"))
	}
	if c.VersionDrawn > 0 {
		rows = append(rows, atLeast("write_version draws that became checks", 0.95, c.VersionChecked, c.VersionDrawn,
			"at least; the rest found no remembered read of that kind (early in the run)"))
	}
	var all, failed int64
	for cl := range c.Outcomes {
		for o, n := range c.Outcomes[cl] {
			all += n
			// Injected failures are the workload's (errors, txn_errors).
			if tao.Outcome(o).Failed() && !tao.Outcome(o).IsInjected() {
				failed += n
			}
		}
	}
	r := share("requests lost to errors, timeouts, conflicts", 0, 0, failed, all, "a figure of the database, not the workload: should be 0")
	r.Tolerance = 0.01
	r.Verdict = verdict(all, r.Observed <= r.Tolerance)
	rows = append(rows, r)
	return rows
}

// Failed returns the rows whose verdict is result.Fail.
func Failed(rows []result.FidelityRow) []result.FidelityRow {
	var f []result.FidelityRow
	for _, r := range rows {
		if r.Failed() {
			f = append(f, r)
		}
	}
	return f
}

// limitsNote says at which limits the mean rows of range reads are
// expected: range_limit, or the range_limits drawn.
func limitsNote(w *workload.Workload) string {
	if len(w.RangeLimits.Values) == 0 {
		return fmt.Sprintf("graph expectation at limit %d", w.RangeLimit)
	}
	var b strings.Builder
	for i, l := range w.RangeLimits.Values {
		fmt.Fprintf(&b, " %d:%g", l, w.RangeLimits.Weights[i])
	}
	return "graph expectation over range_limits" + b.String()
}
