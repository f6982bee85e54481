package htmlreport

import (
	"fmt"
	"math"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/stats"
)

// compareTable sets the files side by side, experiment by experiment: each
// other file's difference from the first in percent, the worse value of
// each row marked.
type compareTable struct {
	Names []string
	Rows  []compareRow // the headline figures
	Class []compareRow // p50 and p99 per class, shown folded
}

// compareView is one table of the comparison.
type compareView struct {
	Names []string
	Rows  []compareRow
}

// Headline is the table of the headline figures.
func (t *compareTable) Headline() compareView { return compareView{t.Names, t.Rows} }

// ByClass is the table of the per-class figures.
func (t *compareTable) ByClass() compareView { return compareView{t.Names, t.Class} }

type compareRow struct {
	Experiment int
	Metric     string
	Cells      []compareCell
}

type compareCell struct {
	Value, Delta  string
	Worse, Better bool
	// Interval is the value's 95% confidence interval, "lo–hi", from the
	// file's per-second series (docs/results.md "Intervals"); "" when
	// there is none.
	Interval string
}

// metric is one compared figure; ok false when an experiment lacks it.
type metric struct {
	name   string
	higher bool // higher is better
	class  bool // a per-class figure
	format string
	get    func(e *result.Experiment) (float64, bool)
	// scale divides the interval's µs or req/s into the row's unit; nil iv:
	// the figure has no interval.
	scale float64
	iv    func(iv *result.Intervals) (stats.Interval, bool)
}

func latencyMetric(name, class string, p50 bool) metric {
	p := "p99"
	if p50 {
		p = "p50"
	}
	return metric{name: name, format: "%.3f", class: class != metrics.All, scale: 1000, iv: func(iv *result.Intervals) (stats.Interval, bool) {
		return iv.Percentile(class, p)
	}, get: func(e *result.Experiment) (float64, bool) {
		st := e.Sum().Stats(class)
		if st.Count == 0 {
			return 0, false
		}
		if p50 {
			return st.P50 / 1000, true
		}
		return st.P99 / 1000, true
	}}
}

func compareMetrics() []metric {
	ms := []metric{
		{name: "throughput (req/s)", higher: true, format: "%.1f", get: func(e *result.Experiment) (float64, bool) { return e.Throughput(), true },
			scale: 1, iv: func(iv *result.Intervals) (stats.Interval, bool) { return iv.Throughput, true }},
		latencyMetric("p50 all (ms)", metrics.All, true),
		latencyMetric("p99 all (ms)", metrics.All, false),
	}
	for _, c := range classes() {
		ms = append(ms, latencyMetric("p50 "+c+" (ms)", c, true), latencyMetric("p99 "+c+" (ms)", c, false))
	}
	return append(ms,
		metric{name: "failed (% of requests)", format: "%.3g", get: func(e *result.Experiment) (float64, bool) {
			return pctOf(e.Sum().Failed(), e.Sum().Requests()), true
		}},
		metric{name: "contention, overall (%)", format: "%.3g", get: func(e *result.Experiment) (float64, bool) {
			return e.Sum().Contention().OverallPct, true
		}})
}

// significant is the relative difference below which two values count as
// the same, so that noise is not marked.
const significant = 0.01

func newCompare(files []*File, labels []string) *compareTable {
	if len(files) < 2 {
		return nil
	}
	n := len(files[0].Doc.Experiments)
	for _, f := range files {
		n = min(n, len(f.Doc.Experiments))
	}
	t := &compareTable{Names: labels}
	for i := range n {
		ivs := make([]*result.Intervals, len(files))
		for j, f := range files {
			ivs[j] = f.Doc.Experiments[i].Intervals(result.Confidence)
		}
		for _, m := range compareMetrics() {
			vals := make([]float64, len(files))
			ok := true
			for j, f := range files {
				var has bool
				vals[j], has = m.get(f.Doc.Experiments[i])
				ok = ok && has
			}
			if !ok {
				continue
			}
			row := compareRow{Experiment: i + 1, Metric: m.name, Cells: cells(m, vals)}
			for j := range row.Cells {
				if m.iv == nil {
					break
				}
				if x, ok := m.iv(ivs[j]); ok && x.Valid() {
					row.Cells[j].Interval = fmt.Sprintf(m.format+"–"+m.format, x.Lo/m.scale, x.Hi/m.scale)
				}
			}
			if m.higher && openLoopReached(files, i) {
				// Every file issued its schedule: the throughputs differ
				// by the arrivals' chance, not by the databases.
				for j := range row.Cells {
					row.Cells[j].Worse, row.Cells[j].Better = false, false
				}
			}
			if m.class {
				t.Class = append(t.Class, row)
			} else {
				t.Rows = append(t.Rows, row)
			}
		}
	}
	return t
}

// openLoopReached reports whether experiment i of every file ran open
// loop and reached its target rate.
func openLoopReached(files []*File, i int) bool {
	for _, f := range files {
		o := f.Doc.Experiments[i].OpenLoop
		if o.Rate == 0 || !o.Reached() {
			return false
		}
	}
	return true
}

func cells(m metric, vals []float64) []compareCell {
	best, worst := 0, 0
	for i, v := range vals {
		if (v > vals[best]) == m.higher && v != vals[best] {
			best = i
		}
		if (v < vals[worst]) == m.higher && v != vals[worst] {
			worst = i
		}
	}
	lo, hi := math.Min(vals[best], vals[worst]), math.Max(vals[best], vals[worst])
	marked := hi > 0 && (hi-lo)/hi > significant
	out := make([]compareCell, len(vals))
	for i, v := range vals {
		out[i] = compareCell{Value: fmt.Sprintf(m.format, v)}
		if i > 0 {
			out[i].Delta = delta(vals[0], v)
		}
		if marked {
			out[i].Worse = v == vals[worst]
			out[i].Better = v == vals[best]
		}
	}
	return out
}

// delta is v's difference from base in percent, signed.
func delta(base, v float64) string {
	if base == 0 {
		if v == 0 {
			return "±0%"
		}
		return "n/a"
	}
	d := 100 * (v - base) / base
	if math.Abs(d) >= 100 {
		return fmt.Sprintf("%+.0f%%", d)
	}
	return fmt.Sprintf("%+.1f%%", d)
}
