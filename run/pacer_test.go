package run

import (
	"context"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taobench/taobench/internal/cpuwait"
	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/store/null"
	"github.com/taobench/taobench/store/storetest"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/textreport"
)

// TestPacerExponential: the Poisson pacer's inter-arrival times follow the
// exponential distribution of mean 1/rate. The schedule is a pure function
// of the seed, so the test is deterministic: a Kolmogorov-Smirnov statistic
// of 100,000 gaps below the 1% critical value (1.628/√n), and the mean
// within 1%.
func TestPacerExponential(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		const n, rate = 100000, 5000.0
		p := NewPacer(Poisson, rate, seed)
		gaps := make([]float64, n)
		prev := time.Duration(0)
		sum := 0.0
		for i := range gaps {
			at := p.Next()
			if at < prev {
				t.Fatalf("seed %d: arrival %d at %v, before the previous at %v", seed, i, at, prev)
			}
			gaps[i] = (at - prev).Seconds()
			sum += gaps[i]
			prev = at
		}
		if mean := sum / n; math.Abs(mean*rate-1) > 0.01 {
			t.Errorf("seed %d: mean gap %.6f s, want %.6f s within 1%%", seed, mean, 1/rate)
		}
		slices.Sort(gaps)
		d := 0.0
		for i, g := range gaps {
			cdf := 1 - math.Exp(-rate*g)
			d = max(d, math.Abs(cdf-float64(i)/n), math.Abs(cdf-float64(i+1)/n))
		}
		if crit := 1.628 / math.Sqrt(n); d > crit {
			t.Errorf("seed %d: Kolmogorov-Smirnov D = %.5f against the exponential, above the 1%% critical value %.5f", seed, d, crit)
		}
	}
	// Uniform arrivals are a fixed interval apart.
	p := NewPacer(Uniform, 5000, 1)
	p.Next()
	if g := p.Next(); g != 200*time.Microsecond {
		t.Errorf("uniform gap %v, want 200µs", g)
	}
}

// TestPacerUniform: uniform arrivals put exactly rate·D requests in a
// window of D seconds.
func TestPacerUniform(t *testing.T) {
	p := NewPacer(Uniform, 3000, 1)
	n := 0
	for p.Next() < 2*time.Second {
		n++
	}
	if n != 6000 {
		t.Errorf("%d arrivals in 2 s at 3,000/s, want 6000", n)
	}
}

func TestParseArrival(t *testing.T) {
	for s, want := range map[string]Arrival{"poisson": Poisson, "Uniform": Uniform, " exponential ": Poisson} {
		if a, err := ParseArrival(s); err != nil || a != want {
			t.Errorf("ParseArrival(%q) = %v, %v", s, a, err)
		}
	}
	if _, err := ParseArrival("bursty"); err == nil || !strings.Contains(err.Error(), "poisson") {
		t.Errorf("ParseArrival(bursty): %v", err)
	}
	for _, r := range []float64{-1, math.NaN(), math.Inf(1), 2e8} {
		if CheckRate(r) == nil {
			t.Errorf("CheckRate(%v) accepted", r)
		}
	}
}

