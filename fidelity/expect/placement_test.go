package expect

import (
	"math"
	"testing"

	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// TestGraphRowsPlacementAndDamage: an inventory as the load writes it
// passes the placement, missing-object and size rows; edges moved off
// their shards, ids missing beyond the deleted objects, or values of the
// wrong size fail them.
func TestGraphRowsPlacementAndDamage(t *testing.T) {
	t.Parallel()
	w, _ := workload.Builtin("tao")
	g, err := graph.New(w, 1, 200000)
	if err != nil {
		t.Fatal(err)
	}
	inv := store.Inventory{Objects: map[int]int64{}, EdgesByBase: map[int64]int64{}, EdgesByShard2: map[int]int64{}, EdgesByShard1: map[int]int64{}}
	var fwd int64
	for s := range g.Shards() {
		inv.Objects[s] = g.ShardNodes(s)
		inv.EdgesByShard1[s] = int64(math.Round(g.ShardExpectedEdges(s)))
		inv.EdgesByShard2[s] = int64(math.Round(g.ExpectedEdges() * w.RemoteShards.Weights[s] / sum(w.RemoteShards.Weights)))
		fwd += inv.EdgesByShard1[s]
	}
	for c := range tao.NumEdgeCategories {
		inv.EdgesByBase[int64(c.Type())] = int64(math.Round(float64(fwd) * g.CategoryShare(c)))
	}
	empty, meanNE, _ := sizeStats(w.PayloadSizes, true)
	inv.EdgeValuesEmpty = int64(empty * float64(fwd))
	inv.EdgeValueBytes = int64(meanNE * float64(fwd-inv.EdgeValuesEmpty))
	_, meanO, _ := sizeStats(w.ObjectPayloads(), false)
	inv.ObjectValues, inv.ObjectValueBytes = g.Nodes(), int64(math.Round(meanO*float64(g.Nodes())))
	runs := int64(0)
	verdicts := func(inv store.Inventory) map[string]string {
		m := map[string]string{}
		for _, r := range GraphRows(w, g, inv, runs) {
			m[r.Figure] = r.Verdict
		}
		return m
	}
	for fig, v := range verdicts(inv) {
		if v == result.Fail {
			t.Errorf("the load's own inventory fails %q", fig)
		}
	}
	bad := inv
	bad.EdgesByShard1 = map[int]int64{}
	for s, n := range inv.EdgesByShard1 {
		bad.EdgesByShard1[s] = n
	}
	bad.EdgesByShard1[0] -= 2000 // 2,000 of shard 0's edges on shard 3
	bad.EdgesByShard1[3] += 2000
	if v := verdicts(bad)["forward edges per id1 shard vs placement"]; v != result.Fail {
		t.Errorf("2,000 edges moved from shard 0 to 3: %s, want FAIL", v)
	}
	bad = inv
	bad.MissingTargets, bad.MissingIDs, bad.MissingExample = 17000, 9000, "edge (1, 6, 2)"
	if v := verdicts(bad)["missing objects edges point at"]; v != result.Fail {
		t.Errorf("9,000 missing ids and no object deleted: %s, want FAIL", v)
	}
	bad.Objects = map[int]int64{0: g.Nodes() - 9000} // 9,000 loaded objects gone
	if v := verdicts(bad)["missing objects edges point at"]; v != result.Fail {
		t.Errorf("9,000 missing ids, 9,000 objects gone and no run since the load: %s, want FAIL", v)
	}
	runs = 2 // runs deleted them
	if v := verdicts(bad)["missing objects edges point at"]; v != result.Pass {
		t.Errorf("9,000 missing ids, 9,000 objects deleted by runs: %s, want pass", v)
	}
	runs = 0
	bad = inv
	bad.EdgeValueBytes = int64(0.95 * float64(inv.EdgeValueBytes))
	if v := verdicts(bad)["association bytes when not empty (mean)"]; v != result.Fail {
		t.Errorf("association values 5%% short: %s, want FAIL", v)
	}
}

func sum(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}
