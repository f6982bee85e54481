package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// TestMariaDBWriteOneRoundTrip runs the same random writes on two fresh
// databases, statement by statement on one and through the stored
// procedures on the other, and checks that every write gets the same
// outcome and results, that each a procedure holds went in one round trip,
// and that the two databases end with the same rows. The writes: single
// writes of every kind with and without checks (present, absent, at the
// version and not), associations of unique and bidirectional types
// (collisions, missing inverses), and write transactions of up to 10
// operations (every procedure's slots, and more, which go statement by
// statement).
func TestMariaDBWriteOneRoundTrip(t *testing.T) {
	for _, mode := range []string{"procedure", "slots"} {
		t.Run(mode, func(t *testing.T) { testWriteOneRoundTrip(t, mode) })
	}
}

// testWriteOneRoundTrip is TestMariaDBWriteOneRoundTrip in one mode:
// "procedure", single writes through their shape's procedure, or "slots",
// every write through the slot procedures.
func testWriteOneRoundTrip(t *testing.T, mode string) {
	admin := testenv.MySQLURL(t)
	step := openCounted(t, testenv.FreshMySQL(t, admin), "stepwise")
	one := openCounted(t, testenv.FreshMySQL(t, admin), mode)
	ctx := context.Background()
	if err := step.Setup(ctx, false); err != nil {
		t.Fatal(err)
	}
	needProcs(t, one)
	// A first request opens each pool's connection.
	for _, db := range []*DB{step, one} {
		execReq(t, db, &tao.Request{Class: tao.Read, Ops: []tao.Op{{Kind: tao.ObjRead, ID1: 1}}})
	}
	rng := rand.New(rand.NewPCG(5, 6))
	types := []tao.EdgeType{tao.TypeOther, tao.TypeUnique, tao.TypeBidirectional, tao.TypeBidirectionalInv, tao.TypeUniqueBidir}
	kinds := []tao.Kind{tao.ObjAdd, tao.ObjUpdate, tao.ObjDelete, tao.EdgeAdd, tao.EdgeAdd, tao.EdgeUpdate, tao.EdgeDelete}
	randOp := func() tao.Op {
		return tao.Op{Kind: kinds[rng.IntN(len(kinds))], ID1: 1 + rng.Int64N(6), Type: types[rng.IntN(len(types))],
			ID2: 1 + rng.Int64N(6), Time: rng.Int64N(100), Payload: []byte{'p', byte(rng.IntN(128)), 0, '\'', '\\'}}
	}
	outcomes := map[tao.Outcome]int{}
	called := 0
	procs := map[int]int{} // writes by the procedure's slots (0: a shape's)
	for i := range 800 {
		req := &tao.Request{Class: tao.Write, Ops: []tao.Op{randOp()}}
		if rng.IntN(4) == 0 {
			req.Class = tao.WriteTxn
			for range 1 + rng.IntN(9) {
				req.Ops = append(req.Ops, randOp())
			}
		}
		for range rng.IntN(4) {
			c := tao.Check{Kind: tao.CheckKind(rng.IntN(2)), Key: tao.Key{ID1: 1 + rng.Int64N(6)}, Version: 1 + rng.Int64N(3)}
			if rng.IntN(2) == 0 {
				c.Key = tao.Key{Edge: true, ID1: c.Key.ID1, Type: types[rng.IntN(len(types))], ID2: 1 + rng.Int64N(6)}
			}
			req.Checks = append(req.Checks, c)
		}
		want := execReq(t, step, req)
		before := clientWrites.Load()
		got := execReq(t, one, req)
		trips := clientWrites.Load() - before
		// The operations' results of a write that failed are not defined.
		done := want.Outcome == tao.OK || want.Outcome == tao.NotFound
		if got.Outcome != want.Outcome || done && !slices.Equal(got.Ops, want.Ops) {
			t.Fatalf("write %d %+v: outcome %v (%v) ops %+v; statement by statement %v (%v) ops %+v",
				i, req, got.Outcome, got.Err, got.Ops, want.Outcome, want.Err, want.Ops)
		}
		if len(req.Ops) == 1 && len(req.Checks) == 0 && one.oneStatement(&req.Ops[0]) {
			continue // autocommit, one statement either way
		}
		j, ok := procWritable(req)
		if !ok {
			continue // statement by statement either way
		}
		called++
		if _, _, _, single := singleShape(req); single && mode == "procedure" {
			procs[0]++
		} else {
			procs[myProcSlots[j]]++
		}
		outcomes[got.Outcome]++
		if trips != 1 {
			t.Errorf("write %d %+v: %d round trips, want 1", i, req, trips)
		}
	}
	t.Logf("%d writes through procedures %v, outcomes %v", called, procs, outcomes)
	for _, o := range []tao.Outcome{tao.OK, tao.NotFound, tao.PreconditionFailed, tao.UniqueViolation} {
		if outcomes[o] == 0 {
			t.Errorf("no write through a procedure ended %v: the test does not cover it", o)
		}
	}
	for _, s := range append([]int{0}, myProcSlots[:]...) {
		if procs[s] == 0 && (s > 0 || mode == "procedure") {
			t.Errorf("no write went through the procedure of %d slots (0: a shape's)", s)
		}
	}
	for _, q := range []string{"SELECT id, timestamp, value, version FROM objects ORDER BY id",
		"SELECT id1, type, id2, timestamp, value, version, ukey FROM edges ORDER BY id1, type, id2"} {
		if a, b := dump(t, step, q), dump(t, one, q); !slices.Equal(a, b) {
			t.Errorf("%s:\nstatement by statement %q\nprocedures %q", q, a, b)
		}
	}
}

