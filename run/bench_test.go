package run

import (
	"context"
	"testing"
	"time"

	"github.com/taobench/taobench/gen"
	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/store/null"
)

// BenchmarkClientNull measures one closed-loop client's cost per request
// against the null store: b.N calls of the step the client loop makes, with
// every request measured and recorded.
func BenchmarkClientNull(b *testing.B) {
	cfg := testConfig(b, "o", null.Store{})
	cfg.defaults()
	plan, err := gen.NewPlan(cfg.Workload, cfg.Graph, cfg.Seed)
	if err != nil {
		b.Fatal(err)
	}
	rec := metrics.NewRecorder()
	c := newClient(plan, 0, &cfg, rec)
	ctx := context.Background()
	now := time.Now()
	bd := bounds{measure: now, end: now.Add(24 * time.Hour)}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if more, _ := c.step(ctx, ctx, &cfg, bd); !more {
			b.Fatal("the client stopped")
		}
	}
	c.flush(time.Now())
	elapsed := time.Since(start)
	b.StopTimer()
	if n := rec.Snapshot().Requests(); n != int64(b.N) {
		b.Fatalf("%d requests recorded of %d", n, b.N)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
}

// BenchmarkDoNull runs whole one-client experiments against the null store
// and reports the measured throughput of the summary.
func BenchmarkDoNull(b *testing.B) {
	cfg := testConfig(b, "o", null.Store{})
	e := Experiment{Threads: 1, Duration: 200 * time.Millisecond}
	var reqs int64
	var measured time.Duration
	b.ResetTimer()
	for range b.N {
		rep, err := Do(context.Background(), cfg, e)
		if err != nil {
			b.Fatal(err)
		}
		reqs += rep.Summary.Requests()
		measured += rep.Measured
	}
	b.ReportMetric(float64(reqs)/measured.Seconds(), "req/s")
	b.ReportMetric(0, "ns/op") // an experiment lasts its duration: ns/op says nothing
}
