package tier_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/taobench/taobench/gen"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/store"
	_ "github.com/taobench/taobench/store/sqlstore"
	"github.com/taobench/taobench/store/storetest"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/tier"
	_ "github.com/taobench/taobench/tier/rediscache"
	"github.com/taobench/taobench/workload"
)

// sqliteGraph opens a fresh SQLite database holding a graph of w.
func sqliteGraph(t *testing.T, w *workload.Workload, edges int64) (store.Store, *graph.Graph) {
	t.Helper()
	ctx := context.Background()
	s, err := session.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "t.db"), session.Options{Name: "tier test", Clients: 16})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	g, _, err := s.Graph(ctx, w, session.GraphSpec{Edges: edges})
	if err != nil {
		t.Fatal(err)
	}
	return s.Store(), g
}

func builtin(t *testing.T, name string) *workload.Workload {
	t.Helper()
	w, err := workload.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// sharedRedis is the machine's Redis under a prefix of the test's own,
// whose keys are removed when the test ends.
func sharedRedis(t *testing.T) string {
	t.Helper()
	base := testenv.RedisURL(t)
	prefix := testenv.UniqueName()
	t.Cleanup(func() { dropPrefix(t, base, prefix) })
	return base + "?prefix=" + prefix
}

func dropPrefix(t *testing.T, base, prefix string) {
	opts, err := redis.ParseURL(base)
	if err != nil {
		t.Error(err)
		return
	}
	c := redis.NewClient(opts)
	defer c.Close()
	ctx := context.Background()
	iter := c.Scan(ctx, 0, prefix+":*", 1000).Iterator()
	var keys []string
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if len(keys) > 0 {
		if err := c.Del(ctx, keys...).Err(); err != nil {
			t.Errorf("remove the test's keys: %v", err)
		}
	}
}

// requests returns n requests the generator draws that satisfy keep.
func requests(t *testing.T, w *workload.Workload, g *graph.Graph, n int, keep func(*tao.Request) bool) []tao.Request {
	t.Helper()
	plan, err := gen.NewPlan(w, g, 7)
	if err != nil {
		t.Fatal(err)
	}
	c := plan.Client(0, 1)
	var out []tao.Request
	for range 1000000 {
		var r tao.Request
		c.Next(&r)
		if keep(&r) {
			r.Ops = append([]tao.Op(nil), r.Ops...)
			out = append(out, r)
			if len(out) == n {
				return out
			}
		}
	}
	t.Fatalf("the generator drew %d of %d requests wanted", len(out), n)
	return nil
}

func singleRead(k tao.Kind) func(*tao.Request) bool {
	return func(r *tao.Request) bool { return r.Class == tao.Read && r.Ops[0].Kind == k }
}

// traces collects what Options.Trace sees.
type traces struct {
	mu   sync.Mutex
	list []tier.Read
}

func (x *traces) add(r tier.Read) { x.mu.Lock(); x.list = append(x.list, r); x.mu.Unlock() }
func (x *traces) last() tier.Read { x.mu.Lock(); defer x.mu.Unlock(); return x.list[len(x.list)-1] }
func (x *traces) len() int        { x.mu.Lock(); defer x.mu.Unlock(); return len(x.list) }

// after waits (a second at most) until more than n reads were traced:
// with a shared log they are classed off the request path.
func (x *traces) after(n int) tier.Read {
	for deadline := time.Now().Add(time.Second); x.len() <= n && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	return x.last()
}

func exec(st store.Store, r tao.Request) tao.Result {
	var res tao.Result
	res.Reset(len(r.Ops))
	st.Exec(context.Background(), &r, &res)
	return res
}

func withTier(r tao.Request, t tao.Tier) tao.Request { r.Tier = t; return r }

// Hits, fall-through, a write's changeset (or, with Invalidate, its
// invalidation), and a client cache that keeps serving the old version:
// stale, with its age.
func TestTiersHitsAndFallThrough(t *testing.T) {
	w := builtin(t, "o")
	db, g := sqliteGraph(t, w, 2000)
	for run, invalidate := range []bool{false, true} {
		t.Run(fmt.Sprint("invalidate=", invalidate), func(t *testing.T) { hitsAndFallThrough(t, w, db, g, int64(run+1), invalidate) })
	}
}

func hitsAndFallThrough(t *testing.T, w *workload.Workload, db store.Store, g *graph.Graph, run int64, invalidate bool) {
	var tr traces
	ts, err := tier.Open(context.Background(), db, tier.Options{Cache: sharedRedis(t), ClientCacheTTL: time.Minute, ClientCacheSize: 1000, Clients: 4, Trace: tr.add, Invalidate: invalidate})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	ts.BeginExperiment(g.Seed(), run, time.Now(), time.Now().Add(time.Hour))
	read := requests(t, w, g, 1, singleRead(tao.ObjRead))[0]
	direct := exec(db, read)
	if !direct.Ops[0].Found {
		t.Fatalf("object %d is not in the database", read.Ops[0].ID1)
	}
	step := func(what string, tier tao.Tier, served tao.Tier, version int64, stale bool) {
		t.Helper()
		n := tr.len()
		res := exec(ts, withTier(read, tier))
		got := tr.after(n)
		if got.Served != served || res.Ops[0].Version != version || got.Stale != stale || res.Outcome != tao.OK {
			t.Errorf("%s: served by %v, version %d, stale %v, outcome %v; want %v, %d, %v, ok", what, got.Served, res.Ops[0].Version, got.Stale, res.Outcome, served, version, stale)
		}
	}
	v := direct.Ops[0].Version
	step("tao, cold", tao.TierTAO, tao.TierDB, v, false)
	step("tao, filled", tao.TierTAO, tao.TierTAO, v, false)
	// Every answer passes through the client cache: the reads above
	// filled it.
	step("client cache, filled by the reads before", tao.TierClientCache, tao.TierClientCache, v, false)
	upd := tao.Request{Class: tao.Write, Tier: tao.TierDB, Ops: []tao.Op{{Kind: tao.ObjUpdate, ID1: read.Ops[0].ID1, Time: 1, Payload: []byte("x")}}}
	if res := exec(ts, upd); res.Outcome != tao.OK {
		t.Fatalf("update: %v %v", res.Outcome, res.Err)
	}
	time.Sleep(2 * time.Millisecond)
	step("client cache after the write (never invalidated)", tao.TierClientCache, tao.TierClientCache, v, true)
	if a := tr.last().Age; a < 2*time.Millisecond || a > time.Minute {
		t.Errorf("stale age %v; want at least the 2 ms since the write returned", a)
	}
	if invalidate {
		step("tao after the write (invalidated)", tao.TierTAO, tao.TierDB, v+1, false)
	} else {
		step("tao after the write (its changeset: version + 1)", tao.TierTAO, tao.TierTAO, v+1, false)
	}
	step("database", tao.TierDB, tao.TierDB, v+1, false)

	// A range read is served from the cached list size as the database
	// would answer it.
	wr := *w
	wr.ReadKinds = workload.Dist[tao.Kind]{Values: []tao.Kind{tao.EdgeRangeRead}, Weights: []float64{1}}
	rr := requests(t, &wr, g, 20, singleRead(tao.EdgeRangeRead))
	for _, r := range rr {
		want := exec(db, r).Ops[0].Rows
		for _, tr := range []tao.Tier{tao.TierTAO, tao.TierTAO, tao.TierClientCache, tao.TierClientCache} {
			if got := exec(ts, withTier(r, tr)).Ops[0].Rows; got != want {
				t.Errorf("range %+v from %v: %d rows, the database returns %d", r.Ops[0], tr, got, want)
			}
		}
	}
	c := ts.EndExperiment()
	csc, taoT, dbT := c.Tiers[tao.TierClientCache], c.Tiers[tao.TierTAO], c.Tiers[tao.TierDB]
	if csc.Stale != 1 || taoT.Stale != 0 || dbT.Stale != 0 || csc.Age.Count() != 1 {
		t.Errorf("stale reads: client cache %d, tao %d, db %d; want 1, 0, 0", csc.Stale, taoT.Stale, dbT.Stale)
	}
	if csc.Hits == 0 || taoT.Hits == 0 || taoT.Lookups <= taoT.Hits || dbT.Served == 0 || taoT.Errors != 0 {
		t.Errorf("client cache %d/%d, tao %d/%d hits/lookups (errors %d), db served %d: want hits and misses in both caches",
			csc.Hits, csc.Lookups, taoT.Hits, taoT.Lookups, taoT.Errors, dbT.Served)
	}
}

// Under Redis's own bound (maxmemory, allkeys-lru) the tier evicts; reads
// of evicted keys fall through and answer as the database does.
func TestTAOTierEvictsUnderBound(t *testing.T) {
	r := testenv.StartRedis(t, "--maxmemory", "2mb", "--maxmemory-policy", "allkeys-lru")
	w := builtin(t, "o")
	db, g := sqliteGraph(t, w, 20000)
	var tr traces
	ts, err := tier.Open(context.Background(), db, tier.Options{Cache: r.URL, Clients: 2, Trace: tr.add})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	if n := ts.Notes(); len(n) != 1 || !strings.Contains(n[0], "maxmemory 2097152") {
		t.Errorf("notes %q: want the server's bound", n)
	}
	ts.BeginExperiment(g.Seed(), 1, time.Now(), time.Now().Add(time.Hour))
	reads := requests(t, w, g, 40000, singleRead(tao.ObjRead))
	for _, q := range reads {
		exec(ts, withTier(q, tao.TierTAO))
	}
	opts, _ := redis.ParseURL(r.URL)
	c := redis.NewClient(opts)
	defer c.Close()
	info, err := c.Info(context.Background(), "stats").Result()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(info, "evicted_keys:") || strings.Contains(info, "evicted_keys:0\r") {
		t.Errorf("Redis evicted nothing under a 2 MB bound after %d fills:\n%s", len(reads), info)
	}
	first := ts.EndExperiment().Tiers[tao.TierTAO]
	before := first.Hits
	t.Logf("first pass: %d hits of %d lookups, %d errors; redis: %d keys", first.Hits, first.Lookups, first.Errors, c.DBSize(context.Background()).Val())
	for i := range reads { // newest first: LRU kept the last ones filled
		q := reads[len(reads)-1-i]
		res := exec(ts, withTier(q, tao.TierTAO))
		if want := exec(db, q); res.Ops[0] != want.Ops[0] || res.Outcome != want.Outcome {
			t.Fatalf("object %d from the tier: %v %+v; the database: %v %+v", q.Ops[0].ID1, res.Outcome, res.Ops[0], want.Outcome, want.Ops[0])
		}
	}
	x := ts.EndExperiment().Tiers[tao.TierTAO]
	hits := x.Hits - before
	if hits == 0 || hits >= int64(len(reads)) {
		t.Errorf("second pass: %d hits of %d reads; want some (the survivors) but not all (the evicted)", hits, len(reads))
	}
}

// A Redis that goes away mid-run and comes back: reads fall through to
// the database, counted as the tier's errors, and no request is lost.
func TestTAOTierSurvivesRedisRestart(t *testing.T) {
	r := testenv.StartRedis(t)
	w := builtin(t, "o")
	db, g := sqliteGraph(t, w, 5000)
	ts, err := tier.Open(context.Background(), db, tier.Options{Cache: r.URL, ClientCacheTTL: time.Second, ClientCacheSize: 10000, Clients: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	go func() {
		time.Sleep(1500 * time.Millisecond)
		r.Stop(t)
		time.Sleep(time.Second)
		r.Start(t)
	}()
	res, err := run.Do(context.Background(), run.Config{Store: ts.Front(), Workload: w, Graph: g, Run: 1, Seed: 3, Retries: 10},
		run.Experiment{Threads: 4, Warmup: 500 * time.Millisecond, Duration: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	sum := res.Sum()
	if lost := sum.Outcome(tao.Error) + sum.Outcome(tao.Timeout); lost != 0 {
		t.Errorf("%d requests lost while Redis restarted", lost)
	}
	c := res.Consistency
	if c == nil {
		t.Fatal("no consistency in the result")
	}
	x := c.Tiers[tao.TierTAO]
	if x.Errors == 0 || x.Hits == 0 {
		t.Errorf("tao tier: %d errors, %d hits; want errors while Redis was down and hits around it", x.Errors, x.Hits)
	}
	var served int64
	for _, t := range c.Tiers {
		served += t.Served
	}
	reads := sum.Stats(tao.Read.String()).Count + sum.Stats(tao.ReadTxn.String()).Count
	if served != reads {
		t.Errorf("the tiers served %d reads, the run measured %d", served, reads)
	}
}

// The checker's self-check: with no cache every read is answered by the
// database after it began, so none may be classed stale, at 16 clients
// under workload a's writes.
func TestNoStaleReadsWithoutTiers(t *testing.T) {
	w := builtin(t, "a")
	db, g := sqliteGraph(t, w, 5000)
	ts, err := tier.Open(context.Background(), db, tier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := run.Do(context.Background(), run.Config{Store: ts.Front(), Workload: w, Graph: g, Run: 1, Seed: 5, Retries: 10},
		run.Experiment{Threads: 16, Duration: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Consistency.Tiers[tao.TierDB]
	if d.Served == 0 || d.Stale != 0 {
		t.Errorf("database tier: %d reads, %d stale; want reads and none stale", d.Served, d.Stale)
	}
	if n := res.Sum().Stats(tao.Write.String()).Count; n == 0 {
		t.Errorf("no write ran: the check saw nothing to be stale against")
	}
}

// recorder logs, independently of the tier, every object update the
// database committed.
type recorder struct {
	inner  store.Store
	mu     sync.Mutex
	writes map[int64][][2]time.Time
}

// fake is the store the tier is given: a storetest.Func that passes each
// Exec on to inner and logs the writes.
func (r *recorder) fake() storetest.Func {
	return storetest.Func{ExecFunc: r.exec, CloseFunc: r.inner.Close}
}

func (r *recorder) exec(ctx context.Context, req *tao.Request, res *tao.Result) {
	start := time.Now()
	r.inner.Exec(ctx, req, res)
	end := time.Now()
	if req.Class == tao.Write && res.Outcome == tao.OK && req.Ops[0].Kind == tao.ObjUpdate && res.Ops[0].Found {
		r.mu.Lock()
		r.writes[req.Ops[0].ID1] = append(r.writes[req.Ops[0].ID1], [2]time.Time{start, end})
		r.mu.Unlock()
	}
}

// With a 2 s client-cache TTL under a write-heavy load some reads are
// stale, and each is confirmed by the test's own log of the writes: one
// began after the answer was read from the database and had returned
// before the read began.
func TestClientCacheStaleReadsVerified(t *testing.T) {
	w := builtin(t, "o")
	w.Requests = workload.Dist[tao.Class]{Values: []tao.Class{tao.Read, tao.Write}, Weights: []float64{1, 1}}
	w.ReadKinds = workload.Dist[tao.Kind]{Values: []tao.Kind{tao.ObjRead}, Weights: []float64{1}}
	w.WriteKinds = workload.Dist[tao.Kind]{Values: []tao.Kind{tao.ObjUpdate}, Weights: []float64{1}}
	w.ReadTiers = workload.Dist[tao.Tier]{Values: []tao.Tier{tao.TierClientCache}, Weights: []float64{1}}
	db, g := sqliteGraph(t, w, 2000)
	rec := &recorder{inner: db, writes: map[int64][][2]time.Time{}}
	var tr traces
	ts, err := tier.Open(context.Background(), rec.fake(), tier.Options{ClientCacheTTL: 2 * time.Second, ClientCacheSize: 100000, Trace: tr.add})
	if err != nil {
		t.Fatal(err)
	}
	res, err := run.Do(context.Background(), run.Config{Store: ts.Front(), Workload: w, Graph: g, Run: 1, Seed: 9, Retries: 10},
		run.Experiment{Threads: 16, Duration: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Consistency.Tiers[tao.TierClientCache]
	if c.Stale == 0 {
		t.Fatalf("client cache: %d reads served, none stale under %d writes", c.Served, res.Sum().Stats(tao.Write.String()).Count)
	}
	stale := 0
	for _, r := range tr.list {
		if !r.Stale {
			continue
		}
		stale++
		if r.Served != tao.TierClientCache {
			t.Errorf("a read served by %v is stale; only the client cache can be", r.Served)
		}
		ok := false
		for _, wr := range rec.writes[r.Op.ID1] {
			if wr[0].After(r.Basis) && wr[1].Before(r.Begin) {
				ok = true
				break
			}
		}
		if !ok {
			t.Errorf("object %d read at %v from an answer of %v is classed stale, but the test's log has no write of it in between: %v",
				r.Op.ID1, r.Begin, r.Basis, rec.writes[r.Op.ID1])
		}
	}
	if max := c.Age.Stats().Max; max > 2100*1000 {
		t.Errorf("a stale read's age is %.0f µs; a 2 s client cache cannot serve an answer older than its TTL", max)
	}
	if int64(stale) < c.Stale {
		t.Errorf("the trace saw %d stale reads, the result counts %d in the measured window", stale, c.Stale)
	}
	t.Logf("client cache: %d served, %d hits of %d lookups, %d stale (p50 age %.0f µs, max %.0f µs)",
		c.Served, c.Hits, c.Lookups, c.Stale, c.Age.Stats().P50, c.Age.Stats().Max)
}

// Two driver processes share the tao tier's Redis: one writes, the other
// reads through its client cache. The reader's own log holds none of the
// writer's writes, so without the shared log none of its stale reads is
// seen; with it each is, and each is confirmed by the writer's log.
func TestSharedLogAcrossProcesses(t *testing.T) {
	w := builtin(t, "o")
	db, g := sqliteGraph(t, w, 2000)
	ctx := context.Background()
	cache := sharedRedis(t)
	rec := &recorder{inner: db, writes: map[int64][][2]time.Time{}}
	// The recorder hides the database's identity: it is given the
	// database's scope, as another process on the database would find it.
	scope, err := store.Scope(ctx, db)
	if err != nil || scope == "" {
		t.Fatalf("the database's scope: %q, %v", scope, err)
	}
	writer, err := tier.Open(ctx, rec.fake(), tier.Options{Cache: cache, Clients: 2, Scope: scope})
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	var shared, alone traces
	reader, err := tier.Open(ctx, db, tier.Options{Cache: cache, ClientCacheTTL: time.Minute, ClientCacheSize: 1000, Clients: 2, Trace: shared.add})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	lonely, err := tier.Open(ctx, db, tier.Options{ClientCacheTTL: time.Minute, ClientCacheSize: 1000, Trace: alone.add})
	if err != nil {
		t.Fatal(err)
	}
	defer lonely.Close()
	now := time.Now()
	for _, s := range []*tier.Store{writer, reader, lonely} {
		s.BeginExperiment(g.Seed(), 5, now, now.Add(time.Hour))
	}
	reads := requests(t, w, g, 20, singleRead(tao.ObjRead))
	for _, r := range reads {
		exec(reader, withTier(r, tao.TierClientCache))
		exec(lonely, withTier(r, tao.TierClientCache))
	}
	for _, r := range reads {
		upd := tao.Request{Class: tao.Write, Tier: tao.TierDB, Ops: []tao.Op{{Kind: tao.ObjUpdate, ID1: r.Ops[0].ID1, Time: 1}}}
		if res := exec(writer, upd); res.Outcome != tao.OK || !res.Ops[0].Found {
			t.Fatalf("update of %d: %v %v", r.Ops[0].ID1, res.Outcome, res.Err)
		}
	}
	time.Sleep(2 * time.Millisecond)
	n, m := shared.len(), alone.len()
	for _, r := range reads {
		exec(reader, withTier(r, tao.TierClientCache))
		exec(lonely, withTier(r, tao.TierClientCache))
	}
	c := reader.EndExperiment().Tiers[tao.TierClientCache]
	l := lonely.EndExperiment().Tiers[tao.TierClientCache]
	if l.Stale != 0 {
		t.Errorf("a reader with its own log alone classed %d reads stale; it knows of no write", l.Stale)
	}
	if int(c.Stale) != len(reads) {
		t.Errorf("with the shared log %d of %d reads of updated objects from the client cache are stale; want all", c.Stale, len(reads))
	}
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if len(shared.list) < n+len(reads) || alone.len() < m+len(reads) {
		t.Fatalf("traced %d and %d reads after the writes; want %d each", len(shared.list)-n, alone.len()-m, len(reads))
	}
	for _, x := range shared.list[n:] {
		if !x.Stale {
			continue
		}
		ok := false
		for _, wr := range rec.writes[x.Op.ID1] {
			ok = ok || (wr[0].After(x.Basis) && wr[1].Before(x.Begin))
		}
		if !ok {
			t.Errorf("object %d classed stale, but the writer's log has no write between %v and %v", x.Op.ID1, x.Basis, x.Begin)
		}
	}
}
