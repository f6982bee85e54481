// Package sqlstore is taobench's store for SQL databases: SQLite (embedded,
// the default), PostgreSQL and its kin (CockroachDB, YugabyteDB) through
// pgx's native pool, and MySQL and its kin (MariaDB, TiDB) through
// database/sql. One mapping of TAO requests to SQL serves all three; a
// dialect holds the few statements that differ.
//
// It registers the schemes sqlite, postgres, postgresql and mysql with
// store.Default. docs/databases.md describes the schema, the isolation
// levels and what differs per database.
//
// Execution: a single read runs as one statement; a single write without
// checks that touches one row runs in autocommit; anything else (read
// transactions, checks, bidirectional edges, write transactions) runs in one
// transaction. Inside a write, a unique violation, a failed check, a
// conflict or an error ends the request with that outcome and rolls back,
// so a write transaction is all or nothing; an update or delete that finds
// no row is a no-op (OpResult.Found false) and the transaction commits. A
// single update or delete of a missing row ends NotFound.
package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

func init() {
	store.Default.Register("sqlite", openSQLite)
	store.Default.Register("postgres", openPostgres)
	store.Default.Register("postgresql", openPostgres)
	store.Default.Register("mysql", openMySQL)
}

// querier runs statements on a connection pool (autocommit) or inside a
// transaction. pgx and database/sql each implement it.
type querier interface {
	// first returns the first column of the first row as an int64 and
	// whether there was a row.
	first(ctx context.Context, s stmt, args ...any) (int64, bool, error)
	// count returns how many rows the statement returned.
	count(ctx context.Context, s stmt, args ...any) (int, error)
	// exec returns the rows affected.
	exec(ctx context.Context, s stmt, args ...any) (int64, error)
	// execSQL and query run statements given by their text (setup, load, admin).
	execSQL(ctx context.Context, sql string, args ...any) (int64, error)
	query(ctx context.Context, sql string, args []any, row func(scan func(dest ...any) error) error) error
}

// intQuerier is a querier that runs the single reads DB.op makes, whose
// arguments are all integers, without boxing them: querier's variadic
// []any costs an allocation for the slice and one for each argument
// above 255, two to four per read (docs/performance.md, "taobench's own
// code per request").
type intQuerier interface {
	firstInts(ctx context.Context, s stmt, args intArgs) (int64, bool, error)
	countInts(ctx context.Context, s stmt, args intArgs) (int, error)
}

// intArgs are up to five integer arguments, by value.
type intArgs struct {
	n int
	v [5]int64
}

// ints returns the arguments.
func (a *intArgs) ints() []int64 { return a.v[:a.n] }

// boxed returns the arguments as a querier takes them.
func (a *intArgs) boxed() []any {
	b := make([]any, a.n)
	for i, x := range a.ints() {
		b[i] = x
	}
	return b
}

// args returns intArgs of v (at most five).
func args(v ...int64) intArgs {
	a := intArgs{n: len(v)}
	copy(a.v[:], v)
	return a
}

// firstOf is q.first, unboxed where q runs it so.
func firstOf(ctx context.Context, q querier, s stmt, a intArgs) (int64, bool, error) {
	if iq, ok := q.(intQuerier); ok {
		return iq.firstInts(ctx, s, a)
	}
	return q.first(ctx, s, a.boxed()...)
}

// countOf is q.count, unboxed where q runs it so.
func countOf(ctx context.Context, q querier, s stmt, a intArgs) (int, error) {
	if iq, ok := q.(intQuerier); ok {
		return iq.countInts(ctx, s, a)
	}
	return q.count(ctx, s, a.boxed()...)
}

// txn is a querier inside a transaction.
type txn interface {
	querier
	commit(ctx context.Context) error
	rollback()
}

// errClass is what a server error means for a request's outcome.
type errClass uint8

const (
	errOther    errClass = iota
	errConflict          // serialization failure, deadlock, lock timeout, busy
	errUnique            // a unique index refused a row
	errTimeout           // the server cancelled the statement for taking too long
	// errAmbiguous: the server could not tell whether the statement or
	// commit took effect (CockroachDB's 40003, "result is ambiguous"). Not
	// a conflict: retrying a write whose first try may have committed
	// could apply it twice. The request ends in error, by its code.
	errAmbiguous
)

