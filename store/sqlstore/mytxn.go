package sqlstore

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/go-sql-driver/mysql"

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
	// mariadb: writes that need a transaction go as one compound
	// statement (writeTxn).
	mariadb bool
	// stepwise turns the one-round-trip read transactions and writes off (tests and
	// benchmarks compare both paths).
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

// Writes in one round trip (MariaDB).
//
// Statement by statement, a write that needs a transaction (a check, an
// association with an inverse, a write transaction) costs START
// TRANSACTION, each check, each statement and COMMIT: four round trips for
// a checked update, four for an update of a bidirectional association.
// go-sql-driver/mysql cannot pipeline, and the decisions between the
// statements (a check that fails, an update that found no row and so
// writes no inverse, an upsert that met another edge of a unique type) are
// the server's to make in MariaDB's anonymous compound statement (BEGIN NOT
// ATOMIC ... END), sent as one query: the same statements as the prepared
// ones (dialect.go), their integer arguments spelled by strconv and
// payloads as hex literals, in one transaction that commits or, on the
// first failure, rolls back before the error reaches the client. A failed
// check or a unique collision is a SIGNAL with its own error number; the
// exit handler prefixes every error's message with the kind of row (o:, e:)
// the failing statement touched, which the outcome's class needs. The
// statements' results come back as one row: for each operation whether it
// found its row. MySQL and TiDB have no anonymous compound statements;
// their writes go statement by statement. The server parses the block on
// every write, which costs it more CPU than the prepared statements it
// replaces (1.25×, against 4.1 round trips made 1 and half the client's
// CPU: docs/performance.md, BenchmarkMariaDBWrite).

// Error numbers of the compound statement's own SIGNALs (user-defined
// numbers, above MariaDB's own).
const (
	myObjCheckFailed  = 30001
	myEdgeCheckFailed = 30002
	myUniqueEdge      = 30003
)

// myWriteHead opens the block: its variables, the exit handler and the
// transaction.
const myWriteHead = "BEGIN NOT ATOMIC DECLARE v BIGINT; DECLARE n BIGINT; DECLARE k CHAR(2) DEFAULT 'o:'; " +
	"DECLARE f VARCHAR(4096) DEFAULT ''; DECLARE m VARCHAR(512); " +
	"DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN GET DIAGNOSTICS CONDITION 1 m = MESSAGE_TEXT; ROLLBACK; " +
	"SET m = CONCAT(k, m); RESIGNAL SET MESSAGE_TEXT = m; END; START TRANSACTION; "

// myBlock builds a write's compound statement.
type myBlock struct {
	d    *dialect
	buf  []byte
	edge bool // k's value in the block so far
	bad  bool // an argument of a type stmt does not spell
}

// stmt appends statement s with args spelled out; into, when set, is put
// after its first "SELECT version" (a check reads into v).
func (b *myBlock) stmt(s stmt, into bool, args ...any) {
	text := b.d.stmts[s]
	if into {
		text = strings.Replace(text, "SELECT version ", "SELECT version INTO v ", 1)
	}
	for _, a := range args {
		j := strings.IndexByte(text, '?')
		b.buf = append(b.buf, text[:j]...)
		text = text[j+1:]
		switch v := a.(type) {
		case int64:
			b.buf = strconv.AppendInt(b.buf, v, 10)
		case int:
			b.buf = strconv.AppendInt(b.buf, int64(v), 10)
		case []byte:
			b.buf = append(b.buf, "X'"...)
			b.buf = hex.AppendEncode(b.buf, v)
			b.buf = append(b.buf, '\'')
		default:
			b.bad = true // not spelled: the write goes statement by statement
			return
		}
	}
	b.buf = append(b.buf, text...)
	b.buf = append(b.buf, "; "...)
}

// kind sets k to the kind of row the next statements touch.
func (b *myBlock) kind(edge bool) {
	if edge != b.edge {
		b.edge = edge
		if edge {
			b.buf = append(b.buf, "SET k = 'e:'; "...)
		} else {
			b.buf = append(b.buf, "SET k = 'o:'; "...)
		}
	}
}

func signal(buf []byte, errno int, msg string) []byte {
	buf = append(buf, "SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = "...)
	buf = strconv.AppendInt(buf, int64(errno), 10)
	return append(buf, ", MESSAGE_TEXT = '"+msg+"'; "...)
}

// upsert appends an association upsert that signals a unique collision
// (MySQL's upsert changes no row then).
func (b *myBlock) upsert(db *DB, id1 int64, t tao.EdgeType, id2, time int64, p []byte) {
	b.stmt(sEdgeAdd, false, id1, id2, int64(t), time, db.payload(p), ukey(t, id2))
	b.buf = append(b.buf, "SET n = ROW_COUNT(); IF n = 0 THEN "...)
	b.buf = signal(b.buf, myUniqueEdge, "another edge of a unique type")
	b.buf = append(b.buf, "END IF; "...)
}

// foundIf appends the operation's found flag.
func (b *myBlock) foundIf(cond string) {
	b.buf = append(b.buf, "SET f = CONCAT(f, IF("+cond+", '1', '0')); "...)
}

// mariaWritable reports whether every operation is a write (reads in a
// write transaction go statement by statement).
func mariaWritable(req *tao.Request) bool {
	if injected(req) || len(req.Ops) > 4000 {
		return false
	}
	for i := range req.Ops {
		if req.Ops[i].Kind.IsRead() {
			return false
		}
	}
	return true
}