// dump returns a query's rows as strings.
func dump(t *testing.T, db *DB, q string) []string {
	t.Helper()
	rows, err := db.b.(*myBackend).read.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		s := ""
		for _, v := range vals {
			s += fmt.Sprintf("%s|", v)
		}
		out = append(out, s)
	}
	return out
}

// TestMariaDBWriteConflictKind makes a write through a procedure wait for a row
// another transaction holds until the lock wait times out (1205): the
// outcome names the kind of row the waiting statement wanted, whichever
// kind the write's first operation is, as statement by statement, and no
// transaction is left open.
func TestMariaDBWriteConflictKind(t *testing.T) {
	raw := testenv.FreshMySQL(t, testenv.MySQLURL(t))
	one := openCounted(t, raw, "procedure")
	step := openCounted(t, raw, "stepwise")
	m := one.b.(*myBackend)
	needProcs(t, one)
	ctx := context.Background()
	for _, op := range []tao.Op{{Kind: tao.ObjAdd, ID1: 1}, {Kind: tao.ObjAdd, ID1: 2}, {Kind: tao.EdgeAdd, ID1: 1, Type: tao.TypeBidirectional, ID2: 2}} {
		if res := execReq(t, one, &tao.Request{Class: tao.Write, Ops: []tao.Op{op}}); res.Outcome != tao.OK {
			t.Fatalf("%+v: %v (%v)", op, res.Outcome, res.Err)
		}
	}
	// Another connection holds object 1 and the association's inverse (2, 3, 1).
	m.write.SetMaxOpenConns(2) // openCounted's one, and hold
	hold, err := m.write.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close()
	for _, s := range []string{"START TRANSACTION", "SELECT * FROM objects WHERE id = 1 FOR UPDATE", "SELECT * FROM edges WHERE id1 = 2 AND type = 3 AND id2 = 1 FOR UPDATE"} {
		if _, err := hold.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	defer hold.ExecContext(ctx, "ROLLBACK")
	edgeUpdate := tao.Op{Kind: tao.EdgeUpdate, ID1: 1, Type: tao.TypeBidirectional, ID2: 2, Time: 5}
	cases := []struct {
		req  *tao.Request
		want tao.Outcome
	}{
		// An association write whose object check waits.
		{&tao.Request{Class: tao.Write, Ops: []tao.Op{edgeUpdate}, Checks: []tao.Check{{Kind: tao.CheckExists, Key: tao.Key{ID1: 1}}}}, tao.ConflictObject},
		// An object write, then an association update whose inverse waits.
		{&tao.Request{Class: tao.WriteTxn, Ops: []tao.Op{{Kind: tao.ObjUpdate, ID1: 2, Time: 5}, edgeUpdate}}, tao.ConflictAssociation},
	}
	for i, c := range cases {
		for name, db := range map[string]*DB{"procedure": one, "statement by statement": step} {
			res := execReq(t, db, c.req)
			if res.Outcome != c.want || res.Code != "1205" {
				t.Errorf("case %d %s: outcome %v code %q (%v), want %v 1205", i, name, res.Outcome, res.Code, res.Err, c.want)
			}
			if res.Err != nil && (strings.Contains(res.Err.Error(), "e:") || strings.Contains(res.Err.Error(), "o:")) {
				t.Errorf("case %d %s: the error kept the procedure's prefix: %v", i, name, res.Err)
			}
		}
	}
	var open int64
	if err := m.write.QueryRowContext(ctx, "SELECT @@in_transaction").Scan(&open); err != nil || open != 0 {
		t.Errorf("a connection was left in a transaction (%d, %v)", open, err)
	}
}

// TestMariaDBWriteProcedure checks, each in one round trip, that a write
// through a procedure checks its preconditions (a failed one writes
// nothing), writes, updates and deletes the inverse of a bidirectional
// association, and rolls the whole write back when the inverse meets
// another association of a unique type.
func TestMariaDBWriteProcedure(t *testing.T) {
	db := openCounted(t, testenv.FreshMySQL(t, testenv.MySQLURL(t)), "procedure")
	needProcs(t, db)
	execReq(t, db, &tao.Request{Class: tao.Read, Ops: []tao.Op{{Kind: tao.ObjRead, ID1: 1}}}) // opens the connection
	version := func(k tao.Key) int64 {
		t.Helper()
		op := tao.Op{Kind: tao.ObjRead, ID1: k.ID1}
		if k.Edge {
			op = tao.Op{Kind: tao.EdgePointRead, ID1: k.ID1, Type: k.Type, ID2: k.ID2}
		}
		res := execReq(t, db, &tao.Request{Class: tao.Read, Ops: []tao.Op{op}})
		return res.Ops[0].Version // 0: absent
	}
	bi, inv := tao.TypeBidirectional, tao.TypeBidirectionalInv
	fwd, back := tao.Key{Edge: true, ID1: 1, Type: bi, ID2: 2}, tao.Key{Edge: true, ID1: 2, Type: inv, ID2: 1}
	steps := []struct {
		name string
		req  tao.Request
		want tao.Outcome
		// versions of object 1, the association and its inverse after
		versions [3]int64
	}{
		{"object add", tao.Request{Class: tao.WriteTxn, Ops: []tao.Op{{Kind: tao.ObjAdd, ID1: 1}, {Kind: tao.ObjAdd, ID1: 2}}}, tao.OK, [3]int64{1, 0, 0}},
		{"update checked at a wrong version", tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.ObjUpdate, ID1: 1}},
			Checks: []tao.Check{{Kind: tao.CheckVersion, Key: tao.Key{ID1: 1}, Version: 7}}}, tao.PreconditionFailed, [3]int64{1, 0, 0}},
		{"update checked on an absent association", tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.ObjUpdate, ID1: 1}},
			Checks: []tao.Check{{Kind: tao.CheckVersion, Key: tao.Key{ID1: 1}, Version: 1}, {Kind: tao.CheckExists, Key: fwd}}}, tao.PreconditionFailed, [3]int64{1, 0, 0}},
		{"update checked at its version", tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.ObjUpdate, ID1: 1}},
			Checks: []tao.Check{{Kind: tao.CheckVersion, Key: tao.Key{ID1: 1}, Version: 1}}}, tao.OK, [3]int64{2, 0, 0}},
		{"bidirectional add", tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.EdgeAdd, ID1: 1, Type: bi, ID2: 2}}}, tao.OK, [3]int64{2, 1, 1}},
		{"bidirectional update", tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.EdgeUpdate, ID1: 1, Type: bi, ID2: 2}}}, tao.OK, [3]int64{2, 2, 2}},
		{"association check fails, object write too", tao.Request{Class: tao.WriteTxn,
			Ops:    []tao.Op{{Kind: tao.ObjUpdate, ID1: 1}, {Kind: tao.EdgeUpdate, ID1: 1, Type: bi, ID2: 2}},
			Checks: []tao.Check{{Kind: tao.CheckVersion, Key: back, Version: 1}}}, tao.PreconditionFailed, [3]int64{2, 2, 2}},
		{"bidirectional delete", tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.EdgeDelete, ID1: 1, Type: bi, ID2: 2}}}, tao.OK, [3]int64{2, 0, 0}},
		{"delete of the absent", tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.EdgeDelete, ID1: 1, Type: bi, ID2: 2}}}, tao.NotFound, [3]int64{2, 0, 0}},
		// (3, unique and bidirectional, 1) is 3's one association of its
		// type; (2, its inverse type, 3) must fail on its inverse (3,
		// unique and bidirectional, 2), and take the object update with it.
		{"unique association", tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.EdgeAdd, ID1: 3, Type: tao.TypeUniqueBidir, ID2: 1}}}, tao.OK, [3]int64{2, 0, 0}},
		{"unique inverse collides", tao.Request{Class: tao.WriteTxn,
			Ops: []tao.Op{{Kind: tao.ObjUpdate, ID1: 1}, {Kind: tao.EdgeAdd, ID1: 2, Type: tao.TypeUniqueBidirInv, ID2: 3}}}, tao.UniqueViolation, [3]int64{2, 0, 0}},
	}
	for _, s := range steps {
		before := clientWrites.Load()
		res := execReq(t, db, &s.req)
		if trips := clientWrites.Load() - before; trips != 1 {
			t.Errorf("%s: %d round trips, want 1 (through a procedure)", s.name, trips)
		}
		if res.Outcome != s.want {
			t.Errorf("%s: outcome %v (%v), want %v", s.name, res.Outcome, res.Err, s.want)
		}
		if got := [3]int64{version(tao.Key{ID1: 1}), version(fwd), version(back)}; got != s.versions {
			t.Errorf("%s: versions of object 1, %v and %v: %v, want %v", s.name, fwd, back, got, s.versions)
		}
	}
	if v := version(tao.Key{Edge: true, ID1: 2, Type: tao.TypeUniqueBidirInv, ID2: 3}); v != 0 {
		t.Errorf("the association whose inverse collided was written (version %d)", v)
	}
	if v := version(tao.Key{Edge: true, ID1: 1, Type: tao.TypeUniqueBidirInv, ID2: 3}); v != 1 {
		t.Errorf("the inverse of the unique association has version %d, want 1", v)
	}
}

