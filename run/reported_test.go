package run

import (
	"context"
	"testing"
	"time"

	"github.com/taobench/taobench/bulkload"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// reportedRun runs workload a's writes with racing inserts and many
// contested unique adds (so "unique association exists" is common) for
// 3 s at url, with no retries, so every conflict attempt is the request's
// last.
func reportedRun(t *testing.T, url string) *result.Experiment {
	t.Helper()
	ctx := context.Background()
	w, err := workload.Builtin("a")
	if err != nil {
		t.Fatal(err)
	}
	w.RacingInserts, w.UniqueAddRace = 1, 0.5
	w.Requests.Weights = []float64{0, 57, 0, 1}
	for i, k := range w.WriteKinds.Values {
		if k == tao.EdgeAdd {
			w.WriteKinds.Weights[i] = 200
		}
	}
	g, err := graph.New(w, 1, 20_000)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Default.Open(ctx, url, store.Options{Clients: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	db := st.(store.Database)
	if err := db.Setup(ctx, false); err != nil {
		t.Fatal(err)
	}
	if _, err := bulkload.Load(ctx, db, g, g.Meta(w), bulkload.Options{}); err != nil {
		t.Fatal(err)
	}
	x, err := Do(ctx, Config{Store: st, Workload: w, Graph: g, Seed: 3, Retries: 0}, Experiment{Threads: 8, Duration: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// TestConflictsAsReported: write-write conflicts split into those the
// server signalled by an error code and those the engine resolved without
// error, and the split follows the codes the database returned.
// PostgreSQL signals every "unique association exists" (23505) and every
// lock conflict (40001, 40P01, 55P03); MariaDB's upsert resolves racing
// copies and unique collisions without error, so there only a lock
// conflict's code (1213, 1205) is signalled.
func TestConflictsAsReported(t *testing.T) {
	if testing.Short() {
		t.Skip("runs against databases")
	}
	urls := map[string]func(t *testing.T) string{
		"postgres": func(t *testing.T) string { return testenv.FreshPostgres(t, testenv.PostgresURL(t)) },
		"mysql":    func(t *testing.T) string { return testenv.FreshMySQL(t, testenv.MySQLURL(t)) },
	}
	for _, name := range []string{"postgres", "mysql"} {
		t.Run(name, func(t *testing.T) {
			x := reportedRun(t, urls[name](t))
			r := x.Counters.Races
			c := x.Contention()
			t.Logf("%+v; error codes %v", r, x.ErrorCodes.Sorted())
			if r.Signalled+r.Resolved != r.Conflicted || r.TxnSignalled+r.TxnResolved != r.TxnConflicted ||
				r.RacingSignalled+r.RacingResolved != r.RacingConflicted {
				t.Fatalf("signalled and resolved do not add up to the conflicts: %+v", r)
			}
			// With no retries a request has at most one conflict attempt:
			// the conflict attempts the database gave a code bound the
			// signalled requests that did not end in a unique violation.
			var coded int64
			for k, n := range x.ErrorCodes {
				if k.Outcome.IsConflict() && k.Code != "" {
					coded += n
				}
			}
			if r.Signalled-r.UniqueSignalled != coded {
				t.Errorf("%d signalled conflicts other than unique exists, %d conflict attempts with a code", r.Signalled-r.UniqueSignalled, coded)
			}
			unique := x.Sum().Outcome(tao.UniqueViolation)
			if unique == 0 || r.RacingResolved == 0 {
				t.Fatalf("the run met %d unique violations and %d racing copies resolved: too few to tell", unique, r.RacingResolved)
			}
			switch name {
			case "postgres":
				if r.UniqueSignalled != unique {
					t.Errorf("PostgreSQL: %d of %d unique violations signalled by 23505", r.UniqueSignalled, unique)
				}
			case "mysql":
				if r.UniqueSignalled != 0 {
					t.Errorf("MariaDB's upsert resolves unique collisions without 1062, yet %d signalled", r.UniqueSignalled)
				}
			}
			if d := c.ServerSignalledConflictPct + c.ResolvedWithoutErrorPct - c.WriteWriteConflictPct; d > 1e-9 || d < -1e-9 {
				t.Errorf("contention: signalled %.4f%% + resolved %.4f%% != write-write %.4f%%", c.ServerSignalledConflictPct, c.ResolvedWithoutErrorPct, c.WriteWriteConflictPct)
			}
		})
	}
}
