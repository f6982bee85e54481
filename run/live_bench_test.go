package run_test

import (
	"testing"
	"time"

	"github.com/taobench/taobench/livemetrics"
	"github.com/taobench/taobench/run"
)

// BenchmarkClientNullLive is BenchmarkClientNull without and with live
// metrics (--metrics-addr): the difference is what the live counters cost
// a client per request.
func BenchmarkClientNullLive(b *testing.B) {
	for _, tc := range []struct {
		name string
		live func() run.Live
	}{
		{"off", func() run.Live { return nil }},
		{"on", func() run.Live { return livemetrics.NewRuns() }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			c := run.NewNullClient(b, tc.live())
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				c.Step(b)
			}
			n := c.Finish()
			elapsed := time.Since(start)
			b.StopTimer()
			if n != int64(b.N) {
				b.Fatalf("%d requests recorded of %d", n, b.N)
			}
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
		})
	}
}
