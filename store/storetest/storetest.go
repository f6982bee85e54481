// Package storetest is the conformance suite every store.Database passes:
// each request kind and outcome, bidirectional and unique associations,
// preconditions, failure atomicity, read transactions, metadata, run
// numbers, bulk loading and the invariant check. A store package calls Run
// from its tests with a function that opens a fresh, empty database.
package storetest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// Run runs the suite. open must return a new, empty database that the
// caller cleans up (t.Cleanup); Run calls Setup and Close itself.
func Run(t *testing.T, open func(t *testing.T) store.Database) {
	RunSkipping(t, open, nil)
}

// RunSkipping runs the suite but skips the cases named in skip (top-level
// names such as "UniqueRace"), each with its reason: for a stand-in server
// that cannot show what a case tests (an in-memory fake without
// isolation), never for a store that fails it.
func RunSkipping(t *testing.T, open func(t *testing.T) store.Database, skip map[string]string) {
	run := func(name string, f func(t *testing.T)) {
		t.Run(name, func(t *testing.T) {
			if why, ok := skip[name]; ok {
				t.Skip(why)
			}
			f(t)
		})
	}
	fresh := func(t *testing.T) *tester {
		t.Helper()
		db := open(t)
		t.Cleanup(func() { db.Close() })
		if err := db.Setup(context.Background(), false); err != nil {
			t.Fatalf("Setup: %v", err)
		}
		return &tester{t: t, db: db}
	}
	// Most tests share one database, each in its own id range.
	shared := fresh(t)
	var mu sync.Mutex
	next := int64(0)
	sub := func(name string, f func(x *tester, base int64)) {
		run(name, func(t *testing.T) {
			mu.Lock()
			next += 1 << 20
			base := next
			mu.Unlock()
			f(&tester{t: t, db: shared.db}, base)
		})
	}
	sub("Objects", testObjects)
	sub("Edges", testEdges)
	sub("Lists", testLists)
	sub("Unique", testUnique)
	sub("Bidirectional", testBidirectional)
	sub("Checks", testChecks)
	sub("WriteTxnAtomic", testWriteTxn)
	sub("ReadTxn", testReadTxn)
	sub("Timeout", testTimeout)
	sub("BadRequest", testBadRequest)
	sub("UniqueRace", testUniqueRace)
	sub("LockHold", testLockHold)         // inject.go
	sub("InjectedFailures", testInjected) // inject.go
	run("Meta", func(t *testing.T) { testMeta(&tester{t: t, db: shared.db}) })
	run("ReserveRun", func(t *testing.T) { testReserveRun(&tester{t: t, db: shared.db}) })
	run("ReserveRunKey", func(t *testing.T) { testReserveRunKey(&tester{t: t, db: shared.db}) })
	run("RunRecords", func(t *testing.T) { testRunRecorder(fresh(t)) })
	run("CheckClean", func(t *testing.T) {
		if vs := (&tester{t: t, db: shared.db}).check(); len(vs) != 0 {
			t.Errorf("Check after the suite's writes found violations: %+v", vs)
		}
	})
	// A load interrupted between dropping its indexes and rebuilding them
	// leaves a database Check must flag.
	run("CheckIndexes", func(t *testing.T) {
		x := fresh(t)
		ctx := context.Background()
		if err := x.db.BeginLoad(ctx); err != nil {
			t.Fatal(err)
		}
		missing := false
		for _, v := range x.check() {
			missing = missing || v.Invariant == "every index exists"
		}
		if !missing {
			t.Error("Check says every index exists in the middle of a load into empty tables")
		}
		if err := x.db.EndLoad(ctx); err != nil {
			t.Fatal(err)
		}
		if vs := x.check(); len(vs) != 0 {
			t.Errorf("Check after the load rebuilt its indexes: %+v", vs)
		}
	})
	run("Load", func(t *testing.T) { testLoad(fresh(t)) })
	run("CheckPlanted", func(t *testing.T) { testCheckPlanted(fresh(t)) })
	run("SetupDrop", func(t *testing.T) { testSetupDrop(fresh(t)) })
}

type tester struct {
	t  *testing.T
	db store.Database
}

// exec runs req and returns its result.
func (x *tester) exec(req *tao.Request) tao.Result {
	x.t.Helper()
	var res tao.Result
	res.Reset(len(req.Ops))
	x.db.Exec(context.Background(), req, &res)
	if res.Outcome == tao.Error || res.Outcome == tao.Timeout {
		x.t.Logf("request %+v: %v: %v", req, res.Outcome, res.Err)
	}
	return res
}

// want runs req and fails unless it ends in out.
func (x *tester) want(out tao.Outcome, req *tao.Request) tao.Result {
	x.t.Helper()
	res := x.exec(req)
	if res.Outcome != out {
		x.t.Errorf("%v %v: outcome %v (err %v), want %v", req.Class, kinds(req), res.Outcome, res.Err, out)
	}
	return res
}

