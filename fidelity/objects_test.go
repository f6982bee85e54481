package fidelity_test

import (
	"testing"

	"github.com/taobench/taobench/fidelity"
	"github.com/taobench/taobench/fidelity/expect"
	"github.com/taobench/taobench/gen"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/randdist"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// TestObjectRows: the objects linkbench's generator reads and updates pass
// the popularity rows; uniform objects fail them.
func TestObjectRows(t *testing.T) {
	w, err := workload.Builtin("linkbench")
	if err != nil {
		t.Fatal(err)
	}
	g, err := graph.New(w, 1, 50_000)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := gen.NewPlan(w, g, 1)
	if err != nil {
		t.Fatal(err)
	}
	rp, wp := plan.ObjectPopularity(false), plan.ObjectPopularity(true)
	var drawn, uniform result.Counters
	drawn.ObjectReadBins, drawn.ObjectWriteBins = new([result.PopularityBins]int64), new([result.PopularityBins]int64)
	uniform.ObjectReadBins, uniform.ObjectWriteBins = new([result.PopularityBins]int64), new([result.PopularityBins]int64)
	gn := plan.Client(0, 0)
	var req tao.Request
	for range 20_000 {
		gn.Next(&req)
		for i := range req.Ops {
			rp.Count(&req.Ops[i], false, drawn.ObjectReadBins[:])
			wp.Count(&req.Ops[i], true, drawn.ObjectWriteBins[:])
		}
	}
	r := randdist.NewRand(1)
	for range 3_000 {
		for _, k := range []tao.Kind{tao.ObjRead, tao.ObjUpdate} {
			s := int(r.Uint64N(uint64(g.Shards())))
			op := tao.Op{Kind: k, ID1: tao.ID(s, int64(r.Uint64N(uint64(g.ShardNodes(s)))))}
			rp.Count(&op, false, uniform.ObjectReadBins[:])
			wp.Count(&op, true, uniform.ObjectWriteBins[:])
		}
	}
	// The bins' weights as a run records them (expect.Targets).
	targets := expect.Targets(w, plan, g.Nodes(), 0, 1)
	for _, row := range fidelity.ObjectRows(targets, &drawn) {
		if row.Verdict != result.Pass {
			t.Errorf("the generator's objects fail: %+v", row)
		}
	}
	rows := fidelity.ObjectRows(targets, &uniform)
	if len(rows) != 2 {
		t.Fatalf("want two rows, got %+v", rows)
	}
	for _, row := range rows {
		if row.Verdict != result.Fail {
			t.Errorf("uniform objects pass: %+v", row)
		}
	}
}
