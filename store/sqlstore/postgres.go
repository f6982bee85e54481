package sqlstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// openPostgres opens a pgx pool for a postgres:// or postgresql:// URL.
// pgx reads TLS (sslmode, sslrootcert, ...) and pool (pool_max_conns, ...)
// parameters from the URL itself.
func openPostgres(ctx context.Context, u *url.URL, raw string, opts store.Options) (store.Store, error) {
	name := store.Redact(raw)
	pw, _ := u.User.Password()
	cfg, err := pgxpool.ParseConfig(raw)
	if err != nil {
		return nil, fmt.Errorf("database URL %q: %s", name, scrub(err.Error(), pw))
	}
	fixed := u.Query().Has("pool_max_conns")
	if !fixed {
		cfg.MaxConns = int32(opts.Clients + 4)
	}
	// The store's session settings go per connection after it is made
	// (pgSession), never as startup parameters, which a pooler such as
	// PgBouncer refuses; a setting the URL gives stays the user's, sent as
	// the URL says.
	sess := &pgSession{
		isolation: !has(cfg.ConnConfig.RuntimeParams, "default_transaction_isolation"),
		lockWait:  !has(cfg.ConnConfig.RuntimeParams, "lock_timeout"),
	}
	cfg.AfterConnect = sess.afterConnect
	// A connection lives as long as the store, as the original's do,
	// unless the URL says otherwise: pgxpool's default (an hour) would
	// reconnect mid-run and reads the clock at every release to check it
	// (1.5% of a closed-loop client's CPU on workload o).
	if !u.Query().Has("pool_max_conn_lifetime") {
		cfg.MaxConnLifetime = 0
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", name, scrub(err.Error(), pw))
	}
	pctx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		pool.Close()
		return nil, connectError(name, err, pw, cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database, cfg.ConnConfig.User, "postgres")
	}
	var notes []string
	pooled := sess.pooled.Load()
	if pooled {
		// Behind a pooler in transaction mode a named prepared statement
		// (pgx's statement cache, the fast path's) is on one server
		// connection and the next statement may run on another: PgBouncer
		// 1.18 has none. Unless the URL chose a mode, statements go as
		// pgx's exec mode (Parse, Bind, Execute in one message group).
		note := fmt.Sprintf("%s answers through a connection pooler (its server process is not the connection's): the store sets no session settings (lock_timeout, the isolation of single statements: the server's own apply)", name)
		if !u.Query().Has("default_query_exec_mode") {
			pool.Close()
			cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeExec
			if pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
				return nil, fmt.Errorf("%s: %s", name, scrub(err.Error(), pw))
			}
			note += " and prepares no statements (default_query_exec_mode=exec; the URL may choose another)"
		}
		notes = append(notes, note)
	}
	// Fit the pool to the server's free connections (see pool.go); a pool
	// size given in the URL is the user's to choose, and behind a pooler
	// the server's connections are the pooler's.
	if l, ok := pgLimit(pctx, pool); ok && !fixed && !pooled {
		if n, note := fitPool(name, int(cfg.MaxConns), opts.Clients, l); n < int(cfg.MaxConns) {
			pool.Close()
			cfg.MaxConns = int32(n)
			if pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
				return nil, fmt.Errorf("%s: %s", name, scrub(err.Error(), pw))
			}
			if note != "" {
				notes = append(notes, note)
			}
		}
	}
	b := &pgBackend{d: postgresDialect(), pool: pool, pooled: pooled}
	b.txBegin, b.txBeginRead, b.lockReset = "begin", "begin read only", "RESET lock_timeout"
	if sess.lockWait && !pooled {
		b.lockReset = pgLockWait
	}
	if sess.isolation {
		b.txOpts.IsoLevel = pgx.RepeatableRead
		b.txBegin, b.txBeginRead = "begin isolation level repeatable read", "begin isolation level repeatable read read only"
	}
	fast := cfg.ConnConfig.DefaultQueryExecMode == pgx.QueryExecModeCacheStatement && cfg.ConnConfig.StatementCacheCapacity > 0
	b.autoQ = pgQ{d: b.d, r: &pgPool{Pool: pool, prepare: fast}}
	var version string
	if err := pool.QueryRow(pctx, "SELECT version()").Scan(&version); err != nil {
		pool.Close()
		return nil, fmt.Errorf("%s: asking the server's version: %s", name, scrub(err.Error(), pw))
	}
	return &DB{d: b.d, b: b, name: name, notes: notes, product: pgProduct(version)}, nil
}

