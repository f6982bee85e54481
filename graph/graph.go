// Package graph is the computed graph: a pure function of (workload, seed,
// size) that gives, in O(1) time and memory, every fact of every node and
// edge slot — outdegree, its association lists and their sizes, targets,
// times, payloads, whether the load writes a slot. The loader writes it; the
// generator recomputes keys from it instead of reading the graph back, and
// can draw a node of a given outdegree class in O(1). See docs/graph.md.
package graph

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/taobench/taobench/randdist"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// FormatVersion changes whenever the same (workload, seed, edges) would give
// a different graph, so an old load is never taken for a new one.
const FormatVersion = "3"

// Loaded times are Unix seconds in [TimeBase, TimeBase+TimeSpan): tao's
// LoadTimeBase and LoadTimeSpan, where a store reads them without the graph.
const (
	TimeBase = tao.LoadTimeBase
	TimeSpan = tao.LoadTimeSpan
)

// Field numbers for deriving the facts of one node or slot from its base
// hash: field k is Mix(base + k*golden), a splitmix64 stream seeded by base.
const (
	golden = 0x9e3779b97f4a7c15

	fShard   = 2
	fIndex   = 3
	fTime    = 4
	fSize    = 5
	fSplit   = 6 // rounding of the bidirectional/other split
	fHas     = 7 // unique list present (+category)
	fWritten = 9 // unique slot written (+category)
	fEmpty   = 11

	slotMul = 0xd6e8feb86659fd93 // odd: x -> x*slotMul is a bijection
)

func field(base uint64, k uint64) uint64 { return randdist.Mix(base + k*golden) }

// unit maps a hash to [0, 1).
func unit(x uint64) float64 { return float64(x>>11) * 0x1p-53 }

// Graph is immutable after New and safe for concurrent use.
type Graph struct {
	seed   uint64
	key    uint64 // dist.Hash of seed: the root of every fact
	edges  int64
	shards int
	maxDeg int

	nodes []int64 // node count of each shard
	first []int64 // global number of each shard's first node; first[shards] = all

	pieces  [][2]int  // outdegree pieces (lo, hi]; the first is [v0, v0]
	cum     []float64 // cumulative share of nodes at the end of each piece
	rankEnd [][]int64 // per shard: the rank one past each piece's last node
	perms   []randdist.Perm

	cats        [tao.NumEdgeCategories]float64 // stored share of each category
	catCum      [tao.NumEdgeCategories]float64 // their cumulative shares, in category order
	listMax     float64                        // the largest share of a node's slots one list takes
	empty       float64
	remote      []int
	remoteA     randdist.Alias
	remoteShare []float64 // by shard
	remoteCum   []float64 // cumulative, by shard
	sizes       []int
	sizeA       randdist.Alias
	objSizes    []int // objects' value sizes (object_payload_sizes, else payload_sizes)
	objSizeA    randdist.Alias
	payload     []byte
	hash        string
	expected    float64 // expected forward edges the load writes
}

