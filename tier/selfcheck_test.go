package tier

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/fidelity"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/store/storetest"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// The fidelity row "stale reads (self-check)" passes on the checker as it
// is and fails when the checker is damaged: a commit log holding an
// impossible write (begun after every read's answer, ended before every
// read began) makes it class reads the database answered stale.
func TestSelfCheckRowFailsOnDamagedChecker(t *testing.T) {
	w, err := workload.Resolve("o")
	if err != nil {
		t.Fatal(err)
	}
	db := storetest.Func{ExecFunc: func(_ context.Context, req *tao.Request, res *tao.Result) {
		res.Outcome = tao.OK
		for i := range res.Ops {
			res.Ops[i] = tao.OpResult{Found: true, Version: 1}
		}
	}}
	id := int64(7)
	for !Sampled(&tao.Op{ID1: id}) { // a key in the checker's sample
		id++
	}
	row := func(damage bool) result.FidelityRow {
		s, err := Open(context.Background(), db, Options{})
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		s.BeginExperiment(1, 1, now.Add(-time.Second), now.Add(time.Hour))
		if damage {
			s.log.add(Key{Kind: 'o', ID1: id}, now.Add(time.Hour).UnixNano(), 0)
		}
		for range 100 {
			req := tao.Request{Class: tao.Read, Tier: tao.TierDB, Ops: []tao.Op{{Kind: tao.ObjRead, ID1: id}}}
			var res tao.Result
			res.Reset(1)
			s.Exec(context.Background(), &req, &res)
		}
		for _, r := range fidelity.TierRows(w, s.EndExperiment()) {
			if r.Figure == "stale reads (self-check)" {
				return r
			}
		}
		t.Fatal("no self-check row")
		return result.FidelityRow{}
	}
	if r := row(false); r.Verdict != result.Pass || r.N != 100 || r.Observed != 0 {
		t.Errorf("sound checker: %+v; want 100 reads, 0 stale, pass", r)
	}
	if r := row(true); r.Verdict != result.Fail || r.Observed != 1 {
		t.Errorf("damaged checker: %+v; want every read stale and the row failed", r)
	}
}

