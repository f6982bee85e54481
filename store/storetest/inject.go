package storetest

import (
	"context"
	"time"

	"github.com/taobench/taobench/tao"
)

// testLockHold: a write with a Hold keeps its locks that long before it
// commits; a second writer of the same row waits for it or conflicts,
// never writes first; a hold cut by the request's deadline is a timeout
// that wrote nothing.
func testLockHold(x *tester, id int64) {
	const hold = 300 * time.Millisecond
	x.want(tao.OK, write(objAdd(id)))
	upd := func(t int64) tao.Op { return tao.Op{Kind: tao.ObjUpdate, ID1: id, Time: t, Payload: []byte("held")} }

	held := write(upd(2))
	held.Hold = hold
	start := time.Now()
	done := make(chan time.Time, 1)
	var hres tao.Result
	go func() {
		hres.Reset(1)
		x.db.Exec(context.Background(), held, &hres)
		done <- time.Now()
	}()
	time.Sleep(hold / 3) // the holder has written and holds its lock
	var res tao.Result
	res.Reset(1)
	x.db.Exec(context.Background(), write(upd(3)), &res)
	second := time.Now()
	heldEnd := <-done
	if hres.Outcome != tao.OK {
		x.t.Fatalf("a write holding its locks %v: outcome %v (%v), want ok", hold, hres.Outcome, hres.Err)
	}
	if d := heldEnd.Sub(start); d < hold {
		x.t.Errorf("a write holding its locks %v finished after %v", hold, d)
	}
	switch res.Outcome {
	case tao.OK:
		if second.Before(heldEnd.Add(-20 * time.Millisecond)) {
			x.t.Errorf("a writer of the held row finished %v before the holder committed: it did not wait for the lock", heldEnd.Sub(second))
		}
		if v := x.objVersion(id); v != 3 {
			x.t.Errorf("after the held write and the one behind it: version %d, want 3", v)
		}
	case tao.ConflictObject:
		if v := x.objVersion(id); v != 2 {
			x.t.Errorf("after the held write and a conflict: version %d, want 2", v)
		}
	default:
		x.t.Errorf("a writer of a held row: outcome %v (%v), want ok after the hold or conflict_object", res.Outcome, res.Err)
	}

	// The deadline ends a hold: a timeout, rolled back, in far less than the hold.
	before := x.objVersion(id)
	long := &tao.Request{Class: tao.WriteTxn, Ops: []tao.Op{upd(4), objAdd(id + 1)}, Hold: 10 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	res.Reset(2)
	start = time.Now()
	x.db.Exec(ctx, long, &res)
	if res.Outcome != tao.Timeout || res.Err == nil {
		x.t.Errorf("a hold past the request's deadline: outcome %v, err %v; want timeout with an error", res.Outcome, res.Err)
	}
	if d := time.Since(start); d > 5*time.Second {
		x.t.Errorf("a hold past a 150 ms deadline took %v", d)
	}
	if v := x.objVersion(id); v != before || x.objVersion(id+1) != -1 {
		x.t.Errorf("a write transaction cut in its hold wrote: version %d (was %d), object %d exists: %v", v, before, id+1, x.objVersion(id+1) != -1)
	}
}

// shard1 is an id of the same index on shard 1 (tao.ShardShift is 57).
func shard1(id int64) int64 { return id | 1<<57 }

// testInjected: each fail point ends in its own outcome and leaves what it
// says: nothing, or the primary shard's rows alone.
func testInjected(x *tester, id int64) {
	a, b := id, shard1(id+1)
	x.want(tao.OK, write(objAdd(a)))
	upd := tao.Op{Kind: tao.ObjUpdate, ID1: a, Time: 2, Payload: []byte("u")}
	for _, f := range []tao.FailPoint{tao.FailAfterReserve, tao.FailAfterPrimaryRollback} {
		single := write(upd)
		single.Fail = f
		x.want(f.Outcome(), single)
		txn := &tao.Request{Class: tao.WriteTxn, Ops: []tao.Op{upd, objAdd(b), edgeAdd(a, tao.TypeBidirectional, b, 1)}, Fail: f, Hold: time.Millisecond}
		x.want(f.Outcome(), txn)
		if x.objVersion(a) != 1 || x.objVersion(b) != -1 || x.edgeVersion(a, tao.TypeBidirectional, b) != -1 {
			x.t.Errorf("%v wrote: the write must roll back", f)
		}
	}
	// A failed precondition comes first: no injected failure, nothing written.
	pre := &tao.Request{Class: tao.WriteTxn, Ops: []tao.Op{upd, objAdd(b)}, Fail: tao.FailAfterPrimaryCommit,
		Checks: []tao.Check{{Kind: tao.CheckVersion, Key: tao.Key{ID1: a}, Version: 9}}}
	x.want(tao.PreconditionFailed, pre)

	// After the primary commits: shard 0's rows (a, and the forward edge
	// a→b) are there; shard 1's (b, the inverse b→a) are not, and Check
	// reports exactly that inverse missing.
	inv, _ := tao.TypeBidirectional.Inverse()
	partial := &tao.Request{Class: tao.WriteTxn, Ops: []tao.Op{upd, objAdd(b), edgeAdd(a, tao.TypeBidirectional, b, 1)}, Fail: tao.FailAfterPrimaryCommit}
	x.want(tao.FailedAfterPrimaryCommit, partial)
	if x.objVersion(a) != 2 || x.edgeVersion(a, tao.TypeBidirectional, b) != 1 {
		x.t.Error("fail_after_primary_commit did not commit the primary shard's rows")
	}
	if x.objVersion(b) != -1 || x.edgeVersion(b, inv, a) != -1 {
		x.t.Error("fail_after_primary_commit wrote a secondary shard's rows")
	}
	found := false
	for _, v := range x.check() {
		if v.Invariant == "bidirectional edge has its inverse" && v.Count == 1 {
			found = true
		} else {
			x.t.Errorf("Check after one partial commit: unexpected %+v", v)
		}
	}
	if !found {
		x.t.Error("Check does not report the inverse edge a partial commit left unwritten")
	}
	// Primary on shard 1: the inverse alone is written.
	c := id + 5
	x.want(tao.OK, write(objAdd(c)))
	rev := &tao.Request{Class: tao.WriteTxn, Ops: []tao.Op{objAdd(shard1(id + 6)), edgeAdd(c, tao.TypeBidirectional, shard1(id+6), 1)}, Fail: tao.FailAfterPrimaryCommit}
	x.want(tao.FailedAfterPrimaryCommit, rev)
	if x.objVersion(shard1(id+6)) != 1 || x.edgeVersion(shard1(id+6), inv, c) != 1 || x.edgeVersion(c, tao.TypeBidirectional, shard1(id+6)) != -1 {
		x.t.Error("fail_after_primary_commit on shard 1 did not write the inverse edge alone")
	}
	// Single-shard: everything is on the primary and commits, yet the
	// client sees the failure.
	whole := &tao.Request{Class: tao.WriteTxn, Ops: []tao.Op{objAdd(id + 7), edgeAdd(id+7, tao.TypeBidirectional, id+8, 1)}, Fail: tao.FailAfterPrimaryCommit}
	x.want(tao.FailedAfterPrimaryCommit, whole)
	if x.edgeVersion(id+8, inv, id+7) != 1 {
		x.t.Error("fail_after_primary_commit of a single-shard write did not commit all of it")
	}
	// Repair what the partial commits left, so the suite's last Check is clean.
	x.want(tao.OK, write(tao.Op{Kind: tao.EdgeDelete, ID1: a, Type: tao.TypeBidirectional, ID2: b}))
	x.want(tao.OK, write(tao.Op{Kind: tao.EdgeDelete, ID1: shard1(id + 6), Type: inv, ID2: c}))
	if vs := x.check(); len(vs) != 0 {
		x.t.Errorf("Check after repairing the partial commits: %+v", vs)
	}
}
