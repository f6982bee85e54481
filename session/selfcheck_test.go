package session_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/taobench/taobench/fidelity"
	"github.com/taobench/taobench/fleet"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/tier"
)

// selfCheck is the experiment's self-check row, nil when it has none.
func selfCheck(x *result.Experiment) *result.FidelityRow {
	for i := range x.Fidelity {
		if x.Fidelity[i].Figure == "stale reads (self-check)" {
			return &x.Fidelity[i]
		}
	}
	return nil
}

// Every run on a real database carries the staleness checker's self-check
// with no tier given: the two drivers of a split run of workload a on one
// SQLite database each class every database read (none stale) and write
// the row; merged, the row is recomputed on the reads of both, and a
// stale read among them fails it. The null store has no checker: no
// consistency and no row.
func TestSelfCheckInEveryRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, dir := sqlite(t), t.TempDir()
	loader := open(t, db, session.Options{Sink: &recorder{}})
	if _, _, err := loader.Graph(ctx, builtin(t, "a"), session.GraphSpec{Edges: 2000}); err != nil {
		t.Fatal(err)
	}
	var files []string
	var served int64
	for i := range 2 {
		s := open(t, db, session.Options{Sink: &recorder{}, Clients: 4, Split: session.Split{Driver: fleet.Driver{Index: i, Count: 2}, RunID: "check"}})
		cfg, info, err := s.Prepare(ctx, session.GraphSpec{Edges: 2000}, run.Config{Workload: builtin(t, "a"), Seed: 9, Drain: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		front, closeTiers, err := s.Tiers(ctx, session.TierSpec{}, 4, info)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Store = front
		done, err := s.Run(ctx, session.Plan{Config: cfg, Experiments: []run.Experiment{{Threads: 4, Duration: 500 * time.Millisecond}}})
		closeTiers()
		if err != nil {
			t.Fatal(err)
		}
		x := done[0]
		c := x.Consistency
		if c == nil || !c.CheckOnly || c.Tiers[tao.TierDB].Served == 0 || c.Tiers[tao.TierDB].Stale != 0 {
			t.Fatalf("driver %d: consistency %+v; want the checker alone, database reads, none stale", i, c)
		}
		served += c.Tiers[tao.TierDB].Served
		if r := selfCheck(x); r == nil || r.Verdict != result.Pass || r.N != c.Tiers[tao.TierDB].Served {
			t.Errorf("driver %d: self-check %+v; want passed on its %d reads", i, r, c.Tiers[tao.TierDB].Served)
		}
		if len(x.Fidelity) != len(fidelity.Rows(cfg.Workload, x.Targets, x.Counters))+1 {
			t.Errorf("driver %d: %d rows; want the workload's and the self-check alone (no tiers' rows)", i, len(x.Fidelity))
		}
		files = append(files, filepath.Join(dir, "d"+string(rune('0'+i))+".json"))
		f, err := os.Create(files[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := result.WriteJSON(f, info, done); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	m, lost, err := session.Merge(files)
	if err != nil || lost != nil {
		t.Fatalf("Merge: %v, rows lost: %v", err, lost)
	}
	x := m.Experiments[0]
	if r := selfCheck(x); r == nil || r.Verdict != result.Pass || r.N != served || !x.Consistency.CheckOnly || x.Consistency.CheckEvery != tier.CheckEvery {
		t.Errorf("merged self-check %+v (check-only %v); want passed on the %d reads of both drivers", r, x.Consistency.CheckOnly, served)
	}
	x.Consistency.Tiers[tao.TierDB].Stale = 1
	if err := fidelity.Recompute(m); err != nil {
		t.Fatal(err)
	}
	if r := selfCheck(x); r == nil || r.Verdict != result.Fail {
		t.Errorf("merged with a stale database read: %+v; want the row failed", r)
	}

	s := open(t, "null", session.Options{Sink: &recorder{}})
	cfg, info, err := s.Prepare(ctx, session.GraphSpec{Edges: 2000}, run.Config{Workload: builtin(t, "a"), Seed: 9, Drain: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	front, closeTiers, err := s.Tiers(ctx, session.TierSpec{}, 2, info)
	if err != nil {
		t.Fatal(err)
	}
	defer closeTiers()
	cfg.Store = front
	done, err := s.Run(ctx, session.Plan{Config: cfg, Experiments: []run.Experiment{{Threads: 2, Duration: 200 * time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	if done[0].Consistency != nil || selfCheck(done[0]) != nil {
		t.Errorf("null store: consistency %+v; want no checker and no row", done[0].Consistency)
	}
}
