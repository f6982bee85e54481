package sqlstore

import (
	"context"
	"fmt"

	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

var _ store.Inspector = (*DB)(nil)

// Inspect counts the rows by shard and type in three grouped scans.
func (db *DB) Inspect(ctx context.Context) (store.Inventory, error) {
	inv := store.Inventory{Objects: map[int]int64{}, EdgesByBase: map[int64]int64{}, EdgesByShard2: map[int]int64{}}
	fwd := typeList(tao.EdgeType.IsForward)
	q := db.b.auto()
	queries := []struct {
		sql string
		row func(k, n int64)
	}{
		// id >> 56 is the shard and the created-at-run-time bit (graph ids).
		{fmt.Sprintf("SELECT id >> %d, COUNT(*) FROM objects GROUP BY 1", tao.ShardShift-1), func(k, n int64) {
			if k&1 == 1 {
				inv.NewObjects += n
			} else {
				inv.Objects[int(k>>1)] += n
			}
		}},
		{"SELECT " + baseOf("type") + ", COUNT(*) FROM edges WHERE " + baseOf("type") + " IN (" + fwd + ") GROUP BY 1",
			func(k, n int64) { inv.EdgesByBase[k] += n }},
		{fmt.Sprintf("SELECT id2 >> %d, COUNT(*) FROM edges WHERE %s IN (%s) GROUP BY 1", tao.ShardShift, baseOf("type"), fwd),
			func(k, n int64) { inv.EdgesByShard2[int(k)] += n }},
	}
	for _, x := range queries {
		err := q.query(ctx, x.sql, nil, func(scan func(...any) error) error {
			var k, n int64
			if err := scan(&k, &n); err != nil {
				return err
			}
			x.row(k, n)
			return nil
		})
		if err != nil {
			return inv, fmt.Errorf("%s: taking the inventory: %w", db.name, err)
		}
	}
	if err := db.inspectPlacement(ctx, &inv); err != nil {
		return inv, fmt.Errorf("%s: taking the inventory: %w", db.name, err)
	}
	if err := db.inspectShape(ctx, &inv); err != nil {
		return inv, fmt.Errorf("%s: taking the inventory: %w", db.name, err)
	}
	if err := db.inspectIntegrity(ctx, &inv); err != nil {
		return inv, fmt.Errorf("%s: taking the inventory: %w", db.name, err)
	}
	var err error
	if inv.ObjDeletes, inv.ObjDeletesKnown, err = db.ObjDeletes(ctx); err != nil {
		return inv, err
	}
	return inv, nil
}

// Runs returns how many run numbers ReserveRun has handed out since the
// schema was created.
func (db *DB) Runs(ctx context.Context) (int64, error) {
	var n int64
	err := db.b.auto().query(ctx, "SELECT n FROM taobench_counter WHERE name = 'run'", nil,
		func(scan func(...any) error) error { return scan(&n) })
	if err != nil {
		return 0, fmt.Errorf("%s: reading the run counter: %w", db.name, err)
	}
	return n, nil
}

// degreeSample is about how many loaded objects the out-degree histogram
// groups: the stride halves the scan's groups until they fit.
const degreeSample = 1 << 18

// inspectShape adds to inv the forward edges timestamped before any load
// or run writes one, by base type, and the out-degree histogram of a
// stride sample of the loaded objects (aggregated in the database: one
// grouped scan each).
func (db *DB) inspectShape(ctx context.Context, inv *store.Inventory) error {
	q := db.b.auto()
	fwd := typeList(tao.EdgeType.IsForward)
	inv.TimeFloor = tao.LoadTimeBase
	inv.EdgesBeforeTime = map[int64]int64{}
	err := q.query(ctx, fmt.Sprintf("SELECT %s, COUNT(*) FROM edges WHERE %s IN (%s) AND timestamp < %d GROUP BY 1", baseOf("type"), baseOf("type"), fwd, inv.TimeFloor), nil,
		func(scan func(...any) error) error {
			var t, n int64
			if err := scan(&t, &n); err != nil {
				return err
			}
			inv.EdgesBeforeTime[t] += n
			return nil
		})
	if err != nil {
		return err
	}
	var objects int64
	for _, n := range inv.Objects {
		objects += n
	}
	inv.DegreeStride = 1
	for objects/inv.DegreeStride > degreeSample {
		inv.DegreeStride *= 2
	}
	inv.OutDegrees = map[int64]int64{}
	// A power-of-two stride divides 1 << 56, so id % stride is the index's.
	return q.query(ctx, fmt.Sprintf("SELECT d, COUNT(*) FROM (SELECT id1, COUNT(*) AS d FROM edges WHERE %s IN (%s) AND (id1 >> 56) %% 2 = 0 AND id1 %% %d = 0 GROUP BY id1) per GROUP BY d",
		baseOf("type"), fwd, inv.DegreeStride), nil,
		func(scan func(...any) error) error {
			var d, n int64
			if err := scan(&d, &n); err != nil {
				return err
			}
			inv.OutDegrees[d] += n
			return nil
		})
}
