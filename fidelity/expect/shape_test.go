package expect

import (
	"testing"

	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// TestShapeRows: the inventory of a load as the graph places it passes the
// timestamp, out-degree and edge-type rows; early timestamps, edges moved
// between degrees, or a type missing fail them; a moved histogram is
// skipped, not failed, once runs have written since the load.
func TestShapeRows(t *testing.T) {
	t.Parallel()
	w, _ := workload.Builtin("a")
	g, err := graph.New(w, 1, 50000)
	if err != nil {
		t.Fatal(err)
	}
	inv := store.Inventory{EdgesByBase: map[int64]int64{}, EdgesBeforeTime: map[int64]int64{}, OutDegrees: map[int64]int64{}, DegreeStride: 2}
	for s := range g.Shards() {
		for i := int64(0); i < g.ShardNodes(s); i++ {
			n := g.Node(s, i)
			d := int64(0)
			for c := range tao.NumEdgeCategories {
				d += int64(n.Written[c])
				inv.EdgesByBase[int64(c.Type().Base())] += int64(n.Written[c])
			}
			if d > 0 && i%inv.DegreeStride == 0 {
				inv.OutDegrees[d]++
			}
		}
	}
	verdicts := func(inv store.Inventory, runs int64) map[string]string {
		m := map[string]string{}
		for _, r := range shapeRows(g, inv, runs) {
			m[r.Figure] = r.Verdict
		}
		return m
	}
	for fig, v := range verdicts(inv, 0) {
		if v != result.Pass {
			t.Errorf("the load's own inventory: %q %s, want pass", fig, v)
		}
	}
	bad := inv
	bad.EdgesBeforeTime = map[int64]int64{6: 1}
	if v := verdicts(bad, 3)["edges timestamped before the load's time range"]; v != result.Fail {
		t.Errorf("one edge timestamped before the range, after runs: %s, want FAIL", v)
	}
	bad = inv
	bad.OutDegrees = map[int64]int64{}
	for d, n := range inv.OutDegrees {
		bad.OutDegrees[d] = n
	}
	bad.OutDegrees[1] += 800 // 800 objects with no out-edge given one
	if v := verdicts(bad, 0)["out-degree distribution vs outdegree"]; v != result.Fail {
		t.Errorf("800 objects moved from degree 0 to 1: %s, want FAIL", v)
	}
	if v := verdicts(bad, 2)["out-degree distribution vs outdegree"]; v != result.Skipped {
		t.Errorf("the same after 2 runs: %s, want skipped", v)
	}
	bad = inv
	bad.EdgesByBase = map[int64]int64{}
	for b, n := range inv.EdgesByBase {
		bad.EdgesByBase[b] = n
	}
	bad.EdgesByBase[6] = 0
	if v := verdicts(bad, 0)["edge types stored vs defined"]; v != result.Fail {
		t.Errorf("type 6 missing: %s, want FAIL", v)
	}
	bad.EdgesByBase[6], bad.EdgesByBase[7] = inv.EdgesByBase[6], 10
	if v := verdicts(bad, 0)["edge types stored vs defined"]; v != result.Fail {
		t.Errorf("type 7 stored, not defined: %s, want FAIL", v)
	}
}
