package run

import (
	"context"
	"testing"
	"time"

	"github.com/taobench/taobench/gen"
	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/store/null"
)

// nullStepper is one client of a built-in workload against the null store
// and the bounds of an experiment that lasts a day, every request measured:
// what the step benchmarks and the allocation test drive.
type nullStepper struct {
	c   *client
	cfg Config
	rec *metrics.Recorder
	b   bounds
}

// newNullStepper returns a closed-loop client or, with open, an open-loop
// one whose uniform schedule at MaxRate runs ahead of it, so it takes an
// intended start for every request and never waits for one.
func newNullStepper(tb testing.TB, workload string, open bool) *nullStepper {
	return newStepper(tb, workload, open, null.Store{})
}

// newStepper is newNullStepper on st.
func newStepper(tb testing.TB, workload string, open bool, st store.Store) *nullStepper {
	n := &nullStepper{cfg: testConfig(tb, workload, st), rec: metrics.NewRecorder()}
	n.cfg.defaults()
	plan, err := gen.NewPlan(n.cfg.Workload, n.cfg.Graph, n.cfg.Seed)
	if err != nil {
		tb.Fatal(err)
	}
	n.c = newClient(plan, 0, &n.cfg, n.rec, newExpShared(&n.cfg, 1))
	now := time.Now()
	n.b = bounds{measure: now, end: now.Add(24 * time.Hour)}
	if open {
		n.b.sched = newSchedule(NewPacer(Uniform, MaxRate, 1), now, n.b)
	}
	return n
}

func (n *nullStepper) step(tb testing.TB) {
	ctx := context.Background()
	if more, _ := n.c.step(ctx, ctx, &n.cfg, n.b); !more {
		tb.Fatal("the client stopped")
	}
}

// BenchmarkClientNull measures one client's cost per request against the
// null store: b.N calls of the step the client loop makes, with every
// request measured and recorded, for workloads o (the default) and a
// (bench/null.sh's two). closed is the default closed loop; open takes
// each request's intended start from a schedule it never waits for
// (BenchmarkOpenLoopNull is the same through whole experiments). cpu-ns/op,
// the process's CPU time per request, compares builds on a busy machine.
func BenchmarkClientNull(b *testing.B) {
	for _, tc := range []struct {
		workload string
		open     bool
	}{{"o", false}, {"o", true}, {"a", false}} {
		name := tc.workload + "/closed"
		if tc.open {
			name = tc.workload + "/open"
		}
		b.Run(name, func(b *testing.B) {
			n := newNullStepper(b, tc.workload, tc.open)
			b.ReportAllocs()
			b.ResetTimer()
			start, cpu := time.Now(), cpuTime(b)
			for range b.N {
				n.step(b)
			}
			n.c.flush(time.Now())
			elapsed, cpu := time.Since(start), cpuTime(b)-cpu
			b.StopTimer()
			if got := n.rec.Snapshot().Requests(); got != int64(b.N) {
				b.Fatalf("%d requests recorded of %d", got, b.N)
			}
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// TestStepAllocatesNothing: a request in steady state allocates nothing,
// closed or open loop. The occasional allocation (a transaction larger
// than keepOps regrowing the request buffer, a histogram's new second)
// averages well below one per request, which AllocsPerRun rounds to 0.
func TestStepAllocatesNothing(t *testing.T) {
	for _, open := range []bool{false, true} {
		n := newNullStepper(t, "o", open)
		for range 20000 {
			n.step(t)
		}
		if a := testing.AllocsPerRun(5000, func() { n.step(t) }); a != 0 {
			t.Errorf("open loop %v: %.0f allocations per request", open, a)
		}
	}
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
