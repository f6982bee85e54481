package sqlstore

import (
	"context"
	"fmt"

	"github.com/taobench/taobench/store"
)

var _ store.RunKeyer = (*DB)(nil)

// ReserveRunKey returns the run number recorded under key in
// taobench_counter, reserving one (as ReserveRun does) when the key is new.
// Drivers of one run call it at about the same moment: each transaction
// first locks the 'run' row, so they take turns and only the first
// reserves; the rest find its row. Conflicts are retried.
func (db *DB) ReserveRunKey(ctx context.Context, key string) (int64, error) {
	var err error
	for range 20 {
		var n int64
		n, err = db.reserveKeyOnce(ctx, key)
		if err == nil {
			return n, nil
		}
		if !turnLost(db.b.classify(err)) || ctx.Err() != nil {
			break
		}
	}
	return 0, fmt.Errorf("%s: reserving the run number of %s: %w", db.name, key, err)
}

func (db *DB) reserveKeyOnce(ctx context.Context, key string) (int64, error) {
	tx, err := db.b.begin(ctx, false)
	if err != nil {
		return 0, err
	}
	defer tx.rollback()
	// The lock that makes drivers take turns (SQLite's write transaction
	// already does).
	if _, err := tx.execSQL(ctx, "UPDATE taobench_counter SET n = n WHERE name = 'run'"); err != nil {
		return 0, err
	}
	sel, ins := "SELECT n FROM taobench_counter WHERE name = ?", "INSERT INTO taobench_counter (name, n) VALUES (?, ?)"
	if db.d.name == "postgres" {
		sel, ins = dollars(sel), dollars(ins)
	}
	var n int64
	found := false
	if err := tx.query(ctx, sel, []any{key}, func(scan func(...any) error) error { found = true; return scan(&n) }); err != nil {
		return 0, err
	}
	if found {
		return n, tx.commit(ctx)
	}
	if n, err = db.reserveIn(ctx, tx); err != nil {
		return 0, err
	}
	if _, err := tx.execSQL(ctx, ins, key, n); err != nil {
		return 0, err
	}
	return n, tx.commit(ctx)
}
