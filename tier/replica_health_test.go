package tier_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/tier"
	"github.com/taobench/taobench/workload"
)

// warnings are what the tiers said of the replicas as it happened.
type warnings struct {
	mu    sync.Mutex
	lines []string
	at    []time.Time
}

func (w *warnings) add(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lines, w.at = append(w.lines, s), append(w.at, time.Now())
}

// find returns when the first line holding every part was said.
func (w *warnings) find(parts ...string) (time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
next:
	for i, l := range w.lines {
		for _, p := range parts {
			if !strings.Contains(l, p) {
				continue next
			}
		}
		return w.at[i], true
	}
	return time.Time{}, false
}

func (w *warnings) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.lines, "\n")
}

// A PostgreSQL primary with two streaming standbys of the test's own
// (bench/cluster/postgres), reads on the standbys. (1) The second standby
// is stopped (pg_ctl -m immediate) mid-run: no request is lost, the reads
// that failed on it are its errors, named by its URL, each went on to the
// primary (the db tier's lookups are exactly those), and its outage is
// recorded and said. (2) Started again, it is probed back into rotation
// and serves reads with no error; in that run the first standby is
// promoted (pg_promote()): it is flagged (a line, its row's promoted_at)
// soon after, and the run breaks the limits (exit 3). (3) In the next run
// the promoted server serves no read.
func TestReplicaStoppedAndPromoted(t *testing.T) {
	testenv.Integration(t)
	ctx := context.Background()
	nodes := testenv.PostgresNodes(t)
	urls := nodes.URLs
	w := builtin(t, "o")
	w.Requests = workload.Dist[tao.Class]{Values: []tao.Class{tao.Read, tao.ReadTxn, tao.Write}, Weights: []float64{6, 2, 1}}
	w.ReadKinds = workload.Dist[tao.Kind]{Values: []tao.Kind{tao.ObjRead}, Weights: []float64{1}}
	w.ReadTxnSizes = workload.Dist[int]{Values: []int{1, 2}, Weights: []float64{1, 1}}
	w.ReadTxnKinds = workload.Dist[tao.Kind]{Values: []tao.Kind{tao.ObjRead}, Weights: []float64{1}}
	w.MultiShardReadTxns = 0
	w.WriteKinds = workload.Dist[tao.Kind]{Values: []tao.Kind{tao.ObjUpdate}, Weights: []float64{1}}
	w.ReadTiers = workload.Dist[tao.Tier]{Values: []tao.Tier{tao.TierDB}, Weights: []float64{1}}
	ps, err := session.Open(ctx, urls[0], session.Options{Name: "replica health test", Clients: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Close()
	g, _, err := ps.Graph(ctx, w, session.GraphSpec{Edges: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var reps []store.Store
	var names []string
	for _, u := range urls[1:] {
		r, err := store.Default.Open(ctx, u, store.Options{Clients: 8, MustExist: true})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		reps, names = append(reps, r), append(names, store.Redact(u))
	}
	var said warnings
	// A heartbeat every 1 s (polls every 0.5 s) leaves the clients the
	// time to meet the stopped standby before a poll does.
	ts, err := tier.Open(ctx, ps.Store(), tier.Options{Replicas: reps, ReplicaNames: names, Warn: said.add, HeartbeatEvery: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	var last *result.Experiment
	do := func(n int64, d time.Duration, mid func()) *result.Consistency {
		t.Helper()
		done := make(chan struct{})
		go func() {
			defer close(done)
			time.Sleep(d / 3)
			mid()
		}()
		res, err := run.Do(ctx, run.Config{Store: ts.Front(), Workload: w, Graph: g, Run: n, Seed: uint64(n), Retries: 10, Drain: time.Minute},
			run.Experiment{Threads: 4, Duration: d})
		<-done
		if err != nil {
			t.Fatal(err)
		}
		if lost := res.Sum().Outcome(tao.Timeout) + res.Sum().Outcome(tao.Error); lost != 0 {
			t.Errorf("run %d: %d requests lost (attempts by code: %v); a replica's failure must not lose any", n, lost, res.ErrorCodes)
		}
		last = res
		c := res.Consistency
		if c == nil || c.Replica == nil || len(c.Replicas) != 2 {
			t.Fatalf("run %d: consistency %+v: want db_replica and a row per replica", n, c)
		}
		var errs int64
		for i, r := range c.Replicas {
			if r.Name != names[i] || strings.Contains(r.Name, "password") {
				t.Errorf("run %d: row %d is named %q, want %q", n, i, r.Name, names[i])
			}
			errs += r.Errors
		}
		if c.Replica.Errors != errs {
			t.Errorf("run %d: db_replica counts %d errors, its rows %d", n, c.Replica.Errors, errs)
		}
		// Each read a replica failed went on to the primary, and only those.
		if db := c.Tiers[tao.TierDB]; db.Lookups != errs || db.Served != errs {
			t.Errorf("run %d: the primary was asked %d reads and served %d; want the %d the replicas failed", n, db.Lookups, db.Served, errs)
		}
		for i, r := range c.Replicas {
			t.Logf("run %d: %s: %d of %d reads served, %d errors, %d stale; lag max %.1f ms; out %d time(s), %.2f s; promoted %v",
				n, names[i], r.Served, r.Lookups, r.Errors, r.Stale, r.Lag.Stats().Max/1000, r.Outages, r.Outage.Seconds(), r.Promoted())
		}
		return c
	}

	// (1) The second standby stops a third of the way in.
	stopped := time.Time{}
	c := do(1, 4*time.Second, func() {
		if err := nodes.Stop(2); err != nil {
			t.Error(err)
		}
		stopped = time.Now()
	})
	if stopped.IsZero() {
		t.Fatal("the standby was not stopped")
	}
	a, b := c.Replicas[0], c.Replicas[1]
	if b.Errors == 0 || b.Outages == 0 || b.Outage <= 0 || b.Promoted() {
		t.Errorf("the stopped standby %s: %d errors, %d outage(s) of %v, promoted %v; want its failed reads counted as its errors, an outage, no promotion",
			names[1], b.Errors, b.Outages, b.Outage, b.Promoted())
	}
	if a.Errors != 0 || a.Outages != 0 || a.Served == 0 {
		t.Errorf("the standby left running, %s: %d errors, %d outage(s), %d reads; want reads and no failure", names[0], a.Errors, a.Outages, a.Served)
	}
	if _, ok := said.find(names[1], "stopped answering"); !ok {
		t.Errorf("nothing said that %s stopped answering; said:\n%s", names[1], &said)
	}

	// (2) It comes back and rejoins; the first standby is promoted.
	if err := nodes.Start(2); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if _, ok := said.find(names[1], "answers again"); ok {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("%s started again, but not back in rotation after a minute; said:\n%s", names[1], &said)
		}
	}
	var promoted time.Time
	c = do(2, 3*time.Second, func() {
		conn, err := pgx.Connect(ctx, urls[1])
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "SELECT pg_promote()"); err != nil { // waits until promoted
			t.Error(err)
			return
		}
		promoted = time.Now()
	})
	if promoted.IsZero() {
		t.Fatal("the standby was not promoted")
	}
	a, b = c.Replicas[0], c.Replicas[1]
	if b.Served == 0 || b.Errors != 0 || b.Outages != 0 {
		t.Errorf("the standby started again, %s: %d reads served, %d errors, %d outage(s); want it back in rotation", names[1], b.Served, b.Errors, b.Outages)
	}
	at, ok := said.find(names[0], "left recovery")
	switch {
	case !a.Promoted() || !ok:
		t.Fatalf("the promoted standby %s: promoted %v in its row, said %v; want both:\n%s", names[0], a.Promoted(), ok, &said)
	case a.PromotedAt.Before(promoted.Add(-time.Minute)) || at.Before(a.PromotedAt):
		t.Errorf("promoted at %v (pg_promote returned at %v), said at %v: out of order", a.PromotedAt, promoted, at)
	}
	// RoleEvery (0.25 s) plus a query: about a second at most; the bound
	// here leaves a loaded machine room.
	if d := a.PromotedAt.Sub(promoted); d > 10*time.Second {
		t.Errorf("the promotion was seen %v after pg_promote() returned; want about a second", d)
	}
	t.Logf("promotion seen %v after pg_promote() returned", a.PromotedAt.Sub(promoted))
	var le *session.LimitError
	err = session.Limits{MaxLostPct: 1, MaxStall: time.Minute}.Check([]*result.Experiment{last})
	if !errors.As(err, &le) || !strings.Contains(err.Error(), names[0]) || !strings.Contains(err.Error(), "left recovery") {
		t.Errorf("limits of the run in which %s was promoted: %v; want a breach naming it (exit 3)", names[0], err)
	}

	// (3) The promoted server is read as a replica no more.
	c = do(3, time.Second, func() {})
	if a := c.Replicas[0]; a.Lookups != 0 || a.Served != 0 || !a.Promoted() {
		t.Errorf("the promoted server %s in the next run: asked %d reads, served %d, promoted %v; want none and promoted", names[0], a.Lookups, a.Served, a.Promoted())
	}
	if b := c.Replicas[1]; b.Served == 0 {
		t.Errorf("the standby left, %s, served no read in the next run", names[1])
	}
}