// With no tier (the checker alone, as in every run on a real database)
// each request reaches the database as the runner sent it (a range read
// is not turned into a fill), nothing is marked tiered, every read in the
// sample is checked (a read transaction once, all its reads classed), one
// out of it is not, and the
// result has the self-check row alone. An impossible write in the log of
// one key read by a transaction fails it: that transaction counts stale.
func TestCheckerAlone(t *testing.T) {
	w, err := workload.Resolve("o")
	if err != nil {
		t.Fatal(err)
	}
	var seen []tao.Request
	db := storetest.Func{ExecFunc: func(_ context.Context, req *tao.Request, res *tao.Result) {
		seen = append(seen, *req)
		res.Outcome = tao.OK
		for i := range res.Ops {
			res.Ops[i] = tao.OpResult{Found: true, Version: 1}
		}
	}}
	// Keys in the checker's sample (Sampled), and one out of it.
	pick := func(typ tao.EdgeType, from int64, in bool) int64 {
		for id := from; ; id++ {
			if Sampled(&tao.Op{ID1: id, Type: typ}) == in {
				return id
			}
		}
	}
	r, o, out := pick(2, 1, true), pick(0, 7, true), pick(0, 1, false)
	reqs := []tao.Request{
		{Class: tao.Read, Tier: tao.TierClientCache, Ops: []tao.Op{{Kind: tao.EdgeRangeRead, ID1: r, Type: 2, Limit: 10}}},
		{Class: tao.ReadTxn, Tier: tao.TierDB, Ops: []tao.Op{{Kind: tao.ObjRead, ID1: o}, {Kind: tao.EdgeCountRead, ID1: r, Type: 2}, {Kind: tao.ObjRead, ID1: 8}}},
		{Class: tao.Write, Ops: []tao.Op{{Kind: tao.ObjUpdate, ID1: o}}},
		{Class: tao.Read, Tier: tao.TierTAO, Ops: []tao.Op{{Kind: tao.ObjRead, ID1: o}}},
		{Class: tao.Read, Tier: tao.TierDB, Ops: []tao.Op{{Kind: tao.ObjRead, ID1: out}}}, // not in the sample
	}
	check := func(damage bool) (*result.Consistency, []result.FidelityRow) {
		seen = nil
		var classed []Read
		s, err := Open(context.Background(), db, Options{Trace: func(r Read) { classed = append(classed, r) }})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		now := time.Now()
		s.BeginExperiment(1, 1, now.Add(-time.Second), now.Add(time.Hour))
		if damage {
			s.log.add(Key{Kind: 'o', ID1: 8}, now.Add(time.Hour).UnixNano(), 0)
		}
		for i := range reqs {
			var res tao.Result
			res.Reset(len(reqs[i].Ops))
			s.Exec(context.Background(), &reqs[i], &res)
			if res.Tiered {
				t.Errorf("request %d marked tiered with no tier", i)
			}
		}
		if len(seen) != len(reqs) {
			t.Fatalf("the database saw %d requests; want the %d sent", len(seen), len(reqs))
		}
		for i := range reqs {
			if seen[i].Class != reqs[i].Class || len(seen[i].Ops) != len(reqs[i].Ops) || seen[i].Ops[0].Kind != reqs[i].Ops[0].Kind {
				t.Errorf("the database saw %+v for %+v", seen[i], reqs[i])
			}
		}
		if len(classed) != 5 {
			t.Errorf("%d reads classed; want 5 (1 + 3 in the transaction + 1; the last read is not in the sample)", len(classed))
		}
		c := s.EndExperiment()
		return c, fidelity.TierRows(w, c)
	}
	c, rows := check(false)
	db1 := c.Tiers[tao.TierDB]
	if !c.CheckOnly || db1.Served != 3 || db1.Stale != 0 || db1.Latency.Count() != 3 || c.Tiers[tao.TierClientCache].Drawn+c.Tiers[tao.TierTAO].Drawn+db1.Drawn != 0 {
		t.Errorf("checker alone: %+v; want check-only, 3 database reads, none stale, none drawn", c)
	}
	if c.CheckEvery != CheckEvery {
		t.Errorf("check_every %d; want %d", c.CheckEvery, CheckEvery)
	}
	if len(rows) != 1 || rows[0].Figure != "stale reads (self-check)" || rows[0].Verdict != result.Pass || rows[0].N != 3 || !strings.Contains(rows[0].Note, "a sample") {
		t.Errorf("rows %+v; want the self-check alone, passed on 3 reads", rows)
	}
	c, rows = check(true)
	if db := c.Tiers[tao.TierDB]; db.Stale != 1 || len(rows) != 1 || rows[0].Verdict != result.Fail {
		t.Errorf("damaged checker: %d stale, rows %+v; want the transaction stale and the row failed", db.Stale, rows)
	}
}

// watching is a store that records the contexts it was asked to watch.
type watching struct {
	storetest.Func
	watched, stopped int
}

func (w *watching) WatchContext(context.Context) func() {
	w.watched++
	return func() { w.stopped++ }
}

// The run's context reaches a database that watches it once (sqlstore's
// WatchContext) through the tiers, the checker alone included: wrapping
// the store must not undo issue 21's saving.
func TestWatchContextPassesThrough(t *testing.T) {
	db := &watching{}
	s, err := Open(context.Background(), db, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, ok := s.Front().(interface{ WatchContext(context.Context) func() })
	if !ok {
		t.Fatal("the tiers' front has no WatchContext")
	}
	stop := w.WatchContext(context.Background())
	stop()
	if db.watched != 1 || db.stopped != 1 {
		t.Errorf("the database was asked to watch %d times and stopped %d; want 1 and 1", db.watched, db.stopped)
	}
}