// TestMariaDBProcsAtOpen drops a database's procedures from taobench's
// schema, as a schema of an older taobench lacks them, and checks that
// opening the store with writes=procedures creates them; that opening drops
// the procedures of a database that no longer exists; and that a user who
// may not create them gets an error naming the grant and the URL option,
// without the password.
func TestMariaDBProcsAtOpen(t *testing.T) {
	admin := testenv.MySQLURL(t)
	raw := testenv.FreshMySQL(t, admin)
	db := openCounted(t, raw, "procedure")
	m := db.b.(*myBackend)
	needProcs(t, db)
	ctx := context.Background()
	u, _ := url.Parse(raw)
	dbName := strings.TrimPrefix(u.Path, "/")
	procsOf := func(name string) int {
		t.Helper()
		var n int
		if err := m.write.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = '"+myRoutineSchema+
			"' AND ROUTINE_COMMENT = "+myProcComment(name)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n, want := procsOf(dbName), len(myProcNames(m.procs.tag)); n != want {
		t.Fatalf("%d procedures of the database in %s, want %d", n, myRoutineSchema, want)
	}
	if err := dropProcs(ctx, m.write, dbName); err != nil {
		t.Fatal(err)
	}
	if n := procsOf(dbName); n != 0 {
		t.Fatalf("%d procedures left after dropProcs", n)
	}
	again := openCounted(t, raw, "procedure")
	if len(again.Notes()) > 0 {
		t.Fatalf("opening a database without the procedures: notes %q", again.Notes())
	}
	needProcs(t, again)
	req := &tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.EdgeAdd, ID1: 1, Type: tao.TypeBidirectional, ID2: 2}}}
	before := clientWrites.Load()
	if res := execReq(t, again, req); res.Outcome != tao.OK || clientWrites.Load()-before != 1 {
		t.Fatalf("a write through the created procedure: %v (%v) in %d round trips", res.Outcome, res.Err, clientWrites.Load()-before)
	}

	// The procedures of a database dropped since go when a store opens.
	adminDB, _ := testenv.MySQLAdmin(t, admin)
	gone := testenv.FreshMySQL(t, admin)
	gu, _ := url.Parse(gone)
	goneName := strings.TrimPrefix(gu.Path, "/")
	openCounted(t, gone, "procedure")
	if procsOf(goneName) == 0 {
		t.Fatal("no procedures created for the second database")
	}
	if _, err := adminDB.Exec("DROP DATABASE " + goneName); err != nil {
		t.Fatal(err)
	}
	openCounted(t, raw, "procedure")
	if n := procsOf(goneName); n != 0 {
		t.Errorf("%d procedures of a dropped database left in %s after a store opened", n, myRoutineSchema)
	}
	if n, want := procsOf(dbName), len(myProcNames(m.procs.tag)); n != want {
		t.Errorf("%d procedures of the live database, want %d: the orphans' drop took them", n, want)
	}

	// A user with rights on the tables only.
	user := "tb" + testenv.UniqueName()
	if len(user) > 32 {
		user = user[:32]
	}
	const pw = "pw-Secret-7q"
	for _, s := range []string{"CREATE USER '" + user + "'@'%' IDENTIFIED BY '" + pw + "'",
		"GRANT SELECT, INSERT, UPDATE, DELETE ON " + dbName + ".* TO '" + user + "'@'%'"} {
		if _, err := adminDB.Exec(s); err != nil {
			t.Skipf("%s: %v", s, err)
		}
	}
	t.Cleanup(func() { adminDB.Exec("DROP USER '" + user + "'@'%'") })
	u.User = url.UserPassword(user, pw)
	q := u.Query()
	q.Set("writes", "procedures")
	u.RawQuery = q.Encode()
	st, err := openMySQL(ctx, u, u.String(), store.Options{Clients: 1})
	if err == nil {
		st.Close()
		t.Fatal("a user who may not create routines opened with writes=procedures")
	}
	for _, want := range []string{"CREATE ROUTINE", "writes=procedures", myRoutineSchema} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	if strings.Contains(err.Error(), pw) {
		t.Errorf("error %q shows the password", err)
	}
	// Without the option the same user opens and writes statement by statement.
	q.Del("writes")
	u.RawQuery = q.Encode()
	plain := openCounted(t, u.String(), "default")
	req.Ops[0].ID1 = 5
	before = clientWrites.Load()
	if res := execReq(t, plain, req); res.Outcome != tao.OK || clientWrites.Load()-before < 3 {
		t.Errorf("a write statement by statement: %v (%v) in %d round trips", res.Outcome, res.Err, clientWrites.Load()-before)
	}
}

