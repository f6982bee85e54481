package metrics

import (
	"testing"
	"time"

	"github.com/taobench/taobench/tao"
)

// A second whose requests all failed is marked without service, a second
// without requests is a zero row, and the rows add up to the summary.
func TestPerSecond(t *testing.T) {
	r := NewRecorder()
	at := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	for i := range 10 {
		r.Record(&Sample{Class: tao.Read, Outcome: tao.OK, At: at(0.05 * float64(i)), Latency: time.Millisecond, Attempts: 1})
	}
	r.Record(&Sample{Class: tao.Write, Outcome: tao.Error, At: at(1.1), Latency: time.Millisecond, Attempts: 1})
	r.Record(&Sample{Class: tao.Write, Outcome: tao.Timeout, At: at(1.2), Latency: 50 * time.Millisecond, Attempts: 1})
	r.Record(&Sample{Class: tao.Read, Outcome: tao.OK, At: at(3.5), Latency: 8 * time.Millisecond, Attempts: 1})
	s := r.Snapshot()
	got := s.PerSecond(4 * time.Second)
	if len(got) != 4 {
		t.Fatalf("%d seconds, want 4: %+v", len(got), got)
	}
	var req, errs, tos int64
	for i, g := range got {
		if g.Second != i || g.Requests != g.Served+g.Errors+g.Timeouts {
			t.Errorf("second %d: %+v", i, g)
		}
		req, errs, tos = req+g.Requests, errs+g.Errors, tos+g.Timeouts
	}
	if req != s.Requests() || errs != s.Outcome(tao.Error) || tos != s.Outcome(tao.Timeout) {
		t.Errorf("seconds add up to %d requests, %d errors, %d timeouts; summary %d, %d, %d", req, errs, tos,
			s.Requests(), s.Outcome(tao.Error), s.Outcome(tao.Timeout))
	}
	if g := got[0]; g.Served != 10 || g.NoService || g.P50US < 900 || g.P50US > 1100 {
		t.Errorf("second 0: %+v, want 10 served around 1 ms", g)
	}
	if g := got[1]; g.Errors != 1 || g.Timeouts != 1 || !g.NoService || g.P99US < 45000 {
		t.Errorf("second 1: %+v, want 1 error, 1 timeout (p99 about 50 ms), no service", g)
	}
	if g := got[2]; g.Requests != 0 || g.NoService {
		t.Errorf("second 2: %+v, want an empty second with no demand", g)
	}
	if g := got[3]; g.Served != 1 || g.P50US < 7000 {
		t.Errorf("second 3: %+v, want 1 served near 8 ms", g)
	}
}

// A request that began in the window's last second and ended after it
// adds no row past the window.
func TestPerSecondEndsWithWindow(t *testing.T) {
	r := NewRecorder()
	r.Record(&Sample{Class: tao.Read, Outcome: tao.OK, At: 1900 * time.Millisecond, Latency: 300 * time.Millisecond, Attempts: 1})
	if got := r.Snapshot().PerSecond(2 * time.Second); len(got) != 2 || got[1].Served != 1 {
		t.Errorf("%+v, want 2 seconds, the request served in second 1", got)
	}
}