// New returns the graph of w, seed and about edges written forward edges.
// The node count is chosen so that the expected number of forward edges the
// load writes is edges (see docs/graph.md), placed over the shards in
// proportion to w's primary_shards.
func New(w *workload.Workload, seed uint64, edges int64) (*Graph, error) {
	if err := CheckWorkload(w); err != nil {
		return nil, err
	}
	if edges < 1 {
		return nil, fmt.Errorf("graph of %d edges: give a positive --edges", edges)
	}
	if edges > maxEdges {
		// Degree sums of larger graphs could overflow while New fits them.
		return nil, fmt.Errorf("graph of %d edges: taobench computes graphs of up to %d edges; give fewer --edges", edges, int64(maxEdges))
	}
	g := &Graph{seed: seed, key: randdist.Hash(seed, 0x6772617068, 2, 0), edges: edges, shards: w.Shards(), empty: w.EmptySlots}
	g.maxDeg = int(min(edges/10+1, math.MaxInt32))
	if w.MaxOutdegree > 0 {
		g.maxDeg = min(g.maxDeg, w.MaxOutdegree)
	}
	var err error
	wsum := 0.0
	for _, x := range w.Outdegree.Weights {
		wsum += x
	}
	acc := 0.0
	for i, v := range w.Outdegree.Values {
		lo := v
		if i > 0 {
			lo = w.Outdegree.Values[i-1]
		}
		g.pieces = append(g.pieces, [2]int{lo, v})
		acc += w.Outdegree.Weights[i]
		g.cum = append(g.cum, acc/wsum)
	}
	g.cum[len(g.cum)-1] = 1
	if err := g.categories(w); err != nil {
		return nil, err
	}
	g.remote = slices.Clone(w.RemoteShards.Values)
	g.remoteShare = make([]float64, g.shards)
	rsum := 0.0
	for i, t := range w.RemoteShards.Values {
		g.remoteShare[t] += w.RemoteShards.Weights[i]
		rsum += w.RemoteShards.Weights[i]
	}
	g.remoteCum = make([]float64, g.shards)
	racc := 0.0
	for t := range g.remoteShare {
		g.remoteShare[t] /= rsum
		racc += g.remoteShare[t]
		g.remoteCum[t] = racc
	}
	g.remoteCum[g.shards-1] = 1
	if g.remoteA, err = randdist.NewAlias(w.RemoteShards.Weights); err != nil {
		return nil, err // CheckWorkload has checked every alias below
	}
	g.sizes = slices.Clone(w.PayloadSizes.Values)
	if g.sizeA, err = randdist.NewAlias(w.PayloadSizes.Weights); err != nil {
		return nil, err
	}
	objSizes := w.ObjectPayloads()
	g.objSizes = slices.Clone(objSizes.Values)
	if g.objSizeA, err = randdist.NewAlias(objSizes.Weights); err != nil {
		return nil, err
	}
	g.payload = newPayload(seed, max(slices.Max(g.sizes), slices.Max(g.objSizes))+payloadSlack)
	if err := g.place(w.PrimaryShards.Weights); err != nil {
		return nil, err
	}
	g.hash = w.GraphHash()
	return g, nil
}

// categories sets the stored share of each association category: a
// node's outdegree slots are split among the categories in proportion
// (systematic rounding, so the counts add up to the outdegree and each has
// its exact expectation). A unique category's slots are lists of their own,
// one type each (docs/graph.md, "Lists").
func (g *Graph) categories(w *workload.Workload) error {
	sum := 0.0
	for i, c := range w.EdgeTypes.Values {
		g.cats[c] += w.EdgeTypes.Weights[i]
		sum += w.EdgeTypes.Weights[i]
	}
	acc := 0.0
	for c := range g.cats {
		g.cats[c] /= sum
		acc += g.cats[c]
		g.catCum[c] = acc
	}
	g.catCum[tao.NumEdgeCategories-1] = 1
	g.listMax = max(g.cats[tao.Bidirectional], g.cats[tao.Other], 1e-9)
	return nil
}

// meanDegree is the mean outdegree of the pieces, capped at maxDeg.
func (g *Graph) meanDegree() float64 {
	m, prev := 0.0, 0.0
	for i, p := range g.pieces {
		share := g.cum[i] - prev
		prev = g.cum[i]
		if p[0] == p[1] {
			m += share * float64(min(p[1], g.maxDeg))
			continue
		}
		lo, hi := p[0]+1, p[1]
		// Degrees spread evenly over (lo-1, hi]; those above the cap count as it.
		if hi <= g.maxDeg {
			m += share * float64(lo+hi) / 2
			continue
		}
		if lo > g.maxDeg {
			m += share * float64(g.maxDeg)
			continue
		}
		below := float64(g.maxDeg-lo+1) / float64(hi-lo+1)
		m += share * (below*float64(lo+g.maxDeg)/2 + (1-below)*float64(g.maxDeg))
	}
	return m
}

// sizeTolerance is how far from the requested size the node count alone
// may leave the expected edges before New lowers the outdegree cap to close
// the gap; maxSizeError is how far it may stay when nothing closes it.
const (
	sizeTolerance = 1e-3
	maxSizeError  = 0.01
	maxEdges      = 1 << 50
)

