package tier_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/tier"
	"github.com/taobench/taobench/workload"
)

// TAO's changeset (through.go) keeps the tier's answers the database's:
// on a prefilled tier, writes of every kind (workload o's: adds, updates
// and deletes of objects and edges, bidirectional ones with their
// inverses) go through it one at a time, and then every key they wrote,
// its list and its inverse, read from the tao tier, answers as the
// database does. A changeset that bumped no version, or left a list's
// size alone, fails it (298 and 460 of 2,244 reads wrong).
func TestChangesetKeepsAnswers(t *testing.T) {
	w := builtin(t, "o")
	ww := *w
	ww.Requests = workload.Dist[tao.Class]{Values: []tao.Class{tao.Write, tao.WriteTxn}, Weights: []float64{4, 1}}
	all := workload.Dist[tao.Kind]{Values: []tao.Kind{tao.ObjAdd, tao.ObjUpdate, tao.ObjDelete, tao.EdgeAdd, tao.EdgeUpdate, tao.EdgeDelete},
		Weights: []float64{1, 2, 1, 3, 2, 2}}
	ww.WriteKinds, ww.WriteTxnKinds = all, all
	db, g := sqliteGraph(t, w, 2000)
	writes := requests(t, &ww, g, 600, func(r *tao.Request) bool { return r.Class == tao.Write || r.Class == tao.WriteTxn })
	ts, err := tier.Open(context.Background(), db, tier.Options{Cache: sharedRedis(t) + "&prefill=1", Clients: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	ts.Warm(context.Background(), g, g.Seed(), 1, nil)
	ts.BeginExperiment(g.Seed(), 1, time.Now(), time.Now().Add(time.Hour))
	var reads []tao.Request
	read := func(op tao.Op) {
		reads = append(reads, tao.Request{Class: tao.Read, Tier: tao.TierTAO, Ops: []tao.Op{op}})
	}
	for _, wr := range writes {
		wr.Checks, wr.Predicates = nil, nil // every write applies
		if res := exec(ts, wr); res.Outcome != tao.OK && res.Outcome != tao.NotFound && res.Outcome != tao.UniqueViolation {
			t.Fatalf("write %+v: %v %v", wr.Ops, res.Outcome, res.Err)
		}
		for _, op := range wr.Ops {
			if !op.Kind.IsEdge() {
				read(tao.Op{Kind: tao.ObjRead, ID1: op.ID1})
				continue
			}
			read(tao.Op{Kind: tao.EdgePointRead, ID1: op.ID1, Type: op.Type, ID2: op.ID2})
			read(tao.Op{Kind: tao.EdgeCountRead, ID1: op.ID1, Type: op.Type})
			if inv, ok := op.Type.Inverse(); ok {
				read(tao.Op{Kind: tao.EdgePointRead, ID1: op.ID2, Type: inv, ID2: op.ID1})
				read(tao.Op{Kind: tao.EdgeCountRead, ID1: op.ID2, Type: inv})
			}
		}
	}
	var kinds [tao.NumKinds]int
	for _, wr := range writes {
		for _, op := range wr.Ops {
			kinds[op.Kind]++
		}
	}
	t.Logf("writes by kind: %v", fmt.Sprint(kinds))
	wrong := 0
	for _, r := range reads {
		got, want := exec(ts, r), exec(db, r)
		if got.Outcome != want.Outcome || got.Ops[0] != want.Ops[0] {
			if wrong++; wrong <= 10 {
				t.Errorf("%+v: the tier answered %v %+v, the database %v %+v", r.Ops[0], got.Outcome, got.Ops[0], want.Outcome, want.Ops[0])
			}
		}
	}
	if wrong > 0 {
		t.Errorf("%d of %d reads of written keys answered otherwise than the database", wrong, len(reads))
	}
	c := ts.EndExperiment()
	if tao := c.Tiers[tao.TierTAO]; tao.Hits < int64(len(reads))/2 {
		t.Errorf("the tao tier answered %d of %d reads of written keys: the changeset should have kept most", tao.Hits, len(reads))
	}
}
