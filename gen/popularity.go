package gen

import (
	"math"

	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/randdist"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// popularity is how edge operations choose their node (docs/graph.md,
// "Key choice"): with probability corr by the lists' measured read counts
// in outdegree order (LinkBench's correlated distribution), otherwise
// uniformly. Nodes of a shard are ranked by outdegree, pieces of the
// outdegree hold consecutive ranks, so drawing a piece by its weight and a
// rank inside it draws a node in O(1).
type popularity struct {
	corr float64
	// Per shard: alias tables over the outdegree pieces, for lists of any
	// node (unique categories, whose presence does not depend on the
	// outdegree) and for lists carved out of the outdegree (pieces of
	// degree 0 left out, as such a node has none).
	any, linked []pieceTable
}

type pieceTable struct {
	pieces []int // piece number of each alias column
	a      randdist.Alias
}

// pieceWeights returns, per shard and piece, the share of uniform draws
// (the piece's node share) and of correlated draws (the integral of the
// read-count quantile function over the piece's ranks).
func pieceWeights(g *graph.Graph, pop workload.Dist[int]) (uni, cor [][]float64) {
	// Quantile function of reads per list, and its integral over [a, b].
	segs := segments(pop)
	integral := func(a, b float64) float64 {
		t := 0.0
		for _, s := range segs {
			t += s.mass(a, b)
		}
		return t
	}
	uni = make([][]float64, g.Shards())
	cor = make([][]float64, g.Shards())
	for s := range uni {
		ends := g.PieceRanks(s)
		n := float64(g.ShardNodes(s))
		uni[s] = make([]float64, len(ends))
		cor[s] = make([]float64, len(ends))
		start := int64(0)
		for k, end := range ends {
			uni[s][k] = float64(end-start) / n
			cor[s][k] = integral(float64(start)/n, float64(end)/n)
			start = end
		}
	}
	return uni, cor
}

func newPopularity(g *graph.Graph, corr float64, uni, cor [][]float64) popularity {
	p := popularity{corr: corr, any: make([]pieceTable, g.Shards()), linked: make([]pieceTable, g.Shards())}
	pieces := g.Pieces()
	for s := range uni {
		p.any[s] = mixTable(uni[s], cor[s], corr, func(int) bool { return true })
		p.linked[s] = mixTable(uni[s], cor[s], corr, func(k int) bool { return pieces[k][1] > 0 })
	}
	return p
}

// mixTable is the alias table of mixVector.
func mixTable(uni, cor []float64, corr float64, keep func(int) bool) pieceTable {
	pieces, w := mixVector(uni, cor, corr, keep)
	t := pieceTable{pieces: pieces}
	t.a, _ = randdist.NewAlias(w)
	return t
}

// mixVector returns the pieces keep admits and their weights
// corr*cor + (1-corr)*uni, each part normalised over the kept pieces; a
// shard whose kept pieces hold no node falls back to all its nodes.
func mixVector(uni, cor []float64, corr float64, keep func(int) bool) (pieces []int, w []float64) {
	su, sc := 0.0, 0.0
	for k := range uni {
		if keep(k) && uni[k] > 0 {
			su += uni[k]
			sc += cor[k]
		}
	}
	if su == 0 {
		return mixVector(uni, cor, corr, func(int) bool { return true })
	}
	for k := range uni {
		if !keep(k) || uni[k] == 0 {
			continue
		}
		x := (1 - corr) * uni[k] / su
		if sc > 0 {
			x += corr * cor[k] / sc
		} else {
			x += corr * uni[k] / su
		}
		pieces = append(pieces, k)
		w = append(w, x)
	}
	return pieces, w
}

// listShares averages graph.ListOdds over each piece's degrees (all of a
// narrow piece, an even sample of a wide one): per category and piece, the
// chance a node's list holds one edge, any, and its expected rows.
type listShares struct {
	one, nonEmpty, rows [tao.NumEdgeCategories][]float64
	// exact is the chance a list holds exactly one edge, whatever the
	// limit (one counts any non-empty list at limit 1).
	exact [tao.NumEdgeCategories][]float64
}

func newListShares(g *graph.Graph, limit int) listShares {
	var ls listShares
	pieces := g.Pieces()
	for c := range tao.NumEdgeCategories {
		ls.one[c] = make([]float64, len(pieces))
		ls.nonEmpty[c] = make([]float64, len(pieces))
		ls.rows[c] = make([]float64, len(pieces))
		ls.exact[c] = make([]float64, len(pieces))
		for k, p := range pieces {
			lo, hi := p[0]+1, p[1]
			if p[0] == p[1] {
				lo = p[1]
			}
			const samples = 256
			n := min(hi-lo+1, samples)
			for i := range n {
				d := lo + int(int64(i)*int64(hi-lo+1)/int64(n))
				d = min(d, g.MaxOutdegree())
				one, ne, rows := g.ListOdds(c, d, limit)
				ls.exact[c][k] += one / float64(n)
				if limit == 1 {
					one = ne // a read of limit 1 returns one row of any non-empty list
				}
				ls.one[c][k] += one / float64(n)
				ls.nonEmpty[c][k] += ne / float64(n)
				ls.rows[c][k] += rows / float64(n)
			}
		}
	}
	return ls
}

// rangeStats returns, for non-empty list reads drawn with correlation
// corr, the share of lists of size one and the mean rows of non-empty and
// of natural (untargeted) reads, averaged over shards by primary and
// categories by cats (each a normalised weight vector).
func rangeStats(ls *listShares, uni, cor [][]float64, corr float64, pieces [][2]int, primary []float64, cats [tao.NumEdgeCategories]float64) (sizeOne, rowsNonEmpty, rowsNatural float64) {
	linked := func(k int) bool { return pieces[k][1] > 0 }
	all := func(int) bool { return true }
	for s := range uni {
		if primary[s] == 0 {
			continue
		}
		lk, lw := mixVector(uni[s], cor[s], corr, linked)
		ak, aw := mixVector(uni[s], cor[s], corr, all)
		for c := range tao.NumEdgeCategories {
			if cats[c] == 0 {
				continue
			}
			var one, ne, rows, nat float64
			for i, k := range lk {
				one += lw[i] * ls.one[c][k]
				ne += lw[i] * ls.nonEmpty[c][k]
				rows += lw[i] * ls.rows[c][k]
			}
			for i, k := range ak {
				nat += aw[i] * ls.rows[c][k]
			}
			wt := primary[s] * cats[c]
			if ne > 0 {
				sizeOne += wt * one / ne
				rowsNonEmpty += wt * rows / ne
			}
			rowsNatural += wt * nat
		}
	}
	return
}

// solveCorrelation returns the correlation whose non-empty list reads have
// the target share of size one, clamped to [0, 1] where the graph cannot
// reach it, and whether it was reached.
func solveCorrelation(target float64, f func(corr float64) float64) (float64, bool) {
	lo, hi := 0.0, 1.0
	flo, fhi := f(lo), f(hi)
	// More correlation draws larger lists, so fewer of size one.
	if target >= flo {
		return 0, math.Abs(target-flo) < 1e-3
	}
	if target <= fhi {
		return 1, math.Abs(target-fhi) < 1e-3
	}
	for range 40 {
		mid := (lo + hi) / 2
		if f(mid) > target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2, true
}