// backend is one driver family's connection handling.
type backend interface {
	auto() querier
	begin(ctx context.Context, readOnly bool) (txn, error)
	classify(err error) errClass
	// newLoader returns a loader; fast means the tables had no indexes.
	newLoader(ctx context.Context, db *DB, fast bool) (store.Loader, error)
	// buildIndexes runs dialect.buildAfterLoad, phase after phase.
	buildIndexes(ctx context.Context, phases [][]string) error
	// ddl runs fn on one connection whose lock waits are ddlLockWait, not
	// a request's; in a transaction, committed if fn returns nil, when tx
	// is set (database/sql backends always use one).
	ddl(ctx context.Context, tx bool, fn func(q querier) error) error
	// loading switches session settings for a bulk load on or off.
	loading(ctx context.Context, on bool) error
	// reset forgets prepared statements after the schema changed.
	reset()
	close()
}

// readPipeliner is a backend that can send a whole read-only transaction
// (begin, every read, commit) in one round trip. readTxn reports false,
// having sent nothing, when it cannot; Exec then runs the transaction
// statement by statement.
type readPipeliner interface {
	readTxn(ctx context.Context, db *DB, req *tao.Request, res *tao.Result) bool
}

// DB is a store.Database over one SQL database.
type DB struct {
	d    *dialect
	b    backend
	name string // the redacted URL, for messages
	// product is the server that answers, such as "MariaDB 10.11.19 with
	// Galera" (product.go); SQLite's is its library's version.
	product string
	fast    atomic.Bool
	// notes are what the user should know about how the store opened,
	// such as a pool smaller than the clients (pool.go).
	notes []string
}

// Notes returns what the user should know about how the store opened: for
// example, that the server's connection limit makes clients share
// connections. The command prints them.
func (db *DB) Notes() []string { return append([]string(nil), db.notes...) }

var _ store.Database = (*DB)(nil)

// WatchContext has the store end its requests under ctx when ctx ends,
// until the returned function is called, watching it once rather than per
// query where a backend can (none does now: PostgreSQL leaves it to pgx,
// per query, docs/performance.md issue 38). The
// run calls it with the context every request of the run carries.
func (db *DB) WatchContext(ctx context.Context) func() {
	if w, ok := db.b.(interface {
		watchContext(context.Context) func()
	}); ok {
		return w.watchContext(ctx)
	}
	return func() {}
}

// Close releases the connections.
func (db *DB) Close() error {
	db.b.close()
	return nil
}

// Schema returns the DDL statements Setup runs.
func (db *DB) Schema() []string { return append([]string(nil), db.d.schema...) }

// createRacing runs a CREATE ... IF NOT EXISTS statement, again if it
// lost a race: PostgreSQL checks "if not exists" before it inserts into its
// catalog, so processes setting up one database at once (driver processes,
// docs/distributed.md) can fail with a duplicate key, or a serialization
// failure on the counter row; by the retry the object exists and the
// statement does nothing.
func (db *DB) createRacing(ctx context.Context, q querier, stmt string) (int64, error) {
	for i := 1; ; i++ {
		n, err := q.execSQL(ctx, stmt)
		c := db.b.classify(err)
		if err == nil || i == 10 || ctx.Err() != nil ||
			c != errUnique && c != errConflict && !strings.Contains(err.Error(), "already exists") {
			return n, err
		}
		time.Sleep(time.Duration(i) * 20 * time.Millisecond)
	}
}

// Setup creates the tables where absent; with drop it first drops them.
// Before any of that it looks which of the names the schema needs exist
// and refuses, changing nothing, when any is not taobench's (owner.go):
// the drop takes only tables recorded as taobench's.
func (db *DB) Setup(ctx context.Context, drop bool) error {
	h, err := db.holding(ctx)
	if err != nil {
		return fmt.Errorf("%s: looking for taobench's tables: %w", db.name, err)
	}
	if err := db.refuse(h); err != nil {
		return err
	}
	var drops []string
	if drop {
		drops = h.drops()
	}
	if db.setupAtOnce(ctx, drops) {
		return nil
	}
	var inner error // fn's error, already worded
	err = db.b.ddl(ctx, false, func(q querier) error {
		inner = db.setup(ctx, q, drops)
		return inner
	})
	if inner != nil {
		return inner
	}
	if err != nil {
		return fmt.Errorf("%s: creating the schema: %w", db.name, err)
	}
	if len(drops) > 0 {
		db.b.reset()
	}
	return nil
}