// TestOpenLoopRate: against the null store the clients issue every
// request of the schedule they have the CPU to issue, so the achieved rate
// is the scheduled one. The schedule is exact: the target with uniform
// arrivals, and with Poisson arrivals the schedule's own count (the target
// within its statistical spread, 4 standard deviations here). At most 1% is
// left unissued, plus what the target rate scheduled in the stretch before
// the end in which the process was starved of CPU (cpuwait.Sampler): on an
// idle machine there is none; on a loaded one the clients fall behind while
// they cannot run, and the requests due then are never issued.
func TestOpenLoopRate(t *testing.T) {
	for _, c := range []struct {
		rate    float64
		arrival Arrival
		dur     time.Duration
	}{
		{100, Uniform, time.Second},
		{1000, Uniform, time.Second},
		{1000, Poisson, time.Second},
		{100000, Poisson, 500 * time.Millisecond},
	} {
		if raceEnabled && c.rate > 1000 {
			t.Logf("%v/s skipped under the race detector, which slows the driver below it", c.rate)
			continue
		}
		cfg := testConfig(t, "o", null.Store{})
		cfg.Arrival = c.arrival
		const warmup = 100 * time.Millisecond
		sampler := cpuwait.Sample(5 * time.Millisecond)
		rep := mustDo(t, context.Background(), cfg, Experiment{Threads: 4, Warmup: warmup, Duration: c.dur, Rate: c.rate})
		starvedFor := sampler.StarvedBefore(rep.Started.Add(warmup + c.dur))
		o := rep.OpenLoop
		ops := rep.Summary.Requests()
		want := c.rate * c.dur.Seconds()
		t.Logf("%v %s: %d scheduled, %d issued, %d not issued; achieved %.1f req/s; overtime %d; starved of CPU for %v before the end",
			c.rate, c.arrival, o.Scheduled, ops, o.NotIssued, float64(ops)/rep.Measured.Seconds(), rep.Overtime, starvedFor)
		if o.Rate != c.rate || o.Arrival != c.arrival.String() {
			t.Errorf("report says rate %v, arrival %s", o.Rate, o.Arrival)
		}
		if ops+o.NotIssued != o.Scheduled {
			t.Errorf("%d issued + %d not issued != %d scheduled", ops, o.NotIssued, o.Scheduled)
		}
		if o.Reached() != (float64(o.NotIssued) <= 0.01*float64(o.Scheduled)) {
			t.Errorf("%d of %d not issued, yet reached %v", o.NotIssued, o.Scheduled, o.Reached())
		}
		spread := 1.0 // uniform: exact, give or take one
		if c.arrival == Poisson {
			spread = 4 * math.Sqrt(want)
		}
		if math.Abs(float64(o.Scheduled)-want) > spread {
			t.Errorf("%v/s for %v: %d scheduled, want %.0f ± %.0f", c.rate, c.dur, o.Scheduled, want, spread)
		}
		// Without the kernel's figure the process is taken never to have
		// been starved: the test then wants an idle machine. The stretch
		// is known to a sampling period.
		starved := c.rate * (starvedFor + 5*time.Millisecond).Seconds()
		if allowed := 0.01*float64(o.Scheduled) + starved + 4*math.Sqrt(starved); float64(o.NotIssued) > allowed {
			t.Errorf("%v/s: %d of %d scheduled requests not issued, want at most %.0f (1%% and those due in the last %v, when the process was starved of CPU)",
				c.rate, o.NotIssued, o.Scheduled, allowed, starvedFor)
		}
		if st := rep.Summary.ServiceStats(metrics.All); st.Count != ops {
			t.Errorf("%d service times for %d requests", st.Count, ops)
		}
	}
}

// TestOpenLoopTooFewClients: one client of a store that takes 2 ms cannot
// serve 2,000 requests a second: the requests queue, the report says the
// target was not reached, and latency from the intended start far exceeds
// the service time.
func TestOpenLoopTooFewClients(t *testing.T) {
	st := &null.Delayed{Delay: 2 * time.Millisecond}
	cfg := testConfig(t, "o", st)
	rep := mustDo(t, context.Background(), cfg, Experiment{Threads: 1, Duration: 500 * time.Millisecond, Rate: 2000})
	o := rep.OpenLoop
	ops := rep.Summary.Requests()
	if o.Reached() || o.NotIssued == 0 || float64(ops) > 0.6*float64(o.Scheduled) {
		t.Errorf("%d of %d scheduled issued, %d not issued, reached %v; want under 60%% and not reached", ops, o.Scheduled, o.NotIssued, o.Reached())
	}
	// One client: request k starts no sooner than k·2 ms, however slow the
	// machine, and was due about k·0.5 ms in, so half the requests waited
	// about ops/2 · 1.5 ms or more (10% and the 2 ms service for the
	// Poisson schedule's spread).
	lat, svc := rep.Summary.Stats(metrics.All), rep.Summary.ServiceStats(metrics.All)
	queued := float64(ops/2) * float64((st.Delay - 500*time.Microsecond).Microseconds())
	if lat.P50 < 0.9*queued || rep.Overtime < ops/2 {
		t.Errorf("latency p50 %.0f µs, service p50 %.0f µs, overtime %d of %d: want the queueing in the latency (at least %.0f µs at the median)", lat.P50, svc.P50, rep.Overtime, ops, queued)
	}
	var b strings.Builder
	if err := textreport.WriteText(&b, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "target rate not reached") {
		t.Errorf("the text does not say the rate was not reached:\n%s", b.String())
	}
}

