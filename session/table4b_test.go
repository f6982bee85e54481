package session_test

import (
	"context"
	"testing"
	"time"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
)

// TestValidateTable4b: validate --db of linkbench on a fresh SQLite load
// of 200,000 edges passes its rows for LinkBench's Table 4b (45.4% of
// range reads return one row, 21.9 rows mean) at the database, each
// naming the table. At 1 M edges on PostgreSQL the command is in
// docs/workloads.md ("The linkbench workload").
func TestValidateTable4b(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a graph and validates it")
	}
	t.Parallel()
	ctx := context.Background()
	w := builtin(t, "linkbench")
	spec := session.GraphSpec{Edges: 200_000}
	for _, seed := range []uint64{3} {
		s := open(t, sqlite(t), session.Options{Name: "validate"})
		v, err := s.Validate(ctx, spec, run.Config{Workload: w, Seed: seed, Retries: 10, Drain: 5 * time.Second},
			run.Experiment{Threads: 2, Warmup: 200 * time.Millisecond, Duration: 3 * time.Second})
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		rows := map[string]result.FidelityRow{}
		for _, r := range v.Rows {
			rows[r.Figure] = r
		}
		for _, fig := range []string{"edge_range_read returns edges", "edge_range_read returns 1 row",
			"lists range reads draw: rows (mean)", "lists range reads draw of 1 edge", "rows per edge_range_read (mean)"} {
			r, ok := rows[fig]
			if !ok || r.Verdict != result.Pass {
				t.Errorf("seed %d: %s %+v, want a pass", seed, fig, r)
			}
			t.Logf("seed %d: %s %.4f (target %.4f ± %.4f, n %d)", seed, fig, r.Observed, r.Target, r.Tolerance, r.N)
		}
	}
}