// pgLockWait is the store's lock_timeout (pgSession).
const pgLockWait = "SET lock_timeout = '1s'"

func has(m map[string]string, k string) bool { _, ok := m[k]; return ok }

// pgSession readies each new connection: it tells whether a pooler
// answers (the server process the connection reaches is not the one the
// connection was told of: PgBouncer makes up its own), and, when none
// does, sets the store's session settings. Every transaction says its
// isolation level itself (pgBackend.txBegin); these settings are for
// single statements, which run without one:
//   - default_transaction_isolation = 'repeatable read': concurrent
//     writers of one row get a serialization failure (a conflict) instead
//     of waiting and writing over each other, as in a transaction;
//   - lock_timeout = '1s': a lock wait longer than MySQL's default here (1
//     s) is a conflict (55P03), as it is there, not a client stalled
//     behind a lock held for long (docs/databases.md, "Lock waits and
//     timeouts").
//
// Behind a pooler a session setting would stay on whichever server
// connection ran it, for other clients, and not follow ours: none is set.
type pgSession struct {
	isolation, lockWait bool // set each (the URL did not)
	pooled              atomic.Bool
}

func (s *pgSession) afterConnect(ctx context.Context, c *pgx.Conn) error {
	// A payload ([]byte) whose parameter type the server did not name (the
	// exec and simple protocol modes, as behind a pooler) is text, as its
	// column is, not bytea: pgx would send bytea's hex form, stored as it
	// is ("\x68...", twice as long).
	c.TypeMap().RegisterDefaultPgType([]byte(nil), "text")
	// The simple protocol, which every pooler passes whatever its mode.
	res, err := c.PgConn().Exec(ctx, "SELECT pg_backend_pid()").ReadAll()
	if err != nil {
		return err
	}
	if len(res) == 1 && len(res[0].Rows) == 1 && string(res[0].Rows[0][0]) != strconv.FormatUint(uint64(c.PgConn().PID()), 10) {
		s.pooled.Store(true)
		return nil
	}
	var set []string
	if s.isolation {
		set = append(set, "SET default_transaction_isolation = 'repeatable read'")
	}
	if s.lockWait {
		set = append(set, pgLockWait)
	}
	if len(set) == 0 {
		return nil
	}
	_, err = c.PgConn().Exec(ctx, strings.Join(set, "; ")).ReadAll()
	return err
}

// pgBackend runs the store over a pgx pool. pgx prepares and caches every
// statement per connection, so the hot path sends only Bind/Execute; a
// run's single reads prepare their own and skip pgx's query layer
// (pgfast.go).
type pgBackend struct {
	d     *dialect
	pool  *pgxpool.Pool
	autoQ pgQ
	// noArrays: the server did not understand pgReadTxn (pipeline.go).
	noArrays atomic.Bool
	// pooled: a connection pooler answers (pgSession).
	pooled bool
	// txBegin and txBeginRead start a transaction at the store's isolation
	// level (REPEATABLE READ) unless the URL set its own; txOpts is the same
	// for pgx's BeginTx.
	txBegin, txBeginRead string
	txOpts               pgx.TxOptions
	// lockReset returns a connection's lock_timeout to the session's after
	// DDL changed it: RESET returns to the value the connection started
	// with (the URL's, or the server's), not to pgSession's SET.
	lockReset string
}

func (b *pgBackend) auto() querier { return &b.autoQ }
func (b *pgBackend) close()        { b.pool.Close() }
func (b *pgBackend) reset()        { b.pool.Reset() }

func (b *pgBackend) loading(context.Context, bool) error { return nil }

func (b *pgBackend) begin(ctx context.Context, readOnly bool) (txn, error) {
	opts := b.txOpts
	if readOnly {
		opts.AccessMode = pgx.ReadOnly
	}
	tx, err := b.pool.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &pgTx{pgQ: pgQ{d: b.d, r: tx}, tx: tx}, nil
}

func (b *pgBackend) readOnlyReason(ctx context.Context) (string, string) {
	var inRecovery bool
	var dro string
	if err := b.pool.QueryRow(ctx, "SELECT pg_is_in_recovery(), current_setting('default_transaction_read_only')").Scan(&inRecovery, &dro); err != nil {
		return "", ""
	}
	return pgReadOnlyReason(inRecovery, dro)
}

