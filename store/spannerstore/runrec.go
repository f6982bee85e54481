package spannerstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/spanner"
	"google.golang.org/grpc/codes"

	"github.com/taobench/taobench/store"
)

var _ store.RunRecorder = (*DB)(nil)

// runRecPrefix and startPrefix start the TaobenchMeta keys of run records
// and of run ids' shared starts: taobench's own table, which Meta reads
// without them.
const (
	runRecPrefix = "runrec/"
	startPrefix  = "start/"
)

// ownRow reports whether a TaobenchMeta key is a run record, a shared
// start or a count runs keep (deletes.go) rather than the graph's record.
func ownRow(k string) bool {
	return strings.HasPrefix(k, runRecPrefix) || strings.HasPrefix(k, startPrefix) || strings.HasPrefix(k, countPrefix)
}

// PutRunRecord records rec under key in TaobenchMeta.
func (db *DB) PutRunRecord(ctx context.Context, key, rec string) error {
	m := spanner.InsertOrUpdate("TaobenchMeta", []string{"K", "V"}, []any{runRecPrefix + key, rec})
	if _, err := db.apply(ctx, []*spanner.Mutation{m}); err != nil {
		return fmt.Errorf("%s: recording this run: %w", db.name, err)
	}
	return nil
}

// RunRecords returns the run records in TaobenchMeta by key.
func (db *DB) RunRecords(ctx context.Context) (map[string]string, error) {
	m := map[string]string{}
	it := db.client.Single().Read(ctx, "TaobenchMeta", spanner.AllKeys(), []string{"K", "V"})
	err := it.Do(func(r *spanner.Row) error {
		var k, v string
		if err := r.Columns(&k, &v); err != nil {
			return err
		}
		if key, ok := strings.CutPrefix(k, runRecPrefix); ok {
			m[key] = v
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: reading the runs recorded in TaobenchMeta: %w", db.name, err)
	}
	return m, nil
}

// DeleteRunRecords removes the run records under keys.
func (db *DB) DeleteRunRecords(ctx context.Context, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	var ms []*spanner.Mutation
	for _, k := range keys {
		ms = append(ms, spanner.Delete("TaobenchMeta", spanner.Key{runRecPrefix + k}))
	}
	if _, err := db.apply(ctx, ms); err != nil {
		return fmt.Errorf("%s: removing old run records: %w", db.name, err)
	}
	return nil
}

// AgreeStart returns the instant (Unix nanoseconds) recorded under key in
// TaobenchMeta, recording at in a read-write transaction when there is
// none or the one there is before stale. Spanner serializes the drivers'
// transactions; a server that does not (spannertest) refuses the second
// Insert with AlreadyExists, and the driver reads again.
func (db *DB) AgreeStart(ctx context.Context, key string, at, stale time.Time) (time.Time, error) {
	k := startPrefix + strings.TrimPrefix(key, startPrefix)
	var err error
	for range 50 {
		var n int64
		_, err = db.readWrite(ctx, func(ctx context.Context, tx *spanner.ReadWriteTransaction) error {
			n = at.UnixNano()
			row, err := tx.ReadRow(ctx, "TaobenchMeta", spanner.Key{k}, []string{"V"})
			switch {
			case err == nil:
				var v string
				if err := row.Columns(&v); err != nil {
					return err
				}
				if old, perr := strconv.ParseInt(v, 10, 64); perr == nil && old >= stale.UnixNano() {
					n = old
					return nil
				}
				return tx.BufferWrite([]*spanner.Mutation{spanner.Update("TaobenchMeta", []string{"K", "V"}, []any{k, strconv.FormatInt(n, 10)})})
			case spanner.ErrCode(err) == codes.NotFound:
				return tx.BufferWrite([]*spanner.Mutation{spanner.Insert("TaobenchMeta", []string{"K", "V"}, []any{k, strconv.FormatInt(n, 10)})})
			}
			return err
		})
		if err == nil {
			return time.Unix(0, n).UTC(), nil
		}
		if spanner.ErrCode(err) != codes.AlreadyExists || ctx.Err() != nil {
			break
		}
	}
	return time.Time{}, fmt.Errorf("%s: recording the shared start of the run: %w", db.name, err)
}
