package run

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/store/null"
	"github.com/taobench/taobench/store/storetest"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// testConfig returns a config over a small graph of the built-in workload
// name, with backoffs short enough to keep retry tests fast.
func testConfig(t testing.TB, name string, st store.Store) Config {
	t.Helper()
	w, err := workload.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	g, err := graph.New(w, 1, 10000)
	if err != nil {
		t.Fatal(err)
	}
	return Config{
		Store: st, Workload: w, Graph: g, Seed: 7,
		BackoffMin: time.Microsecond, BackoffMax: time.Microsecond,
	}
}

// call is one Exec as a scriptStore saw it.
type call struct {
	enter, exit time.Time
	out         tao.Outcome
}

// scriptStore answers every Exec with what answer returns for the call's
// number (from 0, in the order calls arrive) and its start, and records every
// call. A Timeout answer carries ctx's error, as a real store's would.
type scriptStore struct {
	answer func(ctx context.Context, n int, enter time.Time) tao.Outcome

	mu    sync.Mutex
	calls []call
}

// fake is the store the runner is given: storetest.Func, its Exec s.exec.
func (s *scriptStore) fake() storetest.Func { return storetest.Func{ExecFunc: s.exec} }

func (s *scriptStore) exec(ctx context.Context, _ *tao.Request, res *tao.Result) {
	enter := time.Now()
	s.mu.Lock()
	n := len(s.calls)
	s.calls = append(s.calls, call{enter: enter})
	s.mu.Unlock()
	out := s.answer(ctx, n, enter)
	res.Outcome = out
	if out == tao.Timeout {
		res.Err = ctx.Err()
	}
	if result.Counted(out) {
		res.Code = "T" + out.String() // the database's code, as a real store sets it
	}
	exit := time.Now()
	s.mu.Lock()
	s.calls[n].exit, s.calls[n].out = exit, out
	s.mu.Unlock()
}

// recorded returns the calls so far (safe once Do has returned).
func (s *scriptStore) recorded() []call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// count returns how many recorded calls ended in out.
func count(calls []call, out tao.Outcome) int64 {
	var n int64
	for _, c := range calls {
		if c.out == out {
			n++
		}
	}
	return n
}

// countingStore counts the Execs it passes on to inner.
type countingStore struct {
	inner store.Store
	n     atomic.Int64
}

// fake is the store the runner is given: a storetest.Func that counts each
// Exec and passes it on.
func (s *countingStore) fake() storetest.Func {
	return storetest.Func{
		ExecFunc: func(ctx context.Context, req *tao.Request, res *tao.Result) {
			s.n.Add(1)
			s.inner.Exec(ctx, req, res)
		},
		CloseFunc: s.inner.Close,
	}
}

// waitUntil blocks until t or until ctx is done, as a slow database would.
func waitUntil(ctx context.Context, t time.Time) {
	tm := time.NewTimer(time.Until(t))
	defer tm.Stop()
	select {
	case <-tm.C:
	case <-ctx.Done():
	}
}

func mustDo(t *testing.T, ctx context.Context, cfg Config, e Experiment) *result.Experiment {
	t.Helper()
	rep, err := Do(ctx, cfg, e)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary == nil {
		t.Fatal("no summary")
	}
	return rep
}

// checkSummary checks what holds of every summary: each request has one
// outcome and at least one attempt.
func checkSummary(t *testing.T, sum *metrics.Summary) {
	t.Helper()
	var outcomes int64
	for o := tao.Outcome(0); o < tao.NumOutcomes; o++ {
		outcomes += sum.Outcome(o)
	}
	if outcomes != sum.Requests() {
		t.Errorf("outcomes add up to %d, requests %d", outcomes, sum.Requests())
	}
	if sum.Attempts() < sum.Requests() {
		t.Errorf("%d attempts for %d requests", sum.Attempts(), sum.Requests())
	}
}

// TestWarmupExcluded: the store answers conflicts (retried) before an instant
// no later than the measure boundary and ok after, and holds the requests
// around the boundary until past it. Nothing of the warmup — requests,
// failures, retries, attempts, conflicts — may reach the summary, and the
// requests counted are exactly those that began at or after the boundary.
//
// The test needs warmup calls before the instant, and measured requests
// after the boundary; on a loaded machine Do may take longer than the warmup
// to issue its first request, so the test runs again with a longer warmup
// (up to 1.6 s) until both happen.
func TestWarmupExcluded(t *testing.T) {
	for _, threads := range []int{1, 4} {
		t.Run(fmt.Sprintf("%d clients", threads), func(t *testing.T) {
			for warmup := 100 * time.Millisecond; !testWarmupExcluded(t, threads, warmup); warmup *= 2 {
				if warmup >= 1600*time.Millisecond {
					t.Fatalf("with a %v warmup the store still answered no conflicts before the boundary (retried to the limit with one client), or nothing was measured after it: the test proves nothing", warmup)
				}
			}
		})
	}
}

