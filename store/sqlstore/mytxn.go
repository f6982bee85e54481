package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"sync"

	"github.com/taobench/taobench/tao"
)

// Read-only transactions in one round trip (MySQL protocol).
//
// go-sql-driver/mysql cannot pipeline: run statement by statement, a read
// transaction of n reads costs n+2 round trips (START TRANSACTION READ
// ONLY, the reads, COMMIT), 21 for workload o's average of 19. myBackend
// sends the whole transaction as one statement instead:
//
//	(SELECT 0, version, timestamp, 0, value FROM objects WHERE id = 7)
//	UNION ALL (SELECT 1, id2, timestamp, version, value FROM edges WHERE id1 = 7 AND type = 2 ORDER BY timestamp DESC LIMIT 10 OFFSET 0)
//	UNION ALL ...
//
// Each branch is one read, reading what its prepared statement (dialect.go)
// reads through the same index, its rows tagged with the read's index, so
// one result set answers every read whatever order its rows come in. One
// statement reads one snapshot (InnoDB's consistent read, TiDB's statement
// timestamp), as START TRANSACTION READ ONLY did, and at READ COMMITTED a
// stricter one; and it needs no transaction, so a failure leaves nothing
// open on the connection.
//
// A multi-statement query (START TRANSACTION READ ONLY;SELECT ...;COMMIT)
// was tried first and measured worse: the server flushes each statement's
// result separately, so the client still woke once per read, and parsing
// the statements cost the server more than the round trips it saved
// (docs/performance.md, BenchmarkMySQLReadTxn).
//
// The reads' parameters are spelled out in the text, and only integers are:
// each is formatted by strconv from an int64 or int the request holds, and a
// read with an argument of any other type is not sent this way (readTxn
// returns false and the transaction runs statement by statement). No text
// from outside the program reaches the query, so there is nothing to
// inject.

// myBackend is the MySQL-protocol backend: database/sql with
// go-sql-driver/mysql, plus read transactions in one round trip.
type myBackend struct {
	*sqlBackend
	tidb bool
	// vitess is set behind vtgate: its connector and keyspace (vitess.go).
	vitess *vitessTarget
	// procs are the write procedures (MariaDB; myproc.go); slotsOnly
	// sends single writes to the slot procedures too (tests and
	// benchmarks compare).
	procs     myProcs
	slotsOnly bool
	// stepwise turns the one-round-trip read transactions and writes off
	// (tests and benchmarks compare both paths).
	stepwise bool
	// branch are unionBranch split at the read index (#) and the
	// placeholders.
	branch [sEdgeTime + 1][]string
	bufs   sync.Pool // *[]byte
}

// unionBranch are the read statements as UNION ALL branches: each row
// carries its read's index (#) and four columns every branch fills alike.
var unionBranch = [sEdgeTime + 1]string{
	sObjGet:    "(SELECT #, version, timestamp, 0, value FROM objects WHERE id = ?)",
	sEdgeGet:   "(SELECT #, version, timestamp, 0, value FROM edges WHERE id1 = ? AND type = ? AND id2 = ?)",
	sEdgeRange: "(SELECT #, id2, timestamp, version, value FROM edges WHERE id1 = ? AND type = ? ORDER BY timestamp DESC LIMIT ? OFFSET ?)",
	sEdgeCount: "(SELECT #, COUNT(*), 0, 0, '' FROM edges WHERE id1 = ? AND type = ?)",
	sEdgeTime: "(SELECT #, id2, timestamp, version, value FROM edges WHERE id1 = ? AND type = ? " +
		"AND timestamp >= ? AND timestamp <= ? ORDER BY timestamp DESC LIMIT ?)",
	// sObjCheck and sEdgeCheck are never part of a read transaction.
}

func newMyBackend(b *sqlBackend) *myBackend {
	m := &myBackend{sqlBackend: b}
	for s, text := range unionBranch {
		if text != "" {
			m.branch[s] = strings.Split(strings.Replace(text, "#", "?", 1), "?")
		}
	}
	m.bufs.New = func() any { b := make([]byte, 0, 4096); return &b }
	return m
}

func (m *myBackend) close() {
	m.procs.close()
	m.sqlBackend.close()
}

// errNotText marks a statement readTxn cannot spell as text.
var errNotText = errors.New("not a read statement with integer arguments")

// myText is a querier that appends each read, its arguments spelled out,
// to one UNION ALL statement and returns no rows.
type myText struct {
	m   *myBackend
	buf []byte
	n   int // reads appended
}

