package run

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/taobench/taobench/bulkload"
	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
	_ "github.com/taobench/taobench/store/sqlstore" // postgres://
	"github.com/taobench/taobench/tier"
)

// BenchmarkClientPostgres is BenchmarkClientChecked against PostgreSQL:
// one closed-loop client of workload o on a fresh load, behind the
// staleness checker as every run on a real database is, every request
// measured. It is what `taobench run` does per request in user space,
// pgx's part and taobench's own, for a CPU profile and -benchmem:
//
//	go test -run XXX -bench ClientPostgres -benchmem -cpuprofile cpu.out ./run/
//
// bench/instructions.sh (CASES=client) counts its instructions.
func BenchmarkClientPostgres(b *testing.B) {
	ctx := context.Background()
	url := testenv.FreshPostgres(b, testenv.PostgresURL(b))
	st, err := store.Default.Open(ctx, url, store.Options{Clients: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	db := st.(store.Database)
	if err := db.Setup(ctx, false); err != nil {
		b.Fatal(err)
	}
	ts, err := tier.Open(ctx, st, tier.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer ts.Close()
	n := newStepper(b, "o", false, ts.Front())
	if _, err := bulkload.Load(ctx, db, n.cfg.Graph, n.cfg.Graph.Meta(n.cfg.Workload), bulkload.Options{}); err != nil {
		b.Fatal(err)
	}
	ts.BeginExperiment(n.cfg.Graph.Seed(), 1, n.b.measure, n.b.end)
	// Requests carry a context with a deadline, as a run's do (Do's
	// execCtx): pgx watches it per query. TAOBENCH_BENCH_NOWATCH=1 gives
	// them one without, which pgx does not watch: the difference is what
	// pgx's per-query watch costs (docs/performance.md, "What pgx's public
	// API cannot do").
	execCtx, cancel := context.WithDeadline(ctx, n.b.end)
	defer cancel()
	if os.Getenv("TAOBENCH_BENCH_NOWATCH") != "" {
		execCtx = ctx
	}
	step := func() {
		if more, _ := n.c.step(ctx, execCtx, &n.cfg, n.b); !more {
			b.Fatal("the client stopped")
		}
	}
	for range 2000 { // the connection's statements prepared, the buffers grown
		step()
	}
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu := time.Now(), cpuTime(b)
	for range b.N {
		step()
	}
	n.c.flush(time.Now())
	elapsed, cpu := time.Since(start), cpuTime(b)-cpu
	b.StopTimer()
	if c := ts.EndExperiment(); c.Tiers[2].Stale != 0 {
		b.Fatalf("checker: %d stale reads of the primary", c.Tiers[2].Stale)
	}
	if got := n.rec.Snapshot().Requests(); got != int64(b.N)+2000 {
		b.Fatalf("%d requests recorded of %d", got, b.N+2000)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}
