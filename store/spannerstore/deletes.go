package spannerstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"cloud.google.com/go/spanner"

	"github.com/taobench/taobench/store"
)

var _ store.DeleteRecorder = (*DB)(nil)

// countPrefix starts the TaobenchMeta keys of counts runs keep (Meta
// leaves them out, ownRow); deletesKey is the obj_delete operations runs
// have sent, absent until a run records some (runs of taobench before it
// recorded none). In TaobenchMeta rather than a table of its own, so that a
// database set up before it needs no schema change; a drop (setup --drop)
// resets it with the rest of the table.
const (
	countPrefix = "count/"
	deletesKey  = countPrefix + "obj_deletes"
)

// AddObjDeletes adds n obj_delete operations a run sent to the count, in
// one read-write transaction (Spanner serializes two drivers' additions;
// spannertest, which does not, may lose one). A run that sent none
// records 0: the count then exists.
func (db *DB) AddObjDeletes(ctx context.Context, n int64) error {
	_, err := db.readWrite(ctx, func(ctx context.Context, tx *spanner.ReadWriteTransaction) error {
		old, _, err := readCount(ctx, tx, deletesKey)
		if err != nil {
			return err
		}
		return tx.BufferWrite([]*spanner.Mutation{spanner.InsertOrUpdate("TaobenchMeta", []string{"K", "V"}, []any{deletesKey, strconv.FormatInt(old+n, 10)})})
	})
	if err != nil {
		return fmt.Errorf("%s: recording the run's obj_delete operations: %w", db.name, err)
	}
	return nil
}

// ObjDeletes returns the obj_delete operations runs recorded; known is
// false when none recorded any.
func (db *DB) ObjDeletes(ctx context.Context) (n int64, known bool, err error) {
	ro := db.client.Single()
	defer ro.Close()
	if n, known, err = readCount(ctx, ro, deletesKey); err != nil {
		return 0, false, fmt.Errorf("%s: reading the runs' obj_delete operations: %w", db.name, err)
	}
	return n, known, nil
}

// readCount reads the count under key in TaobenchMeta; known is false
// when there is none.
func readCount(ctx context.Context, r reader, key string) (n int64, known bool, err error) {
	row, err := r.ReadRow(ctx, "TaobenchMeta", spanner.Key{key}, []string{"V"})
	if errors.Is(err, spanner.ErrRowNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	var v string
	if err := row.Columns(&v); err != nil {
		return 0, false, err
	}
	if n, err = strconv.ParseInt(v, 10, 64); err != nil {
		return 0, false, fmt.Errorf("TaobenchMeta %s is %q, not a count", key, v)
	}
	return n, true, nil
}
