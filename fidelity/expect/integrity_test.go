package expect

import (
	"testing"

	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/workload"
)

// TestIntegrityRows: counts as a load leaves them pass the rows of
// placement, inverses and uniqueness; an id past its shard's nodes, on a
// shard the graph lacks, an inverse missing or a second edge of a unique
// key fails its row; no store count, no row; no rows examined, skipped.
func TestIntegrityRows(t *testing.T) {
	t.Parallel()
	w, _ := workload.Builtin("a")
	g, err := graph.New(w, 1, 20000)
	if err != nil {
		t.Fatal(err)
	}
	clean := func() store.Inventory {
		in := &store.Integrity{ObjectMaxIndex: map[int]int64{}, EdgeMaxIndex: map[int]int64{}, Bidirectional: 4000, Unique: 900}
		inv := store.Inventory{Objects: map[int]int64{}, EdgesByBase: map[int64]int64{1: 900, 2: 2000, 6: 17000}, Integrity: in}
		for s := range g.Shards() {
			inv.Objects[s] = g.ShardNodes(s)
			in.ObjectMaxIndex[s] = g.ShardNodes(s) - 1
			in.EdgeMaxIndex[s] = g.ShardNodes(s) - 1
		}
		return inv
	}
	rowsOf := func(inv store.Inventory) map[string]string {
		m := map[string]string{}
		for _, r := range integrityRows(g, inv) {
			m[r.Figure] = r.Verdict
		}
		return m
	}
	const place, inverse, unique = "ids off the graph's placement", "bidirectional edges without their inverse", "edges beyond one per key"
	for f, v := range rowsOf(clean()) {
		if v != result.Pass {
			t.Errorf("a clean load: %s %s", f, v)
		}
	}
	for _, c := range []struct {
		name, row string
		damage    func(in *store.Integrity)
	}{
		{"an object past its shard's nodes", place, func(in *store.Integrity) { in.ObjectMaxIndex[0] = g.ShardNodes(0) }},
		{"an edge from a shard the graph lacks", place, func(in *store.Integrity) { in.EdgeMaxIndex[g.Shards()] = 0 }},
		{"an inverse missing", inverse, func(in *store.Integrity) { in.MissingInverse = 1 }},
		{"a forward edge missing", inverse, func(in *store.Integrity) { in.MissingForward = 1 }},
		{"a second edge of a unique (id1, type)", unique, func(in *store.Integrity) { in.UniqueExtra = 1 }},
		{"a duplicate (id1, type, id2)", unique, func(in *store.Integrity) { in.Duplicates = 1 }},
	} {
		inv := clean()
		c.damage(inv.Integrity)
		if v := rowsOf(inv)[c.row]; v != result.Fail {
			t.Errorf("%s: %s %s, want fail", c.name, c.row, v)
		}
	}
	none := clean()
	none.Integrity = nil
	if rows := integrityRows(g, none); rows != nil {
		t.Errorf("a store that does not count: %v", rows)
	}
	empty := clean()
	empty.Integrity.Bidirectional = 0
	if v := rowsOf(empty)[inverse]; v != result.Skipped {
		t.Errorf("no bidirectional edge: %s, want skipped", v)
	}
}
