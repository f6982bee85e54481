package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/taobench/taobench/store"
)

var _ store.RunRecorder = (*DB)(nil)

// runRecPrefix starts the taobench_meta keys of run records: taobench's
// own table, present in every database a run can use (a new table would
// need DDL on databases loaded before it), and read by key elsewhere, so
// the records disturb no reader of the graph's record.
const runRecPrefix = "runrec/"

// PutRunRecord records rec under key in taobench_meta.
func (db *DB) PutRunRecord(ctx context.Context, key, rec string) error {
	if err := db.SetMeta(ctx, map[string]string{runRecPrefix + key: rec}); err != nil {
		return fmt.Errorf("%s: recording this run: %w", db.name, err)
	}
	return nil
}

// RunRecords returns the run records in taobench_meta by key.
func (db *DB) RunRecords(ctx context.Context) (map[string]string, error) {
	m := map[string]string{}
	err := db.b.auto().query(ctx, "SELECT k, v FROM taobench_meta WHERE k LIKE '"+runRecPrefix+"%'", nil, func(scan func(...any) error) error {
		var k, v string
		if err := scan(&k, &v); err != nil {
			return err
		}
		if key, ok := strings.CutPrefix(k, runRecPrefix); ok {
			m[key] = v
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: reading the runs recorded in taobench_meta: %w", db.name, err)
	}
	return m, nil
}

// DeleteRunRecords removes the run records under keys.
func (db *DB) DeleteRunRecords(ctx context.Context, keys []string) error {
	del := "DELETE FROM taobench_meta WHERE k = ?"
	if db.d.name == "postgres" {
		del = dollars(del)
	}
	for _, k := range keys {
		if _, err := db.b.auto().execSQL(ctx, del, runRecPrefix+k); err != nil {
			return fmt.Errorf("%s: removing an old run record: %w", db.name, err)
		}
	}
	return nil
}

// AgreeStart returns the instant (Unix nanoseconds) recorded under key in
// taobench_counter, recording at when there is none or the one there is
// before stale. Conflicts are retried.
func (db *DB) AgreeStart(ctx context.Context, key string, at, stale time.Time) (time.Time, error) {
	var err error
	for range 20 {
		var n int64
		if n, err = db.agreeOnce(ctx, key, at.UnixNano(), stale.UnixNano()); err == nil {
			return time.Unix(0, n).UTC(), nil
		}
		if !turnLost(db.b.classify(err)) || ctx.Err() != nil {
			break
		}
	}
	return time.Time{}, fmt.Errorf("%s: recording the shared start of the run: %w", db.name, err)
}

// agreeOnce is ReserveRunKey's transaction: the lock on the 'run' row
// makes processes take turns, so the first records and the rest read.
func (db *DB) agreeOnce(ctx context.Context, key string, at, stale int64) (int64, error) {
	tx, err := db.b.begin(ctx, false)
	if err != nil {
		return 0, err
	}
	defer tx.rollback()
	if _, err := tx.execSQL(ctx, "UPDATE taobench_counter SET n = n WHERE name = 'run'"); err != nil {
		return 0, err
	}
	sel, ins, upd := "SELECT n FROM taobench_counter WHERE name = ?",
		"INSERT INTO taobench_counter (name, n) VALUES (?, ?)",
		"UPDATE taobench_counter SET n = ? WHERE name = ?"
	if db.d.name == "postgres" {
		sel, ins, upd = dollars(sel), dollars(ins), dollars(upd)
	}
	var n int64
	found := false
	if err := tx.query(ctx, sel, []any{key}, func(scan func(...any) error) error { found = true; return scan(&n) }); err != nil {
		return 0, err
	}
	switch {
	case found && n >= stale:
		return n, tx.commit(ctx)
	case found:
		_, err = tx.execSQL(ctx, upd, at, key)
	default:
		_, err = tx.execSQL(ctx, ins, key, at)
	}
	if err != nil {
		return 0, err
	}
	return at, tx.commit(ctx)
}
