package gencheck

import (
	"fmt"

	"github.com/taobench/taobench/gen"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// popularityBins is the test of a measured popularity (object_read_popularity,
// object_write_popularity): the objects drawn are put in bins of equal
// expected share by their popularity rank in their shard
// (gen.Popularity.Bin), and the counts set against what the popularity
// gives each bin in the shards drawn (gen.Popularity.BinShare).
type popularityBins struct {
	p      *gen.Popularity
	counts map[int]int64 // by bin
	shard  map[int]int64 // draws by shard
}

func newPopularityBins(p *gen.Popularity) *popularityBins {
	if p == nil {
		return nil
	}
	return &popularityBins{p: p, counts: map[int]int64{}, shard: map[int]int64{}}
}

// add counts an op on id1, unless it is an object created during the run.
func (b *popularityBins) add(id1 int64) {
	if b == nil || tao.IsNew(id1) {
		return
	}
	s := tao.ShardOf(id1)
	b.counts[b.p.Bin(s, tao.IndexOf(id1))]++
	b.shard[s]++
}

// row tests the counts against the popularity's share of each bin in the
// shards drawn.
func (b *popularityBins) row(name, note string) Row {
	if len(b.shard) == 0 {
		return Row{Name: name, Skipped: true, Note: note + ": none drawn"}
	}
	d := workload.Dist[int]{}
	for bin := range gen.PopularityBins {
		wt := 0.0
		for s, k := range b.shard {
			wt += float64(k) * b.p.BinShare(s, bin)
		}
		d.Values = append(d.Values, bin)
		d.Weights = append(d.Weights, wt)
	}
	return row(name, d, b.counts, fmt.Sprintf("%s, in %d bins of equal share by popularity rank", note, gen.PopularityBins))
}