func kinds(req *tao.Request) string {
	var s []string
	for _, op := range req.Ops {
		s = append(s, fmt.Sprintf("%v(%d,%d,%d)", op.Kind, op.ID1, op.Type, op.ID2))
	}
	return strings.Join(s, " ")
}

func one(class tao.Class, op tao.Op, checks ...tao.Check) *tao.Request {
	return &tao.Request{Class: class, Ops: []tao.Op{op}, Checks: checks}
}

func write(op tao.Op, checks ...tao.Check) *tao.Request { return one(tao.Write, op, checks...) }

func objAdd(id int64) tao.Op {
	return tao.Op{Kind: tao.ObjAdd, ID1: id, Time: 1, Payload: []byte("obj")}
}
func edgeAdd(id1 int64, t tao.EdgeType, id2, time int64) tao.Op {
	return tao.Op{Kind: tao.EdgeAdd, ID1: id1, Type: t, ID2: id2, Time: time, Payload: []byte("edge payload")}
}

// objVersion reads an object: its version, or -1 when absent.
func (x *tester) objVersion(id int64) int64 {
	x.t.Helper()
	res := x.exec(one(tao.Read, tao.Op{Kind: tao.ObjRead, ID1: id}))
	switch {
	case res.Outcome == tao.NotFound && !res.Ops[0].Found:
		return -1
	case res.Outcome == tao.OK && res.Ops[0].Found:
		return res.Ops[0].Version
	}
	x.t.Fatalf("obj_read %d: outcome %v, found %v, err %v", id, res.Outcome, res.Ops[0].Found, res.Err)
	return 0
}

// edgeVersion reads an edge: its version, or -1 when absent.
func (x *tester) edgeVersion(id1 int64, t tao.EdgeType, id2 int64) int64 {
	x.t.Helper()
	res := x.exec(one(tao.Read, tao.Op{Kind: tao.EdgePointRead, ID1: id1, Type: t, ID2: id2}))
	switch {
	case res.Outcome == tao.NotFound && !res.Ops[0].Found:
		return -1
	case res.Outcome == tao.OK && res.Ops[0].Found:
		return res.Ops[0].Version
	}
	x.t.Fatalf("edge_point_read (%d,%d,%d): outcome %v, found %v, err %v", id1, t, id2, res.Outcome, res.Ops[0].Found, res.Err)
	return 0
}

func (x *tester) rows(op tao.Op) int {
	x.t.Helper()
	res := x.want(tao.OK, one(tao.Read, op))
	return res.Ops[0].Rows
}

func (x *tester) check() []store.Violation {
	x.t.Helper()
	vs, err := x.db.Check(context.Background())
	if err != nil {
		x.t.Fatalf("Check: %v", err)
	}
	return vs
}

func testObjects(x *tester, id int64) {
	if v := x.objVersion(id); v != -1 {
		x.t.Fatalf("a new object reads as version %d", v)
	}
	x.want(tao.OK, write(objAdd(id)))
	if v := x.objVersion(id); v != 1 {
		x.t.Errorf("after obj_add: version %d, want 1", v)
	}
	x.want(tao.OK, write(objAdd(id))) // an existing id: overwritten
	if v := x.objVersion(id); v != 2 {
		x.t.Errorf("after a second obj_add: version %d, want 2", v)
	}
	res := x.want(tao.OK, write(tao.Op{Kind: tao.ObjUpdate, ID1: id, Time: 5, Payload: []byte("new")}))
	if !res.Ops[0].Found {
		x.t.Error("obj_update of a present object: Found false")
	}
	if v := x.objVersion(id); v != 3 {
		x.t.Errorf("after obj_update: version %d, want 3", v)
	}
	res = x.want(tao.NotFound, write(tao.Op{Kind: tao.ObjUpdate, ID1: id + 1, Time: 5, Payload: []byte("x")}))
	if res.Ops[0].Found {
		x.t.Error("obj_update of a missing object: Found true")
	}
	if v := x.objVersion(id + 1); v != -1 {
		x.t.Errorf("obj_update of a missing object created it (version %d)", v)
	}
	x.want(tao.OK, write(tao.Op{Kind: tao.ObjDelete, ID1: id}))
	x.want(tao.NotFound, write(tao.Op{Kind: tao.ObjDelete, ID1: id}))
	if v := x.objVersion(id); v != -1 {
		x.t.Errorf("after obj_delete: version %d, want absent", v)
	}
}

