// Package graph is the computed graph: a pure function of (workload, seed,
// size) that gives, in O(1) time and memory, every fact of every node and
// edge slot — outdegree, association type, target, time, payload, whether
// the load writes it. The loader writes it; the generator recomputes keys
// from it instead of reading the graph back. See docs/graph.md.
package graph

import (
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"

	"github.com/taobench/taobench/dist"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// FormatVersion changes whenever the same (workload, seed, edges) would give
// a different graph, so an old load is never taken for a new one.
const FormatVersion = "1"

// Loaded times are Unix seconds in [TimeBase, TimeBase+TimeSpan).
const (
	TimeBase = 1_600_000_000
	TimeSpan = 365 * 24 * 3600
)

// Field numbers for deriving the facts of one node or slot from its base
// hash: field k is Mix(base + k*golden), a splitmix64 stream seeded by base.
const (
	golden = 0x9e3779b97f4a7c15

	fCategory = 1
	fShard    = 2
	fIndex    = 3
	fTime     = 4
	fSize     = 5
	fWritten  = 6
	fPiece    = 7
	fDegree   = 8

	slotMul = 0xd6e8feb86659fd93 // odd: j -> (j+1)*slotMul is a bijection
)

func field(base uint64, k uint64) uint64 { return dist.Mix(base + k*golden) }

// Graph is immutable after New and safe for concurrent use.
type Graph struct {
	seed     uint64
	key      uint64 // dist.Hash of seed: the root of every fact
	edges    int64
	shards   int
	perShard int64
	maxDeg   int
	written  uint64 // a slot is written at load when its hash is below this

	pieces   [][2]int // outdegree pieces (lo, hi]; the first is [v0, v0]
	pieceA   dist.Alias
	cats     []tao.EdgeCategory
	catA     dist.Alias
	remote   []int
	remoteA  dist.Alias
	sizes    []int
	sizeA    dist.Alias
	payload  []byte
	hash     string
	expected float64 // expected written forward edges per node
}

// New returns the graph of w, seed and about edges written forward edges.
// The node count is chosen so that the expected number of forward edges the
// load writes is edges (see docs/graph.md), spread evenly over w's shards.
func New(w *workload.Workload, seed uint64, edges int64) (*Graph, error) {
	if err := CheckWorkload(w); err != nil {
		return nil, err
	}
	if edges < 1 {
		return nil, fmt.Errorf("graph of %d edges: give a positive --edges", edges)
	}
	g := &Graph{seed: seed, key: dist.Hash(seed, 0x6772617068, 0, 0), edges: edges, shards: w.Shards()}
	g.maxDeg = int(min(edges/10+1, math.MaxInt32))
	if w.MaxOutdegree > 0 {
		g.maxDeg = min(g.maxDeg, w.MaxOutdegree)
	}
	g.written = threshold(1 - w.EmptySlots)
	var err error
	for i, v := range w.Outdegree.Values {
		lo := v
		if i > 0 {
			lo = w.Outdegree.Values[i-1]
		}
		g.pieces = append(g.pieces, [2]int{lo, v})
	}
	if g.pieceA, err = dist.NewAlias(w.Outdegree.Weights); err != nil {
		return nil, err // CheckWorkload has checked every alias below
	}
	g.cats = slices.Clone(w.EdgeTypes.Values)
	if g.catA, err = dist.NewAlias(w.EdgeTypes.Weights); err != nil {
		return nil, err
	}
	g.remote = slices.Clone(w.RemoteShards.Values)
	if g.remoteA, err = dist.NewAlias(w.RemoteShards.Weights); err != nil {
		return nil, err
	}
	g.sizes = slices.Clone(w.PayloadSizes.Values)
	if g.sizeA, err = dist.NewAlias(w.PayloadSizes.Weights); err != nil {
		return nil, err
	}
	g.payload = newPayload(seed, slices.Max(g.sizes)+payloadSlack)

	// Fewer nodes per shard mean more slots of a node hitting the same
	// target, so fewer distinct edges: iterate to the fixed point.
	g.perShard = 1 << 40
	for range 50 {
		g.expected = expectedEdges(w, g.maxDeg, g.perShard)
		if !(g.expected > 0) {
			return nil, fmt.Errorf("workload %q: its outdegree, edge_types and empty_slots give no edges; give outdegree weight to values above 0", w.Name)
		}
		per := math.Ceil(math.Ceil(float64(edges)/g.expected) / float64(g.shards))
		if per >= MaxNodesPerShard {
			return nil, fmt.Errorf("graph of %d edges needs %.0f nodes per shard, more than the %d an id can hold; give fewer --edges", edges, per, int64(MaxNodesPerShard))
		}
		if int64(per) == g.perShard {
			break
		}
		g.perShard = int64(per)
	}
	g.expected = expectedEdges(w, g.maxDeg, g.perShard)
	g.hash = graphHash(w)
	return g, nil
}

// threshold converts a probability to a bound on uniform 64-bit values.
func threshold(p float64) uint64 {
	if p >= 1 {
		return math.MaxUint64
	}
	return uint64(p * 0x1p64)
}

// expectedEdges is the expected number of forward edges the load writes per
// node when shards hold perShard nodes. A slot is written with probability
// q = 1-empty_slots. A unique category c yields one edge when any of the
// node's d slots is a written slot of c: 1-(1-q*p_c)^d. A non-unique category
// c yields one edge per distinct target: with N nodes per shard and r_s the
// remote weight of shard s, sum over s of N*(1-(1-q*p_c*r_s/N)^d).
func expectedEdges(w *workload.Workload, maxDeg int, perShard int64) float64 {
	q := 1 - w.EmptySlots
	var pc [tao.NumEdgeCategories]float64
	sum := 0.0
	for i, c := range w.EdgeTypes.Values {
		pc[c] += w.EdgeTypes.Weights[i]
		sum += w.EdgeTypes.Weights[i]
	}
	rs := make([]float64, w.Shards())
	rsum := 0.0
	for i, s := range w.RemoteShards.Values {
		rs[s] += w.RemoteShards.Weights[i]
		rsum += w.RemoteShards.Weights[i]
	}
	n := float64(perShard)
	// geo returns the sum over d in [a, b] of 1-(1-x)^d, for 0 <= x <= 1.
	geo := func(a, b, x float64) float64 {
		cnt := b - a + 1
		if x == 0 {
			return 0
		}
		if x == 1 {
			return cnt - math.Max(0, 1-a) // only d = 0 gives 0
		}
		l := math.Log1p(-x)
		return cnt - math.Exp(a*l)*-math.Expm1(cnt*l)/x
	}
	// sumF returns the sum of the expected edges of a node over degrees in [a, b].
	sumF := func(a, b int) float64 {
		if b < a {
			return 0
		}
		fa, fb := float64(a), float64(b)
		s := 0.0
		for c := range pc {
			p := q * pc[c] / sum
			if p == 0 {
				continue
			}
			if tao.EdgeCategory(c).Type().IsUnique() {
				s += geo(fa, fb, p)
				continue
			}
			for _, r := range rs {
				s += n * geo(fa, fb, p*r/rsum/n)
			}
		}
		return s
	}
	wsum, e := 0.0, 0.0
	for i, v := range w.Outdegree.Values {
		a := v
		if i > 0 {
			a = w.Outdegree.Values[i-1] + 1
		}
		wt := w.Outdegree.Weights[i]
		wsum += wt
		if wt == 0 {
			continue
		}
		// Draws above the cap count as the cap.
		capped := sumF(a, min(v, maxDeg)) + float64(max(0, v-max(a-1, maxDeg)))*sumF(maxDeg, maxDeg)
		e += wt * capped / float64(v-a+1)
	}
	return e / wsum
}

// graphHash identifies what of w shapes the graph. A workload that provides
// its own GraphHash is trusted with it.
func graphHash(w *workload.Workload) string {
	if h, ok := any(w).(interface{ GraphHash() string }); ok {
		return h.GraphHash()
	}
	f := fnv.New64a()
	fmt.Fprintf(f, "shards %d\nremote %v %v\nedge_types %v %v\npayload %v %v\noutdegree %v %v max %d\nempty %v\n",
		w.Shards(), w.RemoteShards.Values, w.RemoteShards.Weights, w.EdgeTypes.Values, w.EdgeTypes.Weights,
		w.PayloadSizes.Values, w.PayloadSizes.Weights, w.Outdegree.Values, w.Outdegree.Weights, w.MaxOutdegree, w.EmptySlots)
	return strconv.FormatUint(f.Sum64(), 16)
}

// Edges returns the requested size in forward edges.
func (g *Graph) Edges() int64 { return g.edges }

// Nodes returns the number of loaded nodes (NodesPerShard * Shards).
func (g *Graph) Nodes() int64 { return g.perShard * int64(g.shards) }

// NodesPerShard returns the node count of every shard.
func (g *Graph) NodesPerShard() int64 { return g.perShard }

// Shards returns the shard count.
func (g *Graph) Shards() int { return g.shards }

// MaxOutdegree returns the cap on a node's slots.
func (g *Graph) MaxOutdegree() int { return g.maxDeg }

// ExpectedEdges returns the expected number of forward edges the load writes.
func (g *Graph) ExpectedEdges() float64 { return g.expected * float64(g.Nodes()) }

// TimeRange returns the times of loaded rows: lo <= t < hi.
func (g *Graph) TimeRange() (lo, hi int64) { return TimeBase, TimeBase + TimeSpan }

// nodeBase is the hash every fact of a node derives from: one bijective
// round over the seeded key, so distinct ids never share a base.
func (g *Graph) nodeBase(id int64) uint64 { return dist.Mix(g.key ^ uint64(id)) }

// slotBase is the hash every fact of slot j of a node derives from.
func (g *Graph) slotBase(nb uint64, j int) uint64 {
	return dist.Mix(nb ^ (uint64(j)+1)*slotMul)
}

// Outdegree returns the number of edge slots of node (shard, index).
func (g *Graph) Outdegree(shard int, index int64) int {
	b := g.nodeBase(ID(shard, index))
	p := g.pieces[g.pieceA.Pick(field(b, fPiece))]
	d := p[1]
	if p[1] > p[0] {
		d = p[0] + 1 + int(dist.Below(field(b, fDegree), uint64(p[1]-p[0])))
	}
	return min(d, g.maxDeg)
}

// Target returns the association category and the id2 of slot j of node
// (shard, index). It is defined for every j >= 0, inside the outdegree or not.
func (g *Graph) Target(shard int, index int64, j int) (tao.EdgeCategory, int64) {
	b := g.slotBase(g.nodeBase(ID(shard, index)), j)
	return g.cats[g.catA.Pick(field(b, fCategory))], g.id2(b)
}

func (g *Graph) id2(b uint64) int64 {
	s := g.remote[g.remoteA.Pick(field(b, fShard))]
	return ID(s, int64(dist.Below(field(b, fIndex), uint64(g.perShard))))
}

// Slot is everything about one edge slot.
type Slot struct {
	Category tao.EdgeCategory
	ID2      int64
	Time     int64
	Value    []byte // shared, read-only
	// Drawn reports whether the slot drew "written" (probability
	// 1-empty_slots). The load writes it unless an earlier written slot of
	// the node has the same unique category or the same (type, id2).
	Drawn bool
}

// Slot returns the facts of slot j of node (shard, index).
func (g *Graph) Slot(shard int, index int64, j int) Slot {
	b := g.slotBase(g.nodeBase(ID(shard, index)), j)
	return Slot{
		Category: g.cats[g.catA.Pick(field(b, fCategory))],
		ID2:      g.id2(b),
		Time:     TimeBase + int64(dist.Below(field(b, fTime), TimeSpan)),
		Value:    g.value(field(b, fSize)),
		Drawn:    field(b, fWritten) < g.written,
	}
}

// AppendNode appends node (shard, index)'s object and the edges the load
// writes for it: its forward edges and, for bidirectional types, their
// inverses (which live on id2's shard). Values share the graph's read-only
// payload buffer. A node outside the graph appends nothing.
func (g *Graph) AppendNode(shard int, index int64, objs []tao.Object, edges []tao.Edge) ([]tao.Object, []tao.Edge) {
	if shard < 0 || shard >= g.shards || index < 0 || index >= g.perShard {
		return objs, edges
	}
	id := ID(shard, index)
	b := g.nodeBase(id)
	objs = append(objs, tao.Object{
		ID:      id,
		Time:    TimeBase + int64(dist.Below(field(b, fTime), TimeSpan)),
		Version: 1,
		Value:   g.value(field(b, fSize)),
	})
	start := len(edges)
	var unique [tao.NumEdgeCategories]bool
	for j, d := 0, g.Outdegree(shard, index); j < d; j++ {
		sb := g.slotBase(b, j)
		if field(sb, fWritten) >= g.written {
			continue
		}
		c := g.cats[g.catA.Pick(field(sb, fCategory))]
		t := c.Type()
		if t.IsUnique() {
			if unique[c] {
				continue
			}
			unique[c] = true
		}
		edges = append(edges, tao.Edge{
			ID1: id, ID2: g.id2(sb), Type: t, Version: 1,
			Time:  TimeBase + int64(dist.Below(field(sb, fTime), TimeSpan)),
			Value: g.value(field(sb, fSize)),
		})
	}
	// Keep the earliest slot of each (type, id2): a stable sort keeps slot
	// order among equals.
	fwd := edges[start:]
	slices.SortStableFunc(fwd, func(a, b tao.Edge) int {
		if a.Type != b.Type {
			return int(a.Type - b.Type)
		}
		switch {
		case a.ID2 < b.ID2:
			return -1
		case a.ID2 > b.ID2:
			return 1
		}
		return 0
	})
	fwd = slices.CompactFunc(fwd, func(a, b tao.Edge) bool { return a.Type == b.Type && a.ID2 == b.ID2 })
	edges = edges[:start+len(fwd)]
	for _, e := range fwd {
		if inv, ok := e.Type.Inverse(); ok {
			edges = append(edges, tao.Edge{ID1: e.ID2, ID2: e.ID1, Type: inv, Time: e.Time, Version: 1, Value: e.Value})
		}
	}
	return objs, edges
}

// payloadSlack is how far a value's start may shift inside the buffer, so
// equal sizes do not always share the same bytes.
const payloadSlack = 64

// newPayload returns n deterministic letters and digits.
func newPayload(seed uint64, n int) []byte {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	r := dist.NewRand(seed ^ 0x7061796c6f6164)
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.Uint64N(uint64(len(alphabet)))]
	}
	return b
}

// value returns a payload whose size is drawn from payload_sizes by x.
func (g *Graph) value(x uint64) []byte {
	return g.Payload(g.sizes[g.sizeA.Pick(x)], x)
}

// Payload returns size bytes of the shared read-only buffer, starting at an
// offset chosen by x. Its capacity ends with it, so an append copies.
func (g *Graph) Payload(size int, x uint64) []byte {
	size = min(max(size, 0), len(g.payload)-payloadSlack)
	off := int(x % payloadSlack)
	return g.payload[off : off+size : off+size]
}