// testWarmupExcluded runs the test with the given warmup; it reports false
// when the run met no conflict during the warmup (with one client: no
// request that used all its retries) or measured nothing.
func testWarmupExcluded(t *testing.T, threads int, warmup time.Duration) bool {
	const (
		duration = 100 * time.Millisecond
		retries  = 2
	)
	st := &scriptStore{}
	cfg := testConfig(t, "a", st.fake())
	cfg.Retries = retries
	t0 := time.Now()
	// Do takes its start after t0, so the boundary is at or after okFrom;
	// and before the first request, so at or before hold.
	okFrom := t0.Add(warmup)
	holdFrom := t0.Add(warmup / 2)
	var (
		once sync.Once
		hold time.Time
	)
	st.answer = func(ctx context.Context, _ int, enter time.Time) tao.Outcome {
		once.Do(func() { hold = enter.Add(warmup) })
		if !enter.Before(holdFrom) && enter.Before(hold) {
			// The last warmup requests end after the boundary, so the
			// next request of their client is measured: few ambiguous calls.
			waitUntil(ctx, hold)
		}
		if enter.Before(okFrom) {
			return tao.ConflictObject
		}
		return tao.OK
	}
	rep := mustDo(t, context.Background(), cfg, Experiment{Threads: threads, Warmup: warmup, Duration: duration})
	sum := rep.Summary
	checkSummary(t, sum)
	calls := st.recorded()
	measure := rep.Started.Add(warmup)
	if measure.Before(okFrom) {
		t.Fatalf("the boundary %v precedes t0+warmup %v: the test's premise is wrong", measure, okFrom)
	}

	conflicts := count(calls, tao.ConflictObject)
	if conflicts == 0 || sum.Requests() == 0 {
		t.Logf("%v warmup: %d conflicts before the boundary, %d requests measured: again with a longer warmup", warmup, conflicts, sum.Requests())
		return false
	}
	if sum.Failed() != 0 || sum.Outcome(tao.ConflictObject) != 0 {
		t.Errorf("warmup failures counted: %d failed, %d object conflicts (the store gave %d conflicts, all before the boundary)",
			sum.Failed(), sum.Outcome(tao.ConflictObject), conflicts)
	}
	if sum.Attempts() != sum.Requests() {
		t.Errorf("%d attempts for %d measured requests: warmup retries counted (every measured request took one attempt)", sum.Attempts(), sum.Requests())
	}
	if c := sum.Contention(); c != (metrics.Contention{}) {
		t.Errorf("warmup conflicts in the contention figures: %+v", c)
	}
	if len(rep.ErrorCodes) != 0 {
		t.Errorf("warmup conflicts counted by code: %v", rep.ErrorCodes)
	}
	if sum.Outcome(tao.OK) != sum.Requests() {
		t.Errorf("%d ok of %d requests; the store answered ok to every call after the boundary", sum.Outcome(tao.OK), sum.Requests())
	}

	if threads == 1 {
		// Rebuild the requests from the calls. A request's start lies
		// between the end of the previous request and its first call; the
		// first request's start is in the report.
		var sure, possible int64
		first := rep.Started.Add(rep.FirstRequest)
		lo, hi := first, first // the first request's start is known exactly
		prevExit := first
		attempts, retried := 0, false
		for i, c := range calls {
			if attempts == 0 && i > 0 {
				lo, hi = prevExit, c.enter
			}
			attempts++
			if c.out.IsConflict() && attempts <= retries {
				continue
			}
			if attempts == retries+1 && hi.Before(measure) {
				retried = true
			}
			if !lo.Before(measure) {
				sure++
			}
			if !hi.Before(measure) {
				possible++
			}
			prevExit, attempts = c.exit, 0
		}
		if !retried {
			t.Logf("%v warmup: no warmup request used all its retries: again with a longer warmup", warmup)
			return false
		}
		if possible-sure > 1 {
			t.Fatalf("%d requests may straddle the boundary; one client has at most one", possible-sure)
		}
		if n := sum.Requests(); n < sure || n > possible {
			t.Errorf("%d requests counted; %d began after the boundary (%d more may have)", n, sure, possible-sure)
		}
		t.Logf("%d calls, %d conflicts; %d requests measured, %d began after the boundary, %d undecidable",
			len(calls), conflicts, sum.Requests(), sure, possible-sure)
		return true
	}

	// Several clients: every measured request made exactly one call, after
	// the boundary; the other calls after it belong to requests begun before
	// it, at most one per client.
	var after int64
	for _, c := range calls {
		if !c.enter.Before(measure) {
			after++
		}
	}
	if n := sum.Requests(); n > after || n < after-int64(threads) {
		t.Errorf("%d requests counted; %d calls began after the boundary, of which at most %d belong to warmup requests", n, after, threads)
	}
	return true
}