func testEdges(x *tester, a int64) {
	b := a + 1
	if v := x.edgeVersion(a, tao.TypeOther, b); v != -1 {
		x.t.Fatalf("a new edge reads as version %d", v)
	}
	if res := x.want(tao.OK, write(edgeAdd(a, tao.TypeOther, b, 10))); res.Ops[0].Found {
		x.t.Error("edge_add of a new edge says it overwrote one")
	}
	if v := x.edgeVersion(a, tao.TypeOther, b); v != 1 {
		x.t.Errorf("after edge_add: version %d, want 1", v)
	}
	// assoc_add overwrites, and says so (validation counts new rows by it).
	if res := x.want(tao.OK, write(edgeAdd(a, tao.TypeOther, b, 11))); !res.Ops[0].Found {
		x.t.Error("edge_add over an existing edge says it inserted a new one")
	}
	if v := x.edgeVersion(a, tao.TypeOther, b); v != 2 {
		x.t.Errorf("after a second edge_add: version %d, want 2", v)
	}
	// Types of one category are distinct lists: TypeN(1) is another type.
	many, u := tao.Unique.TypeN(3), a+50
	x.want(tao.OK, write(edgeAdd(u, tao.TypeUnique, b, 1)))
	x.want(tao.OK, write(edgeAdd(u, many, b+1, 1)))
	x.want(tao.UniqueViolation, write(edgeAdd(u, many, b+2, 1)))
	upd := tao.Op{Kind: tao.EdgeUpdate, ID1: a, Type: tao.TypeOther, ID2: b, Time: 12, Payload: []byte("u")}
	x.want(tao.OK, write(upd))
	if v := x.edgeVersion(a, tao.TypeOther, b); v != 3 {
		x.t.Errorf("after edge_update: version %d, want 3", v)
	}
	upd.ID2 = b + 1
	x.want(tao.NotFound, write(upd))
	if v := x.edgeVersion(a, tao.TypeOther, b+1); v != -1 {
		x.t.Errorf("edge_update of a missing edge created it")
	}
	if v := x.edgeVersion(a, tao.TypeUnique, b); v != -1 {
		x.t.Errorf("an edge of another type reads as present")
	}
	del := tao.Op{Kind: tao.EdgeDelete, ID1: a, Type: tao.TypeOther, ID2: b}
	x.want(tao.OK, write(del))
	x.want(tao.NotFound, write(del))
	if v := x.edgeVersion(a, tao.TypeOther, b); v != -1 {
		x.t.Errorf("after edge_delete: version %d, want absent", v)
	}
}

func testLists(x *tester, a int64) {
	for i := int64(1); i <= 5; i++ {
		x.want(tao.OK, write(edgeAdd(a, tao.TypeOther, a+i, 10*i)))
	}
	x.want(tao.OK, write(edgeAdd(a, tao.TypeBidirectional, a+9, 10))) // another list of a
	rng := func(off, lim int) int {
		return x.rows(tao.Op{Kind: tao.EdgeRangeRead, ID1: a, Type: tao.TypeOther, Offset: off, Limit: lim})
	}
	for _, c := range []struct{ off, lim, want int }{{0, 3, 3}, {0, 10, 5}, {3, 10, 2}, {5, 10, 0}, {0, 0, 5}} {
		if got := rng(c.off, c.lim); got != c.want {
			x.t.Errorf("edge_range_read offset %d limit %d: %d rows, want %d", c.off, c.lim, got, c.want)
		}
	}
	if n := x.rows(tao.Op{Kind: tao.EdgeCountRead, ID1: a, Type: tao.TypeOther}); n != 5 {
		x.t.Errorf("edge_count_read: %d, want 5", n)
	}
	if n := x.rows(tao.Op{Kind: tao.EdgeCountRead, ID1: a + 100, Type: tao.TypeOther}); n != 0 {
		x.t.Errorf("edge_count_read of an empty list: %d, want 0", n)
	}
	if n := x.rows(tao.Op{Kind: tao.EdgeRangeRead, ID1: a + 100, Type: tao.TypeOther, Limit: 10}); n != 0 {
		x.t.Errorf("edge_range_read of an empty list: %d rows, want 0", n)
	}
	tr := func(lo, hi int64, lim int) int {
		return x.rows(tao.Op{Kind: tao.EdgeTimeRead, ID1: a, Type: tao.TypeOther, Low: lo, High: hi, Limit: lim})
	}
	for _, c := range []struct {
		lo, hi    int64
		lim, want int
	}{{20, 40, 10, 3}, {20, 40, 2, 2}, {10, 10, 10, 1}, {51, 100, 10, 0}, {0, 100, 10, 5}} {
		if got := tr(c.lo, c.hi, c.lim); got != c.want {
			x.t.Errorf("edge_time_read [%d, %d] limit %d: %d rows, want %d", c.lo, c.hi, c.lim, got, c.want)
		}
	}
}

