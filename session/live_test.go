package session_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/taobench/taobench/fleet"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/livemetrics"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
)

// TestLiveLoad: a session with a metrics server as its Monitor serves a
// load's rows and progress, a whole load's and one part's alike (issue 16
// found the part's missing when the command had two load paths), and
// stops it at Close.
func TestLiveLoad(t *testing.T) {
	t.Parallel()
	w := builtin(t, "o")
	g, err := graph.New(w, 1, 3000)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []fleet.Driver{fleet.Single, mustDriver(t, "0/2")} {
		rec := &recorder{}
		srv := listen(t)
		s := open(t, sqlite(t), session.Options{Name: "load", Sink: rec, Monitor: srv})
		if err := s.Load(context.Background(), session.LoadSpec{Workload: w, Seed: 1, Edges: 3000, Threads: 2, Part: part}); err != nil {
			t.Fatal(err)
		}
		m := testenv.Scrape(t, srv.Addr())
		nodes := m[`taobench_load_nodes_total`]
		if nodes <= 0 || nodes > float64(g.Nodes()) || m[`taobench_load_done`] != 1 || rec.loads == 0 {
			t.Errorf("load part %v: %v nodes served (want 1 to %d), done %v, %d reports to the sink", part, nodes, g.Nodes(), m[`taobench_load_done`], rec.loads)
		}
		if objs := m[`taobench_load_rows_total{table="objects"}`]; part == fleet.Single && int64(objs) != g.Nodes() {
			t.Errorf("whole load: %v objects served, want %d", objs, g.Nodes())
		}
		addr := srv.Addr()
		s.Close()
		if _, err := http.Get("http://" + addr + "/metrics"); err == nil {
			t.Errorf("load part %v: %s still serves after Close", part, addr)
		}
	}
}

// listen starts a metrics server on a free port, closed at the test's end
// if the session did not close it.
func listen(t *testing.T) *livemetrics.Server {
	t.Helper()
	srv, err := livemetrics.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

func mustDriver(t *testing.T, s string) fleet.Driver {
	t.Helper()
	d, err := fleet.Parse("--driver", s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestLiveRuns: an experiment's requests reach the session's Monitor
// without the caller wiring run.Config.Live.
func TestLiveRuns(t *testing.T) {
	t.Parallel()
	srv := listen(t)
	s := open(t, "null", session.Options{Monitor: srv})
	w := builtin(t, "o")
	cfg, _, err := s.Prepare(context.Background(), session.GraphSpec{Edges: 500}, run.Config{Workload: w, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Experiment(context.Background(), cfg, 0, run.Experiment{Threads: 1, Duration: run.MinDuration})
	if err != nil {
		t.Fatal(err)
	}
	m := testenv.Scrape(t, srv.Addr())
	var served float64
	for k, v := range m {
		if strings.HasPrefix(k, "taobench_requests_total") {
			served += v
		}
	}
	if n := res.Summary.Requests(); n == 0 || served < float64(n) {
		t.Errorf("served %v requests, the result counts %d", served, n)
	}
}
