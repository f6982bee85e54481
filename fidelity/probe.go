package fidelity

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/taobench/taobench/chisquare"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/workload"
	"gonum.org/v1/gonum/stat/distuv"
)

// RangeProbe is what the database holds for the lists a plan's range reads
// draw: the plan's own draws (a client no run uses), each list counted by
// an edge_count_read, its rows the count up to the read's limit. Runs'
// adds and deletes move lists away from the graph of the load, and the
// graph's expectation (Compare's range rows) does not follow them; a
// probe before and one after a run bracket what the run's reads met, and
// a count is a query apart from the range read the run's clients made, so
// a store whose range reads lose rows still differs.
type RangeProbe struct {
	Reads, NonEmpty, One int64
	Rows, RowsSq         float64
	// Sizes counts the non-empty lists by size bucket, as
	// result.Counters.RangeSizes does.
	Sizes [result.SizeBuckets]int64
}

// Add counts a list of count edges read with limit.
func (p *RangeProbe) Add(count, limit int) {
	rows := float64(count)
	if limit > 0 {
		rows = math.Min(rows, float64(limit))
	}
	p.Reads++
	p.Rows += rows
	p.RowsSq += rows * rows
	if rows > 0 {
		p.NonEmpty++
		p.Sizes[min(bits.Len64(uint64(rows))-1, result.SizeBuckets-1)]++
	}
	if rows == 1 {
		p.One++
	}
}

func (p RangeProbe) nonEmpty() float64 { return ratio(p.NonEmpty, p.Reads) }
func (p RangeProbe) sizeOne() float64  { return ratio(p.One, p.NonEmpty) }
func (p RangeProbe) mean() float64     { return p.Rows / math.Max(float64(p.Reads), 1) }

// sd is the standard deviation of rows per read.
func (p RangeProbe) sd() float64 {
	n := math.Max(float64(p.Reads), 1)
	m := p.Rows / n
	return math.Sqrt(math.Max(p.RowsSq/n-m*m, 0))
}

// ProbedRangeRows are Compare's range rows with the probes' figures as
// targets: the mean of the probe before and after the run, passing within
// Sigmas standard errors of the difference of two samples (the run's and
// the probes') plus half the probes' difference, which is how far the
// run's own writes moved the lists while it read them. The notes give the
// plan's expectation t on the graph of the load beside them
// (fidelity/expect.Targets).
func ProbedRangeRows(w *workload.Workload, t *result.Targets, c *result.Counters, before, after RangeProbe) []result.FidelityRow {
	if c.RangeReads == 0 {
		return nil
	}
	var rows []result.FidelityRow
	// The probes count the same lists (one draw of the plan's), so their
	// gap is the lists' drift and their sample is one probe's size.
	probes := max(before.Reads, after.Reads)
	drift := func(a, b float64) float64 { return math.Abs(a-b) / 2 }
	probed := func(figure string, pb, pa float64, hits, n, pn int64, load string) result.FidelityRow {
		p := (pb + pa) / 2
		r := result.FidelityRow{Figure: figure, Target: p, N: n, P: -1, Observed: ratio(hits, n)}
		se := math.Sqrt(p * (1 - p) * (1/math.Max(float64(n), 1) + 1/math.Max(float64(pn), 1)))
		r.Tolerance = Sigmas*se + drift(pb, pa)
		r.Verdict = verdict(min(n, pn), math.Abs(r.Observed-p) <= r.Tolerance)
		r.Note = fmt.Sprintf("in the database before and after the run: %.4f, %.4f (%d lists counted twice); %s", pb, pa, pn, load)
		return r
	}
	if w.RangeNonEmpty != workload.Natural {
		rows = append(rows, probed("edge_range_read returns edges", before.nonEmpty(), after.nonEmpty(), c.RangeNonEmpty, c.RangeReads, probes,
			fmt.Sprintf("range_nonempty %.4f", w.RangeNonEmpty)))
	}
	rows = append(rows, probed("non-empty ranges of 1 edge", before.sizeOne(), after.sizeOne(), c.RangeSizes[0], c.RangeNonEmpty,
		max(before.NonEmpty, after.NonEmpty), fmt.Sprintf("graph at load %.4f", t.RangeSizeOne)))
	if w.RangeMeanRows > 0 {
		// sizedRangeRows' row: the run's writes move a small graph's lists
		// off the load's shares (one-edge lists gain a second), so the
		// lists counted are its target here, as for the rows above.
		rows = append(rows, probed("edge_range_read returns 1 row", ratio(before.One, before.Reads), ratio(after.One, after.Reads), c.RangeSizes[0], c.RangeReads,
			probes, fmt.Sprintf("at load range_nonempty %.4g × range_size_one %.4g; %s", t.RangeNonEmpty, t.RangeSizeOne, sizedSource(w))))
	}
	mean := result.FidelityRow{Figure: "rows per edge_range_read (mean)", Target: (before.mean() + after.mean()) / 2, N: c.RangeReads, P: -1,
		Observed: float64(c.RangeRows) / float64(c.RangeReads)}
	// The probes' spread stands for the run's, which counts no squares:
	// both draw the same lists.
	sd := math.Max(before.sd(), after.sd())
	mean.Tolerance = Sigmas*sd*math.Sqrt(1/float64(c.RangeReads)+1/math.Max(float64(probes), 1)) + drift(before.mean(), after.mean())
	mean.Verdict = verdict(min(c.RangeReads, probes), math.Abs(mean.Observed-mean.Target) <= mean.Tolerance)
	mean.Note = fmt.Sprintf("in the database before and after the run: %.2f, %.2f; graph at load %.2f", before.mean(), after.mean(), t.MeanRangeRows)
	rows = append(rows, mean)
	// The whole distribution of sizes, which a mean over a heavy tail
	// hardly constrains: the run's reads against the probes', two samples.
	// The probes' mean histogram stands for one sample of their lists.
	run := make([]float64, 1+result.SizeBuckets)
	probe := make([]float64, 1+result.SizeBuckets)
	run[0] = float64(c.RangeReads - c.RangeNonEmpty)
	probe[0] = float64(before.Reads-before.NonEmpty+after.Reads-after.NonEmpty) / 2
	for i := range result.SizeBuckets {
		run[1+i], probe[1+i] = float64(c.RangeSizes[i]), float64(before.Sizes[i]+after.Sizes[i])/2
	}
	c2, df, p := twoSample(run, probe)
	sizes := result.FidelityRow{Figure: "edge_range_read sizes vs lists counted", Target: chisquare.Alpha, Observed: p, N: c.RangeReads, P: p,
		Note: fmt.Sprintf("rows 0, 1, 2-3, 4-7, ... of the run's reads and of the probes' counts, two-sample chi-square: chi2 %.1f, df %d", c2, df)}
	sizes.Verdict = verdict(min(c.RangeReads, probes), df >= 1 && p >= chisquare.Alpha)
	if df < 1 {
		sizes.Verdict = result.Skipped
	}
	return append(rows, sizes)
}