// setupAtOnce runs Setup's statements on PostgreSQL as one multi-statement
// query, one transaction: one round trip and one commit (one WAL flush) in
// place of one of each per statement, most of a fresh load's setup. It
// reports false, having changed nothing, when any statement failed: a race
// with another process setting up the same database, a kin of PostgreSQL
// that refuses CREATE STATISTICS, a read-only server; Setup then runs them
// one by one, which handles each case and words its error. drops are the
// tables to drop first (taobench's own).
func (db *DB) setupAtOnce(ctx context.Context, drops []string) bool {
	if db.d.name != "postgres" {
		return false
	}
	var stmts []string
	for _, t := range drops {
		stmts = append(stmts, "DROP TABLE IF EXISTS "+t)
	}
	stmts = append(stmts, db.d.schema...)
	err := db.b.ddl(ctx, true, func(q querier) error {
		_, err := q.execSQL(ctx, strings.Join(stmts, ";\n"))
		return err
	})
	if err != nil {
		return false
	}
	if len(drops) > 0 {
		db.b.reset()
	}
	return true
}

// setup runs Setup's statements, dropping drops (taobench's own tables) first.
func (db *DB) setup(ctx context.Context, q querier, drops []string) error {
	for _, t := range drops {
		if err := execDDL(ctx, q, "DROP TABLE IF EXISTS "+t); err != nil {
			if ro := db.readOnlyError(ctx, err); ro != nil {
				return ro
			}
			return fmt.Errorf("%s: dropping table %s: %w", db.name, t, err)
		}
	}
	for _, s := range db.d.schema {
		if _, err := db.createRacing(ctx, q, s); err != nil {
			if strings.HasPrefix(s, "CREATE STATISTICS") && db.readOnlyError(ctx, err) == nil {
				// A planner hint (dialect.go), and PostgreSQL's syntax: kin
				// such as CockroachDB refuse it and plan without.
				continue
			}
			if ro := db.readOnlyError(ctx, err); ro != nil {
				return ro
			}
			return fmt.Errorf("%s: creating the schema: %w (statement: %s)", db.name, err, s)
		}
	}
	return nil
}

