package fidelity

import (
	"strings"
	"testing"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/workload"
)

// TestTable4bRows: linkbench's runs carry a row against Table 4b's
// one-row share, and validate --db one against its mean for the lists
// counted, each naming the table; the observed 40.5% one-row and
// 10.8-row mean fail them, Table 4b's own figures pass.
func TestTable4bRows(t *testing.T) {
	t.Parallel()
	w, err := workload.Builtin("linkbench")
	if err != nil {
		t.Fatal(err)
	}
	tg := &result.Targets{EdgeHitRate: workload.Natural, RangeNonEmpty: 0.734, CountNonZero: workload.Natural, TimeRangeNonEmpty: workload.Natural,
		RangeSizeOne: 0.6185, SizeOneReached: true, MeanRangeRows: 21.9, Correlation: 0.0097}
	const oneRow = "edge_range_read returns 1 row"
	row := func(one int64) result.FidelityRow {
		c := result.Counters{RangeReads: 20000, RangeNonEmpty: 14680, RangeRows: 20000 * 22}
		c.RangeSizes[0] = one
		for _, r := range Compare(w, tg, &c) {
			if r.Figure == oneRow {
				return r
			}
		}
		t.Fatalf("no row %q", oneRow)
		return result.FidelityRow{}
	}
	if r := row(9080); r.Verdict != result.Pass || !strings.Contains(r.Note, "LinkBench Table 4b") {
		t.Errorf("45.4%% one-row: %+v, want a pass naming Table 4b", r)
	}
	if r := row(8100); r.Verdict != result.Fail {
		t.Errorf("40.5%% one-row: %+v, want a failure", r)
	}
	// 10,000 lists counted: 26.6% empty, 45.4% of one edge, the rest
	// spread so the mean is m.
	probe := func(m float64) RangeProbe {
		var p RangeProbe
		for i := range 10000 {
			switch {
			case i < 2660:
				p.Add(0, 10000)
			case i < 7200:
				p.Add(1, 10000)
			default:
				// 2800 lists: a mean of (m*10000 - 4540) / 2800 rows,
				// from 2 to twice that less 2, evenly.
				rest := (m*10000 - 4540) / 2800
				p.Add(2+int(float64(i-7200)/2800*2*(rest-2)), 10000)
			}
		}
		return p
	}
	mean := func(m float64) result.FidelityRow {
		rows := LoadMeanRow(w, tg, probe(m), 0)
		if len(rows) != 1 {
			t.Fatalf("LoadMeanRow: %+v", rows)
		}
		return rows[0]
	}
	t.Logf("probes: %.2f and %.2f rows", probe(21.9).mean(), probe(10.8).mean())
	if r := mean(21.9); r.Verdict != result.Pass || !strings.Contains(r.Note, "LinkBench Table 4b") {
		t.Errorf("21.9 rows: %+v, want a pass naming Table 4b", r)
	}
	if r := mean(10.8); r.Verdict != result.Fail {
		t.Errorf("10.8 rows: %+v, want a failure", r)
	}
	if r := LoadMeanRow(w, tg, probe(10.8), 2)[0]; r.Verdict != result.Skipped {
		t.Errorf("after runs: %+v, want it skipped", r)
	}
	a, _ := workload.Builtin("a")
	if rows := LoadMeanRow(a, tg, probe(21.9), 0); len(rows) != 0 {
		t.Errorf("workload a has no range_mean_rows, yet %+v", rows)
	}
	for _, r := range Compare(a, tg, &result.Counters{RangeReads: 100, RangeRows: 100}) {
		if r.Figure == oneRow {
			t.Errorf("workload a has no range_mean_rows, yet a row %q", r.Figure)
		}
	}
}
