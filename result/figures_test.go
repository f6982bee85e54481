package result_test

import (
	"testing"
	"time"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/tao"
)

// TestFigures: an experiment's figures give its throughput, each series'
// latency as durations (not microseconds) and how its requests ended.
func TestFigures(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	e := experiment([]metrics.Sample{
		{Class: tao.Read, Kind: tao.NumKinds, Outcome: tao.OK, Latency: 1 * ms, Attempts: 1, At: time.Second},
		{Class: tao.Read, Kind: tao.NumKinds, Outcome: tao.OK, Latency: 2 * ms, Attempts: 1, At: time.Second},
		{Class: tao.Read, Kind: tao.NumKinds, Outcome: tao.OK, Latency: 3 * ms, Attempts: 1, At: time.Second},
		{Class: tao.Write, Kind: tao.NumKinds, Outcome: tao.Timeout, Latency: 10 * ms, Attempts: 1, At: 2 * time.Second},
		{Class: tao.WriteTxn, Kind: tao.NumKinds, Outcome: tao.ConflictObject, Latency: 4 * ms, Attempts: 3, At: 3 * time.Second},
	})
	f := e.Figures()
	if f.Requests != 5 || f.Throughput != 0.5 || f.Lost != 1 || f.Conflicts != 1 || f.Failed != 2 {
		t.Errorf("figures %+v; want 5 requests, 0.5/s, 1 lost, 1 conflict, 2 failed", f)
	}
	near := func(got, want time.Duration) bool { return got >= want-want/100 && got <= want+want/100 }
	if f.Latency.Count != 5 || !near(f.Latency.Max, 10*ms) || !near(f.Latency.Min, ms) || !near(f.Latency.Mean, 4*ms) {
		t.Errorf("every request's latency %+v; want 5 of 1 ms to 10 ms, mean 4 ms", f.Latency)
	}
	if r := f.Classes[tao.Read]; r.Count != 3 || !near(r.P50, 2*ms) || !near(r.Max, 3*ms) {
		t.Errorf("reads' latency %+v; want 3, median 2 ms, max 3 ms", r)
	}
	if r := e.Latency("write_txn"); r.Count != 1 || !near(r.P99, 4*ms) || r != f.Classes[tao.WriteTxn] {
		t.Errorf("write_txn latency %+v (Figures: %+v); want one of 4 ms", r, f.Classes[tao.WriteTxn])
	}
	if r := e.Latency("no-such-series"); r.Count != 0 {
		t.Errorf("an unknown series: %+v", r)
	}
}