// twoSample is the chi-square test that counts a and b come from one
// distribution: bins with fewer than twoSampleMin observations in both
// together pool into their neighbour below.
func twoSample(a, b []float64) (chi2 float64, df int, p float64) {
	var na, nb float64
	for i := range a {
		na, nb = na+a[i], nb+b[i]
	}
	if na == 0 || nb == 0 {
		return 0, 0, math.NaN()
	}
	type bin struct{ a, b float64 }
	var bins []bin
	var cur bin
	for i := range a {
		cur.a, cur.b = cur.a+a[i], cur.b+b[i]
		if cur.a+cur.b >= twoSampleMin {
			bins = append(bins, cur)
			cur = bin{}
		}
	}
	if cur.a+cur.b > 0 {
		if len(bins) == 0 {
			bins = append(bins, cur)
		} else {
			bins[len(bins)-1].a += cur.a
			bins[len(bins)-1].b += cur.b
		}
	}
	ka, kb := math.Sqrt(nb/na), math.Sqrt(na/nb)
	for _, x := range bins {
		d := ka*x.a - kb*x.b
		chi2 += d * d / (x.a + x.b)
	}
	df = len(bins) - 1
	if df < 1 {
		return chi2, df, math.NaN()
	}
	return chi2, df, distuv.ChiSquared{K: float64(df)}.Survival(chi2)
}

// twoSampleMin is the observations a bin of a two-sample test needs.
const twoSampleMin = 20

// LoadRangeRows set the lists counted before a run (before) beside what
// the plan aims at on the graph of the load (t): the share with edges
// against range_nonempty (targeted workloads) and the share of one edge
// against the graph's expectation, as Compare's rows do, so a generator
// that misses its targets, or a load that differs from the graph, fails.
// On a database runs have written to since its load (runs > 0) they are
// skipped: the lists have moved, by how much no figure says.
func LoadRangeRows(w *workload.Workload, t *result.Targets, before RangeProbe, runs int64) []result.FidelityRow {
	if before.Reads == 0 {
		return nil
	}
	var rows []result.FidelityRow
	if w.RangeNonEmpty != workload.Natural {
		rows = append(rows, share("lists range reads draw with edges", t.RangeNonEmpty, ModelTargeted, before.NonEmpty, before.Reads,
			"counted before the run against range_nonempty"))
	}
	rows = append(rows, share("lists range reads draw of 1 edge", t.RangeSizeOne, ModelGraph, before.One, before.NonEmpty,
		fmt.Sprintf("counted before the run against the graph's expectation at correlation %.4f", t.Correlation)))
	if runs > 0 {
		for i := range rows {
			rows[i].Verdict = result.Skipped
			rows[i].Note = fmt.Sprintf("skipped: %d run(s) since the load moved the lists; %s", runs, rows[i].Note)
		}
	}
	return rows
}

// Replace returns rows with each row of the same figure as one of by
// replaced by it, and the rows of by that rows lacks after the last
// replaced.
func Replace(rows, by []result.FidelityRow) []result.FidelityRow {
	out := make([]result.FidelityRow, 0, len(rows)+len(by))
	used := make([]bool, len(by))
	last := len(rows)
	for i, r := range rows {
		for j, b := range by {
			if b.Figure == r.Figure {
				r, used[j], last = b, true, i
				break
			}
		}
		out = append(out, r)
	}
	var rest []result.FidelityRow
	for j, b := range by {
		if !used[j] {
			rest = append(rest, b)
		}
	}
	if last == len(rows) {
		return append(out, rest...)
	}
	return append(out[:last+1], append(rest, out[last+1:]...)...)
}