// place chooses each shard's node count in proportion to primary, and the
// outdegree cap, so that the expected forward edges are g.edges, and builds
// the per-shard tables. The degree sum is a step function of the node
// count: a node that enters a piece of the tail adds its whole outdegree,
// up to a tenth of a small graph. So New finds the node count where the sum
// crosses the target and, if that still misses by more than sizeTolerance,
// lowers the cap (which moves the sum by the few nodes at it) to meet it.
func (g *Graph) place(primary []float64) error {
	cum := cumulative(primary)
	perNode := (1 - g.empty) * g.meanDegree()
	if !(perNode > 0) {
		return fmt.Errorf("the outdegree and empty_slots give no edges; give outdegree weight to values above 0")
	}
	capCeil := g.maxDeg
	target := float64(g.edges) / (1 - g.empty) // the degree sum that writes g.edges
	sumAt := func(n int64) int64 { return g.sumAt(n, cum, capCeil) }
	tooBig := func() bool { return slices.Max(g.nodes) >= tao.MaxNodesPerShard }
	lo := max(1, int64(min(float64(g.edges)/perNode, tao.MaxNodesPerShard/2)))
	hi := lo
	for lo > 1 && float64(sumAt(lo)) >= target {
		lo = lo * 7 / 8
	}
	for float64(sumAt(hi)) < target {
		if tooBig() {
			return g.errTooBig()
		}
		hi += hi/8 + 1
	}
	// Invariant from here: sumAt(lo) < target <= sumAt(hi), or lo is 1.
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if float64(sumAt(mid)) >= target {
			hi = mid
		} else {
			lo = mid
		}
	}
	off := func(f fit) float64 { return f.off(target) }
	tune := func(n int64) fit { return g.tune(n, cum, capCeil, target) }
	best := tune(hi)
	if f := tune(lo); off(f) < off(best) {
		best = f
	}
	// In a graph of a few hundred edges one more node can raise the cap
	// the smallest shards allow (fitDegree) and the sum by far more than
	// 1%: look around the crossing for a node count that fits.
	for d := int64(1); d <= 256 && off(best) > maxSizeError*target; d++ {
		for _, n := range []int64{hi + d, lo - d} {
			if n >= 1 {
				if f := tune(n); off(f) < off(best) {
					best = f
				}
			}
		}
	}
	sumAt(best.n)
	g.maxDeg = best.cap
	if tooBig() {
		return g.errTooBig()
	}
	g.expected = g.expectedEdges()
	if g.expected == 0 {
		return fmt.Errorf("the outdegree and empty_slots give no edges; give outdegree weight to values above 0")
	}
	// Integer degree sums cannot give every size: allow one edge beyond 1%.
	if math.Abs(g.expected-float64(g.edges)) > maxSizeError*float64(g.edges)+1 {
		return fmt.Errorf("a graph of %d edges cannot be sized within 1%%: the nearest has %.0f expected edges over %d nodes, "+
			"because each of the workload's %d shards holds at least one node and every outdegree is a whole number; give more --edges",
			g.edges, g.expected, g.Nodes(), g.shards)
	}
	g.perms = make([]randdist.Perm, g.shards)
	for s := range g.perms {
		// Keyed by the graph's seed: which node has which degree is a fact of the graph.
		g.perms[s], _ = randdist.NewPerm(uint64(g.nodes[s]), randdist.Hash(g.seed, uint64(s), 0x646567, 0))
	}
	return nil
}

// cumulative is the cumulative distribution of weights w, its last 1.
func cumulative(w []float64) []float64 {
	sum := 0.0
	for _, x := range w {
		sum += x
	}
	cum := make([]float64, len(w))
	acc := 0.0
	for s, x := range w {
		acc += x
		cum[s] = acc / sum
	}
	cum[len(cum)-1] = 1
	return cum
}

// sumAt places about n nodes (cum: the shards' cumulative weights) with
// the largest cap they allow, at most capCeil, and returns their degree
// sum.
func (g *Graph) sumAt(n int64, cum []float64, capCeil int) int64 {
	g.allocate(n, cum)
	g.maxDeg = min(capCeil, g.fitDegree())
	return g.degreeSum()
}

// fit is a placement place considers: n nodes, the degree cap, their
// degree sum.
type fit struct {
	n   int64
	cap int
	sum int64
}

