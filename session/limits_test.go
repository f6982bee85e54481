package session

import (
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
)

// experimentOf records one request a second for 10 s, except the seconds
// in gap (nothing begins, one request hangs across them) and lost (errors).
func experimentOf(gap, lost map[int]bool) *result.Experiment {
	r := metrics.NewRecorder()
	for s := range 10 {
		at := time.Duration(s)*time.Second + 100*time.Millisecond
		switch {
		case gap[s] && !gap[s-1]:
			n := 0
			for gap[s+n] {
				n++
			}
			r.Record(&metrics.Sample{Class: tao.Read, Outcome: tao.OK, At: at, Latency: time.Duration(n) * time.Second})
		case gap[s]:
		case lost[s]:
			r.Record(&metrics.Sample{Class: tao.Read, Outcome: tao.Error, At: at, Latency: time.Millisecond})
		default:
			for range 200 {
				r.Record(&metrics.Sample{Class: tao.Read, Outcome: tao.OK, At: at, Latency: time.Millisecond})
			}
		}
	}
	return &result.Experiment{Summary: r.Snapshot(), Measured: 10 * time.Second}
}

// stalled is a healthy experiment (experimentOf) in which the server
// answers nothing from at for d: every request due then waits until at+d.
// A stall of 2 s from 3.5 s covers one whole second (4) without an answer.
func stalled(at, d time.Duration) *result.Experiment {
	r := metrics.NewRecorder()
	for s := range 10 {
		start := time.Duration(s)*time.Second + 100*time.Millisecond
		for k := range 20 {
			b := start + time.Duration(k)*50*time.Millisecond
			lat := time.Millisecond
			if b >= at && b < at+d {
				lat = at + d - b
			}
			r.Record(&metrics.Sample{Class: tao.Read, Outcome: tao.OK, At: b, Latency: lat})
		}
	}
	return &result.Experiment{Summary: r.Snapshot(), Measured: 10 * time.Second}
}

func TestLimits(t *testing.T) {
	l := Limits{MaxLostPct: 1, MaxStall: time.Second}
	healthy := experimentOf(nil, nil)
	if err := l.Check([]*result.Experiment{healthy}); err != nil {
		t.Errorf("a healthy experiment: %v", err)
	}
	for _, c := range []struct {
		name string
		x    *result.Experiment
		want string
	}{
		{"a 3 s outage", experimentOf(map[int]bool{3: true, 4: true, 5: true}, nil), "no service for 3.0 s in a row (3 whole seconds"},
		// From the first error, 6.1 s, to the next answer, 8.1 s, the
		// clients idle between: 1.1 s to the end of the slice of 7.1 s.
		{"2 s of errors", experimentOf(nil, map[int]bool{6: true, 7: true}), "no service for 1.1 s in a row (2 whole seconds"},
		{"a 2 s stall over one whole second", stalled(3500*time.Millisecond, 2*time.Second), "no service for 2.0 s in a row (1 whole seconds"},
		{"no request", &result.Experiment{Summary: metrics.NewSummary(), Measured: 10 * time.Second}, "measured no request"},
	} {
		err := l.Check([]*result.Experiment{healthy, c.x})
		if err == nil || !strings.Contains(err.Error(), "experiment 2") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want a LimitError naming experiment 2 and %q", c.name, err, c.want)
		}
		if _, ok := err.(*LimitError); !ok {
			t.Errorf("%s: %T, want *LimitError", c.name, err)
		}
	}
	// One second without service is inside the default limit; --max-stall
	// 5s accepts the 3 s outage.
	if err := l.Check([]*result.Experiment{experimentOf(map[int]bool{3: true}, nil)}); err != nil {
		t.Errorf("a 1 s gap with --max-stall 1s: %v", err)
	}
	if err := l.Check([]*result.Experiment{stalled(3500*time.Millisecond, 900*time.Millisecond)}); err != nil {
		t.Errorf("a 0.9 s stall with --max-stall 1s: %v", err)
	}
	if err := (Limits{MaxLostPct: 1, MaxStall: 2500 * time.Millisecond}).Check([]*result.Experiment{stalled(3500*time.Millisecond, 2*time.Second)}); err != nil {
		t.Errorf("a 2 s stall with --max-stall 2.5s: %v", err)
	}
	if err := (Limits{MaxLostPct: 1, MaxStall: 5 * time.Second}).Check([]*result.Experiment{experimentOf(map[int]bool{3: true, 4: true, 5: true}, nil)}); err != nil {
		t.Errorf("a 3 s gap with --max-stall 5s: %v", err)
	}
	// Errors in 1 of 10 seconds: 1 of 1801 requests lost, under 1%; at 0% it fails.
	x := experimentOf(nil, map[int]bool{2: true})
	if err := l.Check([]*result.Experiment{x}); err != nil {
		t.Errorf("0.06%% lost: %v", err)
	}
	if err := (Limits{MaxLostPct: 0, MaxStall: time.Second}).Check([]*result.Experiment{x}); err == nil || !strings.Contains(err.Error(), "lost 0.06% of its requests") {
		t.Errorf("0.06%% lost at --max-error-rate 0: %v", err)
	}
}

// A replica promoted during a run breaks its limits (exit 3), and so does
// one out of rotation longer than --max-stall in whole seconds; one out a
// little over the probe period does not. Each breach names the replica.
func TestLimitsReplicas(t *testing.T) {
	l := Limits{MaxLostPct: 1, MaxStall: time.Second}
	const name = "postgres://postgres@127.0.0.1:5433/taobench"
	with := func(r result.ReplicaStats) *result.Experiment {
		x := experimentOf(nil, nil)
		r.Name = name
		x.Consistency = &result.Consistency{Replica: &result.TierStats{}, Replicas: []result.ReplicaStats{r}}
		return x
	}
	if err := l.Check([]*result.Experiment{with(result.ReplicaStats{Outages: 1, Outage: 1900 * time.Millisecond, Longest: 1900 * time.Millisecond})}); err != nil {
		t.Errorf("a replica out 1.9 s with --max-stall 1s: %v; want no breach (whole seconds)", err)
	}
	for _, c := range []struct {
		name string
		r    result.ReplicaStats
		want string
	}{
		{"promoted", result.ReplicaStats{PromotedAt: time.Unix(1700000000, 0)}, "left recovery"},
		{"out 2.6 s", result.ReplicaStats{Outages: 1, Outage: 2600 * time.Millisecond, Longest: 2600 * time.Millisecond}, "out of rotation for 2.6 s"},
	} {
		err := l.Check([]*result.Experiment{with(c.r)})
		if _, ok := err.(*LimitError); !ok || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("a replica %s: %v; want a LimitError naming %s and %q", c.name, err, name, c.want)
		}
	}
}
