package tier_test

import (
	"context"
	"testing"
	"time"

	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/tier"
)

// A prefilled tier answers the workload's object and edge point reads as
// the database does, absent edges included (from the lists' completeness);
// after a write adds an absent edge, its point read goes to the database
// and finds it; and without prefill=1 nothing is filled.
func TestPrefillWarmsTier(t *testing.T) {
	w := builtin(t, "o")
	db, g := sqliteGraph(t, w, 2000)
	open := func(prefill string) (*tier.Store, *traces) {
		var tr traces
		ts, err := tier.Open(context.Background(), db, tier.Options{Cache: sharedRedis(t) + prefill, Clients: 4, Trace: tr.add})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ts.Close() })
		ts.Warm(context.Background(), g, g.Seed(), 1, nil)
		now := time.Now()
		ts.BeginExperiment(g.Seed(), 1, now, now.Add(time.Hour))
		return ts, &tr
	}
	reads := append(requests(t, w, g, 100, singleRead(tao.ObjRead)), requests(t, w, g, 300, singleRead(tao.EdgePointRead))...)

	cold, ctr := open("&prefill=0")
	seen := map[[3]int64]bool{}
	for _, r := range reads[:50] {
		if k := [3]int64{r.Ops[0].ID1, int64(r.Ops[0].Type), r.Ops[0].ID2}; seen[k] {
			continue // filled by its first read
		}
		seen[[3]int64{r.Ops[0].ID1, int64(r.Ops[0].Type), r.Ops[0].ID2}] = true
		n := ctr.len()
		exec(cold, withTier(r, tao.TierTAO))
		if got := ctr.after(n); got.Served != tao.TierDB {
			t.Fatalf("without prefill, %+v was served by %v; want db (a cold tier)", r.Ops[0], got.Served)
		}
	}
	if c := cold.EndExperiment(); c.Prefill != nil {
		t.Errorf("without prefill: %+v prefilled", c.Prefill)
	}

	// An edge the graph did not load, added behind the tier's back: its
	// list holds more than the graph's members, so it is not complete.
	var behind tao.Request
	for _, r := range reads {
		if r.Ops[0].Kind == tao.EdgePointRead && !exec(db, r).Ops[0].Found {
			behind = r
			break
		}
	}
	bop := behind.Ops[0]
	if res := exec(db, tao.Request{Class: tao.Write, Tier: tao.TierDB, Ops: []tao.Op{{Kind: tao.EdgeAdd, ID1: bop.ID1, Type: bop.Type, ID2: bop.ID2, Time: 1, Payload: []byte("x")}}}); res.Outcome != tao.OK {
		t.Fatalf("add %+v: %v %v", bop, res.Outcome, res.Err)
	}

	ts, tr := open("&prefill=1")
	c := ts.EndExperiment() // waits for the prefill
	p := c.Prefill
	if p == nil || !p.Done || p.Errors != 0 || p.Objects != g.Nodes() || p.Edges == 0 || p.Complete == 0 || p.Complete > p.Lists {
		t.Fatalf("prefill %+v; want done, no error, every one of %d objects, edges and complete lists", p, g.Nodes())
	}
	ts.BeginExperiment(g.Seed(), 1, time.Now(), time.Now().Add(time.Hour)) // the same keys, counted afresh
	absent := tao.Request{}
	for _, r := range reads {
		want := exec(db, r)
		n := tr.len()
		got := exec(ts, withTier(r, tao.TierTAO))
		rd := tr.after(n)
		if got.Outcome != want.Outcome || got.Ops[0].Found != want.Ops[0].Found || got.Ops[0].Version != want.Ops[0].Version {
			t.Errorf("%+v: tier answered %v %+v, the database %v %+v", r.Ops[0], got.Outcome, got.Ops[0], want.Outcome, want.Ops[0])
		}
		onBehind := r.Ops[0].Kind == tao.EdgePointRead && r.Ops[0].ID1 == bop.ID1 && r.Ops[0].Type == bop.Type &&
			(r.Ops[0].ID2 == bop.ID2 || !want.Ops[0].Found)
		if rd.Served != tao.TierTAO && !onBehind {
			t.Errorf("%+v: served by %v after the prefill; want tao", r.Ops[0], rd.Served)
		}
		if onBehind && rd.Served != tao.TierDB {
			t.Errorf("%+v: served by %v; want db (its list holds an edge the graph did not load: not complete)", r.Ops[0], rd.Served)
		}
		if r.Ops[0].Kind == tao.EdgePointRead && !want.Ops[0].Found && absent.Ops == nil {
			absent = r
		}
	}
	if absent.Ops == nil {
		t.Fatal("no point read of an absent edge drawn")
	}
	op := absent.Ops[0]
	add := tao.Request{Class: tao.Write, Tier: tao.TierDB, Ops: []tao.Op{{Kind: tao.EdgeAdd, ID1: op.ID1, Type: op.Type, ID2: op.ID2, Time: 1, Payload: []byte("x")}}}
	if res := exec(ts, add); res.Outcome != tao.OK {
		t.Fatalf("add %+v: %v %v", op, res.Outcome, res.Err)
	}
	n := tr.len()
	res := exec(ts, withTier(absent, tao.TierTAO))
	// TAO's changeset (through.go): the write put the edge in its cached
	// list, at the version the database holds.
	want := exec(db, absent)
	if rd := tr.after(n); !res.Ops[0].Found || res.Ops[0].Version != want.Ops[0].Version || rd.Served != tao.TierTAO {
		t.Errorf("the added edge %+v: found %v at version %d, served by %v; want found at %d, by tao (the write's changeset)",
			op, res.Ops[0].Found, res.Ops[0].Version, rd.Served, want.Ops[0].Version)
	}
}