// Meta returns the recorded description of the loaded graph: taobench_meta
// without the ownership record and the runs recorded beside it (runrec.go).
// Tables taobench did not create are refused (store.ErrForeignSchema)
// before anything reads them.
func (db *DB) Meta(ctx context.Context) (map[string]string, error) {
	h, err := db.holding(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: looking for taobench's tables: %w", db.name, err)
	}
	if err := db.refuse(h); err != nil {
		return nil, err
	}
	if h.meta != nil {
		return h.graphMeta(), nil
	}
	// No taobench_meta: the read words the database's own error.
	m := map[string]string{}
	err = db.b.auto().query(ctx, "SELECT k, v FROM taobench_meta WHERE k NOT LIKE '"+runRecPrefix+"%'", nil, func(scan func(...any) error) error {
		var k, v string
		if err := scan(&k, &v); err != nil {
			return err
		}
		m[k] = v
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: reading taobench_meta: %w (run setup first)", db.name, err)
	}
	return (&holding{meta: m}).graphMeta(), nil
}

// SetMeta records kv in one statement, so a reader sees all of it or none.
func (db *DB) SetMeta(ctx context.Context, kv map[string]string) error {
	if len(kv) == 0 {
		return nil
	}
	// Keys in order: processes loading parts of one graph write the same
	// keys at once, and rows locked in different orders would deadlock.
	args := make([]any, 0, 2*len(kv))
	for _, k := range slices.Sorted(maps.Keys(kv)) {
		args = append(args, k, kv[k])
	}
	// Conflicts with processes writing the same keys are retried.
	var err error
	for i := 1; i <= 20; i++ {
		if _, err = db.b.auto().execSQL(ctx, db.d.metaInsert(len(kv)), args...); err == nil {
			return nil
		}
		if db.b.classify(err) != errConflict || ctx.Err() != nil {
			break
		}
		time.Sleep(time.Duration(i) * 5 * time.Millisecond)
	}
	return fmt.Errorf("%s: writing taobench_meta: %w", db.name, err)
}

// ReserveRun increments the run counter atomically, retrying conflicts with
// other processes reserving at the same moment.
func (db *DB) ReserveRun(ctx context.Context) (int64, error) {
	var err error
	for range 20 {
		var n int64
		n, err = db.reserveOnce(ctx)
		if err == nil {
			return n, nil
		}
		if db.b.classify(err) != errConflict || ctx.Err() != nil {
			break
		}
	}
	return 0, fmt.Errorf("%s: reserving a run number: %w", db.name, err)
}

func (db *DB) reserveOnce(ctx context.Context) (int64, error) {
	tx, err := db.b.begin(ctx, false)
	if err != nil {
		return 0, err
	}
	defer tx.rollback()
	n, err := db.reserveIn(ctx, tx)
	if err != nil {
		return 0, err
	}
	return n, tx.commit(ctx)
}

// reserveIn increments the run counter inside tx.
func (db *DB) reserveIn(ctx context.Context, tx txn) (int64, error) {
	var n int64
	var err error
	found := false
	scan := func(scan func(...any) error) error { found = true; return scan(&n) }
	if db.d.reserveRun != "" {
		err = tx.query(ctx, db.d.reserveRun, nil, scan)
	} else {
		// MySQL: LAST_INSERT_ID(expr) remembers expr for this connection.
		if _, err = tx.execSQL(ctx, "UPDATE taobench_counter SET n = LAST_INSERT_ID(n + 1) WHERE name = 'run'"); err == nil {
			err = tx.query(ctx, "SELECT LAST_INSERT_ID()", nil, scan)
		}
	}
	if err == nil && !found {
		err = errors.New("taobench_counter has no 'run' row (run setup first)")
	}
	return n, err
}

// Exec executes one request; see the package documentation.
func (db *DB) Exec(ctx context.Context, req *tao.Request, res *tao.Result) {
	if len(res.Ops) != len(req.Ops) {
		res.Reset(len(req.Ops))
	}
	if len(req.Ops) == 0 {
		return
	}
	readOnly := true
	for i := range req.Ops {
		if !req.Ops[i].Kind.IsRead() {
			readOnly = false
		}
	}
	if len(req.Ops) == 1 && (readOnly || len(req.Checks) == 0 && !injected(req) && db.oneStatement(&req.Ops[0])) {
		op := &req.Ops[0]
		out, err := db.op(ctx, db.b.auto(), op, &res.Ops[0])
		db.finish(ctx, res, out, err, op.Kind.IsEdge())
		return
	}
	if p, ok := db.b.(readPipeliner); ok && readOnly && p.readTxn(ctx, db, req, res) {
		return
	}
	if p, ok := db.b.(writePipeliner); ok && !readOnly && p.writeTxn(ctx, db, req, res) {
		return
	}
	tx, err := db.b.begin(ctx, readOnly)
	if err != nil {
		db.finish(ctx, res, tao.OK, err, req.Ops[0].Kind.IsEdge())
		return
	}
	if !readOnly {
		for i := range req.Checks {
			c := &req.Checks[i]
			ok, err := db.check(ctx, tx, c)
			if err != nil || !ok {
				tx.rollback()
				db.finish(ctx, res, tao.PreconditionFailed, err, c.Key.Edge)
				return
			}
		}
	}
	if !readOnly && req.Fail == tao.FailAfterPrimaryCommit {
		db.primaryCommit(ctx, tx, req, res) // hold.go
		return
	}
	for i := range req.Ops {
		op := &req.Ops[i]
		out, err := db.op(ctx, tx, op, &res.Ops[i])
		// An update or delete that finds no row is a no-op, as TAO's
		// would be: the transaction goes on (res.Ops[i].Found says so).
		if err != nil || (out != tao.OK && out != tao.NotFound && !op.Kind.IsRead()) {
			tx.rollback()
			db.finish(ctx, res, out, err, op.Kind.IsEdge())
			return
		}
	}
	if !readOnly && injected(req) && !db.beforeCommit(ctx, tx, req, res) { // hold.go
		return
	}
	if err := tx.commit(ctx); err != nil {
		tx.rollback()
		db.finish(ctx, res, tao.OK, err, req.Ops[0].Kind.IsEdge())
		return
	}
	// A single update or delete that found no row (a bidirectional one
	// runs in a transaction) ends NotFound, as it does in autocommit.
	if req.Class == tao.Write && !readOnly && !res.Ops[0].Found && !isAdd(req.Ops[0].Kind) {
		res.Outcome = tao.NotFound
	}
}

func isAdd(k tao.Kind) bool { return k == tao.ObjAdd || k == tao.EdgeAdd }

// oneStatement reports whether a write is a single statement, which then
// needs no explicit transaction.
func (db *DB) oneStatement(op *tao.Op) bool {
	if !op.Kind.IsEdge() {
		return true
	}
	_, inverse := op.Type.Inverse()
	return !inverse
}

// finish sets res.Outcome from a request's outcome or error; edge tells
// which statement kind hit err.
func (db *DB) finish(ctx context.Context, res *tao.Result, out tao.Outcome, err error, edge bool) {
	if err == nil {
		res.Outcome = out
		return
	}
	res.Code = errCode(err)
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		res.Outcome, res.Err = tao.Timeout, err
		return
	}
	switch db.b.classify(err) {
	case errConflict:
		res.Outcome = tao.ConflictObject
		if edge {
			res.Outcome = tao.ConflictAssociation
		}
		return
	case errUnique:
		if edge {
			res.Outcome = tao.UniqueViolation
			return
		}
	case errTimeout:
		res.Outcome, res.Err = tao.Timeout, err
		return
	case errAmbiguous:
		res.Outcome, res.Err = tao.Error, fmt.Errorf("outcome unknown, the request may have taken effect (not retried): %w", err)
		return
	}
	res.Outcome, res.Err = tao.Error, err
}

