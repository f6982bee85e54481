package run

import (
	"context"
	"testing"
	"time"

	"github.com/taobench/taobench/store/storetest"
	"github.com/taobench/taobench/tao"
)

// TestRequestTimeout: Config.Timeout cuts a request stuck in the store at
// its deadline (a timeout) and stops retrying conflicts once it has passed.
func TestRequestTimeout(t *testing.T) {
	t.Run("stuck", func(t *testing.T) {
		// The deadline each call was given, not how soon a loaded machine
		// let it return: the request began (and its timeout started)
		// after the previous call returned and before this one entered.
		var deadlines []time.Time // one client: no lock needed
		st := &scriptStore{answer: func(ctx context.Context, _ int, _ time.Time) tao.Outcome {
			dl, _ := ctx.Deadline()
			deadlines = append(deadlines, dl)
			<-ctx.Done()
			return tao.Timeout
		}}
		cfg := testConfig(t, "a", st.fake())
		cfg.Timeout = 20 * time.Millisecond
		rep := mustDo(t, context.Background(), cfg, Experiment{Threads: 1, Duration: 200 * time.Millisecond})
		n := rep.Summary.Requests()
		if n < 1 || rep.Summary.Outcome(tao.Timeout) != n {
			t.Fatalf("%d requests, %d timeouts: want all timeouts", n, rep.Summary.Outcome(tao.Timeout))
		}
		prevExit := rep.Started
		for i, c := range st.recorded() {
			if dl := deadlines[i]; dl.Before(prevExit.Add(cfg.Timeout)) || dl.After(c.enter.Add(cfg.Timeout)) {
				t.Errorf("call %d entered %v after the previous returned with a deadline %v after it; want the %v request timeout from the request's start",
					i, c.enter.Sub(prevExit), dl.Sub(c.enter), cfg.Timeout)
			}
			prevExit = c.exit
		}
	})
	t.Run("retries", func(t *testing.T) {
		st := &scriptStore{answer: func(context.Context, int, time.Time) tao.Outcome {
			time.Sleep(4 * time.Millisecond)
			return tao.ConflictObject
		}}
		cfg := testConfig(t, "a", st.fake())
		cfg.Retries = 1000
		cfg.Timeout = 30 * time.Millisecond
		rep := mustDo(t, context.Background(), cfg, Experiment{Threads: 1, Duration: 200 * time.Millisecond})
		sum := rep.Summary
		n := sum.Requests()
		if n < 3 || sum.Outcome(tao.ConflictObject) != n {
			t.Fatalf("%d requests, %d conflicts: want several, all conflicts (no retry after the deadline)", n, sum.Outcome(tao.ConflictObject))
		}
		if per := float64(sum.Attempts()) / float64(n); per > 12 {
			t.Errorf("%.1f attempts per request of 4 ms within a 30 ms timeout; retries went on past the deadline", per)
		}
	})
}

// TestPreconditionWaitOutsideLatency: the runner waits a request's Wait
// before sending it, and the wait is not part of its latency.
func TestPreconditionWaitOutsideLatency(t *testing.T) {
	st := &foundStore{}
	cfg := testConfig(t, "a", st.fake())
	w := *cfg.Workload
	w.Requests.Weights = []float64{1, 1, 0, 0}
	w.OpPredicates.Values = []tao.Predicate{tao.PredWriteVersion}
	w.OpPredicates.Weights = []float64{1}
	w.PreconditionWait.Values = []time.Duration{40 * time.Millisecond}
	w.PreconditionWait.Weights = []float64{1}
	cfg.Workload = &w
	rep := mustDo(t, context.Background(), cfg, Experiment{Threads: 1, Duration: 400 * time.Millisecond})
	if st.waited == 0 || st.waited > 10 {
		t.Errorf("%d pauses of 40 ms between %d calls in 400 ms; want a few (the waits)", st.waited, st.calls)
	}
	if max := rep.Summary.Stats("write").Max; max >= 40_000 {
		t.Errorf("a write's latency reached %v µs: the wait was counted", max)
	}
}

// foundStore answers every request ok, every read finding its row at
// version 1, so the client remembers what it read; it counts the pauses of
// 40 ms or more between calls (one client: no lock needed).
type foundStore struct {
	last          time.Time
	calls, waited int
}

// fake is the store the runner is given: storetest.Func, its Exec f.exec.
func (f *foundStore) fake() storetest.Func { return storetest.Func{ExecFunc: f.exec} }

func (f *foundStore) exec(_ context.Context, req *tao.Request, res *tao.Result) {
	now := time.Now()
	if !f.last.IsZero() && now.Sub(f.last) >= 40*time.Millisecond {
		f.waited++
	}
	f.calls++
	for i := range res.Ops {
		res.Ops[i] = tao.OpResult{Found: true, Version: 1}
	}
	res.Outcome = tao.OK
	f.last = time.Now()
}
