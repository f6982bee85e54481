package run

import (
	"context"
	"testing"
	"time"

	"github.com/taobench/taobench/store/null"
	"github.com/taobench/taobench/tier"
)

// BenchmarkClientChecked is BenchmarkClientNull with the staleness
// checker alone before the null store, as every run on a real database
// has it (docs/tiers.md): the difference between the two is the checker's
// cost per request (its clock readings, the commit log, the figures).
func BenchmarkClientChecked(b *testing.B) {
	for _, w := range []string{"o", "a"} {
		b.Run(w+"/closed", func(b *testing.B) {
			ts, err := tier.Open(context.Background(), null.Store{}, tier.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer ts.Close()
			n := newStepper(b, w, false, ts.Front())
			ts.BeginExperiment(n.cfg.Graph.Seed(), 1, n.b.measure, n.b.end)
			b.ReportAllocs()
			b.ResetTimer()
			start, cpu := time.Now(), cpuTime(b)
			for range b.N {
				n.step(b)
			}
			n.c.flush(time.Now())
			elapsed, cpu := time.Since(start), cpuTime(b)-cpu
			b.StopTimer()
			c := ts.EndExperiment()
			if (b.N >= 1000 && c.Tiers[2].Served == 0) || c.Tiers[2].Stale != 0 { // 1 read in tier.CheckEvery is checked
				b.Fatalf("checker: %d reads checked, %d stale; want reads, none stale", c.Tiers[2].Served, c.Tiers[2].Stale)
			}
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
