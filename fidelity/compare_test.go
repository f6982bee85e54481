package fidelity

import (
	"math"
	"testing"

	"github.com/taobench/taobench/gen"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

func TestCompareVerdicts(t *testing.T) {
	w, _ := workload.Builtin("a")
	tg := gen.Targets{EdgeHitRate: 0.2, RangeNonEmpty: 0.3, RangeSizeOne: 0.6, SizeOneReached: true, MeanRangeRows: 10,
		MultiShardWriteTxns: 0.3, EdgeAddNew: 0.99}
	row := func(rows []result.FidelityRow, fig string) result.FidelityRow {
		for _, r := range rows {
			if r.Figure == fig {
				return r
			}
		}
		t.Fatalf("no row %q in %+v", fig, rows)
		return result.FidelityRow{}
	}
	c := result.Counters{PointReads: 10000, PointHits: 2150, RangeReads: 10000, RangeNonEmpty: 3000, RangeRows: 100000}
	c.RangeSizes[0] = 1800
	c.Outcomes[tao.Read][tao.OK] = 20000
	rows := Compare(w, tg, &c)
	if r := row(rows, "edge_point_read finds an edge"); r.Verdict != result.Pass || math.Abs(r.Observed-0.215) > 1e-12 || r.Tolerance != ShareTolerance {
		t.Errorf("a hit rate 1.5 points off passes at tolerance 0.02: %+v", r)
	}
	c.PointHits = 2500
	if r := row(Compare(w, tg, &c), "edge_point_read finds an edge"); r.Verdict != result.Fail {
		t.Errorf("a hit rate 5 points off fails: %+v", r)
	}
	c.PointReads, c.PointHits = 20, 10
	if r := row(Compare(w, tg, &c), "edge_point_read finds an edge"); r.Verdict != result.Skipped {
		t.Errorf("20 reads are too few to judge: %+v", r)
	}
	if r := row(rows, "rows per edge_range_read (mean)"); r.Verdict != result.Pass || r.Observed != 10 {
		t.Errorf("mean rows on target: %+v", r)
	}
	c.Outcomes[tao.Read][tao.Error] = 1000
	if r := row(Compare(w, tg, &c), "requests lost to errors, timeouts, conflicts"); r.Verdict != result.Fail {
		t.Errorf("5%% of requests lost must fail: %+v", r)
	}
	tg.EdgeHitRate = workload.Natural
	for _, r := range Compare(w, tg, &c) {
		if r.Figure == "edge_point_read finds an edge" {
			t.Error("a natural hit rate has no target row")
		}
	}
	if len(Failed(rows)) != 0 {
		t.Errorf("failed rows of a passing comparison: %+v", Failed(rows))
	}
}
