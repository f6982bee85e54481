package gen

import (
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// Sized range reads (workload range_mean_rows): a range read aimed at a
// list with edges takes one of exactly one edge with chance sizeOne, key
// by key, else one of two or more drawn by popularity, whose correlation
// sets the mean. LinkBench's Table 4b asks for both 45.4% of range scans
// returning one row (61.9% of the non-empty) and a 21.9-row mean: one
// correlation cannot give both over its measured outdegree, where 58.7%
// of the lists with edges hold one (docs/workloads.md, "The linkbench
// workload").

// sizedTries bounds the lists drawn to find one of the wanted size.
const sizedTries = 64

// shardShares is listShares per shard, each piece averaged over the
// degrees the shard's nodes of that piece have (graph.DegreeAt): a wide
// piece a shard holds few nodes of has degrees near its lower bound, so
// an average over the piece's bounds, as listShares takes, overstates
// its lists (at 1 M edges, linkbench's mean rows by 14%).
func shardShares(g *graph.Graph, limit int, cats [tao.NumEdgeCategories]float64) []listShares {
	const samples = 64
	pieces := g.Pieces()
	out := make([]listShares, g.Shards())
	for s := range out {
		ls := &out[s]
		ends := g.PieceRanks(s)
		for c := range tao.NumEdgeCategories {
			ls.one[c] = make([]float64, len(pieces))
			ls.nonEmpty[c] = make([]float64, len(pieces))
			ls.rows[c] = make([]float64, len(pieces))
			ls.exact[c] = make([]float64, len(pieces))
			if cats[c] == 0 {
				continue
			}
			start := int64(0)
			for k, end := range ends {
				n := min(end-start, samples)
				for i := range n {
					d := g.DegreeAt(s, start+i*(end-start)/n)
					one, ne, rows := g.ListOdds(tao.EdgeCategory(c), d, limit)
					ls.exact[c][k] += one / float64(n)
					if limit == 1 {
						one = ne
					}
					ls.one[c][k] += one / float64(n)
					ls.nonEmpty[c][k] += ne / float64(n)
					ls.rows[c][k] += rows / float64(n)
				}
				start = end
			}
		}
	}
	return out
}

// sizedStats returns, for sized range reads of lists with edges at
// correlation corr, the share returning one row and the mean rows,
// averaged over the limits (weights f, normalised), shards by primary and
// categories by cats. A unique category's lists hold one edge each, and a
// read of limit 1 returns one row of any list.
func sizedStats(lss [][]listShares, limits []int, f []float64, uni, cor [][]float64, corr float64, pieces [][2]int,
	primary []float64, cats [tao.NumEdgeCategories]float64, sizeOne float64) (one, rows float64) {
	linked := func(k int) bool { return pieces[k][1] > 0 }
	for s := range uni {
		if primary[s] == 0 {
			continue
		}
		lk, lw := mixVector(uni[s], cor[s], corr, linked)
		for i, limit := range limits {
			if f[i] == 0 {
				continue
			}
			ls := &lss[i][s]
			for c := range tao.NumEdgeCategories {
				if cats[c] == 0 {
					continue
				}
				wt := f[i] * primary[s] * cats[c]
				// Lists of two or more edges as drawn: the mix restricted
				// to them.
				var two, twoRows float64
				for j, k := range lk {
					two += lw[j] * (ls.nonEmpty[c][k] - ls.exact[c][k])
					twoRows += lw[j] * (ls.rows[c][k] - ls.exact[c][k])
				}
				if limit == 1 || tao.EdgeCategory(c).Type().IsUnique() || two <= 0 {
					one += wt
					rows += wt
					continue
				}
				one += wt * sizeOne
				rows += wt * (sizeOne + (1-sizeOne)*twoRows/two)
			}
		}
	}
	return one, rows
}

// sizedRanges solves the correlation for w's range_mean_rows (when w's is
// Auto) and returns it, whether the mean was reached, and the share of
// non-empty range reads returning one row and the mean rows of all range
// reads at it.
func sizedRanges(w *workload.Workload, g *graph.Graph, uni, cor [][]float64, primary []float64,
	cats [tao.NumEdgeCategories]float64) (corr float64, reached bool, one, mean float64) {
	limits := w.Limits()
	lss := make([][]listShares, len(limits.Values))
	for i, l := range limits.Values {
		if limits.Weights[i] > 0 {
			lss[i] = shardShares(g, l, cats)
		}
	}
	f := make([]float64, len(limits.Weights))
	sum := 0.0
	for _, x := range limits.Weights {
		sum += x
	}
	for i, x := range limits.Weights {
		f[i] = x / sum
	}
	stats := func(c float64) (float64, float64) {
		o, r := sizedStats(lss, limits.Values, f, uni, cor, c, g.Pieces(), primary, cats, w.RangeSizeOne)
		return o, w.RangeNonEmpty * r
	}
	corr, reached = w.EdgeReadCorrelation, true
	if corr == workload.Auto {
		// More correlation, longer lists: the mean rises with it, so its
		// negation falls, as solveCorrelation expects.
		corr, reached = solveCorrelation(-w.RangeMeanRows, func(c float64) float64 { _, m := stats(c); return -m })
	}
	one, mean = stats(corr)
	return corr, reached, one, mean
}

// sizedList draws a list of category c with edges for a sized range read:
// one of exactly one edge when one, else one of two or more. After
// sizedTries draws it keeps the last (a graph with no list of that size).
func (gen *Generator) sizedList(shard int, c tao.EdgeCategory, one bool) (graph.Node, int64) {
	var n graph.Node
	for range sizedTries {
		if n = gen.withEdges(shard, c); (n.Written[c] == 1) == one {
			break
		}
	}
	return n, gen.slot(n.Written[c])
}
