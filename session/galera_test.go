package session_test

import (
	"context"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// TestGalera: a 3-node Galera cluster (bench/cluster/galera), started
// once for its subtests (about 50 s), one graph. First writers on two
// nodes at once, in two sessions. Galera certifies each node's writes
// against the other's: the losers' clients see MariaDB's 1213, and the
// nodes count certification failures and brute-force aborts. Both views
// reach the results: the client's conflicts by code, the server's wsrep
// counters, and the product named as Galera. Then one session over all
// three nodes (endpoints.go), and last the same with a node killed mid-run.
func TestGalera(t *testing.T) {
	testenv.Integration(t)
	nodes := testenv.GaleraNodes(t)
	urls := nodes.URLs
	ctx := context.Background()
	w := *builtin(t, "a")
	// Writes only on a small graph: two nodes' writers meet often.
	w.Requests = workload.Dist[tao.Class]{Values: []tao.Class{tao.Write, tao.WriteTxn}, Weights: []float64{1, 1}}
	loader := open(t, urls[0], session.Options{Clients: 4})
	if _, _, err := loader.Graph(ctx, &w, session.GraphSpec{Edges: 300}); err != nil {
		t.Fatal(err)
	}
	loader.Close()

	t.Run("writers on two nodes", func(t *testing.T) {
		done := make([]*result.Experiment, 2)
		var wg sync.WaitGroup
		for i := range done {
			s := open(t, urls[i], session.Options{Clients: 8})
			g, _, err := s.Graph(ctx, &w, session.GraphSpec{})
			if err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				exps, err := s.Run(ctx, session.Plan{
					Config:      run.Config{Workload: &w, Graph: g, Seed: uint64(10 + i), Retries: 0, Drain: 5 * time.Second},
					Experiments: []run.Experiment{{Threads: 8, Duration: 4 * time.Second}},
				})
				if err != nil {
					t.Error(err)
					return
				}
				done[i] = exps[0]
			}()
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		var clientConflicts, certFailures, bfAborts int64
		for i, e := range done {
			su := e.Resources.Server
			if su == nil || !strings.HasSuffix(su.Product, "with Galera") {
				t.Fatalf("node %d: server %+v; want a product named with Galera", i+1, su)
			}
			cf, ok1 := su.Deltas["wsrep_local_cert_failures"]
			bf, ok2 := su.Deltas["wsrep_local_bf_aborts"]
			if !ok1 || !ok2 {
				t.Errorf("node %d: no wsrep counters in %v (error %q)", i+1, su.Deltas, su.Error)
			}
			certFailures, bfAborts = certFailures+cf, bfAborts+bf
			for k, n := range e.ErrorCodes {
				if k.Outcome.IsConflict() && k.Code == "1213" {
					clientConflicts += n
				}
			}
			t.Logf("node %d: %d requests, codes %v, cert failures %d, brute-force aborts %d, flow control paused %d ns",
				i+1, e.Sum().Requests(), e.ErrorCodes, cf, bf, su.Deltas["wsrep_flow_control_paused_ns"])
		}
		if clientConflicts == 0 || certFailures+bfAborts == 0 {
			t.Errorf("writers on two nodes: %d client conflicts with code 1213, %d certification failures and %d brute-force aborts; want both sides to see conflicts",
				clientConflicts, certFailures, bfAborts)
		}
	})
	t.Run("three endpoints", func(t *testing.T) { galeraEndpoints(t, urls, &w) })
	t.Run("a node killed", func(t *testing.T) { galeraKilled(t, nodes, &w) })
}

// galeraEndpoints: one run over the three nodes spreads its clients two
// a node; each endpoint's requests, codes and the node's own
// certification counters are in the result side by side, and the
// endpoints add up exactly to the whole.
func galeraEndpoints(t *testing.T, urls []string, w *workload.Workload) {
	s := open(t, urls[0], session.Options{Clients: 6, More: urls[1:]})
	e := runEndpoints(t, s, w, 4*time.Second, nil)
	var client, server int64
	for i, ep := range e.Endpoints {
		su := ep.Server
		if ep.Clients != 2 || ep.Name != store.Redact(urls[i]) {
			t.Errorf("endpoint %d: %s with %d clients; want %s with 2 of 6", i+1, ep.Name, ep.Clients, store.Redact(urls[i]))
		}
		if su == nil || !strings.HasSuffix(su.Product, "with Galera") {
			t.Fatalf("endpoint %d: server %+v; want a product named with Galera", i+1, su)
		}
		cf, ok1 := su.Deltas["wsrep_local_cert_failures"]
		bf, ok2 := su.Deltas["wsrep_local_bf_aborts"]
		if !ok1 || !ok2 {
			t.Errorf("endpoint %d: no wsrep counters in %v (error %q)", i+1, su.Deltas, su.Error)
		}
		c := ep.ErrorCodes[result.ErrorCode{Outcome: tao.ConflictObject, Code: "1213"}] + ep.ErrorCodes[result.ErrorCode{Outcome: tao.ConflictAssociation, Code: "1213"}]
		client, server = client+c, server+cf+bf
		t.Logf("endpoint %d: %d requests, client conflicts 1213 %d; server: cert failures %d, brute-force aborts %d", i+1, ep.Sum().Requests(), c, cf, bf)
	}
	if client == 0 || server == 0 {
		t.Errorf("writers on three nodes: %d client conflicts with code 1213, %d certification failures and brute-force aborts; want both", client, server)
	}
}

// galeraKilled: node 3 killed (SIGKILL) 2 s into the run costs its
// clients' requests, counted as errors, and the other endpoints lose
// none (their requests wait while the cluster evicts the node: no request
// timeout); the killed node's clients keep trying to the end, stuck
// nowhere. The limits name the endpoint's outage. Node 3 started again
// rejoins (about 20 s after a crash), and the same session's next
// experiment is served on all three: the pools reconnect.
func galeraKilled(t *testing.T, nodes *testenv.Nodes, w *workload.Workload) {
	urls := nodes.URLs
	s := open(t, urls[0], session.Options{Clients: 6, More: urls[1:]})
	e := runEndpoints(t, s, w, 8*time.Second, func() {
		time.Sleep(2 * time.Second)
		nodes.Kill(t, 2)
	})
	window := int(e.Measured / time.Second)
	for i, ep := range e.Endpoints {
		sum := ep.Sum()
		lost, tl := sum.Lost()
		_, longest, _ := sum.NoService(e.Measured)
		t.Logf("endpoint %d: %d requests, %d lost, codes %v, longest without service %d s, lost in seconds %v", i+1, sum.Requests(), lost, ep.ErrorCodes, longest, tl)
		switch {
		case i < 2 && (lost != 0 || sum.Requests() == 0):
			t.Errorf("endpoint %d, alive: %d requests, %d lost; want requests and none lost", i+1, sum.Requests(), lost)
		case i == 2 && (sum.Outcome(tao.Error) == 0 || len(ep.ErrorCodes) == 0):
			t.Errorf("endpoint 3, killed: %d errors, codes %v; want its lost requests counted with their codes", sum.Outcome(tao.Error), ep.ErrorCodes)
		case i == 2 && tl[len(tl)-1].Second < window-2:
			t.Errorf("endpoint 3, killed: requests lost in seconds %v of %d; want its clients trying until the end", tl, window)
		}
	}
	err := session.Limits{MaxLostPct: 100, MaxStall: time.Second}.Check([]*result.Experiment{e})
	if err == nil || !strings.Contains(err.Error(), "endpoint "+e.Endpoints[2].Name) {
		t.Errorf("limits: %v; want endpoint 3's outage named", err)
	}

	nodes.Start(t, 2)
	nodes.WaitReady(t, 2, 90*time.Second)
	e = runEndpoints(t, s, w, 2*time.Second, nil)
	for i, ep := range e.Endpoints {
		sum := ep.Sum()
		if lost, _ := sum.Lost(); sum.Requests() == 0 || lost != 0 {
			t.Errorf("after node 3 came back, endpoint %d: %d requests, %d lost (codes %v); want all served", i+1, sum.Requests(), lost, ep.ErrorCodes)
		}
	}
}

// runEndpoints loads nothing (the graph is there), runs 6 writers for d
// over s's endpoints (during, when set, alongside) and checks that the
// endpoints add up exactly to the whole.
func runEndpoints(t *testing.T, s *session.Session, w *workload.Workload, d time.Duration, during func()) *result.Experiment {
	t.Helper()
	ctx := context.Background()
	g, _, err := s.Graph(ctx, w, session.GraphSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if during != nil {
		go during()
	}
	exps, err := s.Run(ctx, session.Plan{
		Config:      run.Config{Workload: w, Graph: g, Seed: 31, Retries: 0, Drain: 10 * time.Second},
		Experiments: []run.Experiment{{Threads: 6, Duration: d}},
	})
	if err != nil {
		t.Fatal(err)
	}
	e := exps[0]
	if len(e.Endpoints) != 3 {
		t.Fatalf("%d endpoints in the result; want 3", len(e.Endpoints))
	}
	var clients int
	var codes result.ErrorCodes
	outcomes := make([]int64, tao.NumOutcomes)
	for _, ep := range e.Endpoints {
		clients += ep.Clients
		codes.Merge(ep.ErrorCodes)
		for o := range tao.NumOutcomes {
			outcomes[o] += ep.Sum().Outcome(o)
		}
	}
	for o := range tao.NumOutcomes {
		if outcomes[o] != e.Sum().Outcome(o) {
			t.Errorf("outcome %s: the endpoints count %d, the whole %d", o, outcomes[o], e.Sum().Outcome(o))
		}
	}
	if clients != e.Threads || !maps.Equal(codes, e.ErrorCodes) {
		t.Errorf("endpoints: %d clients, codes %v; the whole: %d, %v", clients, codes, e.Threads, e.ErrorCodes)
	}
	return e
}
