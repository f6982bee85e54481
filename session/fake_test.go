package session_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/store/storetest"
	"github.com/taobench/taobench/tao"
)

// TestRunOnStoreValue: a session on a store value (New, as sql.OpenDB
// takes a connector) reserves a run number per experiment from it, sends
// every request to it, and reports each experiment to the sink, the last
// as final; Close leaves the caller's store open.
func TestRunOnStoreValue(t *testing.T) {
	t.Parallel()
	var reserved, execs atomic.Int64
	closed := false
	st := storetest.Func{
		ReserveRunFunc: func(context.Context) (int64, error) { return reserved.Add(1), nil },
		ExecFunc:       func(context.Context, *tao.Request, *tao.Result) { execs.Add(1) },
		CloseFunc:      func() error { closed = true; return nil },
	}
	rec := &recorder{}
	s := session.New(st, "fake", session.Options{Name: "run", Sink: rec})
	w := builtin(t, "o")
	g, err := graph.New(w, 1, 500)
	if err != nil {
		t.Fatal(err)
	}
	x := run.Experiment{Threads: 2, Duration: run.MinDuration}
	done, err := s.Run(context.Background(), session.Plan{Config: run.Config{Workload: w, Graph: g, Seed: 1}, Experiments: []run.Experiment{x, x}})
	if err != nil {
		t.Fatal(err)
	}
	var measured int64
	for _, d := range done {
		measured += d.Summary.Requests()
	}
	if len(done) != 2 || reserved.Load() != 2 || measured == 0 || execs.Load() < measured || len(rec.finals) != 2 || rec.finals[0] || !rec.finals[1] {
		t.Errorf("%d results, %d run numbers reserved (want 2 each), %d requests measured, %d executed, finals %v", len(done), reserved.Load(), measured, execs.Load(), rec.finals)
	}
	if s.Close(); closed {
		t.Error("Close closed a store the session did not open")
	}
}
