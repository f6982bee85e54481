package fidelity

import (
	"math"
	"strings"
	"testing"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

func TestCompareVerdicts(t *testing.T) {
	t.Parallel()
	w, _ := workload.Builtin("a")
	tg := &result.Targets{EdgeHitRate: 0.2, RangeNonEmpty: 0.3, RangeSizeOne: 0.6, SizeOneReached: true, MeanRangeRows: 10,
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
	if r := row(rows, "edge_point_read finds an edge"); r.Verdict != result.Pass || math.Abs(r.Observed-0.215) > 1e-12 || math.Abs(r.Tolerance-(4*0.004+ModelTargeted)) > 1e-9 {
		t.Errorf("a hit rate 1.5 points off passes at 4 standard errors (0.016) plus the model error: %+v", r)
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

// TestShareToleranceCatchesDamage: tolerances come from the sample, so a
// small target cannot pass at 0 and a 2-point miss at 100,000 reads fails,
// where a fixed floor of 0.02 let both through.
func TestShareToleranceCatchesDamage(t *testing.T) {
	t.Parallel()
	w, _ := workload.Builtin("tao")
	tg := &result.Targets{EdgeHitRate: 0.196, RangeNonEmpty: 0.31, TimeRangeNonEmpty: 0.019, CountNonZero: 0.55,
		RangeSizeOne: 0.64, SizeOneReached: true, MeanRangeRows: 10}
	find := func(rows []result.FidelityRow, fig string) result.FidelityRow {
		for _, r := range rows {
			if r.Figure == fig {
				return r
			}
		}
		t.Fatalf("no row %q", fig)
		return result.FidelityRow{}
	}
	c := result.Counters{PointReads: 100000, PointHits: 17700, TimeReads: 5000, TimeNonEmpty: 0, CountReads: 10000, CountNonEmpty: 5500}
	rows := Compare(w, tg, &c)
	if r := find(rows, "edge_point_read finds an edge"); r.Verdict != result.Fail {
		t.Errorf("0.177 against 0.196 at 100,000 reads must fail: %+v", r)
	}
	if r := find(rows, "edge_time_read returns edges"); r.Verdict != result.Fail {
		t.Errorf("no time range returning edges in 5,000 must fail a 1.9%% target: %+v", r)
	}
	if r := find(rows, "edge_count_read counts edges"); r.Verdict != result.Pass || r.Target != 0.55 {
		t.Errorf("counts aim at TAO's 55%% non-zero: %+v", r)
	}
	c.TimeReads, c.TimeNonEmpty = 300, 0
	if r := find(Compare(w, tg, &c), "edge_time_read returns edges"); r.Verdict != result.Skipped {
		t.Errorf("300 time ranges cannot tell 1.9%% from 0: skipped, not passed: %+v", r)
	}
	c.TimeReads, c.TimeNonEmpty = 5000, 95
	if r := find(Compare(w, tg, &c), "edge_time_read returns edges"); r.Verdict != result.Pass {
		t.Errorf("1.9%% of 5,000 passes: %+v", r)
	}
}

// TestShareTargetOne: a target of 1 (fanout's transactions all span
// shards), or one a sum rounded just past it, has a finite tolerance and
// passes when met.
func TestShareTargetOne(t *testing.T) {
	t.Parallel()
	for _, target := range []float64{1, 1 + 1e-12} {
		r := share("spans", target, ModelGraph, 1762, 1762, "")
		if math.IsNaN(r.Tolerance) || r.Verdict != result.Pass {
			t.Errorf("target %v, every one observed: %+v", target, r)
		}
	}
}

// TestShareTooFew: a share whose tolerance covers its target is skipped,
// and its note says how many observations would tell it from 0, or that
// none would when the target is within the model error.
func TestShareTooFew(t *testing.T) {
	r := share("x", 0.1, ModelTargeted, 6, 60, "")
	if r.Verdict != result.Skipped || !strings.Contains(r.Note, "too few to tell 0.1000 from 0 (need 161)") {
		t.Errorf("0.1 at n 60: %s %q, want skipped, 161 needed (4 standard errors under 0.095)", r.Verdict, r.Note)
	}
	r = share("x", 0.0167, 0.05, 2, 1000, "")
	if r.Verdict != result.Skipped || !strings.Contains(r.Note, "no count tells it from 0") || strings.Contains(r.Note, "need") {
		t.Errorf("0.0167 under a 0.05 model error: %s %q, want skipped, no count suffices", r.Verdict, r.Note)
	}
}