// check evaluates one precondition inside the write's transaction.
func (db *DB) check(ctx context.Context, q querier, c *tao.Check) (bool, error) {
	var v int64
	var found bool
	var err error
	if c.Key.Edge {
		v, found, err = q.first(ctx, sEdgeCheck, c.Key.ID1, int64(c.Key.Type), c.Key.ID2)
	} else {
		v, found, err = q.first(ctx, sObjCheck, c.Key.ID1)
	}
	if err != nil || !found {
		return false, err
	}
	return c.Kind != tao.CheckVersion || v == c.Version, nil
}

// payload is the bind value of a payload.
func (db *DB) payload(p []byte) any {
	if p == nil {
		p = []byte{} // a nil slice binds as NULL; value is NOT NULL
	}
	if db.d.textPayload {
		return string(p)
	}
	return p
}

// op runs one operation. The outcome is OK, NotFound or UniqueViolation
// when err is nil.
func (db *DB) op(ctx context.Context, q querier, op *tao.Op, r *tao.OpResult) (tao.Outcome, error) {
	t := int64(op.Type)
	switch op.Kind {
	case tao.ObjRead:
		v, ok, err := firstOf(ctx, q, sObjGet, args(op.ID1))
		return point(r, v, ok, err)
	case tao.EdgePointRead:
		v, ok, err := firstOf(ctx, q, sEdgeGet, args(op.ID1, t, op.ID2))
		return point(r, v, ok, err)
	case tao.EdgeRangeRead:
		n, err := countOf(ctx, q, sEdgeRange, args(op.ID1, t, int64(limit(op.Limit)), int64(max(op.Offset, 0))))
		r.Rows = n
		return tao.OK, err
	case tao.EdgeCountRead:
		n, _, err := firstOf(ctx, q, sEdgeCount, args(op.ID1, t))
		r.Rows = int(n)
		return tao.OK, err
	case tao.EdgeTimeRead:
		n, err := countOf(ctx, q, sEdgeTime, args(op.ID1, t, op.Low, op.High, int64(limit(op.Limit))))
		r.Rows = n
		return tao.OK, err
	case tao.ObjAdd:
		_, err := q.exec(ctx, sObjAdd, op.ID1, op.Time, db.payload(op.Payload))
		return tao.OK, err
	case tao.ObjUpdate:
		n, err := q.exec(ctx, sObjUpdate, op.Time, db.payload(op.Payload), op.ID1)
		return found(r, n, err)
	case tao.ObjDelete:
		n, err := q.exec(ctx, sObjDelete, op.ID1)
		return found(r, n, err)
	case tao.EdgeAdd:
		out, err := db.edgeAdd(ctx, q, op.ID1, op.Type, op.ID2, op.Time, op.Payload, r)
		if err != nil || out != tao.OK {
			return out, err
		}
		if inv, ok := op.Type.Inverse(); ok {
			return db.edgeAdd(ctx, q, op.ID2, inv, op.ID1, op.Time, op.Payload, nil)
		}
		return tao.OK, nil
	case tao.EdgeUpdate:
		n, err := q.exec(ctx, sEdgeUpdate, op.Time, db.payload(op.Payload), op.ID1, t, op.ID2)
		out, err := found(r, n, err)
		if err != nil || out != tao.OK {
			return out, err
		}
		if inv, ok := op.Type.Inverse(); ok {
			// An upsert, so an update also repairs a missing inverse.
			return db.edgeAdd(ctx, q, op.ID2, inv, op.ID1, op.Time, op.Payload, nil)
		}
		return tao.OK, nil
	case tao.EdgeDelete:
		n, err := q.exec(ctx, sEdgeDelete, op.ID1, t, op.ID2)
		out, err := found(r, n, err)
		if err != nil || out != tao.OK {
			return out, err
		}
		if inv, ok := op.Type.Inverse(); ok {
			_, err = q.exec(ctx, sEdgeDelete, op.ID2, int64(inv), op.ID1)
		}
		return tao.OK, err
	}
	return tao.Error, fmt.Errorf("operation kind %v is not one taobench knows", op.Kind)
}