func testUnique(x *tester, a int64) {
	for _, typ := range []tao.EdgeType{tao.TypeUnique, tao.TypeUniqueBidir} {
		a += 100
		b, c := a+1, a+2
		x.want(tao.OK, write(edgeAdd(a, typ, b, 1)))
		x.want(tao.UniqueViolation, write(edgeAdd(a, typ, c, 2)))
		if v := x.edgeVersion(a, typ, c); v != -1 {
			x.t.Errorf("type %d: the refused edge exists", typ)
		}
		if inv, ok := typ.Inverse(); ok {
			if v := x.edgeVersion(c, inv, a); v != -1 {
				x.t.Errorf("type %d: the refused edge's inverse exists", typ)
			}
		}
		x.want(tao.OK, write(edgeAdd(a, typ, b, 3))) // the same edge again: overwritten
		if v := x.edgeVersion(a, typ, b); v != 2 {
			x.t.Errorf("type %d: overwriting the unique edge: version %d, want 2", typ, v)
		}
		x.want(tao.OK, write(edgeAdd(c, typ, a, 1))) // unique per id1 only
		x.want(tao.OK, write(tao.Op{Kind: tao.EdgeDelete, ID1: a, Type: typ, ID2: b}))
		x.want(tao.OK, write(edgeAdd(a, typ, c, 4)))
		// Other types from the same id1 are not limited.
		x.want(tao.OK, write(edgeAdd(a, tao.TypeOther, b, 1)))
		x.want(tao.OK, write(edgeAdd(a, tao.TypeOther, c, 1)))
	}
}

func testBidirectional(x *tester, a int64) {
	for _, typ := range []tao.EdgeType{tao.TypeBidirectional, tao.TypeUniqueBidir} {
		a += 100
		b := a + 1
		inv, _ := typ.Inverse()
		x.want(tao.OK, write(edgeAdd(a, typ, b, 1)))
		if v := x.edgeVersion(b, inv, a); v != 1 {
			x.t.Errorf("type %d: inverse after edge_add: version %d, want 1", typ, v)
		}
		x.want(tao.OK, write(tao.Op{Kind: tao.EdgeUpdate, ID1: a, Type: typ, ID2: b, Time: 2, Payload: []byte("u")}))
		if v := x.edgeVersion(b, inv, a); v != 2 {
			x.t.Errorf("type %d: inverse after edge_update: version %d, want 2", typ, v)
		}
		x.want(tao.OK, write(tao.Op{Kind: tao.EdgeDelete, ID1: a, Type: typ, ID2: b}))
		if v := x.edgeVersion(b, inv, a); v != -1 {
			x.t.Errorf("type %d: inverse after edge_delete still there", typ)
		}
		// A missing forward edge: the update fails and writes no inverse.
		x.want(tao.NotFound, write(tao.Op{Kind: tao.EdgeUpdate, ID1: a, Type: typ, ID2: b, Time: 2}))
		if v := x.edgeVersion(b, inv, a); v != -1 {
			x.t.Errorf("type %d: a failed edge_update wrote the inverse", typ)
		}
	}
	if n := x.rows(tao.Op{Kind: tao.EdgeCountRead, ID1: a + 1, Type: tao.TypeUniqueBidirInv}); n != 0 {
		x.t.Errorf("inverse list not empty after deletes: %d", n)
	}
}

func testChecks(x *tester, id int64) {
	obj, other := id, id+1
	x.want(tao.OK, write(objAdd(obj)))
	upd := tao.Op{Kind: tao.ObjUpdate, ID1: obj, Time: 2, Payload: []byte("u")}
	exists := func(k tao.Key) tao.Check { return tao.Check{Kind: tao.CheckExists, Key: k} }
	version := func(k tao.Key, v int64) tao.Check { return tao.Check{Kind: tao.CheckVersion, Key: k, Version: v} }

	x.want(tao.PreconditionFailed, write(upd, exists(tao.Key{ID1: other})))
	x.want(tao.PreconditionFailed, write(upd, version(tao.Key{ID1: obj}, 7)))
	if v := x.objVersion(obj); v != 1 {
		x.t.Errorf("a failed precondition wrote: version %d, want 1", v)
	}
	x.want(tao.OK, write(upd, exists(tao.Key{ID1: obj}), version(tao.Key{ID1: obj}, 1)))
	if v := x.objVersion(obj); v != 2 {
		x.t.Errorf("a write with holding preconditions: version %d, want 2", v)
	}
	// On an edge key, and on an edge write with an object check.
	ek := tao.Key{Edge: true, ID1: obj, Type: tao.TypeOther, ID2: other}
	x.want(tao.PreconditionFailed, write(edgeAdd(obj, tao.TypeBidirectional, other, 1), exists(ek)))
	if v := x.edgeVersion(other, tao.TypeBidirectionalInv, obj); v != -1 {
		x.t.Error("a failed precondition wrote an inverse edge")
	}
	x.want(tao.OK, write(edgeAdd(obj, tao.TypeOther, other, 1), exists(tao.Key{ID1: obj})))
	x.want(tao.OK, write(upd, version(ek, 1)))
	x.want(tao.PreconditionFailed, write(upd, version(ek, 2)))
	// A check failing in a write transaction stops all of it.
	txn := &tao.Request{Class: tao.WriteTxn, Ops: []tao.Op{objAdd(other), upd}, Checks: []tao.Check{exists(ek), version(tao.Key{ID1: obj}, 99)}}
	x.want(tao.PreconditionFailed, txn)
	if v := x.objVersion(other); v != -1 {
		x.t.Error("a write transaction with a failed precondition wrote")
	}
}

