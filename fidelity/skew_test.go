package fidelity_test

import (
	"testing"

	"github.com/taobench/taobench/fidelity"
	"github.com/taobench/taobench/gen"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/workload"
)

func plan(t *testing.T, w *workload.Workload, seed uint64) (*gen.Plan, *graph.Graph) {
	t.Helper()
	g, err := graph.New(w, 1, 200_000)
	if err != nil {
		t.Fatal(err)
	}
	p, err := gen.NewPlan(w, g, seed)
	if err != nil {
		t.Fatal(err)
	}
	return p, g
}

// TestKeyRowsSelfConsistent: the plan's draws at one seed, counted as a
// run counts them, pass the key rows against the plan's draws at another
// seed (a run's clients draw other streams than the expectation).
func TestKeyRowsSelfConsistent(t *testing.T) {
	w, err := workload.Builtin("a")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{20_000, 60_000} {
		p1, g := plan(t, w, 1)
		p2, _ := plan(t, w, 2)
		c := &result.Counters{Keys: fidelity.ExpectedKeys(p1, g.Nodes(), n)}
		for _, r := range fidelity.KeyRows(c, fidelity.ExpectedKeys(p2, g.Nodes(), n)) {
			t.Logf("%d: %-45s target %.4f observed %.4f tol %.4f n %d %s", n, r.Figure, r.Target, r.Observed, r.Tolerance, r.N, r.Verdict)
			if r.Failed() {
				t.Errorf("%d requests: %s: %.4f against %.4f", n, r.Figure, r.Observed, r.Target)
			}
		}
	}
}