// stallStore answers at once, except that the first call at least after
// past the store's first call takes stall: a database's pause, seen by one
// client. Timed from the first call, not from when the test set it up, the
// stall falls in the measured window however long Do takes to begin.
type stallStore struct {
	after, stall time.Duration
	once         sync.Once
	first        time.Time // set once
	stalled      atomic.Bool
}

// fake is the store the runner is given: storetest.Func, its Exec s.exec.
func (s *stallStore) fake() storetest.Func { return storetest.Func{ExecFunc: s.exec} }

func (s *stallStore) exec(ctx context.Context, _ *tao.Request, res *tao.Result) {
	now := time.Now()
	s.once.Do(func() { s.first = now })
	if now.Sub(s.first) >= s.after && s.stalled.CompareAndSwap(false, true) {
		waitUntil(ctx, now.Add(s.stall))
	}
}

// slower counts the requests of sum whose latency was at least d.
func slower(sum *metrics.Summary, d time.Duration) int64 {
	var n int64
	for c := range tao.NumClasses {
		h := sum.Histogram(c.String())
		if h == nil {
			continue
		}
		for _, b := range h.Distribution() {
			if b.From >= d.Microseconds() {
				n += b.Count
			}
		}
	}
	return n
}

// TestOpenLoopStall: one client at 1,000 requests/s and a store that stalls
// once for 300 ms. Closed loop would record one slow request; open loop
// records the ~300 requests that should have started during the stall
// with their wait, so the p99 (of ~2,000) is about the stall, while the
// service times' p99 stays far below it. Late starts count as overtime.
func TestOpenLoopStall(t *testing.T) {
	const stall = 300 * time.Millisecond
	st := &stallStore{after: 800 * time.Millisecond, stall: stall} // inside the window, after the warmup
	cfg := testConfig(t, "o", st.fake())
	cfg.Arrival = Uniform
	rep := mustDo(t, context.Background(), cfg, Experiment{Threads: 1, Warmup: 200 * time.Millisecond, Duration: 2 * time.Second, Rate: 1000})
	if !st.stalled.Load() {
		t.Fatal("the store never stalled")
	}
	lat, svc := rep.Summary.Stats(metrics.All), rep.Summary.ServiceStats(metrics.All)
	t.Logf("latency p99 %.1f ms, max %.1f ms; service p99 %.3f ms, max %.1f ms; overtime %d", lat.P99/1000, lat.Max/1000, svc.P99/1000, svc.Max/1000, rep.Overtime)
	if lat.P99 < 0.8*float64(stall.Microseconds()) {
		t.Errorf("latency p99 %.1f ms, want about the %v stall", lat.P99/1000, stall)
	}
	if svc.P99 > 0.2*float64(stall.Microseconds()) || svc.Max < 0.9*float64(stall.Microseconds()) {
		t.Errorf("service p99 %.1f ms, max %.1f ms: want the stall in the max only", svc.P99/1000, svc.Max/1000)
	}
	if rep.Overtime < 200 {
		t.Errorf("%d overtime operations, want the ~300 that waited for the stall", rep.Overtime)
	}
	// Closed loop against the same stall: one slow request, no overtime.
	const closedDuration = 500 * time.Millisecond
	// A process that cannot run for most of the 500 ms window meets no stall:
	// that run proves nothing, and the next one is tried.
	for try := 1; ; try++ {
		st2 := &stallStore{after: 300 * time.Millisecond, stall: stall}
		cfg.Store = st2.fake()
		rep = mustDo(t, context.Background(), cfg, Experiment{Threads: 1, Warmup: 100 * time.Millisecond, Duration: closedDuration})
		if st2.stalled.Load() {
			break
		}
		if try == 3 {
			t.Fatal("closed loop: the store never stalled in 3 runs")
		}
	}
	// One client's requests follow one another: besides the stalled one,
	// at most duration/(stall/2) can be that slow (a loaded machine's
	// pauses), where open loop would record the ~300 due during the stall.
	if n := slower(rep.Summary, stall/2); rep.Overtime != 0 || rep.OpenLoop.Rate != 0 || n < 1 || n > 1+int64(closedDuration/(stall/2)) {
		t.Errorf("closed loop: overtime %d, rate %v, %d of %d requests took over %v; want 0, 0 and the one that met the stall",
			rep.Overtime, rep.OpenLoop.Rate, n, rep.Summary.Requests(), stall/2)
	}
}

