package expect

import (
	"fmt"
	"math"

	"github.com/taobench/taobench/fidelity"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// SizeTolerance is how far, relative, the rows a load wrote may be from
// the graph's size (load --edges N writes N forward edges within 1%).
const SizeTolerance = 0.01

// GraphRows sets what the database holds beside the graph g of workload w
// (the workload it was loaded with): its size, the stored association
// types, the shards of their targets, the placement of objects. A
// distribution row passes when its chi-square p-value is at least
// validate.Alpha. Rows written by runs since the load count too; runs is
// how many the database has had (objects missing with none is damage).
func GraphRows(w *workload.Workload, g *graph.Graph, inv store.Inventory, runs int64) []result.FidelityRow {
	var rows []result.FidelityRow
	var fwd int64
	var byCat [tao.NumEdgeCategories]int64
	for base, n := range inv.EdgesByBase {
		fwd += n
		if c, ok := tao.EdgeType(base).Category(); ok {
			byCat[c] += n
		}
	}
	var objects int64
	for _, n := range inv.Objects {
		objects += n
	}
	size := result.FidelityRow{Figure: "forward edges stored", Target: float64(g.Edges()), Observed: float64(fwd), N: fwd, P: -1,
		Tolerance: SizeTolerance * float64(g.Edges()), Note: "load --edges; runs since the load add and delete"}
	size.Verdict = fidelity.Verdict(fwd, math.Abs(size.Observed-size.Target) <= size.Tolerance)
	rows = append(rows, size)
	nodes := result.FidelityRow{Figure: "objects loaded", Target: float64(g.Nodes()), Observed: float64(objects), N: objects, P: -1,
		Note: fmt.Sprintf("%d created by runs besides", inv.NewObjects)}
	nodes.Verdict = fidelity.Verdict(objects, objects == g.Nodes())
	rows = append(rows, nodes)
	mean := result.FidelityRow{Figure: "forward edges per object (mean outdegree)", Target: g.ExpectedEdges() / float64(g.Nodes()),
		N: objects, P: -1, Note: "outdegree as placed, less empty slots"}
	if objects > 0 {
		mean.Observed = float64(fwd) / float64(objects)
	}
	mean.Tolerance = SizeTolerance * 2 * mean.Target
	mean.Verdict = fidelity.Verdict(objects, math.Abs(mean.Observed-mean.Target) <= mean.Tolerance)
	rows = append(rows, mean)

	cats := make([]int64, tao.NumEdgeCategories)
	catW := make([]float64, tao.NumEdgeCategories)
	for c := range tao.NumEdgeCategories {
		cats[c], catW[c] = byCat[c], g.CategoryShare(c)
	}
	rows = append(rows, fidelity.Chi("stored edge types vs edge_types", cats, catW, "chi-square over every stored forward edge"))
	shards := make([]int64, g.Shards())
	for s, n := range inv.EdgesByShard2 {
		if s >= 0 && s < len(shards) {
			shards[s] = n
		}
	}
	rows = append(rows, fidelity.Chi("stored id2 shards vs remote_shards", shards, w.RemoteShards.Weights, "chi-square"))
	placed := make([]int64, g.Shards())
	for s, n := range inv.Objects {
		if s >= 0 && s < len(placed) {
			placed[s] = n
		}
	}
	rows = append(rows, fidelity.Chi("objects per shard vs primary_shards", placed, w.PrimaryShards.Weights, "data placed as requests go: even per-key access"))
	rows = append(rows, placementRows(g, inv, objects, runs)...)
	rows = append(rows, shapeRows(g, inv, runs)...)
	rows = append(rows, integrityRows(g, inv)...)
	return append(rows, sizeRows(w, inv)...)
}