// PostgreSQL error codes (https://www.postgresql.org/docs/current/errcodes-appendix.html);
// CockroachDB and YugabyteDB use the same.
func (b *pgBackend) classify(err error) errClass {
	var e *pgconn.PgError
	if !errors.As(err, &e) {
		return errOther
	}
	switch e.Code {
	case "40001", "40P01", "55P03": // serialization_failure, deadlock_detected, lock_not_available
		return errConflict
	case "23505": // unique_violation
		return errUnique
	case "57014": // query_canceled (statement_timeout)
		return errTimeout
	case "40003": // statement_completion_unknown: CockroachDB's ambiguous commit
		return errAmbiguous
	}
	return errOther
}

// buildIndexes runs each phase's statements at the same time, each on its
// own connection, and the phases in order. The CREATE INDEX statements of
// a phase are created in the order listed (planOrder): each starts once
// the one before holds the lock on its new index, which PostgreSQL takes
// right after choosing the index's OID and before the build, so the OIDs
// follow the list while the builds overlap. (Building edges_pkey after the
// other two, as before, left a core idle for its whole build.)
func (b *pgBackend) buildIndexes(ctx context.Context, phases [][]string) error {
	for _, stmts := range phases {
		errs := make([]error, len(stmts))
		// started[i] closes when statement i has its connection (pids[i]
		// set) or has ended; ended[i] when it has ended.
		started, ended := make([]chan struct{}, len(stmts)), make([]chan struct{}, len(stmts))
		pids := make([]uint32, len(stmts))
		for i := range stmts {
			started[i], ended[i] = make(chan struct{}), make(chan struct{})
		}
		var wg sync.WaitGroup
		for i, s := range stmts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer close(ended[i])
				var once sync.Once
				start := func() { once.Do(func() { close(started[i]) }) }
				defer start()
				// Connections are taken in the list's order, so that a pool
				// too small for all never has a statement hold the last one
				// while it waits for the one before.
				if i > 0 {
					<-started[i-1]
				}
				errs[i] = b.pool.AcquireFunc(ctx, func(c *pgxpool.Conn) error {
					pids[i] = c.Conn().PgConn().PID()
					start()
					// The settings and their reset in one round trip each.
					if _, err := c.Exec(ctx, buildSettings); err != nil {
						return err
					}
					defer c.Exec(context.Background(), b.lockReset+"; RESET maintenance_work_mem; RESET max_parallel_maintenance_workers")
					q := &pgQ{d: b.d, r: c}
					if i > 0 && isCreateIndex(s) && isCreateIndex(stmts[i-1]) {
						if b.pooled {
							// Behind a pooler the connection's PID is the
							// pooler's, not a server process's: the builds
							// go one after another.
							select {
							case <-ended[i-1]:
							case <-ctx.Done():
								return ctx.Err()
							}
						} else if err := waitCreating(ctx, q, pids[i-1], ended[i-1]); err != nil {
							return err
						}
					}
					return execDDL(ctx, q, s)
				})
			}()
		}
		wg.Wait()
		for i, s := range stmts {
			if errs[i] != nil {
				return fmt.Errorf("%s: %w", s, errs[i])
			}
		}
	}
	return nil
}

// buildSettings are the settings of the load's index builds: DDL's lock
// wait (ddlWaits), memory enough to sort a 200,000-edge graph's index in
// one pass, and no parallel workers while edges is under 1 GB (about 5 M
// edges): the load builds its indexes several at once, and on a small
// table a build's workers add their start and the merge of their sorts to
// CPU the other builds need (a 200 K-edge load's end: 510-550 ms of server
// CPU without, 610-700 ms with, two cores). Above that the server's
// setting stands.
var buildSettings = strings.Join(ddlWaits("postgres"), "; ") + "; SELECT set_config('maintenance_work_mem', '256MB', false), " +
	"set_config('max_parallel_maintenance_workers', CASE WHEN pg_relation_size('edges') < 1073741824 " +
	"THEN '0' ELSE current_setting('max_parallel_maintenance_workers') END, false)"

func isCreateIndex(s string) bool {
	return strings.HasPrefix(s, "CREATE INDEX ") || strings.HasPrefix(s, "CREATE UNIQUE INDEX ")
}

