package expect

import (
	"fmt"
	"github.com/taobench/taobench/fidelity"

	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/store"
)

// placementRows are the rows of where edges sit and what they point at:
// forward edges per id1 shard against the graph's placement (each shard's
// exact outdegree sum), and the ids edges point at that have no object
// beyond those runs may have deleted (TAO does not delete an object's
// associations with it, so an edge to a deleted object is no damage, but
// more missing ids than deleted objects is). objects counts the loaded
// objects present, runs the runs the database has had: with none, no
// missing object is credited to a delete.
func placementRows(g *graph.Graph, inv store.Inventory, objects, runs int64) []result.FidelityRow {
	byShard := make([]int64, g.Shards())
	expected := make([]float64, g.Shards())
	first, firstExp := 0.0, 0.0
	var all int64
	for s := range byShard {
		byShard[s] = inv.EdgesByShard1[s]
		expected[s] = g.ShardExpectedEdges(s)
		all += byShard[s]
	}
	if all > 0 && g.ExpectedEdges() > 0 {
		first, firstExp = float64(byShard[0])/float64(all), expected[0]/g.ExpectedEdges()
	}
	rows := []result.FidelityRow{fidelity.Chi("forward edges per id1 shard vs placement", byShard, expected,
		fmt.Sprintf("each shard's outdegree sum (shard 0: %.3f stored, %.3f placed)", first, firstExp))}
	deleted := RunsDeleted(g, inv, objects, runs)
	beyond := max(inv.MissingIDs-deleted, 0)
	var fwd int64
	for _, n := range inv.EdgesByBase {
		fwd += n
	}
	// n is the forward edges whose targets were looked up (their inverses
	// too): a database with none says nothing.
	r := result.FidelityRow{Figure: "missing objects edges point at", Target: 0, Observed: float64(beyond), N: fwd, P: -1,
		Note: fmt.Sprintf("beyond the %d loaded objects the %d run(s) since the load can have deleted (%s): %d edges point at %d ids with no object", deleted, max(runs, 0), deletesNote(inv), inv.MissingTargets, inv.MissingIDs)}
	if inv.MissingExample != "" {
		r.Note += "; e.g. " + inv.MissingExample
	}
	switch {
	case beyond > 0:
		r.Verdict = result.Fail
	case fwd == 0:
		r.Verdict = result.Skipped
	default:
		r.Verdict = result.Pass
	}
	return append(rows, r)
}

// RunsDeleted is how many missing loaded objects runs can explain: none
// without a run since the load; else those missing (objects counts the
// loaded objects present), at most the obj_delete operations the runs
// recorded sending when they recorded them (runs of taobench before the
// count recorded none: all missing are credited then).
func RunsDeleted(g *graph.Graph, inv store.Inventory, objects, runs int64) int64 {
	if runs <= 0 {
		return 0 // nothing deleted them: the load wrote every object
	}
	deleted := max(g.Nodes()-objects, 0)
	if inv.ObjDeletesKnown {
		deleted = min(deleted, inv.ObjDeletes)
	}
	return deleted
}

// deletesNote says what bounds the credit RunsDeleted gives.
func deletesNote(inv store.Inventory) string {
	if inv.ObjDeletesKnown {
		return fmt.Sprintf("at most the %d obj_delete operations they recorded", inv.ObjDeletes)
	}
	return "no run recorded its obj_delete operations: every missing loaded object credited"
}
