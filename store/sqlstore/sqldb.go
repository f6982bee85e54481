package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// sqlBackend runs the store over database/sql: MySQL and SQLite.
type sqlBackend struct {
	d *dialect
	// write runs writes and write transactions, read runs reads. For SQLite
	// write is one connection, so writers queue in Go instead of meeting
	// SQLITE_BUSY, and read is a pool of query-only connections reading WAL
	// snapshots; for MySQL both are the same pool.
	write, read *sql.DB
	classifyErr func(error) errClass
	// loadMode switches session settings for a bulk load (nil: none).
	loadMode func(ctx context.Context, on bool) error
	// plainReadTx begins read transactions without READ ONLY: TiDB refuses
	// START TRANSACTION READ ONLY (error 1235) unless noop functions are
	// enabled, and its plain transaction reads one snapshot anyway.
	plainReadTx bool

	mu       sync.Mutex // serializes preparing
	prepared atomic.Pointer[stmtSets]
	autoQ    dbQ
}

// stmtSets are the statements prepared on the write pool (all of them:
// write transactions read too) and on the read pool (the reads).
type stmtSets struct{ w, r [numStmts]*sql.Stmt }

func newSQLBackend(d *dialect, write, read *sql.DB, classify func(error) errClass) *sqlBackend {
	b := &sqlBackend{d: d, write: write, read: read, classifyErr: classify}
	b.autoQ = dbQ{b: b}
	return b
}

func (b *sqlBackend) classify(err error) errClass { return b.classifyErr(err) }

func (b *sqlBackend) close() {
	b.reset()
	b.write.Close()
	if b.read != b.write {
		b.read.Close()
	}
}

// reset forgets the prepared statements (after the schema changed).
func (b *sqlBackend) reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s := b.prepared.Swap(nil); s != nil {
		s.close()
	}
}

func (s *stmtSets) close() {
	for i := range s.w {
		if s.r[i] != nil && s.r[i] != s.w[i] {
			s.r[i].Close()
		}
		if s.w[i] != nil {
			s.w[i].Close()
		}
	}
}

