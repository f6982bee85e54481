package gen

import (
	"fmt"
	"math"

	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/randdist"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// Popularity draws keys by a measured access distribution (LinkBench's
// node_nreads, node_nwrites: how many times each object was accessed, as a
// CDF over objects): a quantile q of the shard's keys with density the
// quantile function of accesses, then the rank floor(q·n) scattered by a
// permutation of the shard's n objects. The quantile function is the
// distribution's pieces, the value ramping evenly over each, as
// EdgeReadPopularity is read. Memory is O(pieces + shards), nothing per
// node: the segments are the same for every shard.
type Popularity struct {
	segs  []segment
	a     randdist.Alias
	perm  []randdist.Perm
	n     []int64   // objects per shard
	edges []float64 // quantile bounds of the PopularityBins bins
}

// PopularityBins is how many bins of equal share the checks of a
// popularity put objects in, by their popularity rank.
const PopularityBins = 10

// segment is one piece of the quantile function: over quantiles [q0, q1]
// the accesses ramp from v0 to v1.
type segment struct{ q0, q1, v0, v1 float64 }

// segments is pop's quantile function, piecewise: each piece's value ramps
// evenly over its share of the quantiles, as the outdegree does.
func segments(pop workload.Dist[int]) []segment {
	var segs []segment
	sum, acc := 0.0, 0.0
	for _, x := range pop.Weights {
		sum += x
	}
	for i, v := range pop.Values {
		lo := float64(v)
		if i > 0 {
			lo = float64(pop.Values[i-1] + 1)
		}
		q0 := acc / sum
		acc += pop.Weights[i]
		segs = append(segs, segment{q0, acc / sum, lo, float64(v)})
	}
	return segs
}

// mass is the integral of the segment's accesses over [a, b].
func (s segment) mass(a, b float64) float64 {
	lo, hi := max(a, s.q0), min(b, s.q1)
	if hi <= lo || s.q1 <= s.q0 {
		return 0
	}
	at := func(q float64) float64 { return s.v0 + (s.v1-s.v0)*(q-s.q0)/(s.q1-s.q0) }
	return (hi - lo) * (at(lo) + at(hi)) / 2
}

// NewPopularity returns the draw of pop over g's shards; key names the
// permutations (the order of objects by popularity in each shard).
func NewPopularity(pop workload.Dist[int], g *graph.Graph, key uint64) (*Popularity, error) {
	p := &Popularity{segs: segments(pop)}
	w := make([]float64, len(p.segs))
	total := 0.0
	for i, s := range p.segs {
		w[i] = s.mass(0, 1)
		total += w[i]
	}
	if !(total > 0) {
		return nil, fmt.Errorf("popularity gives no key an access")
	}
	var err error
	if p.a, err = randdist.NewAlias(w); err != nil {
		return nil, err
	}
	p.perm = make([]randdist.Perm, g.Shards())
	p.n = make([]int64, g.Shards())
	for s := range p.perm {
		p.n[s] = g.ShardNodes(s)
		if p.perm[s], err = randdist.NewPerm(uint64(max(1, p.n[s])), randdist.Hash(key, uint64(s), 0x706f70, 0)); err != nil {
			return nil, err
		}
	}
	p.edges = make([]float64, PopularityBins+1)
	for i := 1; i < PopularityBins; i++ {
		p.edges[i] = p.MassQuantile(float64(i) / PopularityBins)
	}
	p.edges[PopularityBins] = 1
	return p, nil
}

// rankEdge is the first rank of the bin starting at quantile q in a shard
// of n objects: a rank covers the quantiles [rank/n, (rank+1)/n), so a
// bin's expected share is exact at any shard size.
func rankEdge(q float64, n int64) int64 { return min(n, int64(q*float64(n)+0.5)) }

// Bin returns the bin of the loaded object at index of shard, by its
// popularity rank: bins hold equal shares of draws, so the hot few objects
// and the long tail of rarely touched ones weigh alike.
func (p *Popularity) Bin(shard int, index int64) int {
	r, n := p.Rank(shard, index), p.n[shard]
	b := 0
	for b < PopularityBins-1 && r >= rankEdge(p.edges[b+1], n) {
		b++
	}
	return b
}

// BinShare returns the share of draws in shard that fall in bin b (less
// than 1/PopularityBins where the shard's ranks are coarser than the bin).
func (p *Popularity) BinShare(shard, b int) float64 {
	n := p.n[shard]
	if n == 0 {
		return 0
	}
	lo, hi := rankEdge(p.edges[b], n), rankEdge(p.edges[b+1], n)
	if b == PopularityBins-1 {
		hi = n
	}
	return p.Mass(float64(lo)/float64(n), float64(hi)/float64(n))
}

// Count adds op to bins when it reads (or, for write, updates) a loaded
// object: objects created in the run have no rank.
func (p *Popularity) Count(op *tao.Op, write bool, bins []int64) {
	if p == nil || tao.IsNew(op.ID1) || (op.Kind != tao.ObjRead || write) && (op.Kind != tao.ObjUpdate || !write) {
		return
	}
	bins[p.Bin(tao.ShardOf(op.ID1), tao.IndexOf(op.ID1))]++
}

// quantile draws q in [0, 1) with density the accesses at q.
func (p *Popularity) quantile(r *randdist.Rand) float64 {
	s := p.segs[p.a.Draw(r)]
	u := r.Float64()
	t := u
	if d := s.v1 - s.v0; d != 0 {
		// Inverse of the trapezoid's CDF over t in [0, 1].
		t = (math.Sqrt(s.v0*s.v0+u*(s.v1*s.v1-s.v0*s.v0)) - s.v0) / d
	}
	return s.q0 + t*(s.q1-s.q0)
}

// index draws the index of an object of shard, which holds n objects.
func (p *Popularity) index(r *randdist.Rand, shard int, n int64) int64 {
	rank := min(int64(p.quantile(r)*float64(n)), n-1)
	return int64(p.perm[shard].Map(uint64(rank)))
}

// Rank returns the popularity rank of the object at index of shard: its
// quantile is between rank/n and (rank+1)/n of the shard's n objects.
func (p *Popularity) Rank(shard int, index int64) int64 {
	return int64(p.perm[shard].Inverse(uint64(index)))
}

// Mass returns the share of draws whose quantile falls in [a, b).
func (p *Popularity) Mass(a, b float64) float64 {
	t, all := 0.0, 0.0
	for _, s := range p.segs {
		t += s.mass(a, b)
		all += s.mass(0, 1)
	}
	return t / all
}

// MassQuantile returns the quantile below which a share m of draws fall.
func (p *Popularity) MassQuantile(m float64) float64 {
	lo, hi := 0.0, 1.0
	for range 60 {
		mid := (lo + hi) / 2
		if p.Mass(0, mid) < m {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// objectAccess sets the object popularities the workload gives.
func (p *Plan) objectAccess(w *workload.Workload) error {
	var err error
	// One order per shard for reads and writes alike: LinkBench has one
	// shuffler for node queries (§4.5.1), so hot objects are hot for both.
	key := randdist.Hash(p.seed, 0x6f626a, 0, 0)
	if len(w.ObjectReadPopularity.Values) > 0 {
		if p.objRead, err = NewPopularity(w.ObjectReadPopularity, p.g, key); err != nil {
			return fmt.Errorf("object_read_popularity: %w", err)
		}
	}
	if len(w.ObjectWritePopularity.Values) > 0 {
		if p.objWrite, err = NewPopularity(w.ObjectWritePopularity, p.g, key); err != nil {
			return fmt.Errorf("object_write_popularity: %w", err)
		}
	}
	return nil
}

// ObjectPopularity returns the popularity object reads (write false) or
// object updates (write true) are drawn by, nil when by key skew.
func (p *Plan) ObjectPopularity(write bool) *Popularity {
	if write {
		return p.objWrite
	}
	return p.objRead
}

// objectIndex draws the index of an object of shard for an op of kind k:
// by the workload's object popularity for reads and updates, when it
// gives one. Deletes stay with the class's key skew: a deleted object is
// gone, and deletes drawn by write popularity would remove each shard's
// hottest objects in the first seconds and leave the rest of the run's
// updates of them finding no row.
func (gen *Generator) objectIndex(k tao.Kind, shard int) int64 {
	var p *Popularity
	switch k {
	case tao.ObjRead:
		p = gen.objRead
	case tao.ObjUpdate:
		p = gen.objWrite
	}
	if p == nil {
		return gen.index(shard)
	}
	return p.index(&gen.rng, shard, gen.g.ShardNodes(shard))
}
