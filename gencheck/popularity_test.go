package gencheck

import (
	"testing"

	"github.com/taobench/taobench/gen"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/randdist"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// TestObjectPopularityRow: linkbench's object reads pass the
// object_read_popularity row; reads of uniform objects, and reads by the
// same popularity over another order of objects (another seed's plan),
// fail it.
func TestObjectPopularityRow(t *testing.T) {
	w, err := workload.Builtin("linkbench")
	if err != nil {
		t.Fatal(err)
	}
	g, err := graph.New(w, 1, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := gen.NewPlan(w, g, 1)
	if err != nil {
		t.Fatal(err)
	}
	other, err := gen.NewPlan(w, g, 2)
	if err != nil {
		t.Fatal(err)
	}
	good := newPopularityBins(plan.ObjectPopularity(false))
	shifted := newPopularityBins(plan.ObjectPopularity(false))
	uniform := newPopularityBins(plan.ObjectPopularity(false))
	r := randdist.NewRand(9)
	for _, c := range []struct {
		p    *gen.Plan
		bins *popularityBins
	}{{plan, good}, {other, shifted}} {
		gn := c.p.Client(0, 0)
		var req tao.Request
		for sum(c.bins.counts) < 50_000 {
			gn.Next(&req)
			for _, op := range req.Ops {
				if op.Kind == tao.ObjRead {
					c.bins.add(op.ID1)
				}
			}
		}
	}
	for range 50_000 {
		s := int(r.Uint64N(uint64(g.Shards())))
		uniform.add(tao.ID(s, int64(r.Uint64N(uint64(g.ShardNodes(s))))))
	}
	if row := good.row("object_read_popularity", ""); !row.Pass {
		t.Errorf("the generator's object reads fail: %+v", row)
	}
	for name, b := range map[string]*popularityBins{"uniform objects": uniform, "another order of objects": shifted} {
		row := b.row("object_read_popularity", "")
		if row.Pass || row.Skipped {
			t.Errorf("%s pass: %+v", name, row)
		}
		t.Logf("%s: chi2 %.0f, df %d, p %.3g", name, row.ChiSquare, row.DF, row.P)
	}
}

func sum(m map[int]int64) int64 {
	var n int64
	for _, x := range m {
		n += x
	}
	return n
}