func testWriteTxn(x *tester, id int64) {
	a, b, c := id, id+1, id+2
	x.want(tao.OK, write(edgeAdd(c, tao.TypeUnique, a, 1)))
	txn := func(ops ...tao.Op) *tao.Request { return &tao.Request{Class: tao.WriteTxn, Ops: ops} }

	// Fails on its last op: a second unique edge.
	x.want(tao.UniqueViolation, txn(objAdd(a), edgeAdd(a, tao.TypeOther, b, 1), edgeAdd(c, tao.TypeUnique, b, 1)))
	if v := x.objVersion(a); v != -1 {
		x.t.Error("a failed write transaction left its object")
	}
	if x.edgeVersion(a, tao.TypeOther, b) != -1 {
		x.t.Error("a failed write transaction left its edges")
	}
	// An update or delete of a missing row is a no-op: the rest commits,
	// and the op says it found nothing.
	missing := txn(objAdd(c+10), tao.Op{Kind: tao.ObjUpdate, ID1: c + 11, Time: 1, Payload: []byte("x")},
		tao.Op{Kind: tao.EdgeDelete, ID1: c + 10, Type: tao.TypeOther, ID2: c})
	res := x.want(tao.OK, missing)
	if len(res.Ops) == 3 && (res.Ops[1].Found || res.Ops[2].Found) {
		x.t.Errorf("no-op writes said they found their rows: %+v", res.Ops)
	}
	if x.objVersion(c+10) != 1 {
		x.t.Error("a write transaction with a no-op update did not commit the rest")
	}
	x.want(tao.OK, txn(objAdd(a), objAdd(b), edgeAdd(a, tao.TypeBidirectional, b, 1), edgeAdd(a, tao.TypeUnique, b, 1)))
	if x.objVersion(a) != 1 || x.objVersion(b) != 1 || x.edgeVersion(b, tao.TypeBidirectionalInv, a) != 1 || x.edgeVersion(a, tao.TypeUnique, b) != 1 {
		x.t.Error("a successful write transaction did not write everything")
	}
}

func testReadTxn(x *tester, id int64) {
	x.want(tao.OK, write(objAdd(id)))
	x.want(tao.OK, write(edgeAdd(id, tao.TypeOther, id+1, 5)))
	req := &tao.Request{Class: tao.ReadTxn, Ops: []tao.Op{
		{Kind: tao.ObjRead, ID1: id},
		{Kind: tao.ObjRead, ID1: id + 1},
		{Kind: tao.EdgePointRead, ID1: id, Type: tao.TypeOther, ID2: id + 1},
		{Kind: tao.EdgeRangeRead, ID1: id, Type: tao.TypeOther, Limit: 10},
		{Kind: tao.EdgeCountRead, ID1: id, Type: tao.TypeOther},
		{Kind: tao.EdgeTimeRead, ID1: id, Type: tao.TypeOther, Low: 0, High: 4, Limit: 10},
	}}
	res := x.want(tao.OK, req) // a miss inside a read transaction is a result, not the outcome
	want := []tao.OpResult{{Found: true, Version: 1}, {}, {Found: true, Version: 1}, {Rows: 1}, {Rows: 1}, {Rows: 0}}
	for i, w := range want {
		if res.Ops[i] != w {
			x.t.Errorf("read_txn op %d (%v): %+v, want %+v", i, req.Ops[i].Kind, res.Ops[i], w)
		}
	}
}

func testTimeout(x *tester, id int64) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, req := range []*tao.Request{
		one(tao.Read, tao.Op{Kind: tao.ObjRead, ID1: id}),
		write(objAdd(id)),
		{Class: tao.WriteTxn, Ops: []tao.Op{objAdd(id), objAdd(id + 1)}},
	} {
		var res tao.Result
		res.Reset(len(req.Ops))
		x.db.Exec(ctx, req, &res)
		if res.Outcome != tao.Timeout || res.Err == nil {
			x.t.Errorf("%v with a cancelled context: outcome %v, err %v; want timeout with an error", req.Class, res.Outcome, res.Err)
		}
	}
	if v := x.objVersion(id); v != -1 {
		x.t.Error("a cancelled write wrote")
	}
}

func testBadRequest(x *tester, id int64) {
	res := x.exec(write(tao.Op{Kind: tao.NumKinds, ID1: id}))
	if res.Outcome != tao.Error || res.Err == nil {
		x.t.Errorf("an unknown kind: outcome %v, err %v; want error with a message", res.Outcome, res.Err)
	}
}

