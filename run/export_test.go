package run

import (
	"context"
	"testing"
	"time"

	"github.com/taobench/taobench/gen"
	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/store/null"
)

// NullClient is one closed-loop client against the null store, for the
// benchmarks of package run_test, which can import livemetrics.
type NullClient struct {
	c    *client
	cfg  Config
	rec  *metrics.Recorder
	b    bounds
	live Live
}

// NewNullClient returns a client whose every request is measured, watched
// by live when it is not nil.
func NewNullClient(tb testing.TB, live Live) *NullClient {
	cfg := testConfig(tb, "o", null.Store{})
	cfg.defaults()
	cfg.Live = live
	plan, err := gen.NewPlan(cfg.Workload, cfg.Graph, cfg.Seed)
	if err != nil {
		tb.Fatal(err)
	}
	n := &NullClient{cfg: cfg, rec: metrics.NewRecorder(), live: live}
	n.c = newClient(plan, 0, &n.cfg, n.rec, newExpShared(&n.cfg, 1))
	n.c.live = live
	now := time.Now()
	n.b = bounds{measure: now, end: now.Add(24 * time.Hour)}
	if live != nil {
		live.Begin(LiveExperiment{Threads: 1, Start: now, Measure: now, End: n.b.end})
	}
	return n
}

// Step issues one request.
func (n *NullClient) Step(tb testing.TB) {
	ctx := context.Background()
	if more, _ := n.c.step(ctx, ctx, &n.cfg, n.b); !more {
		tb.Fatal("the client stopped")
	}
}

// Finish hands over the last batch and returns the requests recorded.
func (n *NullClient) Finish() int64 {
	n.c.flush(time.Now())
	if n.live != nil {
		n.live.End()
	}
	return n.rec.Snapshot().Requests()
}
