package session_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
)

func TestParseSLA(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]session.SLA{
		"p99<=20ms":           {Text: "p99<=20ms", Class: "all", Metric: "p99", Limit: 20000},
		" read.p99.9 <= 1s ":  {Text: "read.p99.9 <= 1s", Class: "read", Metric: "p999", Limit: 1e6},
		"write_txn.mean<=5ms": {Text: "write_txn.mean<=5ms", Class: "write_txn", Metric: "mean", Limit: 5000},
		"errors<=0.1%":        {Text: "errors<=0.1%", Class: "all", Metric: "errors", Limit: 0.1},
		"failed<=2%":          {Text: "failed<=2%", Class: "all", Metric: "failed", Limit: 2},
	} {
		got, err := session.ParseSLA(s)
		if err != nil || got != want {
			t.Errorf("session.ParseSLA(%q) = %+v, %v; want %+v", s, got, err, want)
		}
	}
	for s, want := range map[string]string{
		"p99<20ms":        "has no <=",
		"p98<=20ms":       `unknown metric "p98"`,
		"reads.p99<=1ms":  `"reads" is not a request class`,
		"p99<=fast":       "not a positive duration",
		"p99<=20":         "not a positive duration",
		"errors<=0.1":     "takes a percentage",
		"errors<=150%":    "takes a percentage",
		"read.errors<=1%": "applies to all requests",
	} {
		if _, err := session.ParseSLA(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("session.ParseSLA(%q): %v, want an error saying %q", s, err, want)
		}
	}
}

// prober opens a null store of the given delay and returns a prober of
// 2 clients, probes of 300 ms: their capacity is 2/delay requests/s.
func prober(t *testing.T, url string, rec *recorder) *session.Prober {
	t.Helper()
	s := open(t, url, session.Options{Sink: rec})
	w := builtin(t, "o")
	g, _, err := s.Graph(context.Background(), session.GraphSpec{Workload: w, Edges: 500})
	if err != nil {
		t.Fatal(err)
	}
	return s.Prober(run.Config{Workload: w, Graph: g, Seed: 3, Drain: time.Second},
		run.Experiment{Threads: 2, Duration: 300 * time.Millisecond})
}

// TestRateSearch: a store of 10 ms with 2 clients (capacity 200 req/s)
// rates below 200 req/s and above the 25 it starts from; every probe is
// reported to the sink, the last final only when interrupted.
func TestRateSearch(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	p := prober(t, "null?delay=10ms", rec)
	sla, err := session.ParseSLA("p99<=500ms")
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Rate(context.Background(), session.RateSpec{SLAs: []session.SLA{sla}, Start: 25, Factor: 2, Precision: 20, MaxProbes: 12})
	if err != nil {
		t.Fatal(err)
	}
	if !(r.Rate >= 25 && r.Rate < 200) || r.Failed <= r.Rate || r.OutOfProbes {
		t.Errorf("rating %+v; want a passing rate from 25 to 200 req/s below a failing one", r)
	}
	if len(rec.finals) != len(p.Done()) || len(p.Done()) < 3 {
		t.Errorf("%d probes, %d reported", len(p.Done()), len(rec.finals))
	}
	// Even the first probe fails: no rating.
	p = prober(t, "null?delay=20ms", &recorder{})
	sla, _ = session.ParseSLA("p99<=5ms")
	if r, err := p.Rate(context.Background(), session.RateSpec{SLAs: []session.SLA{sla}, Start: 20, Factor: 2, Precision: 5, MaxProbes: 5}); err != nil || r.Rate != 0 || len(p.Done()) != 1 {
		t.Errorf("an SLA no probe meets: %+v, %v after %d probes; want no rate after 1", r, err, len(p.Done()))
	}
}

// TestSweepSaturates: an automatic sweep of a store of 5 ms with 2
// clients (capacity 400 req/s) from 100 req/s saturates by 1,600; given
// rates all run.
func TestSweepSaturates(t *testing.T) {
	t.Parallel()
	p := prober(t, "null?delay=5ms", &recorder{})
	end, err := p.Sweep(context.Background(), session.SweepSpec{Start: 100, Factor: 2, MaxSteps: 6})
	if err != nil {
		t.Fatal(err)
	}
	// A loaded machine may saturate early; never saturating is the bug.
	if end.Saturated == "" || end.Rate > 1600 {
		t.Errorf("sweep ended %+v; want saturation by 1600 req/s", end)
	}
	p = prober(t, "null", &recorder{})
	end, err = p.Sweep(context.Background(), session.SweepSpec{Rates: []float64{50, 100}})
	if err != nil || end.Steps != 2 || len(p.Done()) != 2 || p.Done()[1].OpenLoop.Rate != 100 {
		t.Errorf("--rates 50,100: %+v, %v, %d results", end, err, len(p.Done()))
	}
}