// testUniqueRace races 16 adds of different edges of one unique type from
// one id1: the database must admit exactly one. Conflicts are retried, as
// the runner retries them.
func testUniqueRace(x *tester, a int64) {
	for _, typ := range []tao.EdgeType{tao.TypeUnique, tao.TypeUniqueBidir} {
		a += 100
		const n = 16
		outs := make([]tao.Outcome, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				req := write(edgeAdd(a, typ, a+1+int64(i), 1))
				for try := 0; ; try++ {
					var res tao.Result
					res.Reset(1)
					x.db.Exec(context.Background(), req, &res)
					outs[i] = res.Outcome
					if !res.Outcome.IsConflict() || try == 50 {
						if res.Err != nil {
							x.t.Logf("add %d: %v", i, res.Err)
						}
						return
					}
					time.Sleep(time.Duration(try+1) * time.Millisecond)
				}
			}()
		}
		close(start)
		wg.Wait()
		var ok, uniq int
		for _, o := range outs {
			switch o {
			case tao.OK:
				ok++
			case tao.UniqueViolation:
				uniq++
			}
		}
		if ok != 1 || uniq != n-1 {
			x.t.Errorf("type %d: %d racing adds: %d ok, %d unique violations, outcomes %v; want 1 and %d", typ, n, ok, uniq, outs, n-1)
		}
		if c := x.rows(tao.Op{Kind: tao.EdgeCountRead, ID1: a, Type: typ}); c != 1 {
			x.t.Errorf("type %d: %d edges after the race, want 1", typ, c)
		}
	}
	if vs := x.check(); len(vs) != 0 {
		x.t.Errorf("Check after the race: %+v", vs)
	}
}

func testMeta(x *tester) {
	ctx := context.Background()
	m, err := x.db.Meta(ctx)
	if err != nil || len(m) != 0 {
		x.t.Fatalf("Meta of a new database: %v, %v; want empty", m, err)
	}
	in := map[string]string{"seed": "1", "edges": "1000", "workload": "a b\tc'\"\\"}
	if err := x.db.SetMeta(ctx, in); err != nil {
		x.t.Fatal(err)
	}
	if err := x.db.SetMeta(ctx, map[string]string{"seed": "2"}); err != nil {
		x.t.Fatal(err)
	}
	in["seed"] = "2"
	m, err = x.db.Meta(ctx)
	if err != nil || fmt.Sprint(m) != fmt.Sprint(in) {
		x.t.Errorf("Meta = %v, %v; want %v", m, err, in)
	}
}

func testReserveRun(x *tester) {
	const g, each = 4, 3
	var mu sync.Mutex
	seen := map[int64]bool{}
	var wg sync.WaitGroup
	for range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				n, err := x.db.ReserveRun(context.Background())
				mu.Lock()
				if err != nil {
					x.t.Errorf("ReserveRun: %v", err)
				} else if seen[n] {
					x.t.Errorf("ReserveRun returned %d twice", n)
				}
				seen[n] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != g*each {
		x.t.Errorf("%d distinct run numbers, want %d", len(seen), g*each)
	}
}

// testReserveRunKey: drivers of one run asking at once with one key share
// one run number, and the database counts one run for them.
func testReserveRunKey(x *tester) {
	k, ok := x.db.(store.RunKeyer)
	if !ok {
		x.t.Skip("the store has no shared run numbers")
	}
	ctx := context.Background()
	runs := func() int64 {
		in, ok := x.db.(store.Inspector)
		if !ok {
			return 0
		}
		n, err := in.Runs(ctx)
		if err != nil {
			x.t.Fatalf("Runs: %v", err)
		}
		return n
	}
	before := runs()
	const drivers = 4
	got := make([]int64, drivers)
	var wg sync.WaitGroup
	for i := range drivers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := k.ReserveRunKey(ctx, "run/00112233aabbccdd/0")
			if err != nil {
				x.t.Errorf("ReserveRunKey: %v", err)
			}
			got[i] = n
		}()
	}
	wg.Wait()
	for i, n := range got {
		if n != got[0] || n == 0 {
			x.t.Fatalf("driver %d got run number %d, driver 0 %d: want one shared, non-zero number", i, n, got[0])
		}
	}
	if _, ok := x.db.(store.Inspector); ok && runs() != before+1 {
		x.t.Errorf("Runs went from %d to %d for one shared run; want one more", before, runs())
	}
	other, err := k.ReserveRunKey(ctx, "run/00112233aabbccdd/1")
	if err != nil || other == got[0] {
		x.t.Errorf("another key: run number %d, %v; want a new number, not %d", other, err, got[0])
	}
	plain, err := x.db.ReserveRun(ctx)
	if err != nil || plain <= other {
		x.t.Errorf("ReserveRun after keyed ones = %d, %v; want more than %d", plain, err, other)
	}
}

