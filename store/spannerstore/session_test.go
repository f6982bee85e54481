package spannerstore_test

import (
	"context"
	"testing"
	"time"

	"cloud.google.com/go/spanner/spannertest"

	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// fakeTooSlow are the fidelity rows a run on spannertest cannot judge, and
// why. The fake answers a list query by scanning the whole table (it keeps
// no index), some 60 requests a second here, so a 4 s run makes about 70
// range reads.
var fakeTooSlow = map[string]string{
	"rows per edge_range_read (mean)": "a mean over a heavy-tailed list size needs thousands of range reads; " +
		"SQLite with the same seed fails it at n 83 too (observed 0.37, target 6.71) and passes at n 2705 (5.45); " +
		"the conformance suite's Lists and Load cases check the rows a range read returns",
}

// TestSession loads workload a's graph of 10,000 edges into a spannertest
// server, runs it, checks the invariants and validates the database
// against the workload, through the session package as the command does:
// no errors, no timeouts, and every fidelity and inventory row passing.
func TestSession(t *testing.T) {
	if testing.Short() {
		t.Skip("loads and runs a 10,000-edge graph")
	}
	srv, err := spannertest.NewServer("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.SetLogger(func(string, ...any) {})
	defer srv.Close()
	t.Setenv("SPANNER_EMULATOR_HOST", srv.Addr)
	ctx := context.Background()

	s, err := session.Open(ctx, fakeURL, session.Options{Name: "taobench", Clients: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, err := workload.Resolve("a")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	g, _, err := s.Graph(ctx, w, session.GraphSpec{Edges: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("loaded %d edges in %v", g.Edges(), time.Since(start).Round(time.Millisecond))
	meta, err := s.Recorded(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if vs, err := s.Check(ctx, meta); err != nil || len(vs) != 0 {
		t.Fatalf("check after the load: %+v, %v", vs, err)
	}

	cfg := run.Config{Workload: w, Graph: g, Seed: 42, Retries: 10, Drain: 5 * time.Second}
	done, err := s.Run(ctx, session.Plan{Config: cfg, Experiments: []run.Experiment{{Threads: 4, Duration: 4 * time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	e := done[0]
	sum := e.Sum()
	t.Logf("run: %d requests, %d attempts, %d errors, %d timeouts", sum.Requests(), sum.Attempts(), sum.Outcome(tao.Error), sum.Outcome(tao.Timeout))
	if sum.Requests() < 100 {
		t.Errorf("%d requests in 4 s: want at least 100", sum.Requests())
	}
	if n := sum.Outcome(tao.Error) + sum.Outcome(tao.Timeout); n != 0 {
		t.Errorf("%d errors and timeouts, want 0", n)
	}
	for _, r := range e.Fidelity {
		t.Logf("fidelity %-40s target %10.4f observed %10.4f n %7d %s", r.Figure, r.Target, r.Observed, r.N, r.Verdict)
		if why, ok := fakeTooSlow[r.Figure]; ok && r.N < 1000 {
			t.Logf("  not judged at n %d: %s", r.N, why)
			continue
		}
		if r.Failed() {
			t.Errorf("fidelity row %q failed: target %v, observed %v (n %d) %s", r.Figure, r.Target, r.Observed, r.N, r.Note)
		}
	}
	if len(e.Fidelity) == 0 {
		t.Error("the run has no fidelity rows")
	}
	if vs, err := s.Check(ctx, meta); err != nil || len(vs) != 0 {
		t.Errorf("check after the run: %+v, %v", vs, err)
	}

	// validate --db: the graph's inventory and a short run's rows.
	v, err := s.Validate(ctx, session.GraphSpec{Edges: 10_000}, cfg, run.Experiment{Threads: 2, Duration: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range v.Rows {
		t.Logf("validate %-40s target %10.4f observed %10.4f n %7d %s", r.Figure, r.Target, r.Observed, r.N, r.Verdict)
		if why, ok := fakeTooSlow[r.Figure]; ok && r.N < 1000 {
			t.Logf("  not judged at n %d: %s", r.N, why)
			continue
		}
		if r.Failed() {
			t.Errorf("validate: row %q failed: target %v, observed %v (n %d) %s", r.Figure, r.Target, r.Observed, r.N, r.Note)
		}
	}
	if len(v.Rows) == 0 {
		t.Error("validate returned no rows")
	}
}