// TestRetriesExhausted: a store that always conflicts makes each request take
// Retries+1 attempts, count once as failed, and every attempt is counted.
func TestRetriesExhausted(t *testing.T) {
	for _, retries := range []int{0, 3} {
		t.Run(fmt.Sprintf("retries=%d", retries), func(t *testing.T) {
			st := &countingStore{inner: conflictStore}
			cfg := testConfig(t, "a", st.fake())
			cfg.Retries = retries
			// No warmup: every request, and so every call, is measured.
			rep := mustDo(t, context.Background(), cfg, Experiment{Threads: 2, Duration: 100 * time.Millisecond})
			sum := rep.Summary
			checkSummary(t, sum)
			n := sum.Requests()
			if n == 0 {
				t.Fatal("nothing measured")
			}
			if sum.Outcome(tao.ConflictObject) != n || sum.Failed() != n {
				t.Errorf("%d requests: %d object conflicts, %d failed; want all", n, sum.Outcome(tao.ConflictObject), sum.Failed())
			}
			if want := int64(retries+1) * n; sum.Attempts() != want {
				t.Errorf("%d attempts for %d requests, want %d (%d each)", sum.Attempts(), n, want, retries+1)
			}
			if calls := st.n.Load(); calls != sum.Attempts() {
				t.Errorf("the store saw %d calls, the summary counts %d attempts", calls, sum.Attempts())
			}
			c := sum.Contention()
			if c.ObjectLockConflictPct != 100 || c.OverallPct != 100 || c.AssociationLockConflictPct != 0 {
				t.Errorf("contention %+v; want every object write and write request conflicted, no association conflict", c)
			}
			if lost, _ := sum.Lost(); lost != 0 {
				t.Errorf("%d requests counted lost; conflicts are failures, not errors or timeouts", lost)
			}
			// Every attempt's conflict keeps the database's code.
			want := result.ErrorCodes{{Outcome: tao.ConflictObject, Code: "40P01"}: sum.Attempts()}
			if !maps.Equal(rep.ErrorCodes, want) {
				t.Errorf("error codes %v, want %v", rep.ErrorCodes, want)
			}
		})
	}
}

// conflictStore answers every request with an object conflict, with
// PostgreSQL's code.
var conflictStore = storetest.Func{ExecFunc: func(_ context.Context, _ *tao.Request, res *tao.Result) {
	res.Outcome, res.Code = tao.ConflictObject, "40P01"
}}

// TestRetrySucceeds: a store answering an object conflict, an association
// conflict, then ok (in turn, one client) makes every request succeed on its
// third attempt although more retries were allowed.
func TestRetrySucceeds(t *testing.T) {
	cycle := [...]tao.Outcome{tao.ConflictObject, tao.ConflictAssociation, tao.OK}
	st := &scriptStore{answer: func(_ context.Context, n int, _ time.Time) tao.Outcome {
		return cycle[n%len(cycle)]
	}}
	cfg := testConfig(t, "a", st.fake())
	cfg.Retries = 5
	rep := mustDo(t, context.Background(), cfg, Experiment{Threads: 1, Duration: 100 * time.Millisecond})
	sum := rep.Summary
	checkSummary(t, sum)
	n := sum.Requests()
	if n == 0 {
		t.Fatal("nothing measured")
	}
	if sum.Outcome(tao.OK) != n || sum.Failed() != 0 {
		t.Errorf("%d requests: %d ok, %d failed; want all ok", n, sum.Outcome(tao.OK), sum.Failed())
	}
	if sum.Attempts() != 3*n {
		t.Errorf("%d attempts for %d requests, want 3 each", sum.Attempts(), n)
	}
	if calls := int64(len(st.recorded())); calls != sum.Attempts() {
		t.Errorf("the store saw %d calls, the summary counts %d attempts", calls, sum.Attempts())
	}
	c := sum.Contention()
	if c.ObjectLockConflictPct != 100 || c.AssociationLockConflictPct != 100 || c.OverallPct != 100 {
		t.Errorf("contention %+v; every write met both conflicts", c)
	}
	// Retried attempts count by code too, each under its own outcome.
	want := result.ErrorCodes{{Outcome: tao.ConflictObject, Code: "Tconflict_object"}: n, {Outcome: tao.ConflictAssociation, Code: "Tconflict_association"}: n}
	if !maps.Equal(rep.ErrorCodes, want) {
		t.Errorf("error codes %v, want %v", rep.ErrorCodes, want)
	}
}

