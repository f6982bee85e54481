package expect

import (
	"fmt"
	"sort"
	"strings"

	"github.com/taobench/taobench/fidelity"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/store"
)

// OffPlacement lists the shards where loaded ids sit beyond the graph's
// placement (a shard the graph does not have, or a node index at or past
// the shard's nodes): objects, and the id1 of forward edges. Runs create
// ids of their own (tao.NewID), never loaded ones, so none is ever off.
func OffPlacement(g *graph.Graph, in *store.Integrity) []string {
	var off []string
	for _, x := range []struct {
		what string
		max  map[int]int64
	}{{"objects", in.ObjectMaxIndex}, {"edges' id1", in.EdgeMaxIndex}} {
		shards := make([]int, 0, len(x.max))
		for s := range x.max {
			shards = append(shards, s)
		}
		sort.Ints(shards)
		for _, s := range shards {
			switch m := x.max[s]; {
			case s >= g.Shards():
				off = append(off, fmt.Sprintf("%s on shard %d, which the graph does not have (%d shards)", x.what, s, g.Shards()))
			case m >= g.ShardNodes(s):
				off = append(off, fmt.Sprintf("%s on shard %d up to index %d, the shard has %d nodes", x.what, s, m, g.ShardNodes(s)))
			}
		}
	}
	return off
}

// OffBounds are the bounds of the shards where OffPlacement finds loaded
// ids (store.PlacementCounter): the shard's nodes, 0 for a shard the graph
// does not have.
func OffBounds(g *graph.Graph, in *store.Integrity) map[int]int64 {
	b := map[int]int64{}
	for _, m := range []map[int]int64{in.ObjectMaxIndex, in.EdgeMaxIndex} {
		for s, i := range m {
			switch {
			case s >= g.Shards():
				b[s] = 0
			case i >= g.ShardNodes(s):
				b[s] = g.ShardNodes(s)
			}
		}
	}
	return b
}

// integrityRows are the rows of what no run may break (the same as
// check's invariants): every loaded id where the graph places it, every
// bidirectional edge with its inverse (and every inverse with its edge),
// and at most one edge per (id1, type) of a unique type and per (id1,
// type, id2). Each has target 0 and fails on any; none of a store that
// does not count them.
func integrityRows(g *graph.Graph, inv store.Inventory) []result.FidelityRow {
	in := inv.Integrity
	if in == nil {
		return nil
	}
	var objects, fwd int64
	for _, n := range inv.Objects {
		objects += n
	}
	for _, n := range inv.EdgesByBase {
		fwd += n
	}
	off := OffPlacement(g, in)
	note := "node indices of loaded objects and of forward edges' id1, by shard, against the graph's nodes per shard (primary_shards)"
	if len(off) > 0 {
		note += ": " + strings.Join(off, "; ")
	}
	place := result.FidelityRow{Figure: "ids off the graph's placement", Target: 0, Observed: float64(len(off)), N: objects + fwd, P: -1, Note: note}
	place.Verdict = fidelity.Verdict(place.N, len(off) == 0)

	missing := in.MissingInverse + in.MissingForward
	inverse := result.FidelityRow{Figure: "bidirectional edges without their inverse", Target: 0, Observed: float64(missing), N: in.Bidirectional, P: -1,
		Note: fmt.Sprintf("%d forward edges with no inverse, %d inverses with no forward edge, of %d rows of bidirectional types; a run whose workload injects fail_after_primary_commit leaves such rows by design", in.MissingInverse, in.MissingForward, in.Bidirectional)}
	inverse.Verdict = fidelity.Verdict(in.Bidirectional, missing == 0)

	extra := in.UniqueExtra + in.Duplicates
	unique := result.FidelityRow{Figure: "edges beyond one per key", Target: 0, Observed: float64(extra), N: fwd, P: -1,
		Note: fmt.Sprintf("%d beyond the first of a unique type's (id1, type) (%d edges of unique types), %d beyond the first of an (id1, type, id2)", in.UniqueExtra, in.Unique, in.Duplicates)}
	unique.Verdict = fidelity.Verdict(fwd, extra == 0)
	return []result.FidelityRow{place, inverse, unique}
}
