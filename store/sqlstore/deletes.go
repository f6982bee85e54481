package sqlstore

import (
	"context"
	"fmt"

	"github.com/taobench/taobench/store"
)

var _ store.DeleteRecorder = (*DB)(nil)

// deletesCounter names the taobench_counter row of the obj_delete
// operations runs have sent; absent until a run records some (runs of
// taobench before it recorded none).
const deletesCounter = "obj_deletes"

// AddObjDeletes adds n obj_delete operations a run sent to the count.
func (db *DB) AddObjDeletes(ctx context.Context, n int64) error {
	ins := "INSERT INTO taobench_counter (name, n) VALUES ('" + deletesCounter + "', 0) ON CONFLICT DO NOTHING"
	upd := "UPDATE taobench_counter SET n = n + ? WHERE name = '" + deletesCounter + "'"
	switch db.d.name {
	case "mysql":
		ins = "INSERT IGNORE INTO taobench_counter (name, n) VALUES ('" + deletesCounter + "', 0)"
	case "postgres":
		upd = dollars(upd)
	}
	q := db.b.auto()
	if _, err := q.execSQL(ctx, ins); err != nil {
		return fmt.Errorf("%s: recording the run's obj_delete operations: %w", db.name, err)
	}
	if n == 0 {
		return nil
	}
	if _, err := q.execSQL(ctx, upd, n); err != nil {
		return fmt.Errorf("%s: recording the run's obj_delete operations: %w", db.name, err)
	}
	return nil
}

// ObjDeletes returns the obj_delete operations runs recorded; known is
// false when none recorded any.
func (db *DB) ObjDeletes(ctx context.Context) (n int64, known bool, err error) {
	err = db.b.auto().query(ctx, "SELECT n FROM taobench_counter WHERE name = '"+deletesCounter+"'", nil,
		func(scan func(...any) error) error { known = true; return scan(&n) })
	if err != nil {
		return 0, false, fmt.Errorf("%s: reading the runs' obj_delete operations: %w", db.name, err)
	}
	return n, known, nil
}