// TestInterrupt: cancelling ctx (Ctrl-C) mid-experiment ends Do long before
// the configured duration with what was measured, marked Interrupted;
// requests the cancel cut short are not counted, as timeouts or otherwise.
func TestInterrupt(t *testing.T) {
	const okCalls = 500
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	blocked := make(chan struct{})
	var once sync.Once
	st := &scriptStore{answer: func(ctx context.Context, n int, _ time.Time) tao.Outcome {
		if n < okCalls {
			return tao.OK
		}
		// A stalled database: hang until cancelled.
		once.Do(func() { close(blocked) })
		<-ctx.Done()
		return tao.Timeout
	}}
	go func() {
		<-blocked
		cancel()
	}()
	cfg := testConfig(t, "o", st.fake())
	const duration = time.Hour
	rep := doGuarded(t, ctx, cfg, Experiment{Threads: 4, Duration: duration})
	sum := rep.Summary
	checkSummary(t, sum)
	calls := st.recorded()
	if !rep.Interrupted {
		t.Error("not marked Interrupted")
	}
	if rep.Measured <= 0 || rep.Measured >= duration || rep.Measured > rep.TotalRuntime {
		t.Errorf("measured %v of a %v run that took %v", rep.Measured, duration, rep.TotalRuntime)
	}
	cut := count(calls, tao.Timeout)
	if cut == 0 {
		t.Fatal("no request was cut short: the test proves nothing")
	}
	if sum.Outcome(tao.Timeout) != 0 {
		t.Errorf("%d timeouts counted; the %d requests cut by the cancel are not timeouts", sum.Outcome(tao.Timeout), cut)
	}
	if lost, _ := sum.Lost(); lost != 0 {
		t.Errorf("%d requests counted lost", lost)
	}
	if ok := count(calls, tao.OK); sum.Requests() != ok || sum.Outcome(tao.OK) != ok {
		t.Errorf("%d requests (%d ok) counted; the store completed %d", sum.Requests(), sum.Outcome(tao.OK), ok)
	}
}

// doGuarded runs Do, failing the test if it has not returned within a
// minute (a hang, not a slow machine: the experiments here last well
// under a second once cancelled).
func doGuarded(t *testing.T, ctx context.Context, cfg Config, e Experiment) *result.Experiment {
	t.Helper()
	type outcome struct {
		rep *result.Experiment
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		rep, err := Do(ctx, cfg, e)
		done <- outcome{rep, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatal(r.err)
		}
		return r.rep
	case <-time.After(time.Minute):
		t.Fatal("Do did not return within a minute: it hangs")
		return nil
	}
}

// TestInterruptDuringBackoff: a request waiting to retry a conflict when the
// user cancels was cut short by the user: it is not counted as failed.
func TestInterruptDuringBackoff(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := &scriptStore{answer: func(context.Context, int, time.Time) tao.Outcome {
		cancel() // the backoff that follows is cut short
		return tao.ConflictObject
	}}
	cfg := testConfig(t, "a", st.fake())
	cfg.Retries = 10
	cfg.BackoffMin, cfg.BackoffMax = time.Hour, time.Hour
	rep := doGuarded(t, ctx, cfg, Experiment{Threads: 1, Duration: time.Hour})
	sum := rep.Summary
	if n := len(st.recorded()); n != 1 {
		t.Errorf("the store saw %d calls; the cancel came during the first backoff", n)
	}
	if !rep.Interrupted {
		t.Error("not marked Interrupted")
	}
	if sum.Requests() != 0 || sum.Attempts() != 0 || sum.Failed() != 0 {
		t.Errorf("a request cut short before its retry was counted: %d requests, %d attempts, %d failed",
			sum.Requests(), sum.Attempts(), sum.Failed())
	}
}

