package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-sql-driver/mysql"

	"github.com/taobench/taobench/tao"
)

// Writes in one round trip (MariaDB), when the URL asks for it
// (writes=procedures): stored procedures.
//
// By default a write that needs a transaction (a check, an association
// with an inverse, a write transaction) goes statement by statement, as on
// MySQL and TiDB and as an application runs it: START TRANSACTION, each
// check, each statement and COMMIT, 4.1 round trips per such write in
// workload a's mix. go-sql-driver/mysql cannot pipeline, and a
// multi-statement query would not leave the server's work the same: its
// statements go as text, parsed on every write, where the prepared
// statements are parsed once per connection; and the decisions between
// the statements (a check that fails, an update that found no row and so
// writes no inverse, an upsert that met another edge of a unique type)
// need each answer before the next statement. With writes=procedures a
// write goes as one CALL of a stored procedure, a prepared statement: the
// server parses the CALL once per connection and the procedure's body once
// per connection (its routine cache), where an anonymous compound
// statement was parsed on every write and cost the server more CPU than
// the round trips saved (docs/performance.md).
//
// The procedures live in a schema of taobench's own (myRoutineSchema),
// never in the benchmarked database: created there when a store opens with
// writes=procedures, named after the database they write to (a hash of its
// name, myProcTag; the name in hexadecimal is each procedure's COMMENT), their
// statements naming that database's tables. Opening also drops the
// procedures whose database no longer exists.
//
// The procedures hold the statements the statement-by-statement path runs
// (dialect.go), with the procedure's parameters for placeholders, in one
// transaction that commits or, on the first failure, rolls back (an exit
// handler) before the error reaches the client. A failed check or a
// unique collision is a SIGNAL with its own error number; the handler
// prefixes every other error's message with the kind of row (o:, e:) the
// failing statement touched, which the outcome's class needs (a conflict
// on an object or on an association), and keeps its number. The one
// result, a row of one integer, says which operations found their row. A
// single write (one operation, at most one check) calls the procedure of
// its shape (myShapeDDL: its statements, no other branch); a write
// transaction calls the smallest of the slot procedures (myProcDDL: 2
// check slots and 1, 2, 4 or 8 operation slots, unused ones NULL) that
// holds it. Larger writes, writes with more checks, reads in a write
// transaction and injected holds and failures go statement by statement.
// The result set is read and closed before the connection goes back to
// the pool, which reads the OK that ends every CALL's reply.
//
// The procedures are created when the store opens (CREATE PROCEDURE IF NOT
// EXISTS, names versioned by myProcVersion, so a schema holding older ones
// gets the ones this build calls). A user who may not create them gets an
// error saying which grant is missing, or to drop writes=procedures.

// myRoutineSchema is the schema taobench creates its procedures in: its
// own, so that nothing is added to the benchmarked database.
const myRoutineSchema = "taobench_routines"

// myProcTag names the procedures of database db: a 64-bit hash of its
// name, so that any name (up to MariaDB's 64 characters, any character)
// gives a short plain identifier.
func myProcTag(db string) string {
	h := fnv.New64a()
	h.Write([]byte(db))
	return fmt.Sprintf("tb_%016x", h.Sum64())
}

// qualify makes a statement's tables those of database db.
func qualify(s, db string) string {
	q := "`" + strings.ReplaceAll(db, "`", "``") + "`."
	for _, t := range []string{"objects", "edges"} {
		for _, kw := range []string{"FROM ", "INTO ", "UPDATE "} {
			s = strings.ReplaceAll(s, kw+t+" ", kw+q+t+" ")
		}
	}
	return s
}

// myProcComment is the COMMENT of database db's procedures: its name in
// hexadecimal, as HEX(SCHEMA_NAME) spells it (no quoting to get wrong).
func myProcComment(db string) string { return fmt.Sprintf("'%X'", db) }

// myDialect is the MySQL dialect with database db's tables.
func myDialect(db string) *dialect {
	d := mysqlDialect()
	for i := range d.stmts {
		d.stmts[i] = qualify(d.stmts[i], db)
	}
	return d
}

// myProcSlots are the procedures' operation slots; myProcChecks their
// check slots.
var myProcSlots = [...]int{1, 2, 4, 8}