// block builds req's compound statement into buf; false when it cannot.
func (m *myBackend) block(db *DB, req *tao.Request, buf []byte) ([]byte, bool) {
	b := myBlock{d: m.d, buf: append(buf, myWriteHead...)}
	for i := range req.Checks {
		c := &req.Checks[i]
		b.kind(c.Key.Edge)
		b.buf = append(b.buf, "SET v = NULL; "...)
		errno := myObjCheckFailed
		if c.Key.Edge {
			b.stmt(sEdgeCheck, true, c.Key.ID1, int64(c.Key.Type), c.Key.ID2)
			errno = myEdgeCheckFailed
		} else {
			b.stmt(sObjCheck, true, c.Key.ID1)
		}
		b.buf = append(b.buf, "IF v IS NULL"...)
		if c.Kind == tao.CheckVersion {
			b.buf = append(b.buf, " OR v <> "...)
			b.buf = strconv.AppendInt(b.buf, c.Version, 10)
		}
		b.buf = append(b.buf, " THEN "...)
		b.buf = signal(b.buf, errno, "precondition failed")
		b.buf = append(b.buf, "END IF; "...)
	}
	for i := range req.Ops {
		op := &req.Ops[i]
		t := int64(op.Type)
		b.kind(op.Kind.IsEdge())
		inv, inverse := op.Type.Inverse()
		switch op.Kind {
		case tao.ObjAdd:
			b.stmt(sObjAdd, false, op.ID1, op.Time, db.payload(op.Payload))
			b.foundIf("FALSE")
		case tao.ObjUpdate:
			b.stmt(sObjUpdate, false, op.Time, db.payload(op.Payload), op.ID1)
			b.foundIf("ROW_COUNT() > 0")
		case tao.ObjDelete:
			b.stmt(sObjDelete, false, op.ID1)
			b.foundIf("ROW_COUNT() > 0")
		case tao.EdgeAdd:
			b.upsert(db, op.ID1, op.Type, op.ID2, op.Time, op.Payload)
			b.foundIf("n = 2") // 1 inserted, 2 overwritten
			if inverse {
				b.upsert(db, op.ID2, inv, op.ID1, op.Time, op.Payload)
			}
		case tao.EdgeUpdate, tao.EdgeDelete:
			if op.Kind == tao.EdgeUpdate {
				b.stmt(sEdgeUpdate, false, op.Time, db.payload(op.Payload), op.ID1, t, op.ID2)
			} else {
				b.stmt(sEdgeDelete, false, op.ID1, t, op.ID2)
			}
			b.buf = append(b.buf, "SET n = ROW_COUNT(); "...)
			b.foundIf("n > 0")
			if !inverse {
				continue
			}
			// The inverse is written only when the forward row was found;
			// an update's is an upsert, which also repairs a missing one.
			b.buf = append(b.buf, "IF n > 0 THEN "...)
			if op.Kind == tao.EdgeUpdate {
				b.upsert(db, op.ID2, inv, op.ID1, op.Time, op.Payload)
			} else {
				b.stmt(sEdgeDelete, false, op.ID2, int64(inv), op.ID1)
			}
			b.buf = append(b.buf, "END IF; "...)
		}
	}
	return append(b.buf, "COMMIT; SELECT f; END"...), !b.bad
}

// writeTxn runs a write that needs a transaction as one compound
// statement on MariaDB; it reports false, having sent nothing, elsewhere
// and for requests it does not cover (reads, injected failures).
func (m *myBackend) writeTxn(ctx context.Context, db *DB, req *tao.Request, res *tao.Result) bool {
	if !m.mariadb || m.stepwise || !mariaWritable(req) {
		return false
	}
	bp := m.bufs.Get().(*[]byte)
	defer m.bufs.Put(bp)
	var ok bool
	if *bp, ok = m.block(db, req, (*bp)[:0]); !ok {
		return false
	}
	var f string
	err := m.write.QueryRowContext(ctx, string(*bp)).Scan(&f)
	var e *mysql.MySQLError
	if err != nil && errors.As(err, &e) {
		// The handler's prefix: the kind of row the failing statement touched.
		edge := strings.HasPrefix(e.Message, "e:")
		if edge || strings.HasPrefix(e.Message, "o:") {
			e.Message = e.Message[2:]
		}
		switch e.Number {
		case myObjCheckFailed, myEdgeCheckFailed:
			res.Outcome = tao.PreconditionFailed
		case myUniqueEdge:
			res.Outcome = tao.UniqueViolation
		default:
			db.finish(ctx, res, tao.OK, err, edge)
		}
		return true
	}
	if err == nil && len(f) != len(req.Ops) {
		err = fmt.Errorf("the server reported %d results for a write of %d operations", len(f), len(req.Ops))
	}
	if err != nil {
		db.finish(ctx, res, tao.OK, err, req.Ops[0].Kind.IsEdge())
		return true
	}
	for i := range req.Ops {
		if req.Ops[i].Kind != tao.ObjAdd {
			res.Ops[i].Found = f[i] == '1'
		}
	}
	res.Outcome = tao.OK
	// A single update or delete that found no row ends NotFound, as it
	// does statement by statement.
	if req.Class == tao.Write && !res.Ops[0].Found && !isAdd(req.Ops[0].Kind) {
		res.Outcome = tao.NotFound
	}
	return true
}
