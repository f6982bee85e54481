package sqlstore

import (
	"context"
	"encoding/binary"
	"errors"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/taobench/taobench/tao"
)

// Read-only transactions in one round trip (PostgreSQL protocol).
//
// A read transaction's keys are all known before it starts (TAOBench's
// transactions are one-shot) and no read depends on another's result, so
// nothing obliges the client to wait for each statement before sending the
// next. Run statement by statement, a transaction of n reads costs n+2
// round trips (begin, the reads, commit), each a write and a read system
// call on the client and a wake-up of the server; sent as one pipeline they
// cost one. The server receives the same prepared statements in the same
// transaction at the same isolation level and executes every one of them;
// only the waiting between them is gone, so a read transaction's latency is
// one round trip plus the server's work, as with any pipelining driver.
//
// The statements are the ones db.op issues: it runs once against a querier
// that queues them, then once more against the results, in order. Write
// transactions are not pipelined: their checks and operations decide
// whether the rest runs at all.
//
// MySQL has no pipelining in go-sql-driver/mysql; its read transactions go
// in one round trip as one UNION ALL statement instead (mytxn.go).
//
// A transaction of object and association point reads only (every read
// transaction TAOBench's workloads make) goes further: one statement
// (pgReadTxn, below) instead of n+2. Others go as a batch.

// readTxn runs a read-only transaction in one round trip: as one
// statement when it can, else as one batch.
func (b *pgBackend) readTxn(ctx context.Context, db *DB, req *tao.Request, res *tao.Result) bool {
	if !b.noArrays.Load() && arrayReadTxn(ctx, b.autoQ.r, db, req, res, &b.noArrays) {
		return true
	}
	return b.batchReadTxn(ctx, db, req, res)
}

