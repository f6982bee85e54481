package run

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taobench/taobench/store/storetest"
	"github.com/taobench/taobench/tao"
)

// statusLog keeps each status line with the time it was written.
type statusLog struct {
	mu    sync.Mutex
	lines []statusLine
}

type statusLine struct {
	at   time.Time
	text string
}

func (l *statusLog) Write(p []byte) (int, error) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		l.lines = append(l.lines, statusLine{now, s})
	}
	return len(p), nil
}

func (l *statusLog) all() []statusLine {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]statusLine(nil), l.lines...)
}

var (
	statusElapsedRe  = regexp.MustCompile(`^\[ *([0-9.]+)s\] `)
	statusRequestsRe = regexp.MustCompile(`^\[ *[0-9.]+s\] measured ([0-9.]+)s: [0-9.]+ req/s, p99 [0-9.]+ ms, (\d+) requests, (\d+) failed \((\d+) lost to errors and timeouts\)$`)
)

// TestStatusCurrent: against a slow database (40 ms a request, so a client
// fills no 64-sample batch during the test) the status line counts the
// measured requests completed when it is composed, not those of the warmup,
// and the warmup is shown as warmup.
//
// A line is composed at its tick, which it shows to a tenth of a second,
// and written some time later; on a loaded machine much later. So each line
// is checked against its tick (as shown, give or take 50 ms) and its
// writing, not against a guess of the delay in between.
func TestStatusCurrent(t *testing.T) {
	const (
		latency  = 40 * time.Millisecond
		warmup   = 500 * time.Millisecond
		duration = 1200 * time.Millisecond
		every    = 200 * time.Millisecond
		tenth    = 50 * time.Millisecond // the rounding of a tenth of a second
	)
	st := &scriptStore{answer: func(ctx context.Context, _ int, enter time.Time) tao.Outcome {
		waitUntil(ctx, enter.Add(latency))
		return tao.OK
	}}
	cfg := testConfig(t, "o", st.fake())
	log := &statusLog{}
	cfg.Status, cfg.StatusEvery = log, every
	rep := mustDo(t, context.Background(), cfg, Experiment{Threads: 2, Warmup: warmup, Duration: duration})
	measure := rep.Started.Add(warmup)
	calls := st.recorded()
	if n := len(calls); n >= 2*batchSize {
		t.Fatalf("%d calls: the clients filled their batches, so the test proves nothing", n)
	}
	// completed counts the measured calls that had returned by at.
	completed := func(at time.Time) int64 {
		var n int64
		for _, c := range calls {
			if !c.enter.Before(measure) && !c.exit.IsZero() && c.exit.Before(at) {
				n++
			}
		}
		return n
	}
	warmupLines, measured := 0, 0
	for _, l := range log.all() {
		e := statusElapsedRe.FindStringSubmatch(l.text)
		if e == nil {
			t.Errorf("status line %q does not begin with the time elapsed", l.text)
			continue
		}
		secs, _ := strconv.ParseFloat(e[1], 64)
		shown := rep.Started.Add(time.Duration(secs * float64(time.Second)))
		tickLo, tickHi := shown.Add(-tenth), shown.Add(tenth) // the line's tick
		if tickLo.After(l.at) {
			t.Errorf("status line %q written %.3fs after the start, before its tick", l.text, l.at.Sub(rep.Started).Seconds())
		}
		m := statusRequestsRe.FindStringSubmatch(l.text)
		switch {
		case m == nil && strings.Contains(l.text, "warmup") && tickLo.Before(measure):
			warmupLines++
			continue
		case m == nil:
			t.Errorf("status line %q is neither a warmup line before the boundary nor a measured-window line", l.text)
			continue
		case tickHi.Before(measure):
			t.Errorf("status line %q, ticked before the boundary at %.1fs, does not say warmup", l.text, warmup.Seconds())
			continue
		}
		measured++
		n, _ := strconv.ParseInt(m[2], 10, 64)
		// The count is taken between the tick and the writing, and a
		// request is counted right after its call returns: allow one per
		// client not yet counted.
		lo, hi := completed(tickLo)-2, completed(l.at.Add(time.Millisecond))
		if n < lo || n > hi {
			t.Errorf("status line %q counts %d requests; %d to %d measured requests had completed between its tick and its writing",
				l.text, n, max(lo, 0), hi)
		}
		// The measured time is the tick's, in tenths, at most the duration.
		want := func(tick time.Time) float64 { return min(tick.Sub(measure), duration).Seconds() }
		if got, _ := strconv.ParseFloat(m[1], 64); got < want(tickLo)-0.051 || got > want(tickHi)+0.051 {
			t.Errorf("status line %q says %s s measured; its tick was %.3f to %.3f s into the window", l.text, m[1], want(tickLo), want(tickHi))
		}
	}
	if warmupLines == 0 || measured < 3 {
		t.Fatalf("%d warmup and %d measured status lines; want at least 1 and 3:\n%v", warmupLines, measured, log.all())
	}
	if rep.Summary.Requests() != completed(time.Now()) {
		t.Errorf("the report counts %d requests, the store completed %d measured ones", rep.Summary.Requests(), completed(time.Now()))
	}
}

