package gen_test

import (
	"cmp"
	"slices"
	"testing"

	"github.com/taobench/taobench/gen"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// keyCounts are the id1 accesses of n requests of w by key class (reads,
// single writes, write transactions), counted exactly.
type keyCounts [3]map[int64]int

func drawKeys(t *testing.T, w *workload.Workload, n int) (keyCounts, int64) {
	t.Helper()
	g, err := graph.New(w, 1, 200_000)
	if err != nil {
		t.Fatal(err)
	}
	p, err := gen.NewPlan(w, g, 5)
	if err != nil {
		t.Fatal(err)
	}
	gn := p.Client(0, 1)
	kc := keyCounts{{}, {}, {}}
	var req tao.Request
	for range n {
		gn.Next(&req)
		c := 0
		switch req.Class {
		case tao.Write:
			c = 1
		case tao.WriteTxn:
			c = 2
		}
		for _, op := range req.Ops {
			kc[c][op.ID1]++
		}
	}
	return kc, g.Nodes()
}

// top returns the k most accessed keys of m, and their share of m's accesses.
func top(m map[int64]int, k int) ([]int64, float64) {
	keys := make([]int64, 0, len(m))
	all := 0
	for id, n := range m {
		keys = append(keys, id)
		all += n
	}
	slices.SortFunc(keys, func(a, b int64) int {
		if c := cmp.Compare(m[b], m[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	keys = keys[:min(k, len(keys))]
	hot := 0
	for _, id := range keys {
		hot += m[id]
	}
	return keys, float64(hot) / float64(max(all, 1))
}

// TestClassSkew: each class takes its own skew; the old single key_skew
// stays the default of all three.
func TestClassSkew(t *testing.T) {
	const n = 300_000
	w := builtinW(t, "a")
	kc, nodes := drawKeys(t, w, n)
	k := int(nodes / 100)
	_, reads := top(kc[0], k)
	_, writes := top(kc[1], k)
	t.Logf("a: top 1%% (%d keys): reads %.3f, writes %.3f", k, reads, writes)
	// Uniform access puts about 10% of writes on 1% of the keys here (the
	// luck of a sample of about one access a key, and updates' lists drawn
	// by outdegree popularity); Zipf 0.99 and 0.8 far more.
	if reads < 0.3 || writes < 0.18 || reads < writes+0.1 {
		t.Errorf("a: top 1%% holds %.3f of reads and %.3f of writes; want reads (zipf 0.99) above 0.3, writes (zipf 0.8) above 0.18 and below reads", reads, writes)
	}

	// Reads skewed, writes uniform.
	u := builtinW(t, "a")
	uni := workload.Skew{Kind: workload.Uniform}
	u.WriteKeySkew, u.WriteTxnKeySkew = &uni, &uni
	kc, _ = drawKeys(t, u, n)
	_, reads = top(kc[0], k)
	_, writes = top(kc[1], k)
	if reads < 0.3 || writes > 0.13 {
		t.Errorf("uniform writes: top 1%% holds %.3f of reads, %.3f of writes; want above 0.3 and below 0.13", reads, writes)
	}

	// key_skew alone, as before: every class Zipf.
	old := builtinW(t, "a")
	old.ReadKeySkew, old.WriteKeySkew, old.WriteTxnKeySkew = nil, nil, nil
	old.KeySkew = workload.Skew{Kind: workload.Zipf, Theta: 0.99}
	for c := range tao.NumClasses {
		if old.ClassSkew(c) != old.KeySkew {
			t.Errorf("class %v skew %v without its own; want key_skew's %v", c, old.ClassSkew(c), old.KeySkew)
		}
	}
	kc, _ = drawKeys(t, old, n)
	_, writes = top(kc[1], k)
	if writes < 0.3 {
		t.Errorf("key_skew zipf:0.99 alone: top 1%% holds %.3f of writes; want above 0.3", writes)
	}
}

// TestHotspotOverlap: hotspot_overlap 0 keeps the hot write keys off the
// hot read keys; 1 makes them the same ranks (reads and writes still mix
// object and list keys differently, so not the same set: 0.45 here).
func TestHotspotOverlap(t *testing.T) {
	const n = 300_000
	for _, c := range []struct {
		overlap  float64
		lo, hi   float64
		describe string
	}{{0, 0, 0.08, "disjoint"}, {0.01, 0, 0.1, "TAO's 1%"}, {1, 0.3, 1, "the same"}} {
		w := builtinW(t, "a")
		// The same exponent for both, so only the overlap differs.
		z := workload.Skew{Kind: workload.Zipf, Theta: 0.99}
		w.ReadKeySkew, w.WriteKeySkew = &z, &z
		w.HotspotOverlap = c.overlap
		kc, nodes := drawKeys(t, w, n)
		k := int(nodes / 100)
		hr, _ := top(kc[0], k)
		hw, _ := top(kc[1], k)
		in := map[int64]bool{}
		for _, id := range hr {
			in[id] = true
		}
		both := 0
		for _, id := range hw {
			if in[id] {
				both++
			}
		}
		got := float64(both) / float64(len(hw))
		t.Logf("overlap %v: %.3f of the top %d write keys are top read keys", c.overlap, got, len(hw))
		if got < c.lo || got > c.hi {
			t.Errorf("hotspot_overlap %v (%s): %.3f of hot write keys are hot read keys; want %.2f to %.2f", c.overlap, c.describe, got, c.lo, c.hi)
		}
	}
}

// TestRacingInsertsMarked: racing_inserts is the share of new associations
// whose request is marked Race; 0 marks none.
func TestRacingInsertsMarked(t *testing.T) {
	for _, share := range []float64{0, 0.5, 1} {
		w := builtinW(t, "a")
		w.RacingInserts = share
		w.Requests.Weights = []float64{0, 1, 0, 0} // single writes
		w.WriteKinds = workload.Dist[tao.Kind]{Values: []tao.Kind{tao.EdgeAdd, tao.ObjUpdate}, Weights: []float64{1, 1}}
		w.UniqueAddRace = 0
		g, err := graph.New(w, 1, 20_000)
		if err != nil {
			t.Fatal(err)
		}
		gn := gen.New(w, g, 0, 1, 3)
		var req tao.Request
		adds, raced, wrong := 0, 0, 0
		for range 40_000 {
			gn.Next(&req)
			isAdd := req.Ops[0].Kind == tao.EdgeAdd
			adds += b2i(isAdd)
			raced += b2i(req.Race)
			wrong += b2i(req.Race && !isAdd)
		}
		// New adds are edge_add_new of all adds.
		want := share * w.EdgeAddNew
		got := float64(raced) / float64(adds)
		if wrong > 0 || got < want-0.02 || got > want+0.02 {
			t.Errorf("racing_inserts %v: %d of %d adds marked (%.3f, want %.3f), %d other requests marked", share, raced, adds, got, want, wrong)
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
