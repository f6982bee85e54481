package session_test

import (
	"context"
	"testing"
	"time"

	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
)

// prober opens a null store of the given delay and returns a prober of
// threads clients, probes of d: their capacity is threads/delay requests/s.
func prober(t *testing.T, url string, rec *recorder, threads int, d time.Duration) *session.Prober {
	t.Helper()
	s := open(t, url, session.Options{Sink: rec})
	w := builtin(t, "o")
	g, _, err := s.Graph(context.Background(), w, session.GraphSpec{Edges: 500})
	if err != nil {
		t.Fatal(err)
	}
	return s.Prober(run.Config{Workload: w, Graph: g, Seed: 3, Drain: time.Second, Arrival: run.Uniform},
		run.Experiment{Threads: threads, Duration: d})
}

// TestRateSearch: the search grows the rate until a probe fails, then
// bisects to within the precision; it stops at MaxProbes and at the most
// taobench issues.
func TestRateSearch(t *testing.T) {
	t.Parallel()
	capacity := 1370.0
	var probed []float64
	probe := func(rate float64) (bool, error) {
		probed = append(probed, rate)
		return rate <= capacity, nil
	}
	r, err := session.RateSpec{Start: 100, Factor: 2, Precision: 5, MaxProbes: 20}.Search(probe)
	if err != nil || r.Rate > capacity || r.Failed <= capacity || r.Failed/r.Rate > 1.05 || r.OutOfProbes {
		t.Errorf("capacity %v: rating %+v, %v after probes %v; want the capacity bracketed within 5%%", capacity, r, err, probed)
	}
	if probed[0] != 100 || probed[1] != 200 || probed[4] != 1600 {
		t.Errorf("probes %v; want 100, 200, 400, 800, 1600 first", probed)
	}
	probed = nil
	if r, _ := (session.RateSpec{Start: 100, Factor: 2, Precision: 5, MaxProbes: 3}).Search(probe); !r.OutOfProbes || len(probed) != 3 {
		t.Errorf("--max-probes 3: %+v after %d probes", r, len(probed))
	}
	capacity = 1e12
	if r, _ := (session.RateSpec{Start: float64(run.MaxRate) / 1.5, Factor: 2, Precision: 5, MaxProbes: 20}).Search(probe); !r.AtMaxRate {
		t.Errorf("past run.MaxRate: %+v; want AtMaxRate", r)
	}
	capacity = 0
	if r, _ := (session.RateSpec{Start: 100, Factor: 2, Precision: 5, MaxProbes: 20}).Search(probe); r.Rate != 0 || r.Failed != 100 {
		t.Errorf("nothing passes: %+v; want no rate", r)
	}
}

// TestRateProbes: a rating runs its probes through the session and the
// sink; an SLA no probe can meet (p99 5 ms of a 20 ms store) gives no rate
// after one probe.
func TestRateProbes(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	p := prober(t, "null?delay=20ms", rec, 2, 300*time.Millisecond)
	sla := session.SLA{Text: "p99<=5ms", Class: "all", Metric: "p99", Limit: 5000}
	r, err := p.Rate(context.Background(), session.RateSpec{SLAs: []session.SLA{sla}, Start: 20, Factor: 2, Precision: 5, MaxProbes: 5})
	if err != nil || r.Rate != 0 || len(p.Done()) != 1 || len(rec.finals) != 1 || p.Done()[0].OpenLoop.Rate != 20 {
		t.Errorf("an SLA no probe meets: %+v, %v after %d probes (%d reported); want no rate after 1", r, err, len(p.Done()), len(rec.finals))
	}
}

// TestSweepSaturates: an automatic sweep of a store of 5 ms with 2
// clients (capacity 400 req/s) from 100 req/s saturates by 1,600; given
// rates all run.
func TestSweepSaturates(t *testing.T) {
	t.Parallel()
	p := prober(t, "null?delay=5ms", &recorder{}, 2, 300*time.Millisecond)
	end, err := p.Sweep(context.Background(), session.SweepSpec{Start: 100, Factor: 2, MaxSteps: 6})
	if err != nil {
		t.Fatal(err)
	}
	// A loaded machine may saturate early; never saturating is the bug.
	if end.Saturated == "" || end.Rate > 1600 {
		t.Errorf("sweep ended %+v; want saturation by 1600 req/s", end)
	}
	p = prober(t, "null", &recorder{}, 2, 300*time.Millisecond)
	end, err = p.Sweep(context.Background(), session.SweepSpec{Rates: []float64{50, 100}})
	if err != nil || end.Steps != 2 || len(p.Done()) != 2 || p.Done()[1].OpenLoop.Rate != 100 {
		t.Errorf("--rates 50,100: %+v, %v, %d results", end, err, len(p.Done()))
	}
}
