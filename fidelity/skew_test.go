package fidelity_test

import (
	"math"
	"testing"

	"github.com/taobench/taobench/fidelity"
	"github.com/taobench/taobench/fidelity/expect"
	"github.com/taobench/taobench/gen"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
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

// keyTargets are the plan's key targets at n requests, as a run records them.
func keyTargets(p *gen.Plan, nodes, n int64) *result.KeyTargets {
	return &expect.KeyTargets(p, nodes, []int64{n})[0]
}

// TestKeyTargetsRecordedForMerge: the key targets a driver records at its
// count and the steps above it (one stream drawn once, snapshots on the
// way) are those of the stream drawn alone to each count; between two
// counts, KeyTargetsAt interpolates within the estimator's model error of
// the plan's draws at the merged count; below the first count or past the
// last it has none.
func TestKeyTargetsRecordedForMerge(t *testing.T) {
	t.Parallel()
	w, err := workload.Builtin("a")
	if err != nil {
		t.Fatal(err)
	}
	p, g := plan(t, w, 3)
	const n = 10_000
	sizes := expect.Sizes(n, 2)
	if sizes[0] != n || sizes[len(sizes)-1] < 4*n {
		t.Fatalf("sizes for 2 drivers of %d requests: %v; want %d up to at least %d", n, sizes, n, 4*n)
	}
	list := expect.KeyTargets(p, g.Nodes(), sizes)
	if len(list) != len(sizes) {
		t.Fatalf("%d key targets for %d sizes", len(list), len(sizes))
	}
	for _, i := range []int{0, len(sizes) - 1} {
		alone := fidelity.KeyTargetsOf(expect.Keys(p, g.Nodes(), sizes[i]))
		alone.Requests = sizes[i]
		if list[i] != alone {
			t.Errorf("at %d requests: recorded %+v, drawn alone %+v", sizes[i], list[i], alone)
		}
	}
	merged := int64(19_000) // two drivers' counts, between two recorded
	at, note, ok := fidelity.KeyTargetsAt(list, merged)
	if !ok || note == "" || at.Requests != merged {
		t.Fatalf("KeyTargetsAt(%d) = %+v, %q, %v; want interpolated", merged, at, note, ok)
	}
	direct := fidelity.KeyTargetsOf(expect.Keys(p, g.Nodes(), merged))
	for cl := range result.NumKeyClasses {
		t.Logf("%s: interpolated %.4f, drawn at %d %.4f", result.KeyClassNames[cl], at.Top[cl], merged, direct.Top[cl])
		if d := math.Abs(at.Top[cl] - direct.Top[cl]); d > fidelity.KeyTolerance/2 {
			t.Errorf("%s: interpolated %.4f, drawn at %d %.4f: off by %.4f", result.KeyClassNames[cl], at.Top[cl], merged, direct.Top[cl], d)
		}
	}
	if x, _, ok := fidelity.KeyTargetsAt(list, list[0].Requests); !ok || *x != list[0] {
		t.Errorf("at a recorded count: %+v %v, want %+v", x, ok, list[0])
	}
	for _, out := range []int64{n - 1, 2 * sizes[len(sizes)-1]} {
		if _, _, ok := fidelity.KeyTargetsAt(list, out); ok {
			t.Errorf("KeyTargetsAt(%d) found targets outside %d..%d", out, sizes[0], sizes[len(sizes)-1])
		}
	}
}

// TestKeyRowsSelfConsistent: the plan's draws at one seed, counted as a
// run counts them, pass the key rows against the plan's draws at another
// seed (a run's clients draw other streams than the expectation).
func TestKeyRowsSelfConsistent(t *testing.T) {
	t.Parallel()
	w, err := workload.Builtin("a")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{20_000, 60_000} {
		p1, g := plan(t, w, 1)
		p2, _ := plan(t, w, 2)
		c := &result.Counters{Keys: expect.Keys(p1, g.Nodes(), n)}
		for _, r := range fidelity.KeyRows(c, keyTargets(p2, g.Nodes(), n)) {
			t.Logf("%d: %-45s target %.4f observed %.4f tol %.4f n %d %s", n, r.Figure, r.Target, r.Observed, r.Tolerance, r.N, r.Verdict)
			if r.Failed() {
				t.Errorf("%d requests: %s: %.4f against %.4f", n, r.Figure, r.Observed, r.Target)
			}
		}
	}
}

// TestKeyRowsCatchUniformAccess: a run whose keys were drawn uniformly
// (key skew lost on the way to the database) fails the skew rows of a
// workload that asks for TAO's skew.
func TestKeyRowsCatchUniformAccess(t *testing.T) {
	t.Parallel()
	w, err := workload.Builtin("a")
	if err != nil {
		t.Fatal(err)
	}
	u, _ := workload.Builtin("a")
	uni := workload.Skew{Kind: workload.Uniform}
	u.ReadKeySkew, u.WriteKeySkew, u.WriteTxnKeySkew = &uni, &uni, &uni
	pw, g := plan(t, w, 1)
	pu, _ := plan(t, u, 2)
	const n = 60_000
	c := &result.Counters{Keys: expect.Keys(pu, g.Nodes(), n)}
	failed := map[string]bool{}
	for _, r := range fidelity.KeyRows(c, keyTargets(pw, g.Nodes(), n)) {
		failed[r.Figure] = r.Failed()
	}
	for _, f := range []string{"reads on the top 1% of keys", "writes on the top 1% of keys"} {
		if !failed[f] {
			t.Errorf("%q passed for uniform access against TAO's skew", f)
		}
	}
}

// TestKeyTableBounded: the table keeps at most its fixed number of keys
// whatever the graph's size, samples keys of a large graph, and counts
// what overflows.
func TestKeyTableBounded(t *testing.T) {
	t.Parallel()
	small := fidelity.NewKeyTable(1000, 8)
	b := small.Buffer()
	var req tao.Request
	req.Class = tao.Read
	req.Ops = []tao.Op{{Kind: tao.ObjRead}}
	for i := range int64(200_000) {
		req.Ops[0].ID1 = i // every key new: the table fills
		b.Add(&req)
	}
	b.Flush()
	s := small.Stats()
	// Past 32,768 requests (its share of 262,144 with 8 clients) a client
	// counts one in 2, 3, ...
	if s.Sampled != 1 || s.Classes[result.KeyReads].Keys != 1<<16 || s.Overflow != s.Requests-(1<<16) || s.Requests > 170_000 {
		t.Errorf("small graph: sampled %v, %d keys of %d requests, overflow %d; want 1, 65536, the rest", s.Sampled, s.Classes[result.KeyReads].Keys, s.Requests, s.Overflow)
	}
	big := fidelity.NewKeyTable(100_000_000, 8)
	b = big.Buffer()
	for i := range int64(1_000_000) {
		req.Ops[0].ID1 = i * 7919
		b.Add(&req)
	}
	b.Flush()
	s = big.Stats()
	keys := s.Classes[result.KeyReads].Keys
	// A 1/3052 sample of the keys counted.
	want := float64(s.Requests) * s.Sampled
	if s.Sampled > 0.001 || float64(keys) < 0.7*want || float64(keys) > 1.3*want || s.Overflow != 0 || s.TopN != 328 {
		t.Errorf("large graph: sampled %v, %d keys of %d requests, overflow %d, top %d; want about 0.00033, %.0f, 0, 328", s.Sampled, keys, s.Requests, s.Overflow, s.TopN, want)
	}
}

// TestRaceRows: the racing share passes at TAO's 97.3% and fails well
// below; a workload without racing inserts has no race rows.
func TestRaceRows(t *testing.T) {
	t.Parallel()
	w, err := workload.Builtin("a")
	if err != nil {
		t.Fatal(err)
	}
	row := func(racing, all int64) result.FidelityRow {
		c := &result.Counters{Races: result.Races{WriteRequests: 10_000, WriteTxns: 1000, Conflicted: all, TxnConflicted: 100, Racing: 2 * all, RacingConflicted: racing}}
		return fidelity.RaceRows(w, c)[0]
	}
	if r := row(980, 1000); r.Verdict != result.Pass {
		t.Errorf("98%% racing: %+v, want pass", r)
	}
	if r := row(800, 1000); r.Verdict != result.Fail {
		t.Errorf("80%% racing: %+v, want FAIL", r)
	}
	if e := fidelity.ExpectedWriteTxnConflicts(w); e < 0.08 || e > 0.16 {
		t.Errorf("workload a's expected write transactions with a conflict %.3f; TAO's 10.1%% is what its racing inserts aim at", e)
	}
	w.RacingInserts = 0
	if rows := fidelity.RaceRows(w, &result.Counters{}); len(rows) != 0 {
		t.Errorf("no racing inserts: rows %v", rows)
	}
}