// TestInterruptDuringWarmup: a cancel before the boundary measures nothing.
func TestInterruptDuringWarmup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := &scriptStore{answer: func(_ context.Context, n int, _ time.Time) tao.Outcome {
		if n == 100 {
			cancel()
		}
		return tao.OK
	}}
	rep := doGuarded(t, ctx, testConfig(t, "o", st.fake()), Experiment{Threads: 2, Warmup: time.Hour, Duration: time.Hour})
	if len(st.recorded()) <= 100 {
		t.Fatalf("the store saw %d calls; the cancel came at the 101st", len(st.recorded()))
	}
	if !rep.Interrupted || rep.Measured != 0 {
		t.Errorf("interrupted %v, measured %v; want interrupted with nothing measured", rep.Interrupted, rep.Measured)
	}
	if n := rep.Summary.Requests(); n != 0 {
		t.Errorf("%d warmup requests counted", n)
	}
}

// TestDrain: requests still running at the end get Drain, then are cancelled
// and count as timeouts; Do returns once they are.
func TestDrain(t *testing.T) {
	const duration, drain = 100 * time.Millisecond, 50 * time.Millisecond
	var (
		mu        sync.Mutex
		deadlines []time.Time
	)
	st := &scriptStore{answer: func(ctx context.Context, _ int, _ time.Time) tao.Outcome {
		dl, ok := ctx.Deadline()
		if !ok {
			dl = time.Time{}
		}
		mu.Lock()
		deadlines = append(deadlines, dl)
		mu.Unlock()
		<-ctx.Done() // a database that never answers
		return tao.Timeout
	}}
	cfg := testConfig(t, "o", st.fake())
	cfg.Drain = drain
	rep := doGuarded(t, context.Background(), cfg, Experiment{Threads: 3, Duration: duration})
	sum := rep.Summary
	checkSummary(t, sum)
	calls := int64(len(st.recorded()))
	if calls == 0 || calls > 3 {
		t.Fatalf("the store saw %d calls; each of 3 clients hangs in its first", calls)
	}
	if rep.Interrupted || rep.Measured != duration {
		t.Errorf("interrupted %v, measured %v; want a complete %v", rep.Interrupted, rep.Measured, duration)
	}
	if sum.Outcome(tao.Timeout) != calls || sum.Requests() != calls || sum.Failed() != calls {
		t.Errorf("%d requests, %d timeouts, %d failed; want the %d cancelled at the drain deadline", sum.Requests(), sum.Outcome(tao.Timeout), sum.Failed(), calls)
	}
	if lost, _ := sum.Lost(); lost != calls {
		t.Errorf("%d requests lost, want %d", lost, calls)
	}
	want := rep.Started.Add(duration + drain)
	for _, dl := range deadlines {
		if !dl.Equal(want) {
			t.Errorf("a request ran with deadline %v; want the end plus the drain, %v", dl, want)
		}
	}
	// The drain deadline is fixed, so this bound cannot flake.
	if rep.TotalRuntime < duration+drain {
		t.Errorf("Do returned after %v, before the drain deadline %v", rep.TotalRuntime, duration+drain)
	}
}

// TestInFlightAtEnd: a request that begins before the end and finishes
// within the drain is counted with its own outcome.
func TestInFlightAtEnd(t *testing.T) {
	const duration = 100 * time.Millisecond
	st := &scriptStore{answer: func(ctx context.Context, _ int, enter time.Time) tao.Outcome {
		// Every call outlasts the experiment: it began after the start.
		waitUntil(ctx, enter.Add(duration))
		if ctx.Err() != nil {
			return tao.Timeout
		}
		return tao.NotFound
	}}
	cfg := testConfig(t, "o", st.fake()) // the default drain, 10 s, outlasts every call
	rep := mustDo(t, context.Background(), cfg, Experiment{Threads: 2, Duration: duration})
	sum := rep.Summary
	calls := int64(len(st.recorded()))
	if calls == 0 || calls > 2 {
		t.Fatalf("the store saw %d calls; each of 2 clients has time for one", calls)
	}
	if sum.Requests() != calls || sum.Outcome(tao.NotFound) != calls {
		t.Errorf("%d requests, %d not found; want the %d that straddled the end", sum.Requests(), sum.Outcome(tao.NotFound), calls)
	}
	if rep.TotalRuntime < duration {
		t.Errorf("Do returned after %v, before the end", rep.TotalRuntime)
	}
}