// stmts returns the prepared statements, preparing them on first use: the
// tables may not exist when the store opens.
func (b *sqlBackend) stmts(ctx context.Context) (*stmtSets, error) {
	if s := b.prepared.Load(); s != nil {
		return s, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if s := b.prepared.Load(); s != nil {
		return s, nil
	}
	s := &stmtSets{}
	for i, text := range b.d.stmts {
		var err error
		if s.w[i], err = b.write.PrepareContext(ctx, text); err == nil && isRead(stmt(i)) {
			s.r[i] = s.w[i]
			if b.read != b.write {
				s.r[i], err = b.read.PrepareContext(ctx, text)
			}
		}
		if err != nil {
			s.close()
			return nil, fmt.Errorf("preparing %q: %w (has setup created the tables?)", text, err)
		}
	}
	b.prepared.Store(s)
	return s, nil
}

// isRead reports whether a statement only reads and can go to the read pool
// outside a transaction (checks always run inside one).
func isRead(s stmt) bool { return s <= sEdgeTime }

func (b *sqlBackend) auto() querier { return &b.autoQ }

func (b *sqlBackend) begin(ctx context.Context, readOnly bool) (txn, error) {
	sets, err := b.stmts(ctx)
	if err != nil {
		return nil, err
	}
	pool, set := b.write, &sets.w
	if readOnly {
		pool, set = b.read, &sets.r
	}
	// MySQL: START TRANSACTION [READ ONLY] at the session's REPEATABLE READ
	// (TiDB: START TRANSACTION, see plainReadTx); SQLite: BEGIN for reads,
	// BEGIN IMMEDIATE (_txlock) for writes.
	tx, err := pool.BeginTx(ctx, &sql.TxOptions{ReadOnly: readOnly && !b.plainReadTx})
	if err != nil {
		return nil, err
	}
	return &txQ{tx: tx, set: set}, nil
}

// buildIndexes runs the statements one after another, in order.
func (b *sqlBackend) buildIndexes(ctx context.Context, phases [][]string) error {
	for _, stmts := range phases {
		for _, s := range stmts {
			if err := b.ddl(ctx, false, func(q querier) error { return execDDL(ctx, q, s) }); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
	}
	return nil
}

// ddl runs fn in a transaction on one write connection (DDL commits it on
// MySQL; SQLite's DDL is transactional). On MySQL the connection gets
// ddlLockWait and is then closed, not returned to the pool, so no request
// inherits the long lock waits.
func (b *sqlBackend) ddl(ctx context.Context, _ bool, fn func(querier) error) error {
	c, err := b.write.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if waits := ddlWaits(b.d.name); len(waits) > 0 {
		defer c.Raw(func(any) error { return driver.ErrBadConn })
		for _, s := range waits {
			if _, err := c.ExecContext(ctx, s); err != nil {
				return err
			}
		}
	}
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(&txQ{tx: tx}); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// dbQ runs statements outside a transaction.
type dbQ struct{ b *sqlBackend }

func (q *dbQ) stmt(ctx context.Context, s stmt) (*sql.Stmt, error) {
	sets, err := q.b.stmts(ctx)
	if err != nil {
		return nil, err
	}
	if isRead(s) {
		return sets.r[s], nil
	}
	return sets.w[s], nil
}

func (q *dbQ) first(ctx context.Context, s stmt, args ...any) (int64, bool, error) {
	st, err := q.stmt(ctx, s)
	if err != nil {
		return 0, false, err
	}
	rows, err := st.QueryContext(ctx, args...)
	return first(rows, err, s.cols())
}

func (q *dbQ) count(ctx context.Context, s stmt, args ...any) (int, error) {
	st, err := q.stmt(ctx, s)
	if err != nil {
		return 0, err
	}
	return count(st.QueryContext(ctx, args...))
}

func (q *dbQ) exec(ctx context.Context, s stmt, args ...any) (int64, error) {
	st, err := q.stmt(ctx, s)
	if err != nil {
		return 0, err
	}
	return affected(st.ExecContext(ctx, args...))
}

func (q *dbQ) execSQL(ctx context.Context, text string, args ...any) (int64, error) {
	return affected(q.b.write.ExecContext(ctx, text, args...))
}

func (q *dbQ) query(ctx context.Context, text string, args []any, row func(func(...any) error) error) error {
	return each(q.b.read.QueryContext(ctx, text, args...))(row)
}

// txQ runs statements inside a database/sql transaction.
type txQ struct {
	tx  *sql.Tx
	set *[numStmts]*sql.Stmt
}

func (q *txQ) first(ctx context.Context, s stmt, args ...any) (int64, bool, error) {
	rows, err := q.tx.StmtContext(ctx, q.set[s]).QueryContext(ctx, args...)
	return first(rows, err, s.cols())
}

func (q *txQ) count(ctx context.Context, s stmt, args ...any) (int, error) {
	return count(q.tx.StmtContext(ctx, q.set[s]).QueryContext(ctx, args...))
}

func (q *txQ) exec(ctx context.Context, s stmt, args ...any) (int64, error) {
	return affected(q.tx.StmtContext(ctx, q.set[s]).ExecContext(ctx, args...))
}

func (q *txQ) execSQL(ctx context.Context, text string, args ...any) (int64, error) {
	return affected(q.tx.ExecContext(ctx, text, args...))
}

func (q *txQ) query(ctx context.Context, text string, args []any, row func(func(...any) error) error) error {
	return each(q.tx.QueryContext(ctx, text, args...))(row)
}

func (q *txQ) commit(context.Context) error { return q.tx.Commit() }
func (q *txQ) rollback()                    { _ = q.tx.Rollback() }

// first scans the first column of the first row; the others are skipped
// through a RawBytes, which copies nothing.
func first(rows *sql.Rows, err error, ncols int) (int64, bool, error) {
	if err != nil {
		return 0, false, err
	}
	defer rows.Close()
	if !rows.Next() {
		return 0, false, rows.Err()
	}
	var v int64
	var skip sql.RawBytes
	switch ncols {
	case 1:
		err = rows.Scan(&v)
	default:
		err = rows.Scan(&v, &skip, &skip)
	}
	if err != nil {
		return 0, false, err
	}
	return v, true, rows.Close()
}

// count reads every row without decoding it.
func count(rows *sql.Rows, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	return n, rows.Err()
}

func affected(res sql.Result, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func each(rows *sql.Rows, err error) func(func(func(...any) error) error) error {
	return func(row func(func(...any) error) error) error {
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			if err := row(rows.Scan); err != nil {
				return err
			}
		}
		return rows.Err()
	}
}

// loadBatch is the rows per multi-row INSERT: well under SQLite's 32,766
// and MySQL's 65,535 placeholders at 7 columns.
const loadBatch = 500

func (b *sqlBackend) newLoader(ctx context.Context, db *DB, _ bool) (store.Loader, error) {
	l := &sqlLoader{db: db, b: b, group: b.d.name == "sqlite"}
	var err error
	if l.objStmt, err = b.write.PrepareContext(ctx, db.d.multiInsert("objects", objCols, numObjCols, loadBatch)); err != nil {
		return nil, err
	}
	if l.edgeStmt, err = b.write.PrepareContext(ctx, db.d.multiInsert("edges", edgeCols, numEdgeCols, loadBatch)); err != nil {
		l.objStmt.Close()
		return nil, err
	}
	return l, nil
}

// loading switches the session settings of a bulk load on or off.
func (b *sqlBackend) loading(ctx context.Context, on bool) error {
	if b.loadMode == nil {
		return nil
	}
	return b.loadMode(ctx, on)
}

// sqlLoader writes each Load call in one transaction of multi-row INSERTs
// that skip existing keys, so loading twice is harmless. On SQLite (group)
// a transaction spans Load calls until it holds sqliteGroup rows, and Close
// commits the last one.
type sqlLoader struct {
	db                *DB
	b                 *sqlBackend
	objStmt, edgeStmt *sql.Stmt
	args              []any

	group   bool
	tx      *sql.Tx // the open group, nil when none
	pending int     // rows in it
}

// sqliteGroup is the rows an SQLite loader writes per transaction. A commit
// writes every page the transaction dirtied to the WAL; the B-tree leaves
// a load is filling are dirtied again by the next transaction, so fewer,
// larger transactions write each page fewer times (bench/null.sh (c): about
// a fifth faster than a commit per 5,000-row Load call). The one writer
// connection makes the loaders take turns by transaction, and with it a
// transaction never meets a conflict it would have to retry.
const sqliteGroup = 50_000

func (l *sqlLoader) Load(ctx context.Context, objs []tao.Object, edges []tao.Edge) error {
	if l.group {
		return l.loadGrouped(ctx, objs, edges)
	}
	var err error
	for range 10 { // deadlocks between loaders are retried
		if err = l.load(ctx, objs, edges); err == nil || l.b.classify(err) != errConflict || ctx.Err() != nil {
			break
		}
	}
	return widthHint(err)
}

// loadGrouped adds the rows to the open group transaction, committing it
// once it holds sqliteGroup rows. A load interrupted between calls commits
// the group, keeping every call that returned, as a transaction per call
// would; a failed statement (an interrupt inside one rolls the whole
// transaction back in SQLite) loses the group, which loading again
// restores. The group is therefore not bound to ctx; its statements are.
func (l *sqlLoader) loadGrouped(ctx context.Context, objs []tao.Object, edges []tao.Edge) error {
	if err := ctx.Err(); err != nil {
		if l.tx != nil {
			_ = l.commit()
		}
		return err
	}
	if l.tx == nil {
		tx, err := l.b.write.BeginTx(context.Background(), nil)
		if err != nil {
			return err
		}
		l.tx = tx
	}
	if err := l.insertAll(ctx, l.tx, objs, edges); err != nil {
		return l.abort(err)
	}
	if l.pending += len(objs) + len(edges); l.pending >= sqliteGroup {
		return l.commit()
	}
	return nil
}

func (l *sqlLoader) commit() error {
	err := l.tx.Commit()
	l.tx, l.pending = nil, 0
	return err
}

// abort rolls the group back after an error that leaves it unusable.
func (l *sqlLoader) abort(err error) error {
	_ = l.tx.Rollback()
	l.tx, l.pending = nil, 0
	return err
}

func (l *sqlLoader) load(ctx context.Context, objs []tao.Object, edges []tao.Edge) error {
	tx, err := l.b.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := l.insertAll(ctx, tx, objs, edges); err != nil {
		return err
	}
	return tx.Commit()
}

// insertAll inserts the rows inside tx.
func (l *sqlLoader) insertAll(ctx context.Context, tx *sql.Tx, objs []tao.Object, edges []tao.Edge) error {
	for len(objs) > 0 {
		n := min(len(objs), loadBatch)
		l.args = l.db.objectArgs(l.args[:0], objs[:n])
		if err := l.insert(ctx, tx, l.objStmt, "objects", objCols, numObjCols, n); err != nil {
			return err
		}
		objs = objs[n:]
	}
	for len(edges) > 0 {
		n := min(len(edges), loadBatch)
		l.args = l.db.edgeArgs(l.args[:0], edges[:n])
		if err := l.insert(ctx, tx, l.edgeStmt, "edges", edgeCols, numEdgeCols, n); err != nil {
			return err
		}
		edges = edges[n:]
	}
	return nil
}

func (l *sqlLoader) insert(ctx context.Context, tx *sql.Tx, full *sql.Stmt, table, cols string, ncols, n int) error {
	var err error
	if n == loadBatch {
		_, err = tx.StmtContext(ctx, full).ExecContext(ctx, l.args...)
	} else {
		_, err = tx.ExecContext(ctx, l.db.d.multiInsert(table, cols, ncols, n), l.args...)
	}
	if err != nil {
		return fmt.Errorf("inserting %d rows into %s: %w", n, table, err)
	}
	return nil
}

func (l *sqlLoader) Close() error {
	var err error
	if l.tx != nil {
		err = l.commit()
	}
	l.objStmt.Close()
	l.edgeStmt.Close()
	return err
}