// off is how far f's degree sum is from target.
func (f fit) off(target float64) float64 { return math.Abs(float64(f.sum) - target) }

// tune returns the nearest fit of about n nodes to the degree sum target:
// with the largest cap, or with the cap lowered (the sum rises with the
// cap: the largest cap whose sum is at most the target, or the next,
// whichever is nearer).
func (g *Graph) tune(n int64, cum []float64, capCeil int, target float64) fit {
	best := fit{n, 0, g.sumAt(n, cum, capCeil)}
	best.cap = g.maxDeg
	if best.off(target) <= sizeTolerance*target || float64(best.sum) < target {
		return best
	}
	c0, c1 := 0, best.cap // sum(c0) <= target < sum(c1)
	for c1-c0 > 1 {
		mid := c0 + (c1-c0)/2
		g.maxDeg = mid
		if float64(g.degreeSum()) <= target {
			c0 = mid
		} else {
			c1 = mid
		}
	}
	for _, c := range []int{c0, c1} {
		g.maxDeg = c
		if f := (fit{n, c, g.degreeSum()}); c > 0 && f.off(target) < best.off(target) {
			best = f
		}
	}
	return best
}

func (g *Graph) errTooBig() error {
	s := slices.Index(g.nodes, slices.Max(g.nodes))
	return fmt.Errorf("graph of %d edges needs %d nodes in shard %d, more than the %d an id can hold; give fewer --edges", g.edges, g.nodes[s], s, int64(tao.MaxNodesPerShard))
}

// phase is shard s's rounding offset for its piece boundaries: the golden
// ratio sequence, so shards of equal size round their boundaries unalike
// and the graph holds about its share of each piece's nodes, not none or
// one per shard (a heavy tail would otherwise enter 50 shards at once).
func phase(s int) float64 {
	_, f := math.Modf(0.5 + float64(s)*0.6180339887498949)
	return f
}

// allocate sets the node counts for n nodes, shard s taking
// round(n*cum[s]) - round(n*cum[s-1]) of them (so they add up to n) but
// every shard at least one, and each shard's piece boundaries.
func (g *Graph) allocate(n int64, cum []float64) {
	g.nodes = make([]int64, g.shards)
	g.first = make([]int64, g.shards+1)
	g.rankEnd = make([][]int64, g.shards)
	prev := int64(0)
	for s := range g.nodes {
		end := int64(math.Round(min(float64(n)*cum[s], 2*tao.MaxNodesPerShard)))
		g.nodes[s] = max(1, end-prev)
		prev = end
		g.first[s+1] = g.first[s] + g.nodes[s]
		ends := make([]int64, len(g.cum))
		u := phase(s)
		for k, c := range g.cum {
			ends[k] = min(int64(math.Floor(c*float64(g.nodes[s])+u)), g.nodes[s])
		}
		ends[len(ends)-1] = g.nodes[s]
		g.rankEnd[s] = ends
	}
}

// expectedEdges is the expected number of forward edges the load writes:
// every outdegree slot, less the empty ones. Degrees are exact sums; only
// the rounding of empty slots is random.
func (g *Graph) expectedEdges() float64 { return float64(g.degreeSum()) * (1 - g.empty) }

// fitDegree is the largest outdegree whose lists fit every shard: a list
// sends about its size times a shard's remote share to that shard, and a
// shard cannot hold more distinct targets than it has nodes.
func (g *Graph) fitDegree() int {
	fit := math.MaxInt32
	for t, r := range g.remoteShare {
		if r > 0 {
			s := (float64(g.nodes[t]-1)/r - 2) / g.listMax
			fit = min(fit, int(max(1, s)))
		}
	}
	return fit
}

// degreeSum is the sum of every node's outdegree.
func (g *Graph) degreeSum() int64 {
	sum := int64(0)
	for s := range g.nodes {
		start := int64(0)
		for k, end := range g.rankEnd[s] {
			sum += g.pieceDegreeSum(k, end-start)
			start = end
		}
	}
	return sum
}