// TestMariaDBWriteProcedureConflicts runs writes through procedures from
// 8 connections on a few rows with a short lock wait, so that they meet
// lock waits, timeouts and deadlocks, and checks that every write ends in
// an outcome the statement-by-statement path could give, that conflicts
// carry the server's code, and that every connection still answers
// afterwards: no reply was left unread.
func TestMariaDBWriteProcedureConflicts(t *testing.T) {
	raw := testenv.FreshMySQL(t, testenv.MySQLURL(t))
	u, _ := url.Parse(raw)
	q := u.Query()
	q.Set("innodb_lock_wait_timeout", "1")
	q.Set("writes", "procedures")
	u.RawQuery = q.Encode()
	st, err := openMySQL(context.Background(), u, u.String(), store.Options{Clients: 8})
	if err != nil && strings.Contains(err.Error(), "is for MariaDB") {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	db := st.(*DB)
	defer db.Close()
	m := db.b.(*myBackend)
	defer dropProcs(context.Background(), m.write, strings.TrimPrefix(u.Path, "/"))
	needProcs(t, db)
	ctx := context.Background()
	var mu sync.Mutex
	outcomes := map[tao.Outcome]int{}
	codes := map[string]int{}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			deadline := time.Now().Add(4 * time.Second)
			for time.Now().Before(deadline) {
				// Write transactions over 3 objects and their associations in
				// random order: lock waits and deadlocks.
				req := &tao.Request{Class: tao.WriteTxn}
				for _, id := range rng.Perm(3)[:2+rng.IntN(2)] {
					if rng.IntN(2) == 0 {
						req.Ops = append(req.Ops, tao.Op{Kind: tao.ObjAdd, ID1: int64(id), Payload: []byte("x")})
					} else {
						req.Ops = append(req.Ops, tao.Op{Kind: tao.EdgeAdd, ID1: int64(id), Type: tao.TypeBidirectional, ID2: int64(3 - id), Payload: []byte("y")})
					}
				}
				if rng.IntN(3) == 0 {
					req.Checks = []tao.Check{{Kind: tao.CheckExists, Key: tao.Key{ID1: int64(rng.IntN(3))}}}
				}
				var res tao.Result
				res.Reset(len(req.Ops))
				db.Exec(ctx, req, &res)
				mu.Lock()
				outcomes[res.Outcome]++
				if res.Code != "" {
					codes[res.Code]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("outcomes %v, codes %v", outcomes, codes)
	for o, n := range outcomes {
		switch o {
		case tao.OK, tao.PreconditionFailed, tao.ConflictObject, tao.ConflictAssociation:
		default:
			t.Errorf("%d writes ended %v", n, o)
		}
	}
	if outcomes[tao.ConflictObject]+outcomes[tao.ConflictAssociation] == 0 {
		t.Error("no conflicts: the test provoked none")
	}
	for c := range codes {
		if c != "1205" && c != "1213" {
			t.Errorf("conflict code %q, want 1205 or 1213", c)
		}
	}
	// Every connection of the pool answers a query and holds no transaction.
	conns := make([]*sql.Conn, 0, 8)
	for range 8 {
		c, err := m.write.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for i, c := range conns {
		var open int64
		if err := c.QueryRowContext(ctx, "SELECT @@in_transaction").Scan(&open); err != nil || open != 0 {
			t.Errorf("connection %d: in transaction %d, %v", i, open, err)
		}
		c.Close()
	}
}

// BenchmarkMariaDBWrite runs, on one connection, the writes of workload a
// that need a transaction: an object update with a version check, an update
// of a bidirectional association (the inverse too), the same with an
// existence check; statement by statement (the default), through the slot
// procedures ("slots") and through the single writes' shape procedures
// ("procedure"; both writes=procedures).
// It reports per write the round trips (the client's writes to the
// socket), the client's CPU and the server's (the connection's server
// thread, /proc; the server must run on this machine).
//
//	go test -run XXX -bench MariaDBWrite -benchtime 5000x ./store/sqlstore/
func BenchmarkMariaDBWrite(b *testing.B) {
	raw := testenv.FreshMySQL(b, testenv.MySQLURL(b))
	for _, mode := range []string{"stepwise", "slots", "procedure"} {
		b.Run(mode, func(b *testing.B) {
			db := openCounted(b, raw, mode)
			m := db.b.(*myBackend)
			if mode == "stepwise" {
				if err := db.Setup(context.Background(), false); err != nil {
					b.Fatal(err)
				}
			} else {
				needProcs(b, db)
			}
			ctx := context.Background()
			const n = 1000
			payload := []byte("some payload of a few dozen bytes, as in workload a")
			for id := int64(1); id <= n; id++ {
				execReq(b, db, &tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.ObjAdd, ID1: id, Payload: payload}}})
				execReq(b, db, &tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.EdgeAdd, ID1: id, Type: tao.TypeBidirectional, ID2: id + 1, Payload: payload}}})
			}
			var tid int
			if err := m.write.QueryRowContext(ctx, "SELECT TID FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID()").Scan(&tid); err != nil {
				b.Skipf("no server thread id: %v", err)
			}
			// /proc/TID is the thread's, as /proc/PID is a process's.
			thread := func() time.Duration { return procCPU(tid) }
			rng := rand.New(rand.NewPCG(1, 2))
			trips0, srv0, cli0 := clientWrites.Load(), thread(), selfCPU()
			b.ResetTimer()
			for i := range b.N {
				id := 1 + rng.Int64N(n)
				var req tao.Request
				switch i % 3 {
				case 0:
					req = tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.ObjUpdate, ID1: id, Time: int64(i), Payload: payload}},
						Checks: []tao.Check{{Kind: tao.CheckVersion, Key: tao.Key{ID1: id}, Version: 1 + rng.Int64N(3)}}}
				case 1:
					req = tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.EdgeUpdate, ID1: id, Type: tao.TypeBidirectional, ID2: id + 1, Time: int64(i), Payload: payload}}}
				default:
					req = tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.EdgeUpdate, ID1: id, Type: tao.TypeBidirectional, ID2: id + 1, Time: int64(i), Payload: payload}},
						Checks: []tao.Check{{Kind: tao.CheckExists, Key: tao.Key{Edge: true, ID1: id, Type: tao.TypeBidirectional, ID2: id + 1}}}}
				}
				if res := execReq(b, db, &req); res.Outcome != tao.OK && res.Outcome != tao.PreconditionFailed {
					b.Fatalf("%+v: %v (%v)", req, res.Outcome, res.Err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(clientWrites.Load()-trips0)/float64(b.N), "trips/op")
			b.ReportMetric(float64((selfCPU()-cli0).Microseconds())/float64(b.N), "client-us/op")
			b.ReportMetric(float64((thread()-srv0).Microseconds())/float64(b.N), "server-us/op")
		})
	}
}

// needProcs creates the tables (Setup), skips a test on a server other
// than MariaDB and fails it when MariaDB's write procedures are missing.
func needProcs(t testing.TB, db *DB) {
	t.Helper()
	// Setup closes the connection it ran on: first, so that the CALLs are
	// prepared on the connection the test's writes take.
	if err := db.Setup(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(db.product, "MariaDB") {
		t.Skipf("the server is not MariaDB (%s): no write procedures", db.product)
	}
	if !db.b.(*myBackend).procs.ok {
		t.Fatalf("no write procedures: %q", db.Notes())
	}
	// Prepared now, so that a test's first write of a shape is one round trip.
	m := db.b.(*myBackend)
	if _, err := m.calls(context.Background()); err != nil {
		t.Fatal(err)
	}
	forShapes(func(ck, op int, inverse bool) {
		if _, err := m.shapeCall(context.Background(), ck, op, inverse); err != nil {
			t.Fatal(err)
		}
	})
}
