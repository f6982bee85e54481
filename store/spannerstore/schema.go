package spannerstore

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	"google.golang.org/api/iterator"
	"google.golang.org/grpc/codes"
)

// The schema. Objects and Edges are separate top-level tables, not Edges
// interleaved in Objects: INTERLEAVE IN PARENT makes a parent row a
// precondition of its children, and TAO's edges do not need their id1's
// object (a graph's edges may point from ids with no object, obj_delete
// leaves the edges). Edges' primary key (Id1, Type, Id2) already keeps
// each association list contiguous, in one split, which is the locality a
// list read needs. EdgesByTime serves the lists newest first, and is
// interleaved in nothing for the same reason.
const indexDDL = "CREATE INDEX IF NOT EXISTS EdgesByTime ON Edges (Id1, Type, Time DESC)"

var schema = []string{
	// Key/value description of the loaded graph, and the record of the
	// tables taobench created (owner.go), written before the next table.
	"CREATE TABLE IF NOT EXISTS TaobenchMeta (K STRING(MAX) NOT NULL, V STRING(MAX) NOT NULL) PRIMARY KEY (K)",
	"CREATE TABLE IF NOT EXISTS Objects (Id INT64 NOT NULL, Time INT64 NOT NULL, Version INT64 NOT NULL, Value BYTES(MAX) NOT NULL) PRIMARY KEY (Id)",
	"CREATE TABLE IF NOT EXISTS Edges (Id1 INT64 NOT NULL, Type INT64 NOT NULL, Id2 INT64 NOT NULL, Time INT64 NOT NULL, Version INT64 NOT NULL, Value BYTES(MAX) NOT NULL) PRIMARY KEY (Id1, Type, Id2)",
	indexDDL,
	// One row per run number handed out; RunKey is set for a number that
	// driver processes share (store.RunKeyer).
	"CREATE TABLE IF NOT EXISTS TaobenchRuns (Run INT64 NOT NULL, RunKey STRING(MAX)) PRIMARY KEY (Run)",
	"CREATE TABLE IF NOT EXISTS TaobenchRunKeys (RunKey STRING(MAX) NOT NULL, Run INT64 NOT NULL) PRIMARY KEY (RunKey)",
}

// tables are taobench's tables, children of nothing, in the order a drop
// takes: TaobenchMeta last, so that a drop cut short leaves the record of
// the tables that remain.
var tables = []string{"Edges", "Objects", "TaobenchRuns", "TaobenchRunKeys", "TaobenchMeta"}

// Schema returns the DDL statements Setup runs.
func (db *DB) Schema() []string { return slices.Clone(schema) }

// ddl runs one schema change and waits for it. Spanner runs schema changes
// as long-running operations; one statement at a time so that one already
// applied (AlreadyExists, NotFound where told to ignore it) does not stop
// the rest.
func (db *DB) ddl(ctx context.Context, stmt string, ignore ...codes.Code) error {
	op, err := db.admin.UpdateDatabaseDdl(ctx, &databasepb.UpdateDatabaseDdlRequest{Database: db.path, Statements: []string{stmt}})
	if err == nil {
		err = op.Wait(ctx)
	}
	if err == nil || slices.Contains(ignore, spanner.ErrCode(err)) {
		return nil
	}
	return fmt.Errorf("%s: %s: %w", db.name, stmt, err)
}

