package spannerstore

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"cloud.google.com/go/spanner"
	"google.golang.org/api/iterator"

	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

var (
	_ store.Inspector   = (*DB)(nil)
	_ store.RunKeyer    = (*DB)(nil)
	_ store.StatsReader = (*DB)(nil)
)

// scanEdges reads every edge's key in one strong read and calls f for each.
func (db *DB) scanEdges(ctx context.Context, f func(id1 int64, t tao.EdgeType, id2 int64)) error {
	ro := db.client.Single()
	defer ro.Close()
	return ro.Read(ctx, "Edges", spanner.AllKeys(), []string{"Id1", "Type", "Id2"}).Do(func(r *spanner.Row) error {
		var id1, t, id2 int64
		if err := r.Columns(&id1, &t, &id2); err != nil {
			return err
		}
		f(id1, tao.EdgeType(t), id2)
		return nil
	})
}

// Check verifies the graph's invariants. It scans the edges' keys and
// matches them in the driver: the anti-join a SQL store runs on its server
// (NOT EXISTS) is a query spannertest cannot run, and one scan of the
// primary key serves every invariant. It holds the keys of the
// bidirectional edges in memory: about 50 bytes an edge.
func (db *DB) Check(ctx context.Context) ([]store.Violation, error) {
	bidir := map[rowKey]bool{}
	type list struct{ id1, t int64 }
	uniq := map[list]int64{}
	err := db.scanEdges(ctx, func(id1 int64, t tao.EdgeType, id2 int64) {
		if _, ok := t.Inverse(); ok {
			bidir[edgeKey(id1, t, id2)] = true
		}
		if t.IsUnique() {
			uniq[list{id1, int64(t)}]++
		}
	})
	if err != nil {
		return nil, fmt.Errorf("%s: checking the edges: %w (run setup first)", db.name, err)
	}
	var fwd, inv store.Violation
	fwd.Invariant, inv.Invariant = "bidirectional edge has its inverse", "inverse edge has its forward edge"
	// In key order, so the example is the first by key, as a SQL store's would be.
	keys := make([]rowKey, 0, len(bidir))
	for k := range bidir {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b rowKey) int {
		return cmpKeys(a.id1, b.id1, a.typ, b.typ, a.id2, b.id2)
	})
	for _, k := range keys {
		t := tao.EdgeType(k.typ)
		i, _ := t.Inverse()
		if bidir[edgeKey(k.id2, i, k.id1)] {
			continue
		}
		v := &inv
		if t.IsForward() {
			v = &fwd
		}
		if v.Count == 0 {
			v.Example = fmt.Sprintf("edge (%d, %d, %d)", k.id1, k.typ, k.id2)
		}
		v.Count++
	}
	var vs []store.Violation
	for _, v := range []store.Violation{fwd, inv} {
		if v.Count > 0 {
			vs = append(vs, v)
		}
	}
	dup := store.Violation{Invariant: "unique type has at most one edge per (id1, type)"}
	for l, n := range uniq {
		if n > 1 {
			if dup.Count == 0 {
				dup.Example = fmt.Sprintf("id1 %d has %d edges of unique type %d", l.id1, n, l.t)
			}
			dup.Count++
		}
	}
	if dup.Count > 0 {
		vs = append(vs, dup)
	}
	ok, err := db.hasIndex(ctx)
	if err != nil {
		return vs, err
	}
	if !ok {
		vs = append(vs, store.Violation{Invariant: "every index exists", Count: 1,
			Example: "index EdgesByTime (a load was interrupted before it rebuilt it: load again, or run setup)"})
	}
	return vs, nil
}

