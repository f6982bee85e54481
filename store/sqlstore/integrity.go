package sqlstore

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// indexMod is 1 << 56: an id modulo it is its node index (tao.IndexOf),
// written so that every dialect reads it alike.
const indexMod = "72057594037927936"

// inspectIntegrity adds to inv what no run may break: the largest node
// index of loaded ids by shard (objects, and the id1 of forward edges),
// bidirectional edges with no inverse and inverses with no forward edge,
// and edges beyond the first of a unique type's (id1, type) or of an
// (id1, type, id2). Check holds the same as invariants; these are counts
// for validate's rows.
func (db *DB) inspectIntegrity(ctx context.Context, inv *store.Inventory) error {
	q := db.b.auto()
	in := &store.Integrity{ObjectMaxIndex: map[int]int64{}, EdgeMaxIndex: map[int]int64{}}
	fwd := typeList(tao.EdgeType.IsForward)
	bidirFwd := typeList(func(t tao.EdgeType) bool { _, ok := t.Inverse(); return ok && t.IsForward() })
	bidirInv := typeList(func(t tao.EdgeType) bool { _, ok := t.Inverse(); return ok && !t.IsForward() })
	bidir := typeList(func(t tao.EdgeType) bool { _, ok := t.Inverse(); return ok })
	uniq := typeList(tao.EdgeType.IsUnique)
	missing := func(types string) string {
		if db.d.antiJoin { // Vitess plans no correlated NOT EXISTS (dialect.antiJoin)
			return "SELECT COUNT(*) FROM edges e LEFT JOIN edges i ON i.id1 = e.id2 AND i.type = " + inverseCase("e.type") + " AND i.id2 = e.id1 " +
				"WHERE " + baseOf("e.type") + " IN (" + types + ") AND i.id1 IS NULL"
		}
		return "SELECT COUNT(*) FROM edges e WHERE " + baseOf("e.type") + " IN (" + types + ") AND NOT EXISTS (SELECT 1 FROM edges i " +
			"WHERE i.id1 = e.id2 AND i.type = " + inverseCase("e.type") + " AND i.id2 = e.id1)"
	}
	// id >> 56 is the shard and the created-at-run-time bit.
	maxIndex := func(into map[int]int64) func(scan func(...any) error) error {
		return func(scan func(...any) error) error {
			var k, m int64
			if err := scan(&k, &m); err != nil {
				return err
			}
			if k&1 == 0 {
				into[int(k>>1)] = max(into[int(k>>1)], m)
			}
			return nil
		}
	}
	one := func(into *int64) func(scan func(...any) error) error {
		return func(scan func(...any) error) error { return scan(into) }
	}
	queries := []struct {
		sql string
		row func(scan func(...any) error) error
	}{
		{fmt.Sprintf("SELECT id >> %d, MAX(id %% %s) FROM objects GROUP BY 1", tao.ShardShift-1, indexMod), maxIndex(in.ObjectMaxIndex)},
		{fmt.Sprintf("SELECT id1 >> %d, MAX(id1 %% %s) FROM edges WHERE %s IN (%s) GROUP BY 1", tao.ShardShift-1, indexMod, baseOf("type"), fwd), maxIndex(in.EdgeMaxIndex)},
		{missing(bidirFwd), one(&in.MissingInverse)},
		{missing(bidirInv), one(&in.MissingForward)},
		{"SELECT COUNT(*) FROM edges WHERE " + baseOf("type") + " IN (" + bidir + ")", one(&in.Bidirectional)},
		{"SELECT COUNT(*) FROM edges WHERE " + baseOf("type") + " IN (" + uniq + ")", one(&in.Unique)},
		{"SELECT COALESCE(SUM(n - 1), 0) FROM (SELECT COUNT(*) AS n FROM edges WHERE " + baseOf("type") + " IN (" + uniq + ") GROUP BY id1, type HAVING COUNT(*) > 1) d", one(&in.UniqueExtra)},
		{"SELECT COALESCE(SUM(n - 1), 0) FROM (SELECT COUNT(*) AS n FROM edges GROUP BY id1, type, id2 HAVING COUNT(*) > 1) d", one(&in.Duplicates)},
	}
	for _, x := range queries {
		if err := q.query(ctx, x.sql, nil, x.row); err != nil {
			return err
		}
	}
	inv.Integrity = in
	return nil
}

// CountOffPlacement counts the loaded objects and forward edges (by id1)
// at or past their shard's bound (store.PlacementCounter): one query
// each, over the shards of bounds only (those Integrity's largest indices
// put off), so that a sound database costs nothing more.
func (db *DB) CountOffPlacement(ctx context.Context, bounds map[int]int64) (objects, edges int64, err error) {
	if len(bounds) == 0 {
		return 0, 0, nil
	}
	off := func(col string) string {
		var or []string
		for s, n := range bounds {
			// id >> 56 is the shard and the created-at-run-time bit (0: loaded).
			or = append(or, fmt.Sprintf("(%s >> %d = %d AND %s %% %s >= %d)", col, tao.ShardShift-1, 2*int64(s), col, indexMod, max(n, 0)))
		}
		sort.Strings(or)
		return "(" + strings.Join(or, " OR ") + ")"
	}
	q := db.b.auto()
	one := func(into *int64) func(scan func(...any) error) error {
		return func(scan func(...any) error) error { return scan(into) }
	}
	fwd := typeList(tao.EdgeType.IsForward)
	if err := q.query(ctx, "SELECT COUNT(*) FROM objects WHERE "+off("id"), nil, one(&objects)); err != nil {
		return 0, 0, err
	}
	if err := q.query(ctx, "SELECT COUNT(*) FROM edges WHERE "+baseOf("type")+" IN ("+fwd+") AND "+off("id1"), nil, one(&edges)); err != nil {
		return 0, 0, err
	}
	return objects, edges, nil
}
