package tier_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/tier"
)

// Two databases holding the same graph, each run numbered 1 by its own
// counter, behind one Redis with one prefix: neither is served the other's
// entries, and neither's reads are classed against the other's writes
// (the shared commit log). Two SQLite files, two PostgreSQL databases of
// one server (one system identifier), two MariaDB schemas of one server.
func TestDatabasesNeverShareTheTAOTier(t *testing.T) {
	for _, c := range []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "t.db") }},
		{"postgres", func(t *testing.T) string { return testenv.FreshPostgres(t, testenv.PostgresURL(t)) }},
		{"mariadb", func(t *testing.T) string { return testenv.FreshMySQL(t, testenv.MySQLURL(t)) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			cache := sharedRedis(t)
			a, g := graphAt(t, c.url(t))
			b, _ := graphAt(t, c.url(t))
			neverShared(t, cache, a, b, g)
		})
	}
}

// graphAt opens url and loads a small graph of workload o into it.
func graphAt(t *testing.T, url string) (store.Store, *graph.Graph) {
	t.Helper()
	ctx := context.Background()
	s, err := session.Open(ctx, url, session.Options{Name: "tier test", Clients: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	g, _, err := s.Graph(ctx, builtin(t, "o"), session.GraphSpec{Edges: 2000})
	if err != nil {
		t.Fatal(err)
	}
	return s.Store(), g
}

func neverShared(t *testing.T, cache string, a, b store.Store, g *graph.Graph) {
	t.Helper()
	ctx := context.Background()
	open := func(db store.Store, tr *traces) *tier.Store {
		ts, err := tier.Open(ctx, db, tier.Options{Cache: cache, ClientCacheTTL: time.Hour, ClientCacheSize: 1000, Clients: 2, Trace: tr.add})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ts.Close() })
		ts.BeginExperiment(g.Seed(), 1, time.Now(), time.Now().Add(time.Hour))
		return ts
	}
	var ta, tb traces
	tsA, tsB := open(a, &ta), open(b, &tb)
	reads := requests(t, builtin(t, "o"), g, 2, singleRead(tao.ObjRead))
	x, y := reads[0], reads[1]
	if x.Ops[0].ID1 == y.Ops[0].ID1 {
		t.Fatalf("the generator drew object %d twice", x.Ops[0].ID1)
	}
	update := func(ts *tier.Store, id int64) {
		t.Helper()
		upd := tao.Request{Class: tao.Write, Tier: tao.TierDB, Ops: []tao.Op{{Kind: tao.ObjUpdate, ID1: id, Time: 1, Payload: []byte("a's")}}}
		if res := exec(ts, upd); res.Outcome != tao.OK {
			t.Fatalf("update of %d: %v %v", id, res.Outcome, res.Err)
		}
	}
	read := func(ts *tier.Store, tr *traces, r tao.Request, from tao.Tier) (tier.Read, int64) {
		t.Helper()
		n := tr.len()
		res := exec(ts, withTier(r, from))
		if res.Outcome != tao.OK || !res.Ops[0].Found {
			t.Fatalf("read of %d: %v %v, found %v", r.Ops[0].ID1, res.Outcome, res.Err, res.Ops[0].Found)
		}
		return tr.after(n), res.Ops[0].Version
	}

	// x: A updates it and fills the tier with its new version.
	update(tsA, x.Ops[0].ID1)
	read(tsA, &ta, x, tao.TierTAO)
	if got, _ := read(tsA, &ta, x, tao.TierTAO); got.Served != tao.TierTAO {
		t.Fatalf("A's second read of %d served by %v; want the tao tier", x.Ops[0].ID1, got.Served)
	}
	vb := exec(b, x).Ops[0].Version // B's own version, read directly
	got, v := read(tsB, &tb, x, tao.TierTAO)
	if got.Served != tao.TierDB || v != vb {
		t.Errorf("B's read of %d through the tao tier: served by %v, version %d; want the database, version %d (B's own: the entry A filled is another database's)", x.Ops[0].ID1, got.Served, v, vb)
	}

	// y: B's client cache holds it; A's write of y is not B's, so B's
	// cached answer is not stale.
	read(tsB, &tb, y, tao.TierClientCache)
	update(tsA, y.Ops[0].ID1)
	time.Sleep(2 * time.Millisecond)
	got, _ = read(tsB, &tb, y, tao.TierClientCache)
	if got.Served != tao.TierClientCache || got.Stale {
		t.Errorf("B's read of %d from its client cache after A wrote it: served by %v, stale %v; want the client cache, fresh (A's write is another database's)", y.Ops[0].ID1, got.Served, got.Stale)
	}
}