// batchReadTxn sends a read-only transaction as one pgx batch: Bind/Execute
// messages on the connection's prepared statements, then one Sync.
func (b *pgBackend) batchReadTxn(ctx context.Context, db *DB, req *tao.Request, res *tao.Result) bool {
	batch := &pgx.Batch{QueuedQueries: make([]*pgx.QueuedQuery, 0, len(req.Ops)+2)}
	batch.Queue(b.txBeginRead)
	queue := pgQueue{d: b.d, b: batch}
	for i := range req.Ops {
		if _, err := db.op(ctx, &queue, &req.Ops[i], &res.Ops[i]); err != nil {
			return false
		}
	}
	if len(batch.QueuedQueries) != len(req.Ops)+1 {
		return false // an operation that is not one statement: run it step by step
	}
	batch.Queue("commit")

	c, err := b.pool.Acquire(ctx)
	if err != nil {
		db.finish(ctx, res, tao.OK, err, req.Ops[0].Kind.IsEdge())
		return true
	}
	defer c.Release() // runs after the rollback below
	br := c.SendBatch(ctx, batch)
	out, edge := tao.OK, req.Ops[0].Kind.IsEdge()
	if _, err = br.Exec(); err == nil { // begin
		q := pgQ{d: b.d, r: &batchRunner{br}}
		for i := range req.Ops {
			op := &req.Ops[i]
			if out, err = db.op(ctx, &q, op, &res.Ops[i]); err != nil {
				edge = op.Kind.IsEdge()
				break
			}
		}
		if err == nil {
			out = tao.OK
			_, err = br.Exec() // commit
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if c.Conn().PgConn().TxStatus() != 'I' {
		// A failed statement left the transaction open (and aborted);
		// if the rollback fails too, Release discards the connection.
		_, _ = c.Exec(context.Background(), "rollback")
	}
	if err != nil {
		db.finish(ctx, res, out, err, edge)
	}
	return true
}

// pgQueue is a querier that queues statements in a batch and returns no
// rows; readTxn reads their results afterwards.
type pgQueue struct {
	d *dialect
	b *pgx.Batch
}

func (q *pgQueue) first(_ context.Context, s stmt, args ...any) (int64, bool, error) {
	q.b.Queue(q.d.stmts[s], args...)
	return 0, false, nil
}

func (q *pgQueue) count(_ context.Context, s stmt, args ...any) (int, error) {
	q.b.Queue(q.d.stmts[s], args...)
	return 0, nil
}

func (q *pgQueue) exec(_ context.Context, s stmt, args ...any) (int64, error) {
	q.b.Queue(q.d.stmts[s], args...)
	return 0, nil
}

func (q *pgQueue) execSQL(_ context.Context, sql string, args ...any) (int64, error) {
	q.b.Queue(sql, args...)
	return 0, nil
}

func (q *pgQueue) query(_ context.Context, sql string, args []any, _ func(func(...any) error) error) error {
	q.b.Queue(sql, args...)
	return nil
}

// batchRunner hands out a sent batch's results in the order they were queued.
type batchRunner struct{ br pgx.BatchResults }

func (r *batchRunner) Query(context.Context, string, ...any) (pgx.Rows, error) { return r.br.Query() }
func (r *batchRunner) Exec(context.Context, string, ...any) (pgconn.CommandTag, error) {
	return r.br.Exec()
}

// Read transactions as one statement (PostgreSQL).
//
// As a batch, a read transaction of n reads is one round trip but n+2
// statements on the server: begin, n executions of the point reads, commit,
// each a trip through the executor, the transaction machinery and the
// protocol's per-message work. Workload o's read transactions are 19 reads
// on average and all of them object or association point reads, so pgReadTxn
// reads them all in one statement: the keys go as arrays, one element per
// read, with the read's index in the request; each element's row is read
// through the primary key, as sObjGet and sEdgeGet read it, and returned
// with the same columns (version, timestamp, value), tagged with the read's
// index, so each read's result is what its own statement gives. A key that
// occurs twice is read twice. OFFSET 0 keeps each lateral subquery from
// being flattened into a join the planner could turn into a hash join over
// the whole table: every read is one index probe (TestPlansPostgres checks
// the generic plan). One statement reads one snapshot, as the batch's
// BEGIN READ ONLY at REPEATABLE READ did, and needs no transaction, so a
// failure leaves nothing open on the connection.
const pgReadTxn = "SELECT k.i, o.version, o.timestamp, o.value FROM unnest($1::bigint[], $2::int[]) AS k(id, i) " +
	"CROSS JOIN LATERAL (SELECT version, timestamp, value FROM objects WHERE id = k.id OFFSET 0) o " +
	"UNION ALL SELECT k.i, e.version, e.timestamp, e.value FROM unnest($3::bigint[], $4::bigint[], $5::bigint[], $6::int[]) AS k(id1, type, id2, i) " +
	"CROSS JOIN LATERAL (SELECT version, timestamp, value FROM edges WHERE id1 = k.id1 AND type = k.type AND id2 = k.id2 OFFSET 0) e"

// pgReads collects a read transaction's point reads as pgReadTxn's array
// parameters; as a querier it queues and returns no rows. Its slices are
// reused (readsPool).
type pgReads struct {
	objID         []int64
	objI          []int32
	id1, typ, id2 []int64
	edgeI         []int32
	n             int // reads collected
	found         []bool
	v             []int64
	rows          []int
}

var readsPool = sync.Pool{New: func() any { return new(pgReads) }}

func (q *pgReads) reset() {
	q.objID, q.objI, q.id1, q.typ, q.id2, q.edgeI = q.objID[:0], q.objI[:0], q.id1[:0], q.typ[:0], q.id2[:0], q.edgeI[:0]
	q.n = 0
}

func (q *pgReads) first(ctx context.Context, s stmt, args ...any) (int64, bool, error) {
	a, ok := toInts(args)
	if !ok {
		return 0, false, errNotText
	}
	return q.firstInts(ctx, s, a)
}

// firstInts collects a point read (intQuerier: DB.op's reads come here
// unboxed).
func (q *pgReads) firstInts(_ context.Context, s stmt, a intArgs) (int64, bool, error) {
	switch {
	case s == sObjGet && a.n == 1:
		q.objID, q.objI = append(q.objID, a.v[0]), append(q.objI, int32(q.n))
		q.n++
		return 0, false, nil
	case s == sEdgeGet && a.n == 3:
		q.id1, q.typ, q.id2, q.edgeI = append(q.id1, a.v[0]), append(q.typ, a.v[1]), append(q.id2, a.v[2]), append(q.edgeI, int32(q.n))
		q.n++
		return 0, false, nil
	}
	return 0, false, errNotText
}

func (q *pgReads) countInts(context.Context, stmt, intArgs) (int, error) { return 0, errNotText }

func (q *pgReads) count(context.Context, stmt, ...any) (int, error)       { return 0, errNotText }
func (q *pgReads) exec(context.Context, stmt, ...any) (int64, error)      { return 0, errNotText }
func (q *pgReads) execSQL(context.Context, string, ...any) (int64, error) { return 0, errNotText }
func (q *pgReads) query(context.Context, string, []any, func(func(...any) error) error) error {
	return errNotText
}

// read reads pgReadTxn's rows into a myUnion, by read; rows may come in
// any order.
func (q *pgReads) read(rows pgx.Rows) (*myUnion, error) {
	q.start()
	var i int32
	var v int64
	for rows.Next() {
		if err := rows.Scan(&i, &v, nil, nil); err != nil {
			return nil, err
		}
		if err := q.add(int64(i), v); err != nil {
			return nil, err
		}
	}
	return q.union(), rows.Err()
}

// start readies q for pgReadTxn's rows.
func (q *pgReads) start() {
	q.found, q.v, q.rows = grow(q.found, q.n), grow(q.v, q.n), grow(q.rows, q.n)
}

// add takes a row of read i with version v.
func (q *pgReads) add(i, v int64) error {
	if i < 0 || i >= int64(q.n) {
		return errResults
	}
	if !q.found[i] {
		q.found[i], q.v[i] = true, v
	}
	q.rows[i]++
	return nil
}

func (q *pgReads) union() *myUnion { return &myUnion{found: q.found, v: q.v, rows: q.rows} }

// encode writes pgReadTxn's six array parameters in binary for the fast
// path (pgfast.go), when sd asks for the types pgReadTxn casts to.
func (q *pgReads) encode(f *pgFastConn, sd *pgconn.StatementDescription) bool {
	if !slices.Equal(sd.ParamOIDs, readTxnParams) {
		return false
	}
	f.begin()
	f.buf = appendArray(f.buf, q.objID)
	f.end()
	f.buf = appendArray(f.buf, q.objI)
	f.end()
	f.buf = appendArray(f.buf, q.id1)
	f.end()
	f.buf = appendArray(f.buf, q.typ)
	f.end()
	f.buf = appendArray(f.buf, q.id2)
	f.end()
	f.buf = appendArray(f.buf, q.edgeI)
	f.end()
	f.cut()
	// The rows come next (row): ready q for them.
	q.start()
	return true
}

// row takes one of pgReadTxn's rows on the fast path: the read's index
// and the version.
func (q *pgReads) row(cols []pgconn.FieldDescription, values [][]byte) error {
	if len(cols) < 2 || len(values) < 2 {
		return errResults
	}
	i, ok := rawInt(cols, values)
	v, ok2 := rawInt(cols[1:], values[1:])
	if !ok || !ok2 {
		return errFastNull
	}
	return q.add(i, v)
}

// readTxnParams are pgReadTxn's parameter types: bigint[], int[],
// bigint[], bigint[], bigint[], int[].
var readTxnParams = []uint32{pgtype.Int8ArrayOID, pgtype.Int4ArrayOID, pgtype.Int8ArrayOID, pgtype.Int8ArrayOID, pgtype.Int8ArrayOID, pgtype.Int4ArrayOID}

// appendArray appends vals as a one-dimensional PostgreSQL array in
// binary, as pgx encodes it (array_recv's format: the dimensions, a
// has-nulls flag, the element type, each dimension's length and lower
// bound, then each element's length and bytes).
func appendArray[T int32 | int64](b []byte, vals []T) []byte {
	oid, width := uint32(pgtype.Int8OID), 8
	if _, four := any(T(0)).(int32); four {
		oid, width = pgtype.Int4OID, 4
	}
	b = binary.BigEndian.AppendUint32(b, 1) // one dimension
	b = binary.BigEndian.AppendUint32(b, 0) // no NULLs
	b = binary.BigEndian.AppendUint32(b, oid)
	b = binary.BigEndian.AppendUint32(b, uint32(len(vals)))
	b = binary.BigEndian.AppendUint32(b, 1) // the lower bound
	for _, v := range vals {
		b = binary.BigEndian.AppendUint32(b, uint32(width))
		if width == 4 {
			b = binary.BigEndian.AppendUint32(b, uint32(v))
		} else {
			b = binary.BigEndian.AppendUint64(b, uint64(v))
		}
	}
	return b
}

// grow returns s resized to n zero values, reusing its array.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// arrayReadTxn runs a read-only transaction of point reads as pgReadTxn;
// it reports false, having sent nothing, when the request holds another
// kind of read, and, having set unsupported, when the server does not
// understand the statement (a PostgreSQL kin without multi-argument unnest
// or LATERAL): the reads then go as a batch, now and from then on.
func arrayReadTxn(ctx context.Context, pool pgRunner, db *DB, req *tao.Request, res *tao.Result, unsupported *atomic.Bool) bool {
	q := readsPool.Get().(*pgReads)
	defer readsPool.Put(q)
	q.reset()
	for i := range req.Ops {
		if _, err := db.op(ctx, q, &req.Ops[i], &res.Ops[i]); err != nil {
			return false
		}
	}
	if q.n != len(req.Ops) {
		return false
	}
	var u *myUnion
	handled, err := false, error(nil)
	if p, ok := pool.(*pgPool); ok {
		handled, err = p.fastRun(ctx, fastTxn, pgReadTxn, func(*pgFastConn) fastRead { return q }, nil)
		u = q.union()
	}
	if !handled {
		var rows pgx.Rows
		if rows, err = pool.Query(ctx, pgReadTxn, q.objID, q.objI, q.id1, q.typ, q.id2, q.edgeI); err == nil {
			u, err = q.read(rows)
			rows.Close()
			if err == nil {
				err = rows.Err()
			}
		}
	}
	if notUnderstood(err) {
		unsupported.Store(true)
		return false
	}
	for i := range req.Ops {
		if err != nil {
			break
		}
		_, err = db.op(ctx, u, &req.Ops[i], &res.Ops[i])
	}
	if err != nil {
		db.finish(ctx, res, tao.OK, err, req.Ops[0].Kind.IsEdge())
	}
	return true
}

// notUnderstood reports whether err says the server cannot run a statement
// as written: a syntax error, an unknown function, an unsupported feature.
// The statement read nothing, so the reads can go another way.
func notUnderstood(err error) bool {
	var e *pgconn.PgError
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code {
	case "42601", "42883", "0A000": // syntax_error, undefined_function, feature_not_supported
		return true
	}
	return false
}
