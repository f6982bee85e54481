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
	segs []segment
	a    randdist.Alias
	cum  []float64 // cum[i]: share of draws below segs[i]
	perm []randdist.Perm
}

// segment is one piece of the quantile function: over quantiles [q0, q1]
// the accesses ramp from v0 to v1.
type segment struct{ q0, q1, v0, v1 float64 }

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
	p := &Popularity{}
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
		p.segs = append(p.segs, segment{q0, acc / sum, lo, float64(v)})
	}
	w := make([]float64, len(p.segs))
	total := 0.0
	for i, s := range p.segs {
		w[i] = s.mass(0, 1)
		total += w[i]
	}
	if !(total > 0) {
		return nil, fmt.Errorf("popularity gives no key an access")
	}
	p.cum = make([]float64, len(w))
	run := 0.0
	for i := range w {
		p.cum[i] = run / total
		run += w[i]
	}
	var err error
	if p.a, err = randdist.NewAlias(w); err != nil {
		return nil, err
	}
	p.perm = make([]randdist.Perm, g.Shards())
	for s := range p.perm {
		if p.perm[s], err = randdist.NewPerm(uint64(max(1, g.ShardNodes(s))), randdist.Hash(key, uint64(s), 0x706f70, 0)); err != nil {
			return nil, err
		}
	}
	return p, nil
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