const (
	myProcChecks = 2
	// myProcVersion names the procedures' generation: a change to their
	// text or parameters takes a new one, so a database holding an older
	// one (IF NOT EXISTS keeps it) gets the new one beside it. 2: payload
	// parameters as wide as objects.value (4096, TAO's Fig. 6 sizes).
	myProcVersion = 2
	// parameters per check slot and per operation slot
	myCheckParams = 5
	myOpParams    = 9
)

// Error numbers of the procedures' own SIGNALs (user-defined numbers,
// above MariaDB's own).
const (
	myCheckFailed = 30001
	myUniqueEdge  = 30003
)

// Operation codes of an operation slot (myOpCode); edge operations are 4
// and above.
const (
	myObjAdd = iota + 1
	myObjUpdate
	myObjDelete
	myEdgeAdd
	myEdgeUpdate
	myEdgeDelete
)

func myOpCode(k tao.Kind) int {
	switch k {
	case tao.ObjAdd:
		return myObjAdd
	case tao.ObjUpdate:
		return myObjUpdate
	case tao.ObjDelete:
		return myObjDelete
	case tao.EdgeAdd:
		return myEdgeAdd
	case tao.EdgeUpdate:
		return myEdgeUpdate
	case tao.EdgeDelete:
		return myEdgeDelete
	}
	return 0
}

// myProcName is the name of the procedure of slots operation slots of
// the database of tag (myProcTag).
func myProcName(tag string, slots int) string {
	return fmt.Sprintf("%s_write%d_v%d", tag, slots, myProcVersion)
}

// myProcCall is the CALL of the procedure of slots operation slots.
func myProcCall(tag string, slots int) string {
	n := myProcChecks*myCheckParams + slots*myOpParams
	return "CALL " + myRoutineSchema + "." + myProcName(tag, slots) + "(" + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + ")"
}

