package tier_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/store/storetest"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/tier"
)

// fakeCluster is a database of objects with several endpoints, each
// answering reads from the state it had lag ago: every write commits at
// once everywhere in one order (as Galera's seqno orders them), a lagging
// endpoint shows it lag later.
type fakeCluster struct {
	mu       sync.Mutex
	versions map[int64][]fakeVersion // by object, in commit order
}

type fakeVersion struct {
	at      time.Time
	version int64 // 0: deleted
}

// at returns the object's version as of t; 0 when it did not exist.
func (c *fakeCluster) at(id int64, t time.Time) int64 {
	v := int64(0)
	for _, x := range c.versions[id] {
		if x.at.After(t) {
			break
		}
		v = x.version
	}
	return v
}

// endpoint is a store on the cluster whose reads lag lag behind.
func (c *fakeCluster) endpoint(lag time.Duration) store.Store {
	return storetest.Func{ExecFunc: func(_ context.Context, req *tao.Request, res *tao.Result) {
		c.mu.Lock()
		defer c.mu.Unlock()
		now := time.Now()
		for i, op := range req.Ops {
			last := c.at(op.ID1, now)
			r := &res.Ops[i]
			switch op.Kind {
			case tao.ObjRead:
				v := c.at(op.ID1, now.Add(-lag))
				r.Found, r.Version = v > 0, v
				if v == 0 && len(req.Ops) == 1 {
					res.Outcome = tao.NotFound
				}
			case tao.ObjAdd, tao.ObjUpdate:
				if op.Kind == tao.ObjUpdate && last == 0 {
					continue // nothing to update: not found
				}
				r.Found, r.Version = op.Kind == tao.ObjUpdate, last+1
				c.versions[op.ID1] = append(c.versions[op.ID1], fakeVersion{now, last + 1})
			case tao.ObjDelete:
				r.Found = last > 0
				c.versions[op.ID1] = append(c.versions[op.ID1], fakeVersion{now, 0})
			}
		}
	}}
}

// Three endpoints of one database, the third 50 ms behind the others:
// clients write an object on every endpoint in turn and read it back on
// each. The third endpoint's reads are stale (its row counts them, each
// one truly stale: an older version than the write that had returned
// before the read began), the first two's are not, and only the third's
// poller finds a lag of the order of its own.
func TestEndpointStaleReadsOnTheLaggingOne(t *testing.T) {
	ctx := context.Background()
	const lag = 50 * time.Millisecond
	c := &fakeCluster{versions: map[int64][]fakeVersion{}}
	eps := []store.Store{c.endpoint(0), c.endpoint(0), c.endpoint(lag)}
	ts, err := tier.Open(ctx, eps[0], tier.Options{Endpoints: eps[1:], FirstName: "node1", EndpointNames: []string{"node2", "node3"},
		HeartbeatEvery: 2 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	fronts := ts.Endpoints()
	if len(fronts) != 3 {
		t.Fatalf("%d fronts for 3 endpoints", len(fronts))
	}
	start := time.Now()
	ts.BeginExperiment(1, 1, start, start.Add(time.Hour))
	const objects = 8
	for id := int64(1); id <= objects; id++ {
		if r := exec(fronts[0], tao.Request{Class: tao.Write, Tier: tao.TierDB, Ops: []tao.Op{{Kind: tao.ObjAdd, ID1: id}}}); r.Outcome != tao.OK {
			t.Fatalf("adding object %d: %v", id, r.Outcome)
		}
	}
	var truly [3]int64 // reads that returned an older version than a write that had returned
	var sent [3]int64
	for k := range 60 {
		id := int64(k%objects) + 1
		w := exec(fronts[k%3], tao.Request{Class: tao.Write, Tier: tao.TierDB, Ops: []tao.Op{{Kind: tao.ObjUpdate, ID1: id}}})
		if w.Outcome != tao.OK || !w.Ops[0].Found {
			t.Fatalf("update %d of object %d: %v", k, id, w.Outcome)
		}
		time.Sleep(time.Millisecond)
		for e, f := range fronts {
			r := exec(f, tao.Request{Class: tao.Read, Tier: tao.TierDB, Ops: []tao.Op{{Kind: tao.ObjRead, ID1: id}}})
			sent[e]++
			if r.Ops[0].Version < w.Ops[0].Version {
				truly[e]++
			}
		}
	}
	c2 := ts.EndExperiment()
	if len(c2.Endpoints) != 3 {
		t.Fatalf("%d endpoint rows for 3 endpoints", len(c2.Endpoints))
	}
	for e, row := range c2.Endpoints {
		lag50 := row.Lag.Stats().P50
		t.Logf("%s: %d reads served of %d sent, %d stale (%d truly), lag p50 %.0f µs", row.Name, row.Served, sent[e], row.Stale, truly[e], lag50)
		if want := []string{"node1", "node2", "node3"}[e]; row.Name != want {
			t.Errorf("endpoint %d's row is named %q, want %q", e+1, row.Name, want)
		}
		if row.Served != sent[e] || row.Stale > truly[e] {
			t.Errorf("endpoint %d: %d served of %d reads, %d stale of %d truly stale: want every read served, none classed stale that was not", e+1, row.Served, sent[e], row.Stale, truly[e])
		}
		lagging := e == 2
		switch {
		case lagging && (row.Stale == 0 || 2*row.Stale < truly[e]):
			t.Errorf("the lagging endpoint: %d stale of %d truly stale; want at least half of them found", row.Stale, truly[e])
		case lagging && lag50 < float64(lag.Microseconds())/2:
			t.Errorf("the lagging endpoint's poller found a lag p50 of %.0f µs; want about its %v", lag50, lag)
		case !lagging && (row.Stale != 0 || truly[e] != 0):
			t.Errorf("endpoint %d, not lagging: %d stale (%d truly); want none", e+1, row.Stale, truly[e])
		case !lagging && lag50 >= float64(lag.Microseconds())/2:
			t.Errorf("endpoint %d, not lagging: its poller found a lag p50 of %.0f µs", e+1, lag50)
		}
	}
	if d := c2.Tiers[tao.TierDB]; d.Served != 0 || d.Stale != 0 || c2.Replica != nil || !c2.CheckOnly {
		t.Errorf("the endpoints' reads leaked into the db tier (%d, %d stale) or a replica tier (%v), or the run is not check-only (%v)", d.Served, d.Stale, c2.Replica, c2.CheckOnly)
	}
}
