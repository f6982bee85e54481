package result

import (
	"testing"

	"github.com/taobench/taobench/tao"
)

func TestObserveCountsWhatTheStoreSaid(t *testing.T) {
	t.Parallel()
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
		{tao.Request{Class: tao.WriteTxn, Ops: []tao.Op{{Kind: tao.EdgeAdd, ID1: s0}, {Kind: tao.EdgeAdd, ID1: s0, Type: tao.TypeBidirectional, ID2: s1}, {Kind: tao.ObjUpdate, ID1: s0}},
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
	// Its keys' id1 share shard 0, but the bidirectional add writes its
	// inverse on shard 1 in the same transaction.
	want.MultiShardDB[tao.ReadTxn], want.MultiShardDB[tao.WriteTxn] = 1, 1
	want.Outcomes[tao.Read][tao.OK], want.Outcomes[tao.Read][tao.NotFound] = 1, 1
	want.Outcomes[tao.ReadTxn][tao.OK], want.Outcomes[tao.WriteTxn][tao.OK] = 1, 1
	want.Outcomes[tao.Write][tao.OK], want.Outcomes[tao.Write][tao.UniqueViolation] = 1, 1
	if c != want {
		t.Errorf("counters\n%+v\nwant\n%+v", c, want)
	}
	// A copy of a racing insert counts its outcome but not as a drawn
	// transaction: the spans count draws.
	c.ObserveCopy(&reqs[3].req, &reqs[3].res)
	want.TxnCopies[tao.WriteTxn] = 1
	want.Outcomes[tao.WriteTxn][tao.OK] = 2
	// What the database did with it counts as for any request.
	want.Adds, want.AddsNew, want.NoopWrites = 4, 2, 2
	want.VersionDrawn, want.VersionChecked, want.PreconditionChecked = 2, 2, 2
	if c != want {
		t.Errorf("after a copy, counters\n%+v\nwant\n%+v", c, want)
	}
	var m Counters
	m.Merge(&c)
	m.Merge(&c)
	if m.PointReads != 4 || m.Outcomes[tao.Write][tao.UniqueViolation] != 2 || m.RangeSizes[2] != 2 || m.TxnCopies[tao.WriteTxn] != 2 {
		t.Errorf("merge: %+v", m)
	}
}