// edgeAdd inserts or overwrites one edge, reporting in r.Found whether
// it overwrote one (r may be nil).
func (db *DB) edgeAdd(ctx context.Context, q querier, id1 int64, t tao.EdgeType, id2, time int64, p []byte, r *tao.OpResult) (tao.Outcome, error) {
	for range 3 {
		n, err := q.exec(ctx, sEdgeAdd, id1, id2, int64(t), time, db.payload(p), ukey(t, id2))
		if err != nil {
			if db.b.classify(err) == errUnique {
				// The error goes on, so finish keeps the server's code
				// (23505): a conflict the server signalled.
				return tao.UniqueViolation, err
			}
			return tao.OK, err
		}
		if db.d.edgeAddUniqueByRows {
			// MySQL's upsert: 1 row inserted, 2 updated, 0 a unique collision.
			if n == 0 {
				return tao.UniqueViolation, err
			}
			setFound(r, n == 2)
			return tao.OK, nil
		}
		if n == 1 {
			setFound(r, false)
			return tao.OK, nil
		}
		// The key exists: overwrite it. Zero rows means a concurrent delete
		// came between the two statements (in autocommit): insert again.
		if n, err = q.exec(ctx, sEdgeUpdate, time, db.payload(p), id1, int64(t), id2); err != nil || n > 0 {
			setFound(r, true)
			return tao.OK, err
		}
	}
	return tao.ConflictAssociation, nil
}

func setFound(r *tao.OpResult, found bool) {
	if r != nil {
		r.Found = found
	}
}

// point fills a point read's result.
func point(r *tao.OpResult, v int64, ok bool, err error) (tao.Outcome, error) {
	r.Found, r.Version = ok, v
	if err == nil && !ok {
		return tao.NotFound, nil
	}
	return tao.OK, err
}