// BenchmarkOpenLoopNull runs one-client open-loop experiments against the
// null store at a rate above what the client can serve, so the client
// never sleeps: the cost per request of open loop (taking an intended
// start from the shared schedule, recording service time) beside
// BenchmarkClientNull's closed loop.
func BenchmarkOpenLoopNull(b *testing.B) {
	cfg := testConfig(b, "o", null.Store{})
	e := Experiment{Threads: 1, Duration: 200 * time.Millisecond, Rate: 5e7}
	var reqs int64
	var measured time.Duration
	for b.Loop() {
		rep, err := Do(context.Background(), cfg, e)
		if err != nil {
			b.Fatal(err)
		}
		reqs += rep.Summary.Requests()
		measured += rep.Measured
	}
	b.ReportMetric(float64(reqs)/measured.Seconds(), "req/s")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkPacer is the cost of drawing one intended start.
func BenchmarkPacer(b *testing.B) {
	for _, a := range []Arrival{Poisson, Uniform} {
		b.Run(a.String(), func(b *testing.B) {
			p := NewPacer(a, 1e6, 1)
			for b.Loop() {
				p.Next()
			}
		})
	}
}

// TestOpenLoopNullStall: the null store's stall option, as a user would
// calibrate with it (null?stall=300ms&every=1s), at 1,000 requests/s with 4
// clients: a quarter of the window falls in a stall, so the latency p99
// shows the stall, while the service times' p99 does not (at most 4
// requests, one per client, are inside the store when a stall begins).
func TestOpenLoopNullStall(t *testing.T) {
	st, err := store.Default.Open(context.Background(), "null?stall=300ms&every=1s", store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, "o", st)
	cfg.Arrival = Uniform
	rep := mustDo(t, context.Background(), cfg, Experiment{Threads: 4, Warmup: 200 * time.Millisecond, Duration: 2 * time.Second, Rate: 1000})
	lat, svc := rep.Summary.Stats(metrics.All), rep.Summary.ServiceStats(metrics.All)
	t.Logf("latency p99 %.1f ms; service p99 %.3f ms, max %.1f ms; overtime %d", lat.P99/1000, svc.P99/1000, svc.Max/1000, rep.Overtime)
	if lat.P99 < 200000 || svc.P99 > 50000 || svc.Max < 200000 {
		t.Errorf("latency p99 %.1f ms, service p99 %.1f ms and max %.1f ms: want the 300 ms stall in the latency p99 and the service max only",
			lat.P99/1000, svc.P99/1000, svc.Max/1000)
	}
}