// stuckStore answers the first okCalls calls at once and then never
// answers, ignoring its context, until released: a hung server behind a
// driver that does not honour cancellation.
type stuckStore struct {
	okCalls int64
	release chan struct{}
	calls   atomic.Int64
	stuck   atomic.Int64
}

// fake is the store the runner is given: storetest.Func, its Exec s.exec.
func (s *stuckStore) fake() storetest.Func { return storetest.Func{ExecFunc: s.exec} }

func (s *stuckStore) exec(_ context.Context, _ *tao.Request, res *tao.Result) {
	if s.calls.Add(1) <= s.okCalls {
		res.Outcome = tao.OK
		return
	}
	s.stuck.Add(1)
	<-s.release
	res.Outcome = tao.Error
}

// TestStuckStore: a store stuck in Exec beyond the drain does not hold the
// experiment: Do returns abandonAfter after the drain deadline (well within
// a second), counting each stuck request as a timeout, or, when the user
// cancels, shortly after the cancel, counting none of them.
func TestStuckStore(t *testing.T) {
	const (
		duration = 200 * time.Millisecond
		drain    = 300 * time.Millisecond
		threads  = 3
		okCalls  = 100
	)
	t.Run("drain", func(t *testing.T) {
		st := &stuckStore{okCalls: okCalls, release: make(chan struct{})}
		defer close(st.release)
		cfg := testConfig(t, "o", st.fake())
		cfg.Drain = drain
		log := &statusLog{}
		cfg.Status, cfg.StatusEvery = log, time.Hour
		began := time.Now()
		rep := doGuarded(t, context.Background(), cfg, Experiment{Threads: threads, Duration: duration})
		took := time.Since(began)
		// Generous: a loaded machine may be slow to wake Do; a store that
		// held it would hold it until released, after the test.
		if took > duration+drain+5*time.Second {
			t.Errorf("Do returned %v after it began; the experiment and its drain took %v: a stuck store held it", took, duration+drain)
		}
		if rep.TotalRuntime < duration+drain {
			t.Errorf("Do returned after %v, before the drain deadline %v", rep.TotalRuntime, duration+drain)
		}
		sum := rep.Summary
		checkSummary(t, sum)
		stuck := st.stuck.Load()
		if stuck != threads {
			t.Fatalf("%d calls stuck; each of the %d clients should be stuck in one", stuck, threads)
		}
		if sum.Outcome(tao.OK) != okCalls || sum.Outcome(tao.Timeout) != stuck || sum.Requests() != okCalls+stuck {
			t.Errorf("%d requests: %d ok, %d timeouts; want %d ok and the %d stuck ones as timeouts",
				sum.Requests(), sum.Outcome(tao.OK), sum.Outcome(tao.Timeout), okCalls, stuck)
		}
		if lost, _ := sum.Lost(); lost != stuck {
			t.Errorf("%d requests lost, want the %d stuck", lost, stuck)
		}
		var text []string
		for _, l := range log.all() {
			text = append(text, l.text)
		}
		out := strings.Join(text, "\n")
		if !strings.Contains(out, "3 request(s) still waiting on the database") || !strings.Contains(out, "first lost request (timeout") {
			t.Errorf("the status output does not say requests were abandoned and why:\n%s", out)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		st := &stuckStore{okCalls: okCalls, release: make(chan struct{})}
		defer close(st.release)
		cfg := testConfig(t, "o", st.fake())
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			for st.stuck.Load() < threads {
				time.Sleep(time.Millisecond)
			}
			cancel()
		}()
		began := time.Now()
		rep := doGuarded(t, ctx, cfg, Experiment{Threads: threads, Duration: time.Hour})
		if took := time.Since(began); took > 5*time.Second {
			t.Errorf("Do returned %v after it began, though the user cancelled once the clients were stuck", took)
		}
		sum := rep.Summary
		if !rep.Interrupted {
			t.Error("not marked Interrupted")
		}
		if sum.Requests() != okCalls || sum.Outcome(tao.Timeout) != 0 {
			t.Errorf("%d requests, %d timeouts; want the %d answered, and the stuck ones cut by the user not counted",
				sum.Requests(), sum.Outcome(tao.Timeout), okCalls)
		}
	})
}
