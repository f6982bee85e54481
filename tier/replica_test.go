package tier_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/tier"
	"github.com/taobench/taobench/workload"
)

// On a PostgreSQL primary with a streaming standby of the test's own
// (initdb, pg_basebackup -R), reads go to the standby and writes to the
// primary. The standby's replay is paused for 2 s in the middle of a
// write-heavy run: reads during the pause are stale, their age grows with
// the pause, and every read classed stale is confirmed by versions alone,
// without the heartbeat: the standby's answer holds fewer updates of the
// object than the test's own log says had committed before the read
// began. The primary alone, with no replica, serves no stale read.
//
// Subtest "read transactions": the same with read transactions of 1 to 8
// object reads on the standby: each read of a transaction is classed as a
// single read is (the request counting once, stale when any of its reads
// is), and each one classed stale is confirmed by versions. Both run on
// one cluster, started once.
func TestReplicaStaleReadsVerified(t *testing.T) {
	testenv.Integration(t)
	urls := testenv.PostgresStandbys(t)
	t.Run("reads", func(t *testing.T) { staleReadsVerified(t, urls, false, pgPause(urls)) })
	t.Run("read transactions", func(t *testing.T) { staleReadsVerified(t, urls, true, pgPause(urls)) })
}

// pgPause pauses (on) or resumes the standby urls[1]'s replay.
func pgPause(urls []string) func(ctx context.Context, on bool) error {
	return func(ctx context.Context, on bool) error {
		c, err := pgx.Connect(ctx, urls[1])
		if err != nil {
			return err
		}
		defer c.Close(ctx)
		q := "SELECT pg_wal_replay_resume()"
		if on {
			q = "SELECT pg_wal_replay_pause()"
		}
		_, err = c.Exec(ctx, q)
		return err
	}
}

// The same on a MariaDB primary with an asynchronous replica of the
// test's own (bench/cluster/mariadb: binary log replication, CHANGE
// MASTER TO), its SQL thread stopped for 2 s (STOP SLAVE SQL_THREAD).
func TestMariaDBReplicaStaleReadsVerified(t *testing.T) {
	testenv.Integration(t)
	urls := testenv.MariaDBReplicas(t)
	staleReadsVerified(t, urls, false, func(ctx context.Context, on bool) error {
		dsn := strings.TrimPrefix(urls[1], "mysql://")
		user, rest, _ := strings.Cut(dsn, "@")
		host, db, _ := strings.Cut(rest, "/")
		c, err := sql.Open("mysql", user+"@tcp("+host+")/"+db)
		if err != nil {
			return err
		}
		defer c.Close()
		q := "START SLAVE SQL_THREAD"
		if on {
			q = "STOP SLAVE SQL_THREAD"
		}
		_, err = c.ExecContext(ctx, q)
		return err
	})
}