// waitCreating returns once the backend pid holds an AccessExclusiveLock
// on a relation (the index its CREATE INDEX creates), or its statement has
// ended (done). It asks every millisecond at first, which is about how
// long a CREATE INDEX takes to get there, and less often the longer it
// waits (the statement may wait for the table's lock, for as long as
// ddlLockWait).
func waitCreating(ctx context.Context, q querier, pid uint32, done <-chan struct{}) error {
	for pause := time.Millisecond; ; pause = min(2*pause, 100*time.Millisecond) {
		select {
		case <-done:
			return nil
		default:
		}
		var n int64
		err := q.query(ctx, "SELECT count(*) FROM pg_locks WHERE pid = $1 AND locktype = 'relation' AND mode = 'AccessExclusiveLock' AND granted",
			[]any{int64(pid)}, func(scan func(...any) error) error { return scan(&n) })
		if err != nil || n > 0 {
			return err
		}
		select {
		case <-done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
	}
}

// ddl sets the connection's lock_timeout to ddlLockWait and, after fn,
// back to the session's (lockReset).
func (b *pgBackend) ddl(ctx context.Context, tx bool, fn func(querier) error) error {
	return b.pool.AcquireFunc(ctx, func(c *pgxpool.Conn) error {
		for _, s := range ddlWaits("postgres") {
			if _, err := c.Exec(ctx, s); err != nil {
				return err
			}
		}
		defer c.Exec(context.Background(), b.lockReset)
		if !tx {
			return fn(&pgQ{d: b.d, r: c})
		}
		t, err := c.Begin(ctx)
		if err != nil {
			return err
		}
		if err := fn(&pgQ{d: b.d, r: t}); err != nil {
			_ = t.Rollback(context.Background())
			return err
		}
		return t.Commit(ctx)
	})
}

// pgRunner is what a pool and a transaction have in common.
type pgRunner interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

type pgQ struct {
	d *dialect
	r pgRunner
}

func (q *pgQ) first(ctx context.Context, s stmt, args ...any) (int64, bool, error) {
	if p, ok := q.r.(*pgPool); ok {
		if n, v, handled, err := p.fast(ctx, s, q.d.stmts[s], args, true); handled {
			return v, n > 0, err
		}
	}
	rows, err := q.r.Query(ctx, q.d.stmts[s], args...)
	if err != nil {
		return 0, false, err
	}
	defer rows.Close()
	if !rows.Next() {
		return 0, false, rows.Err()
	}
	v, ok := firstInt(rows)
	if !ok {
		if s.cols() == 1 {
			err = rows.Scan(&v)
		} else {
			err = rows.Scan(&v, nil, nil) // nil skips a column
		}
		if err != nil {
			return 0, false, err
		}
	}
	rows.Close()
	return v, true, rows.Err()
}

// firstInt decodes the current row's first column when it is a binary
// integer, as PostgreSQL sends int2, int4 and int8 columns to a prepared
// statement; ok is false for anything else (NULL included), which Scan
// then decodes or refuses. Scan plans its decoding anew for every query (a
// type-map lookup and two allocations, a tenth of a point read's client
// work in pgx), and every statement first reads is one of these.
func firstInt(rows pgx.Rows) (v int64, ok bool) {
	return rawInt(rows.FieldDescriptions(), rows.RawValues())
}

// rawInt decodes a row's first column, as firstInt.
func rawInt(fd []pgconn.FieldDescription, raw [][]byte) (v int64, ok bool) {
	if len(fd) == 0 || len(raw) == 0 || fd[0].Format != pgx.BinaryFormatCode || raw[0] == nil {
		return 0, false
	}
	b := raw[0]
	switch {
	case fd[0].DataTypeOID == pgtype.Int8OID && len(b) == 8:
		return int64(binary.BigEndian.Uint64(b)), true
	case fd[0].DataTypeOID == pgtype.Int4OID && len(b) == 4:
		return int64(int32(binary.BigEndian.Uint32(b))), true
	case fd[0].DataTypeOID == pgtype.Int2OID && len(b) == 2:
		return int64(int16(binary.BigEndian.Uint16(b))), true
	}
	return 0, false
}

func (q *pgQ) firstInts(ctx context.Context, s stmt, a intArgs) (int64, bool, error) {
	if p, ok := q.r.(*pgPool); ok {
		if n, v, handled, err := p.fastInts(ctx, s, q.d.stmts[s], a, true); handled {
			return v, n > 0, err
		}
	}
	return q.first(ctx, s, a.boxed()...)
}

func (q *pgQ) countInts(ctx context.Context, s stmt, a intArgs) (int, error) {
	if p, ok := q.r.(*pgPool); ok {
		if n, _, handled, err := p.fastInts(ctx, s, q.d.stmts[s], a, false); handled {
			return n, err
		}
	}
	return q.count(ctx, s, a.boxed()...)
}

func (q *pgQ) count(ctx context.Context, s stmt, args ...any) (int, error) {
	if p, ok := q.r.(*pgPool); ok {
		if n, _, handled, err := p.fast(ctx, s, q.d.stmts[s], args, false); handled {
			return n, err
		}
	}
	rows, err := q.r.Query(ctx, q.d.stmts[s], args...)
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

func (q *pgQ) exec(ctx context.Context, s stmt, args ...any) (int64, error) {
	return q.execSQL(ctx, q.d.stmts[s], args...)
}

func (q *pgQ) execSQL(ctx context.Context, sql string, args ...any) (int64, error) {
	tag, err := q.r.Exec(ctx, sql, args...)
	return tag.RowsAffected(), err
}

func (q *pgQ) query(ctx context.Context, sql string, args []any, row func(func(...any) error) error) error {
	rows, err := q.r.Query(ctx, sql, args...)
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

type pgTx struct {
	pgQ
	tx pgx.Tx
}

func (t *pgTx) commit(ctx context.Context) error { return t.tx.Commit(ctx) }

// rollback ignores the request's context, which may be what ended it.
func (t *pgTx) rollback() { _ = t.tx.Rollback(context.Background()) }

// newLoader holds one connection for the loader's life. Into empty tables
// without indexes (fast) it streams rows with COPY; otherwise it inserts in
// multi-row statements that skip existing keys.
//
// Its commits do not wait for the WAL flush (synchronous_commit off): each
// batch's commit waited for an fsync, one per batch per loader. Nothing
// durable is lost: the load ends with synchronous commits (the index
// builds, the graph's "complete" record), and a commit's flush writes all
// the WAL before it, so a graph recorded complete is on disk; a crash
// mid-load loses at most the last batches, in a graph still recorded
// "loading", which the next load resumes.
func (b *pgBackend) newLoader(ctx context.Context, db *DB, fast bool) (store.Loader, error) {
	c, err := b.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	// Behind a pooler the setting would stay on a server connection other
	// clients get, and not follow the loader's: none is made.
	if b.pooled {
		return &pgLoader{db: db, conn: c, fast: fast}, nil
	}
	if _, err := c.Exec(ctx, "SET synchronous_commit = off"); err != nil {
		c.Release()
		return nil, err
	}
	return &pgLoader{db: db, conn: c, fast: fast, async: true}, nil
}

type pgLoader struct {
	db   *DB
	conn *pgxpool.Conn
	fast bool
	// async: the connection's commits do not wait for the WAL flush.
	async bool
	args  []any
	copy  copyReader
}

func (l *pgLoader) Load(ctx context.Context, objs []tao.Object, edges []tao.Edge) error {
	if l.fast {
		pg := l.conn.Conn().PgConn()
		if len(objs) > 0 {
			l.copy.reset(len(objs), func(b []byte, i int) []byte { return appendObject(b, &objs[i]) })
			if _, err := pg.CopyFrom(ctx, &l.copy, copyObjects); err != nil {
				return widthHint(fmt.Errorf("copying %d objects: %w", len(objs), err))
			}
		}
		if len(edges) > 0 {
			l.copy.reset(len(edges), func(b []byte, i int) []byte { return appendEdge(b, &edges[i]) })
			if _, err := pg.CopyFrom(ctx, &l.copy, copyEdges); err != nil {
				return widthHint(fmt.Errorf("copying %d edges: %w", len(edges), err))
			}
		}
		return nil
	}
	var err error
	for range 10 { // deadlocks between loaders are retried
		if err = l.insert(ctx, objs, edges); err == nil || l.db.b.classify(err) != errConflict || ctx.Err() != nil {
			break
		}
	}
	return widthHint(err)
}

func (l *pgLoader) insert(ctx context.Context, objs []tao.Object, edges []tao.Edge) error {
	tx, err := l.conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background())
	for len(objs) > 0 {
		n := min(len(objs), loadBatch)
		l.args = l.db.objectArgs(l.args[:0], objs[:n])
		if _, err := tx.Exec(ctx, l.db.d.multiInsert("objects", objCols, numObjCols, n), l.args...); err != nil {
			return fmt.Errorf("inserting %d objects: %w", n, err)
		}
		objs = objs[n:]
	}
	for len(edges) > 0 {
		n := min(len(edges), loadBatch)
		l.args = l.db.edgeArgs(l.args[:0], edges[:n])
		if _, err := tx.Exec(ctx, l.db.d.multiInsert("edges", edgeCols, numEdgeCols, n), l.args...); err != nil {
			return fmt.Errorf("inserting %d edges: %w", n, err)
		}
		edges = edges[n:]
	}
	return tx.Commit(ctx)
}

// Close returns the connection to the pool with its commits synchronous
// again, or closes it.
func (l *pgLoader) Close() error {
	defer l.conn.Release()
	if !l.async {
		return nil
	}
	if _, err := l.conn.Exec(context.Background(), "RESET synchronous_commit"); err != nil {
		_ = l.conn.Conn().Close(context.Background())
	}
	return nil
}

// The loader's COPY statements, in PostgreSQL's binary format: the
// columns of objCols and edgeCols, in order.
var (
	copyObjects = "COPY objects (" + objCols + ") FROM STDIN BINARY"
	copyEdges   = "COPY edges (" + edgeCols + ") FROM STDIN BINARY"
)

// copyReader is the data of one binary COPY of n rows, encoded as pgconn
// reads it (into its 64 KiB messages): the header, each row as row appends
// it, the trailer. Encoding the rows here, each BIGINT and VARCHAR by hand,
// takes a third of the client's CPU of a load off: pgx's CopyFrom boxes
// every value in an interface, looks its encoder up per value, and
// describes the table before each COPY (a round trip).
type copyReader struct {
	buf  []byte // encoded, buf[off:] not yet read
	off  int
	n, i int // rows, and the next to encode (n: the trailer)
	row  func(b []byte, i int) []byte
}

// copyHeader starts a binary COPY: signature, flags, no extension.
const copyHeader = "PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00"

func (r *copyReader) reset(n int, row func(b []byte, i int) []byte) {
	r.buf, r.off, r.n, r.i, r.row = append(r.buf[:0], copyHeader...), 0, n, 0, row
}

func (r *copyReader) Read(p []byte) (int, error) {
	if r.off > 0 {
		r.buf = r.buf[:copy(r.buf, r.buf[r.off:])]
		r.off = 0
	}
	for len(r.buf) < len(p) && r.i <= r.n {
		if r.i == r.n {
			r.buf = binary.BigEndian.AppendUint16(r.buf, 0xffff) // the trailer: -1 fields
		} else {
			r.buf = r.row(r.buf, r.i)
		}
		r.i++
	}
	if len(r.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.buf)
	r.off = n
	return n, nil
}

// appendObject and appendEdge encode a row of objCols and edgeCols: the
// field count, then each field's length and value (BIGINT: 8 bytes big
// endian; VARCHAR: its bytes), the values objectArgs and edgeArgs bind.
func appendObject(b []byte, o *tao.Object) []byte {
	b = binary.BigEndian.AppendUint16(b, numObjCols)
	b = appendInt8(b, o.ID)
	b = appendInt8(b, o.Time)
	b = appendText(b, o.Value)
	return appendInt8(b, max(o.Version, 1))
}

func appendEdge(b []byte, e *tao.Edge) []byte {
	b = binary.BigEndian.AppendUint16(b, numEdgeCols)
	b = appendInt8(b, e.ID1)
	b = appendInt8(b, e.ID2)
	b = appendInt8(b, int64(e.Type))
	b = appendInt8(b, e.Time)
	b = appendText(b, e.Value)
	b = appendInt8(b, max(e.Version, 1))
	return appendInt8(b, ukey(e.Type, e.ID2))
}

func appendInt8(b []byte, v int64) []byte {
	b = binary.BigEndian.AppendUint32(b, 8)
	return binary.BigEndian.AppendUint64(b, uint64(v))
}

func appendText(b []byte, v []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
	return append(b, v...)
}