// pieceDegreeSum is the sum of the degrees of n nodes of piece k.
func (g *Graph) pieceDegreeSum(k int, n int64) int64 {
	if n <= 0 {
		return 0
	}
	p := g.pieces[k]
	if p[0] == p[1] {
		return n * int64(min(p[1], g.maxDeg))
	}
	lo, m, c := int64(p[0]), int64(p[1]-p[0]), int64(g.maxDeg)
	// Degree of the i-th node: lo+1+floor(i*m/n); capped at c from the first
	// i with floor(i*m/n) >= c-lo-1, i.e. i >= ceil((c-lo-1)*n/m).
	capAt := n
	if c-lo-1 < m {
		capAt = min(n, max(0, ceilDiv(max(c-lo-1, 0)*n, m)))
	}
	return capAt*(lo+1) + floorSum(capAt, n, m, 0) + (n-capAt)*c
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// floorSum returns the sum over i in [0, n) of floor((a*i+b)/m), for
// non-negative arguments, in O(log m) steps.
func floorSum(n, m, a, b int64) int64 {
	ans := int64(0)
	for n > 0 {
		if a >= m {
			ans += (n - 1) * n / 2 * (a / m)
			a %= m
		}
		if b >= m {
			ans += n * (b / m)
			b %= m
		}
		yMax := a*n + b
		if yMax < m {
			break
		}
		n, b, m, a = yMax/m, yMax%m, a, m
	}
	return ans
}

// Seed returns the graph's seed.
func (g *Graph) Seed() uint64 { return g.seed }

// Edges returns the requested size in forward edges.
func (g *Graph) Edges() int64 { return g.edges }

// Nodes returns the number of loaded nodes over all shards.
func (g *Graph) Nodes() int64 { return g.first[g.shards] }

// ShardNodes returns the node count of shard s.
func (g *Graph) ShardNodes(s int) int64 { return g.nodes[s] }

// Locate returns the shard and index of global node n (shard-major order).
func (g *Graph) Locate(n int64) (shard int, index int64) {
	s := sort.Search(g.shards, func(i int) bool { return g.first[i+1] > n })
	return s, n - g.first[s]
}

// Shards returns the shard count.
func (g *Graph) Shards() int { return g.shards }

// MaxOutdegree returns the cap on a node's outdegree.
func (g *Graph) MaxOutdegree() int { return g.maxDeg }

// ExpectedEdges returns the expected number of forward edges the load writes.
func (g *Graph) ExpectedEdges() float64 { return g.expected }

// CategoryShare returns the stored share of category c among forward edges.
func (g *Graph) CategoryShare(c tao.EdgeCategory) float64 { return g.cats[c] }

// TimeRange returns the times of loaded rows: lo <= t < hi.
func (g *Graph) TimeRange() (lo, hi int64) { return TimeBase, TimeBase + TimeSpan }

// Pieces returns the outdegree pieces (lo, hi] (the first is exactly hi).
func (g *Graph) Pieces() [][2]int { return g.pieces }

// PieceRanks returns the end ranks of the pieces in shard s: piece k holds
// ranks [end[k-1], end[k]). Nodes are ranked by outdegree, ascending.
func (g *Graph) PieceRanks(s int) []int64 { return g.rankEnd[s] }

// AtRank returns the index of the node of shard s whose outdegree rank is r.
func (g *Graph) AtRank(s int, r int64) int64 { return int64(g.perms[s].Inverse(uint64(r))) }

// nodeBase is the hash every fact of a node derives from: one bijective
// round over the seeded key, so distinct ids never share a base.
func (g *Graph) nodeBase(id int64) uint64 { return randdist.Mix(g.key ^ uint64(id)) }

// slotBase is the hash every fact of slot k of a node's list c derives from.
func slotBase(nb uint64, c tao.EdgeCategory, k int64) uint64 {
	return randdist.Mix(nb ^ (uint64(c)<<56|uint64(k)+1)*slotMul)
}

// Node is everything about one node's association lists.
//
// Its Degree outdegree slots are split among the categories. Of a
// bidirectional or other category the node has one list (the category's
// first type) of Slots[c] slots, the first Written[c] written at load. Of a
// unique category it has Slots[c] lists, types TypeN(0..Slots-1), of one
// slot each, the first Written[c] of them written.
type Node struct {
	ID      int64
	Degree  int
	Slots   [tao.NumEdgeCategories]int
	Written [tao.NumEdgeCategories]int
	base    uint64
}

// Node returns the facts of node (shard, index), which must be inside the graph.
func (g *Graph) Node(shard int, index int64) Node {
	return g.node(shard, index, int64(g.perms[shard].Map(uint64(index))))
}

// NodeAtRank returns the facts of the node of shard s at outdegree rank r.
func (g *Graph) NodeAtRank(s int, r int64) Node {
	return g.node(s, int64(g.perms[s].Inverse(uint64(r))), r)
}

func (g *Graph) node(shard int, index, rank int64) Node {
	id := tao.ID(shard, index)
	n := Node{ID: id, base: g.nodeBase(id)}
	n.Degree = g.degreeAt(shard, rank)
	if n.Degree == 0 {
		return n // no slot to split: every count is 0 (most nodes, on the null store's hot path)
	}
	u := unit(field(n.base, fSplit))
	prev := 0
	for c := range tao.NumEdgeCategories {
		end := int(math.Floor(float64(n.Degree)*g.catCum[c] + u))
		if c == tao.NumEdgeCategories-1 {
			end = n.Degree
		}
		s := end - prev
		prev = end
		n.Slots[c] = s
		if s > 0 { // of no slot none is written, whatever the hash: skip it
			n.Written[c] = s - int(math.Floor(float64(s)*g.empty+unit(field(n.base, fEmpty+uint64(c)))))
		}
	}
	return n
}

// degreeAt returns the outdegree of the node of shard s at rank r: pieces
// hold consecutive ranks, and a piece's degrees rise evenly over its ranks,
// so the degree sum of the graph is exact.
func (g *Graph) degreeAt(s int, r int64) int {
	ends := g.rankEnd[s]
	k := sort.Search(len(ends), func(i int) bool { return ends[i] > r })
	p := g.pieces[k]
	if p[0] == p[1] {
		return min(p[1], g.maxDeg)
	}
	start := int64(0)
	if k > 0 {
		start = ends[k-1]
	}
	n, m := ends[k]-start, int64(p[1]-p[0])
	d := int64(p[0]) + 1 + mulDiv(r-start, m, n)
	return int(min(d, int64(g.maxDeg)))
}

// mulDiv returns floor(a*b/c) without overflow for a < c.
func mulDiv(a, b, c int64) int64 {
	if a == 0 {
		return 0
	}
	if a <= math.MaxInt64/b {
		return a * b / c
	}
	return int64(float64(a) * float64(b) / float64(c))
}

// Edge returns slot k of node n's category c: slot k of its list for a
// bidirectional or other category, the slot of its list (type) k for a
// unique one. Slots at or past Slots[c] are defined too.
func (g *Graph) Edge(n *Node, c tao.EdgeCategory, k int64) tao.Edge {
	sb := slotBase(n.base, c, k)
	t := c.Type()
	if t.IsUnique() {
		t = c.TypeN(int(k))
	}
	return tao.Edge{
		ID1: n.ID, ID2: g.Target(n, c, k), Type: t, Version: 1,
		Time:  TimeBase + int64(randdist.Below(field(sb, fTime), TimeSpan)),
		Value: g.value(field(sb, fSize)),
	}
}

// listPrime spreads a list's slots over its layout: k -> k*listPrime mod s
// is a bijection for every list size below it.
const listPrime = 2654435761

// layout returns where list c of node n puts shard t's slots: positions
// [from, to) of its s slots, and the index its run of targets starts at.
// A list lays its slots out in shard order, shard t taking positions
// [B(t-1), B(t)) with B(t) = floor(s*C(t) + u), C the cumulative
// remote_shards and u the list's own rounding: every shard gets its share
// exactly, rounded.
func (g *Graph) layout(n *Node, c tao.EdgeCategory, t int) (from, to, start uint64) {
	s := float64(n.Slots[c])
	u := unit(randdist.Hash(n.base, uint64(c), 0x6c6973, 1))
	to = uint64(math.Floor(s*g.remoteCum[t] + u))
	if t > 0 {
		from = uint64(math.Floor(s*g.remoteCum[t-1] + u))
	}
	if t == g.shards-1 {
		to = uint64(n.Slots[c])
	}
	return from, to, randdist.Hash(n.base, uint64(c), uint64(t), 0x746172) % uint64(g.nodes[t])
}

// Target returns the id2 of slot k of node n's category c (see Edge).
// Slot k of a list sits at position k*listPrime+off mod s of its layout, so
// the written first slots spread over every shard, and the slots in shard t
// take consecutive indices from the list's start there: no two slots of a
// list meet the same target while the list fits the shard (fitDegree).
// Slots past the list, and unique lists, draw a target by remote_shards.
func (g *Graph) Target(n *Node, c tao.EdgeCategory, k int64) int64 {
	s := uint64(n.Slots[c])
	if c.Type().IsUnique() || uint64(k) >= s {
		sb := slotBase(n.base, c, k)
		t := g.remote[g.remoteA.Pick(field(sb, fShard))]
		return tao.ID(t, int64(randdist.Below(field(sb, fIndex), uint64(g.nodes[t]))))
	}
	off := randdist.Hash(n.base, uint64(c), 0x6c6973, 0) % s
	x := (uint64(k)*listPrime%s + off) % s
	u := unit(randdist.Hash(n.base, uint64(c), 0x6c6973, 1))
	t := sort.Search(g.shards-1, func(i int) bool { return uint64(math.Floor(float64(s)*g.remoteCum[i]+u)) > x })
	from, _, start := g.layout(n, c, t)
	nt := uint64(g.nodes[t])
	return tao.ID(t, int64((start+(x-from)%nt)%nt))
}

// Absent returns, for draw x, an id2 that node n's category c does not
// hold at load (for a unique category, in list k; k is ignored otherwise):
// in the shard x draws by remote_shards, an index past the list's run of
// targets there, free unless the list covers the whole shard. Run-time adds
// and absent keys take their id2s here.
func (g *Graph) Absent(n *Node, c tao.EdgeCategory, k int64, x uint64) int64 {
	t := g.remote[g.remoteA.Pick(x)]
	nt := uint64(g.nodes[t])
	y := randdist.Mix(x)
	if c.Type().IsUnique() {
		id := tao.ID(t, int64(y%nt))
		if id == g.Target(n, c, k) && nt > 1 {
			id = tao.ID(t, int64((y+1)%nt))
		}
		return id
	}
	from, to, start := g.layout(n, c, t)
	if m := to - from; m < nt {
		return tao.ID(t, int64((start+m+y%(nt-m))%nt))
	}
	return tao.ID(t, int64(y%nt))
}

// AppendNode appends node (shard, index)'s object and the edges the load
// writes for it: the written slots of each category and, for bidirectional
// types, their inverses (which live on id2's shard). Values share the
// graph's read-only payload buffer. A node outside the graph appends nothing.
func (g *Graph) AppendNode(shard int, index int64, objs []tao.Object, edges []tao.Edge) ([]tao.Object, []tao.Edge) {
	if shard < 0 || shard >= g.shards || index < 0 || index >= g.nodes[shard] {
		return objs, edges
	}
	n := g.Node(shard, index)
	objs = append(objs, tao.Object{
		ID:      n.ID,
		Time:    TimeBase + int64(randdist.Below(field(n.base, fTime), TimeSpan)),
		Version: 1,
		Value:   g.Payload(g.objSizes[g.objSizeA.Pick(field(n.base, fSize))], field(n.base, fSize)),
	})
	start := len(edges)
	for c := range tao.NumEdgeCategories {
		for k := range n.Written[c] {
			edges = append(edges, g.Edge(&n, c, int64(k)))
		}
	}
	// fitDegree keeps a list's targets distinct; a shard too small for any
	// list (one node, weight 0) is the exception: keep each key once.
	fwd := edges[start:]
	sortEdges(fwd)
	fwd = slices.CompactFunc(fwd, func(a, b tao.Edge) bool { return a.Type == b.Type && a.ID2 == b.ID2 })
	edges = edges[:start+len(fwd)]
	for _, e := range fwd {
		if inv, ok := e.Type.Inverse(); ok {
			edges = append(edges, tao.Edge{ID1: e.ID2, ID2: e.ID1, Type: inv, Time: e.Time, Version: 1, Value: e.Value})
		}
	}
	return objs, edges
}

// edgeKey is an edge's sort key and its position.
type edgeKey struct {
	t   tao.EdgeType
	id2 int64
	i   int
}

func (a edgeKey) compare(b edgeKey) int {
	if c := cmp.Compare(a.t, b.t); c != 0 {
		return c
	}
	if c := cmp.Compare(a.id2, b.id2); c != 0 {
		return c
	}
	return cmp.Compare(a.i, b.i)
}

// sortEdges sorts edges by (Type, ID2), edges of equal keys in the order
// they came (the order slices.SortStableFunc gives). It sorts the keys,
// which their positions make distinct, and then moves each edge once:
// moving the edges in the sort, a stable merge sort of structs holding a
// slice, was three fifths of the load's graph generation.
func sortEdges(edges []tao.Edge) {
	if len(edges) < 2 {
		return
	}
	var small [32]edgeKey
	keys := small[:0]
	if len(edges) > len(small) {
		keys = make([]edgeKey, 0, len(edges))
	}
	sorted := true
	for i := range edges {
		keys = append(keys, edgeKey{edges[i].Type, edges[i].ID2, i})
		sorted = sorted && (i == 0 || keys[i-1].compare(keys[i]) < 0)
	}
	if sorted {
		return
	}
	slices.SortFunc(keys, edgeKey.compare)
	// Position j takes the edge at keys[j].i: follow each cycle of the
	// permutation, marking the positions done.
	for j := range keys {
		if keys[j].i == j {
			continue
		}
		e, k := edges[j], j
		for {
			from := keys[k].i
			keys[k].i = k
			if from == j {
				edges[k] = e
				break
			}
			edges[k] = edges[from]
			k = from
		}
	}
}

// payloadSlack is how far a value's start may shift inside the buffer, so
// equal sizes do not always share the same bytes.
const payloadSlack = 64

// newPayload returns n deterministic letters and digits.
func newPayload(seed uint64, n int) []byte {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	r := randdist.NewRand(seed ^ 0x7061796c6f6164)
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

// ListOdds describes category c of nodes of outdegree d, over the
// rounding the graph draws per node. For a bidirectional or other category:
// the chance its list holds exactly one written edge, at least one, and its
// expected written edges up to limit. For a unique category, whose lists
// hold one edge each: the chance the node has a written list, twice, and
// that chance again as rows (a read of a written list returns one row).
func (g *Graph) ListOdds(c tao.EdgeCategory, d, limit int) (one, nonEmpty, rows float64) {
	add := func(p float64, w int) {
		if w >= 1 {
			nonEmpty += p
			rows += p * float64(min(w, limit))
		}
		if w == 1 {
			one += p
		}
	}
	lo := 0.0
	if c > 0 {
		lo = float64(d) * g.catCum[c-1]
	}
	hi := float64(d) * g.catCum[c]
	if c == tao.NumEdgeCategories-1 {
		hi = float64(d)
	}
	// The count is floor(hi+u) - floor(lo+u): it steps up at u = 1-frac(hi)
	// and down at u = 1-frac(lo).
	base := int(math.Floor(hi) - math.Floor(lo))
	up, down := 1-(hi-math.Floor(hi)), 1-(lo-math.Floor(lo))
	cuts := []float64{0, min(up, down), max(up, down), 1}
	for i := range 3 {
		p := cuts[i+1] - cuts[i]
		if p <= 0 {
			continue
		}
		u := (cuts[i] + cuts[i+1]) / 2
		s := base
		if u >= up {
			s++
		}
		if u >= down {
			s--
		}
		y := float64(s) * g.empty
		yl, yf := math.Floor(y), y-math.Floor(y)
		for _, e := range []struct {
			p float64
			w int
		}{{1 - yf, s - int(yl)}, {yf, s - int(yl) - 1}} {
			if e.p == 0 {
				continue
			}
			if c.Type().IsUnique() {
				add(p*e.p, min(e.w, 1))
			} else {
				add(p*e.p, e.w)
			}
		}
	}
	return
}
