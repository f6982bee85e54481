package fidelity

import (
	"math"
	"testing"

	"github.com/taobench/taobench/gen"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

func TestObserveCountsWhatTheStoreSaid(t *testing.T) {
	var c Counters
	s0, s1 := tao.ID(0, 1), tao.ID(1, 1)
	reqs := []struct {
		req tao.Request
		res tao.Result
	}{
		{tao.Request{Class: tao.Read, Ops: []tao.Op{{Kind: tao.EdgePointRead, ID1: s0}}},
			tao.Result{Outcome: tao.OK, Ops: []tao.OpResult{{Found: true}}}},
		{tao.Request{Class: tao.Read, Ops: []tao.Op{{Kind: tao.EdgePointRead, ID1: s0}}},
			tao.Result{Outcome: tao.NotFound, Ops: []tao.OpResult{{}}}},
		{tao.Request{Class: tao.ReadTxn, Ops: []tao.Op{{Kind: tao.EdgeRangeRead, ID1: s0}, {Kind: tao.EdgeRangeRead, ID1: s1}, {Kind: tao.EdgeRangeRead, ID1: s1}}},
			tao.Result{Outcome: tao.OK, Ops: []tao.OpResult{{Rows: 1}, {Rows: 5}, {}}}},
		{tao.Request{Class: tao.WriteTxn, Ops: []tao.Op{{Kind: tao.EdgeAdd, ID1: s0}, {Kind: tao.EdgeAdd, ID1: s0}, {Kind: tao.ObjUpdate, ID1: s0}},
			Predicates: []tao.Predicate{tao.PredWriteVersion}, Checks: []tao.Check{{Pred: tao.PredWriteVersion}}},
			tao.Result{Outcome: tao.OK, Ops: []tao.OpResult{{Found: false}, {Found: true}, {Found: false}}}},
		{tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.ObjAdd, ID1: s0}}, Predicates: []tao.Predicate{tao.PredWriteVersion}},
			tao.Result{Outcome: tao.OK, Ops: []tao.OpResult{{}}}},
		{tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.EdgeAdd, ID1: s0, Type: tao.TypeUnique}}},
			tao.Result{Outcome: tao.UniqueViolation, Ops: []tao.OpResult{{}}}},
	}
	for i := range reqs {
		c.Observe(&reqs[i].req, &reqs[i].res)
	}
	want := Counters{PointReads: 2, PointHits: 1, RangeReads: 3, RangeNonEmpty: 2, RangeRows: 6,
		Adds: 2, AddsNew: 1, NoopWrites: 1, VersionDrawn: 1, VersionChecked: 1, PreconditionChecked: 1,
		UniqueAdds: 1, UniqueAddsRejected: 1}
	want.RangeSizes[0], want.RangeSizes[2] = 1, 1
	want.Txns[tao.ReadTxn], want.MultiShard[tao.ReadTxn] = 1, 1
	want.Txns[tao.WriteTxn] = 1
	want.Outcomes[tao.Read][tao.OK], want.Outcomes[tao.Read][tao.NotFound] = 1, 1
	want.Outcomes[tao.ReadTxn][tao.OK], want.Outcomes[tao.WriteTxn][tao.OK] = 1, 1
	want.Outcomes[tao.Write][tao.OK], want.Outcomes[tao.Write][tao.UniqueViolation] = 1, 1
	if c != want {
		t.Errorf("counters\n%+v\nwant\n%+v", c, want)
	}
	var m Counters
	m.Merge(&c)
	m.Merge(&c)
	if m.PointReads != 4 || m.Outcomes[tao.Write][tao.UniqueViolation] != 2 || m.RangeSizes[2] != 2 {
		t.Errorf("merge: %+v", m)
	}
}

func TestCompareVerdicts(t *testing.T) {
	w, _ := workload.Builtin("a")
	tg := gen.Targets{EdgeHitRate: 0.2, RangeNonEmpty: 0.3, RangeSizeOne: 0.6, SizeOneReached: true, MeanRangeRows: 10,
		MultiShardWriteTxns: 0.3, EdgeAddNew: 0.99}
	row := func(rows []Row, fig string) Row {
		for _, r := range rows {
			if r.Figure == fig {
				return r
			}
		}
		t.Fatalf("no row %q in %+v", fig, rows)
		return Row{}
	}
	c := Counters{PointReads: 10000, PointHits: 2150, RangeReads: 10000, RangeNonEmpty: 3000, RangeRows: 100000}
	c.RangeSizes[0] = 1800
	c.Outcomes[tao.Read][tao.OK] = 20000
	rows := Compare(w, tg, &c)
	if r := row(rows, "edge_point_read finds an edge"); r.Verdict != Pass || math.Abs(r.Observed-0.215) > 1e-12 || r.Tolerance != ShareTolerance {
		t.Errorf("a hit rate 1.5 points off passes at tolerance 0.02: %+v", r)
	}
	c.PointHits = 2500
	if r := row(Compare(w, tg, &c), "edge_point_read finds an edge"); r.Verdict != Fail {
		t.Errorf("a hit rate 5 points off fails: %+v", r)
	}
	c.PointReads, c.PointHits = 20, 10
	if r := row(Compare(w, tg, &c), "edge_point_read finds an edge"); r.Verdict != Skipped {
		t.Errorf("20 reads are too few to judge: %+v", r)
	}
	if r := row(rows, "rows per edge_range_read (mean)"); r.Verdict != Pass || r.Observed != 10 {
		t.Errorf("mean rows on target: %+v", r)
	}
	c.Outcomes[tao.Read][tao.Error] = 1000
	if r := row(Compare(w, tg, &c), "requests lost to errors, timeouts, conflicts"); r.Verdict != Fail {
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