// found fills an update's or delete's result from the rows it affected.
func found(r *tao.OpResult, n int64, err error) (tao.Outcome, error) {
	r.Found = n > 0
	if err == nil && n == 0 {
		return tao.NotFound, nil
	}
	return tao.OK, err
}

// DefaultLimit caps list reads that give no limit, as TAO caps them.
const DefaultLimit = 6000

func limit(n int) int {
	if n <= 0 {
		return DefaultLimit
	}
	return n
}

// Check verifies the graph's invariants with a few scans.
func (db *DB) Check(ctx context.Context) ([]store.Violation, error) {
	fwd := typeList(func(t tao.EdgeType) bool { _, ok := t.Inverse(); return ok && t.IsForward() })
	inv := typeList(func(t tao.EdgeType) bool { _, ok := t.Inverse(); return ok && !t.IsForward() })
	uniq := typeList(tao.EdgeType.IsUnique)
	missing := func(types string) string {
		if db.d.antiJoin {
			return "FROM edges e LEFT JOIN edges i ON i.id1 = e.id2 AND i.type = " + inverseCase("e.type") + " AND i.id2 = e.id1 " +
				"WHERE " + baseOf("e.type") + " IN (" + types + ") AND i.id1 IS NULL"
		}
		return "FROM edges e WHERE " + baseOf("e.type") + " IN (" + types + ") AND NOT EXISTS (SELECT 1 FROM edges i " +
			"WHERE i.id1 = e.id2 AND i.type = " + inverseCase("e.type") + " AND i.id2 = e.id1)"
	}
	dup := "FROM edges WHERE " + baseOf("type") + " IN (" + uniq + ") GROUP BY id1, type HAVING COUNT(*) > 1"
	badKey := "FROM edges WHERE ukey <> CASE WHEN " + baseOf("type") + " IN (" + uniq + ") THEN 0 ELSE id2 END"
	checks := []struct {
		name, count, example string
		grouped              bool // the example is id1, type, count
	}{
		{"bidirectional edge has its inverse", "SELECT COUNT(*) " + missing(fwd), "SELECT e.id1, e.type, e.id2 " + missing(fwd), false},
		{"inverse edge has its forward edge", "SELECT COUNT(*) " + missing(inv), "SELECT e.id1, e.type, e.id2 " + missing(inv), false},
		{"unique type has at most one edge per (id1, type)", "SELECT COUNT(*) FROM (SELECT id1 " + dup + ") d", "SELECT id1, type, COUNT(*) " + dup, true},
		{"ukey is 0 for unique types and id2 otherwise", "SELECT COUNT(*) " + badKey, "SELECT id1, type, id2 " + badKey, false},
	}
	var vs []store.Violation
	q := db.b.auto()
	for _, c := range checks {
		var n int64
		if err := q.query(ctx, c.count, nil, func(scan func(...any) error) error { return scan(&n) }); err != nil {
			return nil, fmt.Errorf("%s: checking %q: %w", db.name, c.name, err)
		}
		if n == 0 {
			continue
		}
		var a, b, x int64
		if err := q.query(ctx, c.example+" LIMIT 1", nil, func(scan func(...any) error) error { return scan(&a, &b, &x) }); err != nil {
			return nil, fmt.Errorf("%s: checking %q: %w", db.name, c.name, err)
		}
		ex := "edge (" + strconv.FormatInt(a, 10) + ", " + strconv.FormatInt(b, 10) + ", " + strconv.FormatInt(x, 10) + ")"
		if c.grouped {
			ex = fmt.Sprintf("id1 %d has %d edges of unique type %d", a, x, b)
		}
		vs = append(vs, store.Violation{Invariant: c.name, Count: n, Example: ex})
	}
	idx, err := db.missingIndexes(ctx)
	return append(vs, idx...), err
}

