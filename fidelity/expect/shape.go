package expect

import (
	"fmt"
	"math/bits"
	"sort"
	"strings"

	"github.com/taobench/taobench/fidelity"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// shapeRows are the rows of what each stored edge carries beyond its
// count: its timestamp (a load writes times in graph.TimeRange, a run
// later ones, so none before it), and how edges spread over their source
// objects (the out-degree histogram against the graph's, which places the
// workload's outdegree; a failed histogram is skipped once runs, which
// add and delete edges, have written since the load). Rows of a store
// that does not count them are left out.
func shapeRows(g *graph.Graph, inv store.Inventory, runs int64) []result.FidelityRow {
	rows := []result.FidelityRow{typesRow(g, inv)}
	if inv.EdgesBeforeTime != nil {
		rows = append(rows, timeRow(g, inv))
	}
	if inv.OutDegrees != nil && inv.DegreeStride > 0 {
		r := degreeRow(g, inv)
		if runs > 0 && r.Verdict == result.Fail {
			// Runs' adds and deletes move degrees: the exact histogram
			// of the load no longer holds (validate a fresh load).
			r.Verdict = result.Skipped
			r.Note += fmt.Sprintf("; skipped: %d run(s) since the load moved degrees", runs)
		}
		rows = append(rows, r)
	}
	return rows
}

// timeRow is the forward edges timestamped before the load's time range:
// target 0, any fails; its note names the types they are of.
func timeRow(g *graph.Graph, inv store.Inventory) result.FidelityRow {
	lo, hi := g.TimeRange()
	var fwd, before int64
	for _, n := range inv.EdgesByBase {
		fwd += n
	}
	types := make([]int64, 0, len(inv.EdgesBeforeTime))
	for t, n := range inv.EdgesBeforeTime {
		before += n
		types = append(types, t)
	}
	sort.Slice(types, func(i, j int) bool { return types[i] < types[j] })
	note := fmt.Sprintf("the load writes times in [%d, %d) (graph.TimeRange), runs later ones", lo, hi)
	var per []string
	for _, t := range types {
		per = append(per, fmt.Sprintf("type %d: %d of %d", t, inv.EdgesBeforeTime[t], inv.EdgesByBase[t]))
	}
	if len(per) > 0 {
		note += "; before it: " + strings.Join(per, ", ")
	}
	r := result.FidelityRow{Figure: "edges timestamped before the load's time range", Target: 0, Observed: float64(before), N: fwd, P: -1, Note: note}
	r.Verdict = fidelity.Verdict(fwd, before == 0)
	return r
}

// degreeBin groups out-degrees: 0 to 8 each alone, then powers of two
// (9-16, 17-32, ...), so the tail's bins hold enough objects.
func degreeBin(d int64) int {
	if d <= 8 {
		return int(d)
	}
	return 9 + bits.Len64(uint64(d-1)) - 4
}

// degreeRow tests the stored out-degree histogram of the sampled loaded
// objects (ids a multiple of inv.DegreeStride) against the same objects'
// degrees in the graph: the workload's outdegree as placed, less empty
// slots. The load writes exactly the graph's, so any edge moved to another
// source shifts it.
func degreeRow(g *graph.Graph, inv store.Inventory) result.FidelityRow {
	want := make([]float64, degreeBin(int64(g.MaxOutdegree()))+1)
	var sampled int64
	for s := range g.Shards() {
		for i := int64(0); i < g.ShardNodes(s); i += inv.DegreeStride {
			n := g.Node(s, i)
			d := 0
			for c := range tao.NumEdgeCategories {
				d += n.Written[c]
			}
			want[degreeBin(int64(d))]++
			sampled++
		}
	}
	var linked int64
	obs := make([]int64, len(want))
	for d, n := range inv.OutDegrees {
		b := degreeBin(d)
		for b >= len(obs) {
			obs = append(obs, 0)
			want = append(want, 0)
		}
		obs[b] += n
		linked += n
	}
	obs[0] = max(sampled-linked, 0)
	zeroObs, zeroWant := 0.0, 0.0
	if sampled > 0 {
		zeroObs, zeroWant = float64(obs[0])/float64(sampled), want[0]/float64(sampled)
	}
	return fidelity.Chi("out-degree distribution vs outdegree", obs, want,
		fmt.Sprintf("the graph's degrees of the same %d objects (every %d-th), the workload's outdegree less empty slots (no out-edge: %.3f stored, %.3f placed)",
			sampled, inv.DegreeStride, zeroObs, zeroWant))
}

// typesRow is the forward base types stored against those the graph
// writes (its categories of edge_types with a share): a type missing or
// one the workload does not define fails it, whatever the type's share
// (the chi-square of stored edge types has no bins to test when the
// workload defines one type).
func typesRow(g *graph.Graph, inv store.Inventory) result.FidelityRow {
	var fwd int64
	for _, n := range inv.EdgesByBase {
		fwd += n
	}
	defined := map[int64]bool{}
	var missing, extra []string
	for c := range tao.NumEdgeCategories {
		if g.CategoryShare(c) > 0 {
			t := int64(c.Type().Base())
			defined[t] = true
			if inv.EdgesByBase[t] == 0 {
				missing = append(missing, fmt.Sprint(t))
			}
		}
	}
	present := 0
	for t, n := range inv.EdgesByBase {
		switch {
		case n > 0 && defined[t]:
			present++
		case n > 0:
			extra = append(extra, fmt.Sprint(t))
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	note := "edge_types: the base types of the categories with a share"
	if len(missing) > 0 {
		note += "; none stored of type " + strings.Join(missing, ", ")
	}
	if len(extra) > 0 {
		note += "; stored but not defined: type " + strings.Join(extra, ", ")
	}
	r := result.FidelityRow{Figure: "edge types stored vs defined", Target: float64(len(defined)), Observed: float64(present), N: fwd, P: -1, Note: note}
	r.Verdict = fidelity.Verdict(fwd, len(missing) == 0 && len(extra) == 0)
	return r
}
