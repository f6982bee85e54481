package livemetrics

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/taobench/taobench/bulkload"
	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/tao"
)

// gather collects c through a registry of its own, keyed by metric name
// and its labels as name{k=v,...} in Prometheus's label order.
func gather(t *testing.T, c prometheus.Collector) map[string]*dto.Metric {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dto.Metric{}
	for _, f := range fams {
		for _, m := range f.GetMetric() {
			var l []string
			for _, p := range m.GetLabel() {
				l = append(l, p.GetName()+"="+p.GetValue())
			}
			out[f.GetName()+"{"+strings.Join(l, ",")+"}"] = m
		}
	}
	return out
}

func TestRunsCountsBatches(t *testing.T) {
	t.Parallel()
	r := NewRuns()
	now := time.Now()
	clock := now
	r.now = func() time.Time { return clock }
	r.Begin(run.LiveExperiment{Threads: 3, Rate: 50, Start: now, Measure: now.Add(time.Second), End: now.Add(3 * time.Second),
		InFlight: func() int { return 2 }})
	warm := metrics.Sample{Class: tao.Read, Kind: tao.ObjRead, Outcome: tao.OK, Latency: 30 * time.Microsecond, Warmup: true}
	read := metrics.Sample{Class: tao.Read, Kind: tao.ObjRead, Outcome: tao.OK, Latency: 2 * time.Millisecond}
	txn := metrics.Sample{Class: tao.WriteTxn, Kind: tao.NumKinds, Outcome: tao.ConflictObject, Latency: 20 * time.Second}
	bad := metrics.Sample{Class: tao.NumClasses, Outcome: tao.OK} // ignored, as the recorders do
	r.Observe(0, []metrics.Sample{warm, read, read})
	r.Observe(9, []metrics.Sample{read, txn, bad}) // another shard
	clock = now.Add(2 * time.Second)               // 1 s into the measured window

	m := gather(t, r)
	want := map[string]float64{
		"taobench_requests_total{class=read,experiment=1,kind=obj_read,outcome=ok,phase=warmup}":                1,
		"taobench_requests_total{class=read,experiment=1,kind=obj_read,outcome=ok,phase=measured}":              3,
		"taobench_requests_total{class=write_txn,experiment=1,kind=txn,outcome=conflict_object,phase=measured}": 1,
		"taobench_in_flight_requests{experiment=1}":                                                             2,
		"taobench_clients{experiment=1}":                                                                        3,
		"taobench_target_rate_requests_per_second{experiment=1}":                                                50,
		"taobench_achieved_rate_requests_per_second{experiment=1}":                                              4,
		"taobench_experiment_phase{experiment=1,phase=measured}":                                                1,
		"taobench_experiment_phase{experiment=1,phase=warmup}":                                                  0,
	}
	for k, v := range want {
		got, ok := m[k]
		if !ok {
			t.Errorf("%s missing", k)
			continue
		}
		val := got.GetCounter().GetValue() + got.GetGauge().GetValue()
		if val != v {
			t.Errorf("%s = %v, want %v", k, val, v)
		}
	}
	h := m["taobench_request_duration_seconds{class=read,experiment=1,kind=obj_read,phase=measured}"].GetHistogram()
	if h.GetSampleCount() != 3 || h.GetSampleSum() < 0.0059 || h.GetSampleSum() > 0.0061 {
		t.Errorf("read histogram: count %d sum %v, want 3 and 0.006", h.GetSampleCount(), h.GetSampleSum())
	}
	for _, b := range h.GetBucket() {
		want := uint64(0)
		if b.GetUpperBound() >= 0.0025 {
			want = 3 // 2 ms falls in the 2.5 ms bucket
		}
		if b.GetCumulativeCount() != want {
			t.Errorf("bucket le=%v: %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), want)
		}
	}
	// 20 s is past the last bound: only +Inf (the count) holds it.
	th := m["taobench_request_duration_seconds{class=write_txn,experiment=1,kind=txn,phase=measured}"].GetHistogram()
	if b := th.GetBucket(); b[len(b)-1].GetCumulativeCount() != 0 || th.GetSampleCount() != 1 {
		t.Errorf("txn histogram: last bucket %d, count %d; want 0 and 1", b[len(b)-1].GetCumulativeCount(), th.GetSampleCount())
	}

	// A second experiment is labelled 2; the first shows as ended.
	r.End()
	r.Begin(run.LiveExperiment{Threads: 1, Start: clock, Measure: clock, End: clock.Add(time.Second)})
	m = gather(t, r)
	if v := m["taobench_experiment_phase{experiment=1,phase=ended}"].GetGauge().GetValue(); v != 1 {
		t.Errorf("experiment 1 ended: %v, want 1", v)
	}
	if v := m["taobench_in_flight_requests{experiment=1}"].GetGauge().GetValue(); v != 0 {
		t.Errorf("experiment 1 in flight after its end: %v", v)
	}
	if _, ok := m["taobench_clients{experiment=2}"]; !ok {
		t.Error("no series of experiment 2")
	}
}

func TestLoadProgress(t *testing.T) {
	t.Parallel()
	l := NewLoad()
	if m := gather(t, l); len(m) != 0 {
		t.Errorf("before the load: %d series, want none", len(m))
	}
	l.Observe(bulkload.Progress{Nodes: 25, TotalNodes: 100, Rows: 70, Objects: 25, Edges: 45, Elapsed: 2 * time.Second})
	m := gather(t, l)
	for k, v := range map[string]float64{
		"taobench_load_rows_total{table=objects}": 25,
		"taobench_load_rows_total{table=edges}":   45,
		"taobench_load_nodes_total{}":             25,
		"taobench_load_nodes{}":                   100,
		"taobench_load_progress_ratio{}":          0.25,
		"taobench_load_elapsed_seconds{}":         2,
		"taobench_load_done{}":                    0,
	} {
		got := m[k].GetCounter().GetValue() + m[k].GetGauge().GetValue()
		if got != v {
			t.Errorf("%s = %v, want %v", k, got, v)
		}
	}
}

func TestServer(t *testing.T) {
	t.Parallel()
	s, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Load.Observe(bulkload.Progress{Nodes: 1, TotalNodes: 2, Objects: 1})
	resp, err := http.Get("http://" + s.Addr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `taobench_load_rows_total{table="objects"} 1`) {
		t.Errorf("scrape lacks the load's rows:\n%s", body)
	}
	// The port is taken while the server runs, free once it is closed.
	if _, err := Listen(s.Addr()); err == nil {
		t.Error("a second server on the same port started")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// A session closes its monitor and its owner may too: a second Close
	// returns at once (it waited forever for the served goroutine).
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("second Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a second Close did not return")
	}
	if c, err := net.Dial("tcp", s.Addr()); err == nil {
		c.Close()
		t.Error("the server still accepts connections after Close")
	}
	for _, bad := range []string{"nope", "127.0.0.1", "256.1.1.1:80"} {
		if _, err := Listen(bad); err == nil {
			t.Errorf("Listen(%q) succeeded", bad)
		}
	}
}

// TestListenLoopbackDefault: an address with no host binds loopback only
// and says nothing; an all-interfaces host is bound as asked, with a note
// that says so.
func TestListenLoopbackDefault(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		addr, host string
		loud       bool
	}{
		{":0", "127.0.0.1", false},
		{"127.0.0.1:0", "127.0.0.1", false},
		{"0.0.0.0:0", "0.0.0.0", true},
		{"[::]:0", "::", true},
	} {
		s, err := Listen(c.addr)
		if err != nil {
			if c.host == "::" {
				t.Logf("Listen(%q): %v (no IPv6 here)", c.addr, err)
				continue
			}
			t.Fatal(err)
		}
		host, port, _ := net.SplitHostPort(s.Addr())
		note := s.Note()
		s.Close()
		if ip := net.ParseIP(host); host != c.host && !(c.loud && ip != nil && ip.IsUnspecified()) {
			t.Errorf("Listen(%q) bound %s, want host %s", c.addr, s.Addr(), c.host)
		}
		switch {
		case c.loud && !strings.Contains(note, "every network interface"):
			t.Errorf("Listen(%q): note %q does not say it listens on every interface", c.addr, note)
		case c.loud && !strings.Contains(note, "127.0.0.1:"+port):
			t.Errorf("Listen(%q): note %q does not give the loopback address", c.addr, note)
		case !c.loud && note != "":
			t.Errorf("Listen(%q): note %q, want none", c.addr, note)
		}
	}
}

// BenchmarkObserve measures the live counters' cost per sample, in batches
// of 64 as clients hand them over; metrics.BenchmarkRecordBatch is the
// recorders' cost for the same batches.
func BenchmarkObserve(b *testing.B) {
	r := NewRuns()
	r.Begin(run.LiveExperiment{Threads: 1})
	batch := make([]metrics.Sample, 64)
	for i := range batch {
		batch[i] = metrics.Sample{Class: tao.Class(i % 4), Kind: tao.Kind(i % 11), Latency: time.Duration(100+i*37) * time.Microsecond, Attempts: 1}
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i += len(batch) {
		r.Observe(0, batch)
	}
}
