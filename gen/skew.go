package gen

import (
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/randdist"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// skewTables draw keys by each class's key skew (docs/graph.md, "Key
// choice"): a Zipf rank inside the shard (for draws by node index) or
// inside an outdegree piece (for draws by popularity, so the piece weights
// that meet the range targets hold), scattered by a permutation shared by
// every class. Write classes first pass the rank through separate, which
// moves all but a share hotspot_overlap of hot ranks to cold ones, so
// read and write hotspots differ. Only the first op of a write transaction
// takes its class's skew, the others are uniform (Generator.cold): TAOBench
// §3.3 finds hot write-transaction keys colocated but "rarely part of the
// same transactions", and two transactions that share two hot keys
// deadlock, a conflict TAO hardly has apart from racing inserts (2.7% of
// its write-write conflicts). Tables are per shard and per piece:
// memory is O(shards × pieces), nothing per node.
type skewTables struct {
	on      [tao.NumClasses]bool
	shard   [tao.NumClasses][]randdist.Zipf   // [class][shard]
	piece   [tao.NumClasses][][]randdist.Zipf // [class][shard][piece]; n 0: absent
	sPerm   []randdist.Perm                   // [shard]
	pPerm   [][]randdist.Perm                 // [shard][piece]
	overlap float64
	seed    uint64
}

// newSkewTables builds the tables of w's class skews on g; every field is
// empty when no class is skewed.
func newSkewTables(w *workload.Workload, g *graph.Graph, seed uint64) (skewTables, error) {
	t := skewTables{overlap: w.HotspotOverlap, seed: seed}
	any := false
	for c := range tao.NumClasses {
		t.on[c] = w.ClassSkew(c).Kind == workload.Zipf
		any = any || t.on[c]
	}
	if !any {
		return t, nil
	}
	shards := g.Shards()
	t.sPerm = make([]randdist.Perm, shards)
	t.pPerm = make([][]randdist.Perm, shards)
	for s := range shards {
		// Keyed by seed, not client: every client shares the hot keys.
		t.sPerm[s], _ = randdist.NewPerm(uint64(g.ShardNodes(s)), randdist.Hash(seed, uint64(s), 0x7065726d, 0))
		ends := g.PieceRanks(s)
		t.pPerm[s] = make([]randdist.Perm, len(ends))
		start := int64(0)
		for k, end := range ends {
			if end > start {
				t.pPerm[s][k], _ = randdist.NewPerm(uint64(end-start), randdist.Hash(seed, uint64(s), uint64(k), 0x70706572))
			}
			start = end
		}
	}
	for c := range tao.NumClasses {
		if !t.on[c] {
			continue
		}
		theta := w.ClassSkew(c).Theta
		t.shard[c] = make([]randdist.Zipf, shards)
		t.piece[c] = make([][]randdist.Zipf, shards)
		for s := range shards {
			var err error
			if t.shard[c][s], err = randdist.NewZipf(uint64(g.ShardNodes(s)), theta); err != nil {
				return t, err
			}
			ends := g.PieceRanks(s)
			t.piece[c][s] = make([]randdist.Zipf, len(ends))
			start := int64(0)
			for k, end := range ends {
				if end > start {
					t.piece[c][s][k], _ = randdist.NewZipf(uint64(end-start), theta)
				}
				start = end
			}
		}
	}
	return t, nil
}

// separate maps a zero-based Zipf rank k of a write class among n ranks:
// ranks pair up as (i, i+n/2), and a pair keeps its order (the write's hot
// rank is the read's) with chance overlap, else swaps (the write's hot rank
// is a read's cold one). It is a bijection, so the write Zipf stays a Zipf
// over the same keys; key names the table, so shards differ.
func (t *skewTables) separate(k, n, key, tag uint64) uint64 {
	m := n / 2
	if m == 0 || k >= 2*m || t.overlap >= 1 {
		return k
	}
	i := k % m
	if float64(randdist.Hash(t.seed, key, i, tag)>>11)*0x1p-53 < t.overlap {
		return k
	}
	if k < m {
		return k + m
	}
	return k - m
}

func isWrite(c tao.Class) bool { return c == tao.Write || c == tao.WriteTxn }

// shardRank draws a node index of shard by class c's skew.
func (t *skewTables) shardRank(r *randdist.Rand, c tao.Class, shard int) int64 {
	z := &t.shard[c][shard]
	n := t.sPerm[shard].Len()
	k := z.Draw(r) - 1
	if isWrite(c) {
		k = t.separate(k, n, uint64(shard), 0x6f766c70)
	}
	return int64(t.sPerm[shard].Map(k))
}

// pieceRank draws a rank offset inside piece k of shard by class c's skew.
func (t *skewTables) pieceRank(r *randdist.Rand, c tao.Class, shard, k int) int64 {
	z := &t.piece[c][shard][k]
	p := &t.pPerm[shard][k]
	j := z.Draw(r) - 1
	if isWrite(c) {
		j = t.separate(j, p.Len(), uint64(shard)<<32|uint64(k), 0x6f766c71)
	}
	return int64(p.Map(j))
}
