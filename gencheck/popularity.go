package gencheck

import (
	"fmt"

	"github.com/taobench/taobench/gen"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// popularityBins is the test of a measured popularity (object_read_popularity,
// object_write_popularity): the objects drawn are put in bins of equal
// expected share by their popularity rank in their shard, and the counts
// set against what the popularity gives each bin in that shard (a rank
// covers the quantiles [rank/n, (rank+1)/n) of the shard's n objects, so
// the expectation is exact at any shard size). The bins' bounds are
// quantiles of the draws' mass, so the hot few objects and the long tail
// of rarely touched ones weigh alike.
type popularityBins struct {
	p      *gen.Popularity
	g      *graph.Graph
	edges  []float64                    // quantile bounds of the bins
	counts map[int]int64                // by bin
	shard  map[int]int64                // draws by shard
	byRank func(shard int, r int64) int // bin of rank r of shard
}

// popularityBinCount is the bins of a popularity row: ten, pooled where
// a small shard puts several in one rank.
const popularityBinCount = 10

func newPopularityBins(p *gen.Popularity, g *graph.Graph) *popularityBins {
	if p == nil {
		return nil
	}
	b := &popularityBins{p: p, g: g, counts: map[int]int64{}, shard: map[int]int64{}}
	b.edges = make([]float64, popularityBinCount+1)
	for i := 1; i < popularityBinCount; i++ {
		b.edges[i] = p.MassQuantile(float64(i) / popularityBinCount)
	}
	b.edges[popularityBinCount] = 1
	return b
}

// rankEdge is the first rank of the bin starting at quantile q in a shard
// of n objects.
func rankEdge(q float64, n int64) int64 { return min(n, int64(q*float64(n)+0.5)) }

// add counts an op on id1, unless it is an object created during the run.
func (b *popularityBins) add(id1 int64) {
	if b == nil || tao.IsNew(id1) {
		return
	}
	s := tao.ShardOf(id1)
	n := b.g.ShardNodes(s)
	r := b.p.Rank(s, tao.IndexOf(id1))
	bin := 0
	for bin < popularityBinCount-1 && r >= rankEdge(b.edges[bin+1], n) {
		bin++
	}
	b.counts[bin]++
	b.shard[s]++
}

// row tests the counts against the popularity's share of each bin in the
// shards drawn.
func (b *popularityBins) row(name, note string) Row {
	d := workload.Dist[int]{}
	for bin := range popularityBinCount {
		wt := 0.0
		for s, k := range b.shard {
			n := b.g.ShardNodes(s)
			lo, hi := rankEdge(b.edges[bin], n), rankEdge(b.edges[bin+1], n)
			if bin == popularityBinCount-1 {
				hi = n
			}
			wt += float64(k) * b.p.Mass(float64(lo)/float64(n), float64(hi)/float64(n))
		}
		d.Values = append(d.Values, bin)
		d.Weights = append(d.Weights, wt)
	}
	if len(b.shard) == 0 {
		return Row{Name: name, Skipped: true, Note: note + ": none drawn"}
	}
	return row(name, d, b.counts, fmt.Sprintf("%s, in %d bins of equal share by popularity rank", note, popularityBinCount))
}
