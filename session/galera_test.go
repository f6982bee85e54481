package session_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// TestGalera: a 3-node Galera cluster (bench/cluster/galera), one graph,
// writers on two nodes at once. Galera certifies each node's writes
// against the other's: the losers' clients see MariaDB's 1213, and the
// nodes count certification failures and brute-force aborts. Both views
// reach the results: the client's conflicts by code, the server's wsrep
// counters, and the product named as Galera.
func TestGalera(t *testing.T) {
	urls := testenv.Galera(t)
	ctx := context.Background()
	w := *builtin(t, "a")
	// Writes only on a small graph: two nodes' writers meet often.
	w.Requests = workload.Dist[tao.Class]{Values: []tao.Class{tao.Write, tao.WriteTxn}, Weights: []float64{1, 1}}
	loader := open(t, urls[0], session.Options{Clients: 4})
	if _, _, err := loader.Graph(ctx, session.GraphSpec{Workload: &w, Edges: 300}); err != nil {
		t.Fatal(err)
	}
	loader.Close()

	done := make([]*result.Experiment, 2)
	var wg sync.WaitGroup
	for i := range done {
		s := open(t, urls[i], session.Options{Clients: 8})
		g, _, err := s.Graph(ctx, session.GraphSpec{Workload: &w})
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
}