// myProcDDL is the CREATE PROCEDURE statement of the procedure of slots
// operation slots writing to database db. The statements are dialect.go's
// MySQL ones, the parameters in place of the placeholders.
func myProcDDL(db string, slots int) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("CREATE PROCEDURE IF NOT EXISTS %s.%s(", myRoutineSchema, myProcName(myProcTag(db), slots))
	var params []string
	for i := 1; i <= myProcChecks; i++ {
		// kind: 1 object exists, 2 object at version, 3 association exists, 4 association at version
		params = append(params, fmt.Sprintf("c%dk TINYINT, c%da BIGINT, c%dt BIGINT, c%db BIGINT, c%dv BIGINT", i, i, i, i, i))
	}
	for i := 1; i <= slots; i++ {
		// kind (myOpCode), id1, type, id2, time, payload, ukey, inverse type (NULL: none), the inverse's ukey
		params = append(params, fmt.Sprintf("o%dk TINYINT, o%da BIGINT, o%dt BIGINT, o%db BIGINT, o%dm BIGINT, "+
			"o%dp VARCHAR(4096), o%du BIGINT, o%di BIGINT, o%dw BIGINT", i, i, i, i, i, i, i, i, i))
	}
	w("%s)\nMODIFIES SQL DATA COMMENT %s\nBEGIN\n", strings.Join(params, ", "), myProcComment(db))
	// k: the statement running touches an association (1) or an object (0).
	w("DECLARE v BIGINT; DECLARE n BIGINT; DECLARE f BIGINT DEFAULT 0; DECLARE k TINYINT DEFAULT 0; DECLARE m VARCHAR(512);\n")
	w("DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;\n") // a check's SELECT ... INTO that finds no row
	w("DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN GET DIAGNOSTICS CONDITION 1 m = MESSAGE_TEXT; ROLLBACK; " +
		"SET m = CONCAT(IF(k = 1, 'e:', 'o:'), m); RESIGNAL SET MESSAGE_TEXT = m; END;\n")
	w("START TRANSACTION;\n")
	objCheck := qualify(strings.Replace(verObj, "SELECT version ", "SELECT version INTO v ", 1), db) + " FOR UPDATE"
	edgeCheck := qualify(strings.Replace(verEdge, "SELECT version ", "SELECT version INTO v ", 1), db) + " FOR UPDATE"
	for i := 1; i <= myProcChecks; i++ {
		c := fmt.Sprintf("c%d", i)
		w("IF %sk IS NOT NULL THEN SET v = NULL;\n", c)
		w("  IF %sk <= 2 THEN SET k = 0; %s; ELSE SET k = 1; %s; END IF;\n", c,
			fill(objCheck, c+"a"), fill(edgeCheck, c+"a", c+"t", c+"b"))
		w("  IF v IS NULL OR %sk %% 2 = 0 AND v <> %sv THEN SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = %d, "+
			"MESSAGE_TEXT = 'precondition failed'; END IF;\nEND IF;\n", c, c, myCheckFailed)
	}
	d := myDialect(db)
	unique := fmt.Sprintf("SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = %d, MESSAGE_TEXT = 'another association of a unique type'", myUniqueEdge)
	for i := 1; i <= slots; i++ {
		o := func(s string) string { return fmt.Sprintf("o%d%s", i, s) }
		bit := fmt.Sprintf("%d", 1<<(i-1))
		// The inverse's upsert: id1 and id2 swapped, the inverse type and its ukey.
		inverse := fill(d.stmts[sEdgeAdd], o("b"), o("a"), o("i"), o("m"), o("p"), o("w"))
		w("IF %s IS NOT NULL THEN SET k = %s >= %d;\nCASE %s\n", o("k"), o("k"), myEdgeAdd, o("k"))
		w("WHEN %d THEN %s;\n", myObjAdd, fill(d.stmts[sObjAdd], o("a"), o("m"), o("p")))
		w("WHEN %d THEN %s; IF ROW_COUNT() > 0 THEN SET f = f | %s; END IF;\n", myObjUpdate,
			fill(d.stmts[sObjUpdate], o("m"), o("p"), o("a")), bit)
		w("WHEN %d THEN %s; IF ROW_COUNT() > 0 THEN SET f = f | %s; END IF;\n", myObjDelete,
			fill(d.stmts[sObjDelete], o("a")), bit)
		// MySQL's upsert: 1 row inserted, 2 overwritten, 0 another edge of
		// a unique type (dialect.go).
		w("WHEN %d THEN %s; SET n = ROW_COUNT(); IF n = 0 THEN %s; END IF; IF n = 2 THEN SET f = f | %s; END IF;\n", myEdgeAdd,
			fill(d.stmts[sEdgeAdd], o("a"), o("b"), o("t"), o("m"), o("p"), o("u")), unique, bit)
		w("  IF %s IS NOT NULL THEN %s; IF ROW_COUNT() = 0 THEN %s; END IF; END IF;\n", o("i"), inverse, unique)
		// An update's inverse is an upsert, which also repairs a missing
		// one, written only when the forward row was found; so is a
		// delete's.
		w("WHEN %d THEN %s; IF ROW_COUNT() > 0 THEN SET f = f | %s;\n", myEdgeUpdate,
			fill(d.stmts[sEdgeUpdate], o("m"), o("p"), o("a"), o("t"), o("b")), bit)
		w("  IF %s IS NOT NULL THEN %s; IF ROW_COUNT() = 0 THEN %s; END IF; END IF; END IF;\n", o("i"), inverse, unique)
		w("WHEN %d THEN %s; IF ROW_COUNT() > 0 THEN SET f = f | %s;\n", myEdgeDelete,
			fill(d.stmts[sEdgeDelete], o("a"), o("t"), o("b")), bit)
		w("  IF %s IS NOT NULL THEN %s; END IF; END IF;\n", o("i"), fill(d.stmts[sEdgeDelete], o("b"), o("i"), o("a")))
		w("END CASE;\nEND IF;\n")
	}
	// A failed commit is the first operation's kind, as statement by statement.
	w("SET k = o1k >= %d;\nCOMMIT;\nSELECT f;\nEND", myEdgeAdd)
	return b.String()
}

// fill puts names in place of s's placeholders, in order.
func fill(s string, names ...string) string {
	for _, n := range names {
		s = strings.Replace(s, "?", n, 1)
	}
	if strings.Contains(s, "?") {
		panic("fill: a placeholder left in " + s)
	}
	return s
}

