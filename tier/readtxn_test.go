package tier_test

import (
	"context"
	"testing"
	"time"

	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/tier"
)

// A read transaction served key by key: one read from the client cache
// (stale: the object was updated since), one from the database. The
// transaction is the database's (the lowest tier that answered), its
// staleness the client cache's: the database's reads stay never stale,
// the self-check's premise; the tiers count its miss by cause.
func TestReadTxnKeyByKey(t *testing.T) {
	w := builtin(t, "o")
	db, g := sqliteGraph(t, w, 2000)
	ts, err := tier.Open(context.Background(), db, tier.Options{Cache: sharedRedis(t), ClientCacheTTL: time.Minute, ClientCacheSize: 1000, Clients: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	ts.BeginExperiment(g.Seed(), 1, time.Now(), time.Now().Add(time.Hour))
	objs := requests(t, w, g, 40, singleRead(tao.ObjRead))
	a := objs[0].Ops[0]
	var b tao.Op
	for _, r := range objs[1:] {
		if r.Ops[0].ID1 != a.ID1 && exec(db, r).Ops[0].Found {
			b = r.Ops[0]
			break
		}
	}
	if b.ID1 == 0 || !exec(db, objs[0]).Ops[0].Found {
		t.Fatal("no two distinct objects drawn")
	}
	exec(ts, withTier(tao.Request{Class: tao.Read, Ops: []tao.Op{a}}, tao.TierClientCache)) // fills the client cache
	upd := tao.Request{Class: tao.Write, Tier: tao.TierDB, Ops: []tao.Op{{Kind: tao.ObjUpdate, ID1: a.ID1, Time: 1, Payload: []byte("x")}}}
	if res := exec(ts, upd); res.Outcome != tao.OK {
		t.Fatalf("update: %v %v", res.Outcome, res.Err)
	}
	time.Sleep(2 * time.Millisecond)
	ts.BeginExperiment(g.Seed(), 2, time.Now(), time.Now().Add(time.Hour)) // a cold tao tier: b goes to the database
	txn := tao.Request{Class: tao.ReadTxn, Tier: tao.TierClientCache, Ops: []tao.Op{a, b}}
	res := exec(ts, txn)
	want := exec(db, txn)
	if res.Outcome != tao.OK || res.Ops[1] != want.Ops[1] || res.Ops[0].Version != want.Ops[0].Version-1 {
		t.Errorf("transaction: %v %+v; want the client cache's old version of %d and the database's answer for %d (%+v)", res.Outcome, res.Ops, a.ID1, b.ID1, want.Ops)
	}
	if res.Served != tao.TierDB {
		t.Errorf("served by %v; want db, the lowest tier that answered", res.Served)
	}
	c := ts.EndExperiment()
	if cs, d := c.Tiers[tao.TierClientCache].Stale, c.Tiers[tao.TierDB].Stale; cs != 1 || d != 0 {
		t.Errorf("stale: client cache %d, db %d; want 1, 0", cs, d)
	}
	if c.ReadOps[tao.TierClientCache] != 1 || c.ReadOps[tao.TierDB] != 1 {
		t.Errorf("read ops %v; want one from the client cache, one from the database", c.ReadOps)
	}
	// The database's read is the cold tier's miss of an object.
	if len(c.Misses) != 1 || c.Misses["object"] != 1 {
		t.Errorf("misses %v; want one object", c.Misses)
	}
}