func cmpKeys(a ...int64) int {
	for i := 0; i+1 < len(a); i += 2 {
		if a[i] != a[i+1] {
			if a[i] < a[i+1] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// hasIndex reports whether the time index exists: a query forced to use
// it fails when it does not. (spannertest keeps no index and ignores the
// hint, so there it always exists.)
func (db *DB) hasIndex(ctx context.Context) (bool, error) {
	ro := db.client.Single()
	defer ro.Close()
	it := ro.Query(ctx, spanner.NewStatement("SELECT Id1 FROM Edges@{FORCE_INDEX=EdgesByTime} LIMIT 1"))
	defer it.Stop()
	_, err := it.Next()
	switch {
	case err == nil || err == iterator.Done:
		return true, nil
	case strings.Contains(err.Error(), "EdgesByTime"):
		return false, nil
	}
	return false, fmt.Errorf("%s: looking for index EdgesByTime: %w", db.name, err)
}

// Inspect counts the rows by shard and type, the value sizes, and the
// edges that point at a loaded id with no object, from one scan of each
// table. The missing targets are matched in the driver, as Check matches
// inverses: it holds the loaded objects' ids, 8 bytes each. The integrity
// counts are queries Spanner runs (integrity.go), and the obj_delete
// operations runs recorded are read from TaobenchMeta (deletes.go), on
// the same snapshot.
func (db *DB) Inspect(ctx context.Context) (store.Inventory, error) {
	inv := store.Inventory{Objects: map[int]int64{}, EdgesByBase: map[int64]int64{}, EdgesByShard2: map[int]int64{}, EdgesByShard1: map[int]int64{},
		EmptyByBase: map[int64]int64{}, ValueBytesByBase: map[int64]int64{}}
	ro := db.client.ReadOnlyTransaction() // both scans on one snapshot
	defer ro.Close()
	loaded := map[int64]bool{}
	err := ro.Read(ctx, "Objects", spanner.AllKeys(), []string{"Id", "Value"}).Do(func(r *spanner.Row) error {
		var id int64
		var v []byte
		if err := r.Columns(&id, &v); err != nil {
			return err
		}
		// id >> 56 is the shard and the created-at-run-time bit (graph ids).
		if k := uint64(id) >> (tao.ShardShift - 1); k&1 == 1 {
			inv.NewObjects++
		} else {
			inv.Objects[int(k>>1)]++
			inv.ObjectValues++
			inv.ObjectValueBytes += int64(len(v))
			loaded[id] = true
		}
		return nil
	})
	if err == nil {
		missing := map[int64]bool{}
		err = ro.Read(ctx, "Edges", spanner.AllKeys(), []string{"Id1", "Type", "Id2", "Value"}).Do(func(r *spanner.Row) error {
			var id1, ti, id2 int64
			var v []byte
			if err := r.Columns(&id1, &ti, &id2, &v); err != nil {
				return err
			}
			t := tao.EdgeType(ti)
			if t.Base().IsForward() {
				inv.EdgesByBase[int64(t.Base())]++
				inv.EdgesByShard2[tao.ShardOf(id2)]++
				inv.EdgesByShard1[tao.ShardOf(id1)]++
				if len(v) == 0 {
					inv.EdgeValuesEmpty++
					inv.EmptyByBase[int64(t.Base())]++
				}
				inv.EdgeValueBytes += int64(len(v))
				inv.ValueBytesByBase[int64(t.Base())] += int64(len(v))
			}
			// Bit 56 marks ids created at run time (tao.NewID).
			if (uint64(id2)>>(tao.ShardShift-1))&1 == 0 && !loaded[id2] {
				inv.MissingTargets++
				if !missing[id2] {
					missing[id2] = true
					inv.MissingIDs++
				}
				if inv.MissingExample == "" {
					inv.MissingExample = fmt.Sprintf("edge (%d, %d, %d): no object %d (shard %d, index %d)", id1, ti, id2, id2, tao.ShardOf(id2), tao.IndexOf(id2))
				}
			}
			return nil
		})
	}
	if err == nil {
		inv.Integrity, err = db.inspectIntegrity(ctx, ro)
	}
	if err == nil {
		inv.ObjDeletes, inv.ObjDeletesKnown, err = readCount(ctx, ro, deletesKey)
	}
	if err != nil {
		return inv, fmt.Errorf("%s: taking the inventory: %w", db.name, err)
	}
	return inv, nil
}

// ServerStats says what Spanner can say through this API: the product.
// Spanner's statistics are SPANNER_SYS tables of per-minute aggregates
// (lock waits, transaction and query statistics), not the cumulative
// counters a caller can subtract across one experiment, and table sizes
// are in Cloud Monitoring, outside the database API; the error says so.
func (db *DB) ServerStats(ctx context.Context) (store.ServerStats, error) {
	return store.ServerStats{Engine: "spanner", Product: "Cloud Spanner"},
		fmt.Errorf("%s: Spanner keeps no cumulative counters to read before and after a run (SPANNER_SYS has per-minute aggregates; sizes are in Cloud Monitoring)", db.name)
}
