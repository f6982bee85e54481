package sqlstore

import (
	"context"
	"fmt"

	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// inspectPlacement adds to inv what the inventory's first scans do not
// count: forward edges by the shard of their id1, and edges whose id2 is a
// loaded node's id (not one created at run time) with no object, with
// the distinct ids missing and one example.
func (db *DB) inspectPlacement(ctx context.Context, inv *store.Inventory) error {
	q := db.b.auto()
	fwd := typeList(tao.EdgeType.IsForward)
	inv.EdgesByShard1 = map[int]int64{}
	err := q.query(ctx, fmt.Sprintf("SELECT id1 >> %d, COUNT(*) FROM edges WHERE %s IN (%s) GROUP BY 1", tao.ShardShift, baseOf("type"), fwd), nil,
		func(scan func(...any) error) error {
			var s, n int64
			if err := scan(&s, &n); err != nil {
				return err
			}
			inv.EdgesByShard1[int(s)] += n
			return nil
		})
	if err != nil {
		return err
	}
	// Value sizes, as TAO §7, Fig. 6 measures them (ASCII payloads: a
	// character is a byte in every dialect).
	// One group per base type: the totals are their sums.
	inv.EmptyByBase, inv.ValueBytesByBase = map[int64]int64{}, map[int64]int64{}
	err = q.query(ctx, fmt.Sprintf("SELECT %s, COALESCE(SUM(CASE WHEN LENGTH(value) = 0 THEN 1 ELSE 0 END), 0), COALESCE(SUM(LENGTH(value)), 0) FROM edges WHERE %s IN (%s) GROUP BY 1", baseOf("type"), baseOf("type"), fwd), nil,
		func(scan func(...any) error) error {
			var t, empty, bytes int64
			if err := scan(&t, &empty, &bytes); err != nil {
				return err
			}
			inv.EmptyByBase[t] += empty
			inv.ValueBytesByBase[t] += bytes
			inv.EdgeValuesEmpty += empty
			inv.EdgeValueBytes += bytes
			return nil
		})
	if err != nil {
		return err
	}
	err = q.query(ctx, "SELECT COUNT(*), COALESCE(SUM(LENGTH(value)), 0) FROM objects WHERE (id >> 56) % 2 = 0", nil,
		func(scan func(...any) error) error { return scan(&inv.ObjectValues, &inv.ObjectValueBytes) })
	if err != nil {
		return err
	}
	// Bit 56 marks ids created at run time (tao.NewID).
	missing := "FROM edges e WHERE (e.id2 >> 56) % 2 = 0 AND NOT EXISTS (SELECT 1 FROM objects o WHERE o.id = e.id2)"
	if db.d.antiJoin {
		missing = "FROM edges e LEFT JOIN objects o ON o.id = e.id2 WHERE (e.id2 >> 56) % 2 = 0 AND o.id IS NULL"
	}
	err = q.query(ctx, "SELECT COUNT(*), COUNT(DISTINCT e.id2) "+missing, nil, func(scan func(...any) error) error {
		return scan(&inv.MissingTargets, &inv.MissingIDs)
	})
	if err != nil || inv.MissingTargets == 0 {
		return err
	}
	return q.query(ctx, "SELECT e.id1, e.type, e.id2 "+missing+" LIMIT 1", nil, func(scan func(...any) error) error {
		var a, t, b int64
		if err := scan(&a, &t, &b); err != nil {
			return err
		}
		inv.MissingExample = fmt.Sprintf("edge (%d, %d, %d): no object %d (shard %d, index %d)", a, t, b, b, tao.ShardOf(b), tao.IndexOf(b))
		return nil
	})
}