// TestClientsNull: 1 and 1024 clients against the null store; with no
// warmup every request is measured, so the summary counts exactly the calls
// the store saw, including those begun just before the end. On a loaded
// machine 1024 goroutines may not all run within 100 ms: with no call at
// all the experiment runs again, longer.
func TestClientsNull(t *testing.T) {
	for _, threads := range []int{1, 1024} {
		t.Run(fmt.Sprintf("%d clients", threads), func(t *testing.T) {
			st := &countingStore{inner: null.Store{}}
			cfg := testConfig(t, "o", st.fake())
			var rep *result.Experiment
			for d := 100 * time.Millisecond; st.n.Load() == 0; d *= 2 {
				if d > 1600*time.Millisecond {
					t.Fatal("no calls in 1.6 s")
				}
				rep = mustDo(t, context.Background(), cfg, Experiment{Threads: threads, Duration: d})
			}
			sum := rep.Summary
			checkSummary(t, sum)
			calls := st.n.Load()
			if sum.Requests() != calls || sum.Attempts() != calls || sum.Outcome(tao.OK) != calls {
				t.Errorf("store saw %d calls; summary: %d requests, %d attempts, %d ok", calls, sum.Requests(), sum.Attempts(), sum.Outcome(tao.OK))
			}
			if st := sum.Stats(metrics.All); st.Count != calls {
				t.Errorf("latency histograms hold %d samples, want %d", st.Count, calls)
			}
			if rep.Threads != threads || rep.Interrupted {
				t.Errorf("report: %d threads, interrupted %v", rep.Threads, rep.Interrupted)
			}
		})
	}
}

func TestBadExperiment(t *testing.T) {
	st := &countingStore{inner: null.Store{}}
	cfg := testConfig(t, "o", st.fake())
	cases := []struct {
		name string
		cfg  Config
		e    Experiment
		want string
	}{
		{"zero threads", cfg, Experiment{Threads: 0, Duration: time.Second}, "1 to"},
		{"negative threads", cfg, Experiment{Threads: -4, Duration: time.Second}, "1 to"},
		{"too many threads", cfg, Experiment{Threads: MaxClients + 1, Duration: time.Second}, fmt.Sprint(MaxClients)},
		{"negative warmup", cfg, Experiment{Threads: 1, Warmup: -time.Second, Duration: time.Second}, "warmup"},
		{"zero duration", cfg, Experiment{Threads: 1}, "duration"},
		{"negative duration", cfg, Experiment{Threads: 1, Duration: -time.Second}, "duration"},
		{"no store", Config{Workload: cfg.Workload, Graph: cfg.Graph}, Experiment{Threads: 1, Duration: time.Second}, "store"},
		{"no workload", Config{Store: st.fake(), Graph: cfg.Graph}, Experiment{Threads: 1, Duration: time.Second}, "workload"},
		{"no graph", Config{Store: st.fake(), Workload: cfg.Workload}, Experiment{Threads: 1, Duration: time.Second}, "graph"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, err := Do(context.Background(), c.cfg, c.e)
			if err == nil {
				t.Fatalf("no error; report %+v", rep)
			}
			if rep != nil {
				t.Errorf("a report with the error")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not say %q", err, c.want)
			}
		})
	}
	if n := st.n.Load(); n != 0 {
		t.Errorf("bad experiments issued %d requests", n)
	}
}

func TestBackoff(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const lo, hi = time.Millisecond, 200 * time.Millisecond
	for n := 1; n <= 70; n++ {
		top := hi
		if n < 30 {
			top = min(hi, lo<<(n-1))
		}
		seenAbove := false
		for range 200 {
			d := backoff(lo, hi, n, rng)
			if d < lo || d > top {
				t.Fatalf("attempt %d waited %v, outside [%v, %v]", n, d, lo, top)
			}
			seenAbove = seenAbove || d > lo
		}
		if top > lo && !seenAbove {
			t.Errorf("attempt %d never waited more than %v in 200 draws: no jitter", n, lo)
		}
	}
	if d := backoff(lo, lo, 5, rng); d != lo {
		t.Errorf("backoff with lo = hi = %v gave %v", lo, d)
	}
}
