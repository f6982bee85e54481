package run

import (
	"context"
	"testing"
	"time"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/store/null"
	"github.com/taobench/taobench/workload"
)

// TestInjectedLatency: with InjectLatency every request sleeps its class's
// delay before the store: a fixed 20 ms read delay puts every read's
// latency and service time above 20 ms and is reported alone; write
// transactions draw from write_txn_latency; without InjectLatency nothing
// is injected.
func TestInjectedLatency(t *testing.T) {
	cfg := testConfig(t, "o", null.Store{})
	w := *cfg.Workload
	w.ReadLatency = workload.Dist[time.Duration]{Values: []time.Duration{20 * time.Millisecond}, Weights: []float64{1}}
	w.WriteTxnLatency = workload.Dist[time.Duration]{Values: []time.Duration{0, 30 * time.Millisecond}, Weights: []float64{1, 1}}
	w.WriteLatency = workload.Dist[time.Duration]{}
	cfg.Workload = &w
	cfg.InjectLatency = true
	rep := mustDo(t, context.Background(), cfg, Experiment{Threads: 8, Duration: 400 * time.Millisecond})
	s := rep.Summary
	rd, in := s.Stats("read"), s.InjectedStats("read")
	if rd.Count == 0 || in.Count != rd.Count || in.Min != 20000 || in.Max != 20000 {
		t.Errorf("reads: %d requests, %d injected, min %v max %v µs; want every one 20 ms", rd.Count, in.Count, in.Min, in.Max)
	}
	if rd.Min < 20000 || s.ServiceStats("read").Min < 20000 {
		t.Errorf("read latency min %.0f µs, service min %.0f µs: want at least the 20 ms injected", rd.Min, s.ServiceStats("read").Min)
	}
	if wi := s.InjectedStats("write"); wi.Count != s.Stats("write").Count || wi.Max != 0 {
		t.Errorf("writes with no write_operation_latency: %d injected, max %v", wi.Count, wi.Max)
	}
	if tx := s.InjectedStats("write_txn"); tx.Count > 0 && (tx.Max > 30000 || tx.Min != 0 && tx.Min != 30000) {
		t.Errorf("write transactions: injected min %v max %v µs, want 0 or 30 ms", tx.Min, tx.Max)
	}

	cfg.InjectLatency = false
	rep = mustDo(t, context.Background(), cfg, Experiment{Threads: 2, Duration: 100 * time.Millisecond})
	if n := rep.Summary.InjectedStats(metrics.All).Count; n != 0 {
		t.Errorf("%d injected delays without InjectLatency", n)
	}
}
