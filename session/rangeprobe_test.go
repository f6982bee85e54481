package session_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
)

// TestValidateRangeDamage: linkbench validated on a fresh SQLite load
// passes its range rows (TestValidateEveryBuiltin, on a copy of the same
// load); on a load with the one edge of every tenth list of one edge
// deleted behind its back (no run to account for it), the lists counted
// before the run fail against range_nonempty.
func TestValidateRangeDamage(t *testing.T) {
	if testing.Short() {
		t.Skip("validates a damaged load")
	}
	t.Parallel()
	ctx := context.Background()
	w := builtin(t, "linkbench")
	spec := session.GraphSpec{Edges: 50_000}
	validate := func(url string) map[string]result.FidelityRow {
		s := open(t, url, session.Options{Name: "validate"})
		defer s.Close()
		v, err := s.Validate(ctx, spec, run.Config{Workload: w, Seed: 3, Retries: 10, Drain: 5 * time.Second},
			run.Experiment{Threads: 2, Warmup: 200 * time.Millisecond, Duration: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		rows := map[string]result.FidelityRow{}
		for _, r := range v.Rows {
			rows[r.Figure] = r
		}
		return rows
	}
	// The fresh load's side: linkbench's rows in TestValidateEveryBuiltin.
	path := loadedCopy(t, "linkbench", spec.Edges, session.GraphSeed)
	url := "sqlite:" + path
	conn, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := conn.Exec(`DELETE FROM edges WHERE id1 % 10 = 0 AND (id1, type) IN
		(SELECT id1, type FROM edges GROUP BY id1, type HAVING COUNT(*) = 1)`)
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if n, _ := res.RowsAffected(); n < 100 {
		t.Fatalf("deleted %d edges", n)
	}
	r := validate(url)["lists range reads draw with edges"]
	if r.Verdict != result.Fail {
		t.Errorf("damaged: lists with edges %+v, want a failure", r)
	}
	t.Logf("damaged: lists with edges %.4f against %.4f ± %.4f", r.Observed, r.Target, r.Tolerance)
}