// myProcs are the prepared CALLs of the write procedures, by slot count.
type myProcs struct {
	ok     bool   // the procedures exist (ensureProcs)
	tag    string // their database's (myProcTag)
	mu     sync.Mutex
	calls  atomic.Pointer[[len(myProcSlots)]*sql.Stmt]
	shapes [numShapes]atomic.Pointer[sql.Stmt]
}

func (p *myProcs) close() {
	if c := p.calls.Swap(nil); c != nil {
		for _, s := range c {
			s.Close()
		}
	}
	for i := range p.shapes {
		if s := p.shapes[i].Swap(nil); s != nil {
			s.Close()
		}
	}
}

// ensureProcs creates database db's procedures where missing, in
// taobench's schema, which it creates if need be; it first drops the
// procedures there whose database no longer exists.
func ensureProcs(ctx context.Context, pool *sql.DB, db string) error {
	if _, err := pool.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS "+myRoutineSchema); err != nil {
		return err
	}
	if err := dropOrphanProcs(ctx, pool); err != nil {
		return err
	}
	tag := myProcTag(db)
	names := myProcNames(tag)
	var n int
	err := pool.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = '"+myRoutineSchema+"' "+
		"AND ROUTINE_TYPE = 'PROCEDURE' AND ROUTINE_NAME IN ('"+strings.Join(names, "', '")+"')").Scan(&n)
	if err == nil && n == len(names) {
		return nil
	}
	ddl := []string{}
	for _, s := range myProcSlots {
		ddl = append(ddl, myProcDDL(db, s))
	}
	forShapes(func(ck, op int, inverse bool) { ddl = append(ddl, myShapeDDL(db, ck, op, inverse)) })
	for _, s := range ddl {
		if _, err := pool.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// dropOrphanProcs drops the procedures in taobench's schema whose
// database no longer exists (dropped after a run with writes=procedures).
func dropOrphanProcs(ctx context.Context, pool *sql.DB) error {
	return dropProcsWhere(ctx, pool, "ROUTINE_COMMENT NOT IN (SELECT HEX(SCHEMA_NAME) FROM information_schema.SCHEMATA)")
}

// dropProcs drops database db's procedures from taobench's schema.
func dropProcs(ctx context.Context, pool *sql.DB, db string) error {
	return dropProcsWhere(ctx, pool, "ROUTINE_COMMENT = "+myProcComment(db))
}

func dropProcsWhere(ctx context.Context, pool *sql.DB, cond string) error {
	rows, err := pool.QueryContext(ctx, "SELECT ROUTINE_NAME FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = '"+
		myRoutineSchema+"' AND ROUTINE_TYPE = 'PROCEDURE' AND ROUTINE_NAME LIKE 'tb\\_%' AND "+cond)
	if err != nil {
		return err
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return err
		}
		names = append(names, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, n := range names {
		if _, err := pool.ExecContext(ctx, "DROP PROCEDURE IF EXISTS "+myRoutineSchema+".`"+strings.ReplaceAll(n, "`", "``")+"`"); err != nil {
			return err
		}
	}
	return nil
}

// procWritable reports whether req can go as one CALL, and the index in
// myProcSlots of the procedure that holds it.
func procWritable(req *tao.Request) (int, bool) {
	if injected(req) || len(req.Checks) > myProcChecks {
		return 0, false
	}
	for i := range req.Ops {
		if myOpCode(req.Ops[i].Kind) == 0 {
			return 0, false // a read: statement by statement
		}
	}
	for j, s := range myProcSlots {
		if len(req.Ops) <= s {
			return j, true
		}
	}
	return 0, false
}

// procArgs appends the CALL's arguments for req to args: the check
// slots, then slots operation slots.
func (db *DB) procArgs(args []any, req *tao.Request, slots int) []any {
	for i := range myProcChecks {
		if i >= len(req.Checks) {
			args = append(args, nil, nil, nil, nil, nil)
			continue
		}
		c := &req.Checks[i]
		k := 1
		if c.Key.Edge {
			k = 3
		}
		if c.Kind == tao.CheckVersion {
			k++
		}
		args = append(args, k, c.Key.ID1, int64(c.Key.Type), c.Key.ID2, c.Version)
	}
	for i := range slots {
		if i >= len(req.Ops) {
			args = append(args, nil, nil, nil, nil, nil, nil, nil, nil, nil)
			continue
		}
		op := &req.Ops[i]
		var inv, invKey any
		if t, ok := op.Type.Inverse(); ok && op.Kind.IsEdge() {
			inv, invKey = int64(t), ukey(t, op.ID1)
		}
		args = append(args, myOpCode(op.Kind), op.ID1, int64(op.Type), op.ID2, op.Time, db.payload(op.Payload),
			ukey(op.Type, op.ID2), inv, invKey)
	}
	return args
}

// calls returns the prepared CALLs, preparing them on first use.
func (m *myBackend) calls(ctx context.Context) (*[len(myProcSlots)]*sql.Stmt, error) {
	if c := m.procs.calls.Load(); c != nil {
		return c, nil
	}
	m.procs.mu.Lock()
	defer m.procs.mu.Unlock()
	if c := m.procs.calls.Load(); c != nil {
		return c, nil
	}
	c := new([len(myProcSlots)]*sql.Stmt)
	for j, s := range myProcSlots {
		var err error
		if c[j], err = m.write.PrepareContext(ctx, myProcCall(m.procs.tag, s)); err != nil {
			for _, p := range c[:j] {
				p.Close()
			}
			return nil, err
		}
	}
	m.procs.calls.Store(c)
	return c, nil
}

// writeTxn runs a write that needs a transaction as one CALL on MariaDB;
// it reports false, having sent nothing, elsewhere and for requests no
// procedure holds.
func (m *myBackend) writeTxn(ctx context.Context, db *DB, req *tao.Request, res *tao.Result) bool {
	if !m.procs.ok || m.stepwise {
		return false
	}
	var call *sql.Stmt
	var args []any
	ck, op, inverse, single := singleShape(req)
	if single && !m.slotsOnly {
		var err error
		if call, err = m.shapeCall(ctx, ck, op, inverse); err != nil {
			return false // statement by statement, which words the error if there is one
		}
		args = db.shapeArgs(req)
	} else {
		j, ok := procWritable(req)
		if !ok {
			return false
		}
		calls, err := m.calls(ctx)
		if err != nil {
			return false
		}
		call = calls[j]
		args = db.procArgs(make([]any, 0, myProcChecks*myCheckParams+myProcSlots[j]*myOpParams), req, myProcSlots[j])
	}
	var f int64
	err := call.QueryRowContext(ctx, args...).Scan(&f)
	var e *mysql.MySQLError
	if err != nil && errors.As(err, &e) {
		// The handler's prefix: the kind of row the failing statement touched.
		edge := strings.HasPrefix(e.Message, "e:")
		if edge || strings.HasPrefix(e.Message, "o:") {
			e.Message = e.Message[2:]
		}
		switch e.Number {
		case myCheckFailed:
			res.Outcome = tao.PreconditionFailed
		case myUniqueEdge:
			res.Outcome = tao.UniqueViolation
		default:
			db.finish(ctx, res, tao.OK, err, edge)
		}
		return true
	}
	if err != nil {
		db.finish(ctx, res, tao.OK, err, req.Ops[0].Kind.IsEdge())
		return true
	}
	switch {
	case single && !m.slotsOnly:
		// f: the operation's affected rows
		if op == myEdgeAdd {
			res.Ops[0].Found = f == 2
		} else if op != myObjAdd {
			res.Ops[0].Found = f > 0
		}
	default:
		for i := range req.Ops {
			if req.Ops[i].Kind != tao.ObjAdd {
				res.Ops[i].Found = f&(1<<i) != 0
			}
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

// Single writes: a procedure per shape.
//
// A procedure's every instruction (an IF, a SET, a CASE branch) costs the
// server about what a statement's own setup costs, so the slot procedures'
// branches over empty slots and operation kinds cost more CPU than they
// save when the write is a single one: measured with 8 clients, workload
// preconditioned's writes cost the server more through them than statement
// by statement. A single write (one operation, at most one check), the
// commonest write that needs a transaction, instead calls the procedure of
// its shape, (check kind, operation kind, inverse or not), whose body is
// its statements and no branch but the outcome's.

// myShape indexes the single-write procedures: check kind 0 (none) to 4
// (as the slot procedures'), operation code, inverse.
func myShape(ck, op int, inverse bool) int {
	i := (ck*6 + op - 1) * 2
	if inverse {
		i++
	}
	return i
}

const numShapes = 5 * 6 * 2

// shapeUsed reports whether a single write of the shape needs a
// transaction and can be: a check, or an association's inverse.
func shapeUsed(ck, op int, inverse bool) bool {
	return (ck > 0 || inverse) && (!inverse || op >= myEdgeAdd)
}

func myShapeName(tag string, ck, op int, inverse bool) string {
	inv := ""
	if inverse {
		inv = "i"
	}
	return fmt.Sprintf("%s_c%d_o%d%s_v%d", tag, ck, op, inv, myProcVersion)
}

// myShapeParams are every shape procedure's parameters: the check's key
// and version, the operation's id1, type, id2, time, payload, ukey, the
// inverse's type and ukey.
var myShapeParams = []string{"ca", "ct", "cb", "cv", "oa", "ot", "ob", "om", "op", "ou", "oi", "ow"}

func myShapeCall(tag string, ck, op int, inverse bool) string {
	return "CALL " + myRoutineSchema + "." + myShapeName(tag, ck, op, inverse) + "(" + strings.TrimSuffix(strings.Repeat("?, ", len(myShapeParams)), ", ") + ")"
}

// myShapeDDL is the CREATE PROCEDURE statement of a shape writing to
// database db. f, the one result, is the operation's affected rows (an
// association add: 1 inserted, 2 overwritten).
func myShapeDDL(db string, ck, op int, inverse bool) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	params := make([]string, len(myShapeParams))
	for i, n := range myShapeParams {
		params[i] = n + " BIGINT"
		if n == "op" {
			params[i] = n + " VARCHAR(4096)" // objects.value's width
		}
	}
	opEdge := op >= myEdgeAdd
	k := opEdge // the kind of the first statement's row
	if ck > 0 {
		k = ck > 2
	}
	kind := map[bool]int{false: 0, true: 1}
	w("CREATE PROCEDURE IF NOT EXISTS %s.%s(%s)\nMODIFIES SQL DATA COMMENT %s\nBEGIN\n", myRoutineSchema, myShapeName(myProcTag(db), ck, op, inverse),
		strings.Join(params, ", "), myProcComment(db))
	w("DECLARE v BIGINT; DECLARE f BIGINT DEFAULT 0; DECLARE k TINYINT DEFAULT %d; DECLARE m VARCHAR(512);\n", kind[k])
	if ck > 0 {
		w("DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;\n")
	}
	w("DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN GET DIAGNOSTICS CONDITION 1 m = MESSAGE_TEXT; ROLLBACK; " +
		"SET m = CONCAT(IF(k = 1, 'e:', 'o:'), m); RESIGNAL SET MESSAGE_TEXT = m; END;\n")
	w("START TRANSACTION;\n")
	if ck > 0 {
		if ck <= 2 {
			w("%s;\n", fill(qualify(strings.Replace(verObj, "SELECT version ", "SELECT version INTO v ", 1), db)+" FOR UPDATE", "ca"))
		} else {
			w("%s;\n", fill(qualify(strings.Replace(verEdge, "SELECT version ", "SELECT version INTO v ", 1), db)+" FOR UPDATE", "ca", "ct", "cb"))
		}
		cond := "v IS NULL"
		if ck%2 == 0 {
			cond += " OR v <> cv"
		}
		w("IF %s THEN SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = %d, MESSAGE_TEXT = 'precondition failed'; END IF;\n", cond, myCheckFailed)
		if k != opEdge {
			w("SET k = %d;\n", kind[opEdge])
		}
	}
	d := myDialect(db)
	unique := fmt.Sprintf("SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = %d, MESSAGE_TEXT = 'another association of a unique type'", myUniqueEdge)
	inverseAdd := fill(d.stmts[sEdgeAdd], "ob", "oa", "oi", "om", "op", "ow") + "; IF ROW_COUNT() = 0 THEN " + unique + "; END IF"
	switch op {
	case myObjAdd:
		w("%s;\n", fill(d.stmts[sObjAdd], "oa", "om", "op"))
	case myObjUpdate:
		w("%s; SET f = ROW_COUNT();\n", fill(d.stmts[sObjUpdate], "om", "op", "oa"))
	case myObjDelete:
		w("%s; SET f = ROW_COUNT();\n", fill(d.stmts[sObjDelete], "oa"))
	case myEdgeAdd:
		w("%s; SET f = ROW_COUNT(); IF f = 0 THEN %s; END IF;\n", fill(d.stmts[sEdgeAdd], "oa", "ob", "ot", "om", "op", "ou"), unique)
		if inverse {
			w("%s;\n", inverseAdd)
		}
	case myEdgeUpdate:
		w("%s; SET f = ROW_COUNT();\n", fill(d.stmts[sEdgeUpdate], "om", "op", "oa", "ot", "ob"))
		if inverse {
			w("IF f > 0 THEN %s; END IF;\n", inverseAdd)
		}
	case myEdgeDelete:
		w("%s; SET f = ROW_COUNT();\n", fill(d.stmts[sEdgeDelete], "oa", "ot", "ob"))
		if inverse {
			w("IF f > 0 THEN %s; END IF;\n", fill(d.stmts[sEdgeDelete], "ob", "oi", "oa"))
		}
	}
	w("COMMIT;\nSELECT f;\nEND")
	return b.String()
}

// myProcNames are the names of every write procedure of the database of
// tag (myProcTag).
func myProcNames(tag string) []string {
	var names []string
	for _, s := range myProcSlots {
		names = append(names, myProcName(tag, s))
	}
	forShapes(func(ck, op int, inverse bool) { names = append(names, myShapeName(tag, ck, op, inverse)) })
	return names
}

// forShapes calls fn for every shape a single write takes.
func forShapes(fn func(ck, op int, inverse bool)) {
	for ck := range 5 {
		for op := myObjAdd; op <= myEdgeDelete; op++ {
			for _, inverse := range []bool{false, true} {
				if shapeUsed(ck, op, inverse) {
					fn(ck, op, inverse)
				}
			}
		}
	}
}

// singleShape returns a single write's shape, and false for a request
// that is not one.
func singleShape(req *tao.Request) (ck, op int, inverse bool, ok bool) {
	if len(req.Ops) != 1 || len(req.Checks) > 1 || injected(req) {
		return 0, 0, false, false
	}
	o := &req.Ops[0]
	if op = myOpCode(o.Kind); op == 0 {
		return 0, 0, false, false
	}
	if len(req.Checks) == 1 {
		c := &req.Checks[0]
		ck = 1
		if c.Key.Edge {
			ck = 3
		}
		if c.Kind == tao.CheckVersion {
			ck++
		}
	}
	_, inverse = o.Type.Inverse()
	inverse = inverse && o.Kind.IsEdge()
	return ck, op, inverse, shapeUsed(ck, op, inverse)
}

// shapeCall returns the prepared CALL of a shape, preparing it on first use.
func (m *myBackend) shapeCall(ctx context.Context, ck, op int, inverse bool) (*sql.Stmt, error) {
	i := myShape(ck, op, inverse)
	if s := m.procs.shapes[i].Load(); s != nil {
		return s, nil
	}
	m.procs.mu.Lock()
	defer m.procs.mu.Unlock()
	if s := m.procs.shapes[i].Load(); s != nil {
		return s, nil
	}
	s, err := m.write.PrepareContext(ctx, myShapeCall(m.procs.tag, ck, op, inverse))
	if err != nil {
		return nil, err
	}
	m.procs.shapes[i].Store(s)
	return s, nil
}

// shapeArgs are a single write's CALL arguments.
func (db *DB) shapeArgs(req *tao.Request) []any {
	args := make([]any, 0, len(myShapeParams))
	if len(req.Checks) == 1 {
		c := &req.Checks[0]
		args = append(args, c.Key.ID1, int64(c.Key.Type), c.Key.ID2, c.Version)
	} else {
		args = append(args, nil, nil, nil, nil)
	}
	op := &req.Ops[0]
	var inv, invKey any
	if t, ok := op.Type.Inverse(); ok && op.Kind.IsEdge() {
		inv, invKey = int64(t), ukey(t, op.ID1)
	}
	return append(args, op.ID1, int64(op.Type), op.ID2, op.Time, db.payload(op.Payload), ukey(op.Type, op.ID2), inv, invKey)
}