func (q *myText) add(s stmt, args []any) error {
	if int(s) >= len(q.m.branch) || q.m.branch[s] == nil {
		return errNotText
	}
	parts := q.m.branch[s] // parts[0] (SELECT, parts[1] the rest to the first ?
	if len(args) != len(parts)-2 {
		return errNotText
	}
	if q.n > 0 {
		q.buf = append(q.buf, " UNION ALL "...)
	}
	q.buf = append(q.buf, parts[0]...)
	q.buf = strconv.AppendInt(q.buf, int64(q.n), 10)
	q.buf = append(q.buf, parts[1]...)
	for i, a := range args {
		switch v := a.(type) {
		case int64:
			q.buf = strconv.AppendInt(q.buf, v, 10)
		case int:
			q.buf = strconv.AppendInt(q.buf, int64(v), 10)
		default:
			return errNotText
		}
		q.buf = append(q.buf, parts[i+2]...)
	}
	q.n++
	return nil
}

func (q *myText) first(_ context.Context, s stmt, args ...any) (int64, bool, error) {
	return 0, false, q.add(s, args)
}

func (q *myText) count(_ context.Context, s stmt, args ...any) (int, error) {
	return 0, q.add(s, args)
}

func (q *myText) exec(context.Context, stmt, ...any) (int64, error) { return 0, errNotText }
func (q *myText) execSQL(context.Context, string, ...any) (int64, error) {
	return 0, errNotText
}
func (q *myText) query(context.Context, string, []any, func(func(...any) error) error) error {
	return errNotText
}

// errResults is a row tagged with no read of the statement: not a server
// taobench understands.
var errResults = errors.New("the server returned a row for no read of the read transaction")

// myUnion holds the rows of a read transaction's one result set, by read,
// and hands them to db.op in read order.
type myUnion struct {
	found []bool
	v     []int64 // the first row's second column: a version or a count
	rows  []int
	n     int // reads answered
}

// read reads every row of the result set; rows may come in any order.
func (q *myUnion) read(rows *sql.Rows, n int) error {
	q.found, q.v, q.rows = make([]bool, n), make([]int64, n), make([]int, n)
	var i, v int64
	var skip sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&i, &v, &skip, &skip, &skip); err != nil {
			return err
		}
		if i < 0 || i >= int64(n) {
			return errResults
		}
		if !q.found[i] {
			q.found[i], q.v[i] = true, v
		}
		q.rows[i]++
	}
	return rows.Err()
}

func (q *myUnion) first(context.Context, stmt, ...any) (int64, bool, error) {
	i := q.n
	q.n++
	return q.v[i], q.found[i], nil
}

func (q *myUnion) count(context.Context, stmt, ...any) (int, error) {
	i := q.n
	q.n++
	return q.rows[i], nil
}

// firstInts and countInts are first and count for DB.op's reads, which
// come unboxed (intQuerier).
func (q *myUnion) firstInts(ctx context.Context, s stmt, _ intArgs) (int64, bool, error) {
	return q.first(ctx, s)
}

func (q *myUnion) countInts(ctx context.Context, s stmt, _ intArgs) (int, error) {
	return q.count(ctx, s)
}

func (q *myUnion) exec(context.Context, stmt, ...any) (int64, error) { return 0, errNotText }
func (q *myUnion) execSQL(context.Context, string, ...any) (int64, error) {
	return 0, errNotText
}
func (q *myUnion) query(context.Context, string, []any, func(func(...any) error) error) error {
	return errNotText
}

// readTxn runs a read-only transaction as one UNION ALL statement; it
// reports false, having sent nothing, when the request holds a read that
// cannot go that way.
func (m *myBackend) readTxn(ctx context.Context, db *DB, req *tao.Request, res *tao.Result) bool {
	if m.stepwise {
		return false
	}
	bp := m.bufs.Get().(*[]byte)
	defer m.bufs.Put(bp)
	q := myText{m: m, buf: (*bp)[:0]}
	for i := range req.Ops {
		if _, err := db.op(ctx, &q, &req.Ops[i], &res.Ops[i]); err != nil {
			*bp = q.buf
			return false
		}
	}
	*bp = q.buf
	if q.n != len(req.Ops) {
		return false // an operation that is not one statement: run it step by step
	}
	rows, err := m.read.QueryContext(ctx, string(q.buf))
	if err == nil {
		u := myUnion{}
		err = u.read(rows, len(req.Ops))
		if cerr := rows.Close(); err == nil {
			err = cerr
		}
		for i := range req.Ops {
			if err != nil {
				break
			}
			_, err = db.op(ctx, &u, &req.Ops[i], &res.Ops[i])
		}
	}
	if err != nil {
		db.finish(ctx, res, tao.OK, err, req.Ops[0].Kind.IsEdge())
	}
	return true
}

func (m *myBackend) readOnlyReason(ctx context.Context) (string, string) {
	vars := map[string]string{}
	rows, err := m.read.QueryContext(ctx, "SHOW VARIABLES WHERE Variable_name IN "+
		"('read_only', 'super_read_only', 'transaction_read_only', 'tx_read_only', 'tidb_super_read_only', 'tidb_restricted_read_only')")
	if err != nil {
		return "", ""
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if rows.Scan(&k, &v) == nil {
			vars[k] = v
		}
	}
	return mysqlReadOnlyReason(vars)
}