// testRunRecorder: run records come back as written, apart from the
// graph's record, and go when deleted; drivers asking at once for a shared
// start all get the first one's instant, and a stale one is replaced.
func testRunRecorder(x *tester) {
	rr, ok := x.db.(store.RunRecorder)
	if !ok {
		x.t.Skip("the store records no runs")
	}
	ctx := context.Background()
	if err := x.db.SetMeta(ctx, map[string]string{"seed": "1"}); err != nil {
		x.t.Fatal(err)
	}
	for k, v := range map[string]string{"a1/1": `{"run":1}`, "b2/7": `{"run":7, "host": "h'\"x"}`} {
		if err := rr.PutRunRecord(ctx, k, v); err != nil {
			x.t.Fatal(err)
		}
	}
	if err := rr.PutRunRecord(ctx, "a1/1", `{"run":1,"end":"x"}`); err != nil {
		x.t.Fatal(err)
	}
	got, err := rr.RunRecords(ctx)
	want := map[string]string{"a1/1": `{"run":1,"end":"x"}`, "b2/7": `{"run":7, "host": "h'\"x"}`}
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		x.t.Errorf("RunRecords = %v, %v; want %v", got, err, want)
	}
	if m, err := x.db.Meta(ctx); err != nil || fmt.Sprint(m) != fmt.Sprint(map[string]string{"seed": "1"}) {
		x.t.Errorf("Meta beside run records = %v, %v; want the graph's record alone", m, err)
	}
	if err := rr.DeleteRunRecords(ctx, []string{"a1/1"}); err != nil {
		x.t.Fatal(err)
	}
	if got, err := rr.RunRecords(ctx); err != nil || len(got) != 1 || got["b2/7"] == "" {
		x.t.Errorf("RunRecords after deleting a1/1 = %v, %v; want b2/7 alone", got, err)
	}

	base := time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)
	const drivers = 4
	at := make([]time.Time, drivers)
	var wg sync.WaitGroup
	for i := range drivers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t, err := rr.AgreeStart(ctx, "start/00112233aabbccdd", base.Add(time.Duration(i)*time.Second), base.Add(-time.Hour))
			if err != nil {
				x.t.Errorf("AgreeStart: %v", err)
			}
			at[i] = t
		}()
	}
	wg.Wait()
	for i, t := range at {
		if !t.Equal(at[0]) || t.Before(base) || t.After(base.Add(drivers*time.Second)) {
			x.t.Fatalf("driver %d got start %v, driver 0 %v: want one of the instants proposed, shared", i, t, at[0])
		}
	}
	later := base.Add(time.Hour)
	if t, err := rr.AgreeStart(ctx, "start/00112233aabbccdd", later, base.Add(-time.Minute)); err != nil || !t.Equal(at[0]) {
		x.t.Errorf("AgreeStart with a fresh record = %v, %v; want the recorded %v", t, err, at[0])
	}
	if t, err := rr.AgreeStart(ctx, "start/00112233aabbccdd", later, base.Add(time.Minute*30)); err != nil || !t.Equal(later) {
		x.t.Errorf("AgreeStart over a stale record = %v, %v; want the new %v", t, err, later)
	}
	if n, err := x.db.ReserveRun(ctx); err != nil || n != 1 {
		x.t.Errorf("ReserveRun after shared starts = %d, %v; want 1: the starts take no run number", n, err)
	}
}

// perNode is the edges graph writes per node.
const perNode = 7

// graph returns a small graph that keeps the invariants: node i has an
// object, one edge of each type to the next node (with inverses) and one
// more edge of TypeOther.
func graph(lo, hi int64) ([]tao.Object, []tao.Edge) {
	var objs []tao.Object
	var edges []tao.Edge
	for i := lo; i < hi; i++ {
		objs = append(objs, tao.Object{ID: i, Time: i, Version: 1, Value: []byte("object value")})
		j := lo + (i-lo+1)%(hi-lo)
		for _, t := range []tao.EdgeType{tao.TypeUnique, tao.TypeBidirectional, tao.TypeUniqueBidir, tao.TypeOther} {
			edges = append(edges, tao.Edge{ID1: i, ID2: j, Type: t, Time: i, Version: 1, Value: []byte("e")})
			if inv, ok := t.Inverse(); ok {
				edges = append(edges, tao.Edge{ID1: j, ID2: i, Type: inv, Time: i, Version: 1, Value: []byte("e")})
			}
		}
		edges = append(edges, tao.Edge{ID1: i, ID2: i + 1000, Type: tao.TypeOther, Time: i + 1, Version: 1})
	}
	return objs, edges
}