// Setup creates the tables and index where absent; with drop it first
// drops them. The database itself is created by the operator
// (docs/databases.md): creating one is an instance administrator's act.
// Before any change it reads the database's schema and refuses, changing
// nothing, a name it needs that is not taobench's (owner.go); the drop
// takes only what is recorded as taobench's.
func (db *DB) Setup(ctx context.Context, drop bool) error {
	h, err := db.holding(ctx)
	if err != nil {
		return err
	}
	if err := db.refuse(h); err != nil {
		return err
	}
	if drop {
		if h.exists(indexName, "index") {
			if err := db.ddl(ctx, "DROP INDEX "+indexName, codes.NotFound); err != nil {
				return err
			}
		}
		for _, t := range tables {
			if h.owned[t] && h.exists(t, "table") {
				if err := db.ddl(ctx, "DROP TABLE "+t, codes.NotFound); err != nil {
					return err
				}
			}
		}
	}
	for i, s := range schema {
		// IF NOT EXISTS makes Spanner skip what exists; AlreadyExists is
		// for servers that parse it without honouring it (spannertest).
		if err := db.ddl(ctx, s, codes.AlreadyExists); err != nil {
			return err
		}
		if i == 0 {
			if err := db.record(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// Meta returns the recorded description of the loaded graph: TaobenchMeta
// without the ownership record and the runs recorded beside it (runrec.go).
// Tables taobench did not create are refused (store.ErrForeignSchema)
// before anything reads them.
func (db *DB) Meta(ctx context.Context) (map[string]string, error) {
	h, err := db.holding(ctx)
	if err != nil {
		return nil, err
	}
	if err := db.refuse(h); err != nil {
		return nil, err
	}
	if h.meta != nil {
		return graphMeta(h.meta), nil
	}
	// No TaobenchMeta: the read words Spanner's own error.
	m, err := db.readMeta(ctx)
	if err != nil {
		return nil, err
	}
	return graphMeta(m), nil
}

// readMeta reads TaobenchMeta's rows.
func (db *DB) readMeta(ctx context.Context) (map[string]string, error) {
	m := map[string]string{}
	it := db.client.Single().Read(ctx, "TaobenchMeta", spanner.AllKeys(), []string{"K", "V"})
	err := it.Do(func(r *spanner.Row) error {
		var k, v string
		if err := r.Columns(&k, &v); err != nil {
			return err
		}
		if !ownRow(k) {
			m[k] = v
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: reading TaobenchMeta: %w%s", db.name, err, hint(err))
	}
	return m, nil
}

// SetMeta records kv in one transaction, so a reader sees all of it or none.
func (db *DB) SetMeta(ctx context.Context, kv map[string]string) error {
	if len(kv) == 0 {
		return nil
	}
	var ms []*spanner.Mutation
	for _, k := range slices.Sorted(maps.Keys(kv)) {
		ms = append(ms, spanner.InsertOrUpdate("TaobenchMeta", []string{"K", "V"}, []any{k, kv[k]}))
	}
	// Apply retries an aborted transaction itself.
	if _, err := db.apply(ctx, ms); err != nil {
		return fmt.Errorf("%s: writing TaobenchMeta: %w", db.name, err)
	}
	return nil
}

// lastRun returns the highest run number handed out, 0 for none.
func lastRun(ctx context.Context, r interface {
	Query(context.Context, spanner.Statement) *spanner.RowIterator
}) (int64, error) {
	it := r.Query(ctx, spanner.NewStatement("SELECT Run FROM TaobenchRuns ORDER BY Run DESC LIMIT 1"))
	defer it.Stop()
	row, err := it.Next()
	if err == iterator.Done {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var n int64
	return n, row.Columns(&n)
}

// ReserveRun inserts the row of the next run number in a read-write
// transaction. Spanner serializes two reservations; a server that does
// not (spannertest) still refuses the second Insert of one number with
// AlreadyExists, and the reservation is tried again.
func (db *DB) ReserveRun(ctx context.Context) (int64, error) {
	return db.reserve(ctx, "")
}

// ReserveRunKey returns the run number reserved under key, reserving one
// the first time.
func (db *DB) ReserveRunKey(ctx context.Context, key string) (int64, error) {
	return db.reserve(ctx, key)
}

func (db *DB) reserve(ctx context.Context, key string) (int64, error) {
	var err error
	for range 50 {
		var n int64
		_, err = db.readWrite(ctx, func(ctx context.Context, tx *spanner.ReadWriteTransaction) error {
			if key != "" {
				row, err := tx.ReadRow(ctx, "TaobenchRunKeys", spanner.Key{key}, []string{"Run"})
				if err == nil {
					return row.Columns(&n)
				}
				if spanner.ErrCode(err) != codes.NotFound {
					return err
				}
			}
			last, err := lastRun(ctx, tx)
			if err != nil {
				return err
			}
			n = last + 1
			var ms []*spanner.Mutation
			runKey := spanner.NullString{}
			if key != "" {
				// The key's row first: where mutations apply one by one
				// (spannertest), a key taken meanwhile stops the commit
				// before it writes anything.
				ms = append(ms, spanner.Insert("TaobenchRunKeys", []string{"RunKey", "Run"}, []any{key, n}))
				runKey = spanner.NullString{StringVal: key, Valid: true}
			}
			ms = append(ms, spanner.Insert("TaobenchRuns", []string{"Run", "RunKey"}, []any{n, runKey}))
			return tx.BufferWrite(ms)
		})
		if err == nil {
			return n, nil
		}
		if spanner.ErrCode(err) != codes.AlreadyExists || ctx.Err() != nil {
			break
		}
	}
	if strings.Contains(err.Error(), "TaobenchRun") && spanner.ErrCode(err) == codes.NotFound {
		return 0, fmt.Errorf("%s: reserving a run number: %w (run setup first)", db.name, err)
	}
	return 0, fmt.Errorf("%s: reserving a run number: %w", db.name, err)
}

// Runs returns how many run numbers were handed out since the schema was
// created.
func (db *DB) Runs(ctx context.Context) (int64, error) {
	ro := db.client.Single()
	defer ro.Close()
	n, err := lastRun(ctx, ro)
	if err != nil {
		return 0, fmt.Errorf("%s: reading the runs: %w", db.name, err)
	}
	return n, nil
}