// BeginLoad readies a bulk load: into empty tables it drops the indexes
// EndLoad rebuilds (where the database allows); otherwise loaders skip rows
// whose keys exist.
func (db *DB) BeginLoad(ctx context.Context) error {
	db.fast.Store(false)
	if err := db.b.loading(ctx, true); err != nil {
		return fmt.Errorf("%s: readying the session for a load: %w", db.name, err)
	}
	var n int64
	q := db.b.auto()
	err := q.query(ctx, "SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM objects LIMIT 1) o) + (SELECT COUNT(*) FROM (SELECT 1 FROM edges LIMIT 1) e)",
		nil, func(scan func(...any) error) error { return scan(&n) })
	if err != nil {
		return fmt.Errorf("%s: is the database empty? %w (run setup first)", db.name, err)
	}
	if n > 0 {
		// A fast load that was interrupted left its indexes dropped (Setup
		// restores only those it creates with IF NOT EXISTS, not primary
		// keys): put them back first, or the inserts that skip existing
		// keys would find no key to skip by and duplicate rows.
		db.buildMissing(ctx)
		return nil
	}
	// In one transaction where DDL is transactional (PostgreSQL, SQLite);
	// a database that refuses (CockroachDB and YugabyteDB cannot drop a
	// primary key) just loads into its indexes.
	var refused error // a drop the database refused
	err = db.b.ddl(ctx, true, func(q querier) error {
		for _, s := range db.d.dropForLoad {
			if refused = execDDL(ctx, q, s); refused != nil {
				return refused
			}
		}
		return nil
	})
	if err != nil && refused == nil {
		return fmt.Errorf("%s: starting the load: %w", db.name, err)
	}
	if err != nil {
		if db.d.name == "mysql" {
			// MySQL's DDL commits as it goes: put back what is missing.
			db.buildMissing(ctx)
		}
		return nil
	}
	db.fast.Store(true)
	return nil
}

// buildMissing rebuilds indexes after a failed drop, ignoring the ones that exist.
func (db *DB) buildMissing(ctx context.Context) {
	for _, phase := range db.d.buildAfterLoad {
		for _, s := range phase {
			_ = db.b.ddl(ctx, false, func(q querier) error { return execDDL(ctx, q, s) })
		}
	}
}

// NewLoader returns a loader for one load thread.
func (db *DB) NewLoader(ctx context.Context) (store.Loader, error) {
	l, err := db.b.newLoader(ctx, db, db.fast.Load())
	if err != nil {
		return nil, fmt.Errorf("%s: opening a loader: %w", db.name, err)
	}
	return l, nil
}

// EndLoad rebuilds what BeginLoad dropped and refreshes the statistics.
func (db *DB) EndLoad(ctx context.Context) error {
	// After a load into indexes only the statistics are refreshed.
	chains := [][][]string{{db.d.analyze}}
	if db.fast.Swap(false) {
		chains = db.d.finishChains()
	}
	if err := db.runChains(ctx, chains); err != nil {
		return fmt.Errorf("%s: building indexes and statistics after the load: %w%s", db.name, err, db.ddlHint(err))
	}
	if err := db.b.loading(ctx, false); err != nil {
		return fmt.Errorf("%s: restoring the session after the load: %w", db.name, err)
	}
	return nil
}

// runChains runs the chains at once, each with buildIndexes (its phases in
// order), and returns their errors joined. A chain that fails
// does not stop the others: each statement ends by itself, and the load is
// run again either way.
func (db *DB) runChains(ctx context.Context, chains [][][]string) error {
	if len(chains) == 1 {
		return db.b.buildIndexes(ctx, chains[0])
	}
	errs := make([]error, len(chains))
	var wg sync.WaitGroup
	for i, c := range chains {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = db.b.buildIndexes(ctx, c)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// objectArgs and edgeArgs append the bind values of rows for a multi-row insert.
func (db *DB) objectArgs(args []any, objs []tao.Object) []any {
	for i := range objs {
		o := &objs[i]
		args = append(args, o.ID, o.Time, db.payload(o.Value), max(o.Version, 1))
	}
	return args
}

func (db *DB) edgeArgs(args []any, edges []tao.Edge) []any {
	for i := range edges {
		e := &edges[i]
		args = append(args, e.ID1, e.ID2, int64(e.Type), e.Time, db.payload(e.Value), max(e.Version, 1), ukey(e.Type, e.ID2))
	}
	return args
}

const (
	numObjCols  = 4
	numEdgeCols = 7
)