func testLoad(x *tester) {
	ctx := context.Background()
	const lo, mid, hi = 1000, 1300, 1600
	load := func() {
		if err := x.db.BeginLoad(ctx); err != nil {
			x.t.Fatalf("BeginLoad: %v", err)
		}
		var wg sync.WaitGroup
		for _, r := range [][2]int64{{lo, mid}, {mid, hi}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				l, err := x.db.NewLoader(ctx)
				if err != nil {
					x.t.Errorf("NewLoader: %v", err)
					return
				}
				defer l.Close()
				objs, edges := graph(lo, hi)
				objs, edges = objs[r[0]-lo:r[1]-lo], edges[(r[0]-lo)*perNode:(r[1]-lo)*perNode]
				for len(objs) > 0 { // in batches, as the load package calls
					n := min(len(objs), 120)
					if err := l.Load(ctx, objs[:n], edges[:n*perNode]); err != nil {
						x.t.Errorf("Load: %v", err)
						return
					}
					objs, edges = objs[n:], edges[n*perNode:]
				}
			}()
		}
		wg.Wait()
		if err := x.db.EndLoad(ctx); err != nil {
			x.t.Fatalf("EndLoad: %v", err)
		}
	}
	load()
	verify := func() {
		if v := x.objVersion(lo + 7); v != 1 {
			x.t.Errorf("loaded object: version %d, want 1", v)
		}
		if v := x.edgeVersion(lo+8, tao.TypeUniqueBidirInv, lo+7); v != 1 {
			x.t.Errorf("loaded inverse edge: version %d, want 1", v)
		}
		if n := x.rows(tao.Op{Kind: tao.EdgeCountRead, ID1: lo + 5, Type: tao.TypeOther}); n != 2 {
			x.t.Errorf("loaded list: %d edges, want 2", n)
		}
		if n := x.rows(tao.Op{Kind: tao.EdgeTimeRead, ID1: lo + 5, Type: tao.TypeOther, Low: lo + 6, High: lo + 6, Limit: 10}); n != 1 {
			x.t.Errorf("loaded list by time: %d edges, want 1", n)
		}
		if vs := x.check(); len(vs) != 0 {
			x.t.Errorf("Check after the load: %+v", vs)
		}
	}
	verify()
	// Indexes are back: uniqueness holds for new writes.
	x.want(tao.UniqueViolation, write(edgeAdd(lo, tao.TypeUnique, hi+5, 1)))
	// Loading again into the now full tables skips what exists.
	load()
	verify()
}

func testCheckPlanted(x *tester) {
	ctx := context.Background()
	if vs := x.check(); len(vs) != 0 {
		x.t.Fatalf("Check of an empty database: %+v", vs)
	}
	x.want(tao.OK, write(edgeAdd(10, tao.TypeBidirectional, 20, 1)))
	if vs := x.check(); len(vs) != 0 {
		x.t.Fatalf("Check of a clean graph: %+v", vs)
	}
	// Rows from a loader are written as given: an edge without its inverse.
	l, err := x.db.NewLoader(ctx)
	if err != nil {
		x.t.Fatal(err)
	}
	err = l.Load(ctx, nil, []tao.Edge{
		{ID1: 30, ID2: 40, Type: tao.TypeUniqueBidir, Version: 1},
		{ID1: 50, ID2: 60, Type: tao.TypeBidirectionalInv, Version: 1},
		{ID1: 51, ID2: 60, Type: tao.TypeBidirectionalInv, Version: 1},
	})
	l.Close()
	if err != nil {
		x.t.Fatal(err)
	}
	vs := x.check()
	got := map[string]store.Violation{}
	for _, v := range vs {
		got[v.Invariant] = v
	}
	fwd := got["bidirectional edge has its inverse"]
	if fwd.Count != 1 || !strings.Contains(fwd.Example, "30") || !strings.Contains(fwd.Example, "40") {
		x.t.Errorf("forward violation: %+v (all: %+v); want count 1 naming 30 and 40", fwd, vs)
	}
	if inv := got["inverse edge has its forward edge"]; inv.Count != 2 || inv.Example == "" {
		x.t.Errorf("inverse violation: %+v (all: %+v); want count 2 with an example", inv, vs)
	}
	if len(vs) != 2 {
		x.t.Errorf("Check found %d violations, want 2: %+v", len(vs), vs)
	}
}

func testSetupDrop(x *tester) {
	ctx := context.Background()
	if len(x.db.Schema()) == 0 {
		x.t.Error("Schema is empty")
	}
	x.want(tao.OK, write(objAdd(1)))
	if err := x.db.SetMeta(ctx, map[string]string{"k": "v"}); err != nil {
		x.t.Fatal(err)
	}
	if err := x.db.Setup(ctx, false); err != nil {
		x.t.Fatal(err)
	}
	if v := x.objVersion(1); v != 1 {
		x.t.Error("Setup without drop lost rows")
	}
	if err := x.db.Setup(ctx, true); err != nil {
		x.t.Fatal(err)
	}
	if v := x.objVersion(1); v != -1 {
		x.t.Error("Setup with drop kept rows")
	}
	if m, err := x.db.Meta(ctx); err != nil || len(m) != 0 {
		x.t.Errorf("Meta after Setup with drop: %v, %v", m, err)
	}
	if _, err := x.db.ReserveRun(ctx); err != nil {
		x.t.Errorf("ReserveRun after Setup with drop: %v", err)
	}
	x.want(tao.OK, write(objAdd(1)))
}