// staleReadsVerified runs the test on urls (the primary's first, then a
// replica's), with read transactions instead of single reads when txn;
// pause stops (on) or restarts the replica's replay.
func staleReadsVerified(t *testing.T, urls []string, txn bool, pause func(ctx context.Context, on bool) error) {
	ctx := context.Background()
	w := builtin(t, "o")
	class := tao.Read
	if txn {
		class = tao.ReadTxn
		w.ReadTxnSizes = workload.Dist[int]{Values: []int{1, 2, 4, 8}, Weights: []float64{1, 1, 1, 1}}
		w.ReadTxnKinds = workload.Dist[tao.Kind]{Values: []tao.Kind{tao.ObjRead}, Weights: []float64{1}}
		w.MultiShardReadTxns = 0
	}
	w.Requests = workload.Dist[tao.Class]{Values: []tao.Class{class, tao.Write}, Weights: []float64{1, 1}}
	w.ReadKinds = workload.Dist[tao.Kind]{Values: []tao.Kind{tao.ObjRead}, Weights: []float64{1}}
	w.WriteKinds = workload.Dist[tao.Kind]{Values: []tao.Kind{tao.ObjUpdate}, Weights: []float64{1}}
	w.ReadTiers = workload.Dist[tao.Tier]{Values: []tao.Tier{tao.TierDB}, Weights: []float64{1}}
	ps, err := session.Open(ctx, urls[0], session.Options{Name: "replica test", Clients: 16})
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Close()
	g, _, err := ps.Graph(ctx, w, session.GraphSpec{Edges: 2000})
	if err != nil {
		t.Fatal(err)
	}
	standby, err := store.Default.Open(ctx, urls[1], store.Options{Clients: 16, MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer standby.Close()

	// The primary alone: every read answered after it began, none stale.
	alone, err := tier.Open(ctx, ps.Store(), tier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := run.Do(ctx, run.Config{Store: alone.Front(), Workload: w, Graph: g, Run: 1, Seed: 3, Retries: 10},
		run.Experiment{Threads: 8, Duration: 2 * time.Second})
	alone.Close()
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Consistency.Tiers[tao.TierDB]; d.Served == 0 || d.Stale != 0 || res.Consistency.Replica != nil {
		t.Errorf("the primary alone: %d reads, %d stale (replica figures %v); want reads, none stale, no replica", d.Served, d.Stale, res.Consistency.Replica)
	}

	rec := &recorder{inner: ps.Store(), writes: map[int64][][2]time.Time{}}
	var tr traces
	ts, err := tier.Open(ctx, rec.fake(), tier.Options{Replicas: []store.Store{standby}, Trace: tr.add})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	paused := make(chan [2]time.Time, 1)
	go func() {
		var span [2]time.Time
		defer func() { paused <- span }()
		time.Sleep(2 * time.Second)
		if err := pause(ctx, true); err != nil {
			t.Error(err)
			return
		}
		span[0] = time.Now()
		time.Sleep(2 * time.Second)
		span[1] = time.Now()
		if err := pause(ctx, false); err != nil {
			t.Error(err)
		}
	}()
	// A write's 11 attempts may each wait out lock_timeout (1 s) behind a
	// hot row whose holder waits on a loaded disk: more than the default
	// 10 s drain allows (6 requests cut so, beside the session package's
	// tests). The versions below need every update's outcome: let them end.
	res, err = run.Do(ctx, run.Config{Store: ts.Front(), Workload: w, Graph: g, Run: 2, Seed: 4, Retries: 10, Drain: time.Minute},
		run.Experiment{Threads: 8, Duration: 6 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// Stop the heartbeat and pollers: the logs below are read unlocked.
	ts.Close()
	span := <-paused
	if span[1].IsZero() {
		t.Fatal("the replica's replay was not paused")
	}
	r := res.Consistency.Replica
	if r == nil || r.Served == 0 {
		t.Fatalf("the standby served no read: %+v", res.Consistency)
	}
	if d := res.Consistency.Tiers[tao.TierDB]; d.Served != 0 || d.Stale != 0 {
		t.Errorf("the primary served %d reads (%d stale); with a replica it serves none", d.Served, d.Stale)
	}
	if lost := res.Sum().Outcome(tao.Timeout) + res.Sum().Outcome(tao.Error); lost != 0 {
		t.Fatalf("%d requests lost (attempts by code: %v): the versions below assume every update's outcome is known", lost, res.ErrorCodes)
	}

	// The version each object ends at on the primary, less the updates
	// the log holds, is the version it started at; an answer at version v
	// holds v - start updates.
	final := map[int64]int64{}
	version := func(id int64) int64 {
		if v, ok := final[id]; ok {
			return v
		}
		q := tao.Request{Class: tao.Read, Tier: tao.TierDB, Ops: []tao.Op{{Kind: tao.ObjRead, ID1: id}}}
		out := exec(ps.Store(), q)
		if out.Outcome != tao.OK {
			t.Fatalf("object %d on the primary: %v", id, out.Outcome)
		}
		final[id] = out.Ops[0].Version
		return final[id]
	}
	var stale, early, late int
	var reads [2]int // reads that began in the pause's first and second half
	var earlyAge, lateAge time.Duration
	mid := span[0].Add(span[1].Sub(span[0]) / 2)
	for _, x := range tr.list {
		if !x.Replica {
			t.Errorf("a read served by %v, not the replica", x.Served)
			continue
		}
		inPause := x.Begin.After(span[0].Add(200*time.Millisecond)) && x.Begin.Before(span[1])
		if inPause && x.Begin.Before(mid) {
			reads[0]++
		} else if inPause {
			reads[1]++
		}
		if !x.Stale {
			continue
		}
		stale++
		ws := rec.writes[x.Op.ID1]
		start := version(x.Op.ID1) - int64(len(ws))
		before := 0
		for _, wr := range ws {
			if wr[1].Before(x.Begin) {
				before++
			}
		}
		if held := x.Result.Version - start; !x.Result.Found || held >= int64(before) {
			t.Errorf("object %d read at %v classed stale (age %v), but its answer (version %d, found %v) holds %d updates and only %d had committed before the read began",
				x.Op.ID1, x.Begin, x.Age, x.Result.Version, x.Result.Found, held, before)
		}
		if inPause && x.Begin.Before(mid) {
			early++
			earlyAge += x.Age
		} else if inPause {
			late++
			lateAge += x.Age
		}
	}
	if int64(stale) < r.Stale {
		t.Errorf("the trace saw %d stale reads, the result counts %d", stale, r.Stale)
	}
	if ops := int64(len(tr.list)); txn && ops <= r.Served {
		t.Errorf("%d reads classed in %d read transactions: want each transaction's reads classed", ops, r.Served)
	}
	switch {
	case txn && late == 0:
		// The pause's shape (share and age growing with it) is the single
		// reads' check; a transaction's reads share one begin, so a
		// loaded machine that stalls the clients early in the pause
		// leaves its first half too few of them to compare.
		t.Fatalf("in the 2 s pause: no read of a transaction stale in its second half (%d of %d)", late, reads[1])
	case txn:
	case early == 0 || float64(late)/float64(reads[1]) <= float64(early)/float64(reads[0]):
		t.Fatalf("in the 2 s pause: %d of %d reads stale in its first half, %d of %d in its second: want stale reads, a larger share as the pause goes on",
			early, reads[0], late, reads[1])
	}
	if e, l := earlyAge/time.Duration(max(early, 1)), lateAge/time.Duration(max(late, 1)); !txn && l < e+200*time.Millisecond {
		t.Errorf("stale reads' mean age %v in the pause's first half, %v in its second: want it to grow with the pause", e, l)
	}
	if age := r.Age.Stats().Max; age < 1.5e6 || age > 4e6 {
		t.Errorf("the oldest stale read is %.0f µs old; a 2 s pause should make it about 2 s", age)
	}
	t.Logf("replica: %d reads, %d stale (%.1f%%), age p50 %.0f ms, p99 %.0f ms, max %.0f ms; in the pause's halves %d of %d and %d of %d stale",
		r.Served, r.Stale, 100*r.StaleShare(), r.Age.Stats().P50/1000, r.Age.Stats().P99/1000, r.Age.Stats().Max/1000, early, reads[0], late, reads[1])
}
