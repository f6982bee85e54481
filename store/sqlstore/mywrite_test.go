package sqlstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/tao"
)

// TestMariaDBWriteOneRoundTrip runs the same random writes on two fresh
// databases, statement by statement on one and as compound statements on
// the other, and checks that every write gets the same outcome and
// results, that each went in one round trip, and that the two databases
// end with the same rows. The writes: single writes of every kind with and
// without checks (present, absent, at the version and not), associations
// of unique and bidirectional types (collisions, missing inverses), and
// write transactions.
func TestMariaDBWriteOneRoundTrip(t *testing.T) {
	admin := testenv.MySQLURL(t)
	step := openCounted(t, testenv.FreshMySQL(t, admin), "stepwise")
	one := openCounted(t, testenv.FreshMySQL(t, admin), "compound")
	if !one.b.(*myBackend).mariadb {
		t.Skipf("the server is not MariaDB (%s): no compound statements", one.product)
	}
	ctx := context.Background()
	for _, db := range []*DB{step, one} {
		if err := db.Setup(ctx, false); err != nil {
			t.Fatal(err)
		}
	}
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
	compound := 0
	for i := range 600 {
		req := &tao.Request{Class: tao.Write, Ops: []tao.Op{randOp()}}
		if rng.IntN(4) == 0 {
			req.Class = tao.WriteTxn
			for range 1 + rng.IntN(3) {
				req.Ops = append(req.Ops, randOp())
			}
		}
		for range rng.IntN(3) {
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
		compound++
		outcomes[got.Outcome]++
		if trips != 1 {
			t.Errorf("write %d %+v: %d round trips, want 1", i, req, trips)
		}
	}
	t.Logf("%d compound writes, outcomes %v", compound, outcomes)
	for _, o := range []tao.Outcome{tao.OK, tao.NotFound, tao.PreconditionFailed, tao.UniqueViolation} {
		if outcomes[o] == 0 {
			t.Errorf("no compound write ended %v: the test does not cover it", o)
		}
	}
	for _, q := range []string{"SELECT id, timestamp, value, version FROM objects ORDER BY id",
		"SELECT id1, type, id2, timestamp, value, version, ukey FROM edges ORDER BY id1, type, id2"} {
		if a, b := dump(t, step, q), dump(t, one, q); !slices.Equal(a, b) {
			t.Errorf("%s:\nstatement by statement %q\ncompound %q", q, a, b)
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

// TestMariaDBWriteConflictKind makes a compound write wait for a row
// another transaction holds until the lock wait times out (1205): the
// outcome names the kind of row the waiting statement wanted, whichever
// kind the write's first operation is, as statement by statement, and no
// transaction is left open.
func TestMariaDBWriteConflictKind(t *testing.T) {
	raw := testenv.FreshMySQL(t, testenv.MySQLURL(t))
	one := openCounted(t, raw, "compound")
	step := openCounted(t, raw, "stepwise")
	m := one.b.(*myBackend)
	if !m.mariadb {
		t.Skipf("the server is not MariaDB (%s): no compound statements", one.product)
	}
	ctx := context.Background()
	if err := one.Setup(ctx, false); err != nil {
		t.Fatal(err)
	}
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
		for name, db := range map[string]*DB{"compound": one, "statement by statement": step} {
			if res := execReq(t, db, c.req); res.Outcome != c.want {
				t.Errorf("case %d %s: outcome %v (%v), want %v", i, name, res.Outcome, res.Err, c.want)
			}
		}
	}
	var open int64
	if err := m.write.QueryRowContext(ctx, "SELECT @@in_transaction").Scan(&open); err != nil || open != 0 {
		t.Errorf("a connection was left in a transaction (%d, %v)", open, err)
	}
}

// BenchmarkMariaDBWrite runs, on one connection, the writes of workload a
// that need a transaction: an object update with a version check, an update
// of a bidirectional association (the inverse too), the same with an
// existence check; statement by statement and as one compound statement.
// It reports per write the round trips (the client's writes to the
// socket), the client's CPU and the server's (the connection's server
// thread, /proc; the server must run on this machine).
//
//	go test -run XXX -bench MariaDBWrite -benchtime 5000x ./store/sqlstore/
func BenchmarkMariaDBWrite(b *testing.B) {
	raw := testenv.FreshMySQL(b, testenv.MySQLURL(b))
	pid := serverPID()
	for _, mode := range []string{"stepwise", "compound"} {
		b.Run(mode, func(b *testing.B) {
			db := openCounted(b, raw, mode)
			m := db.b.(*myBackend)
			if !m.mariadb {
				b.Skip("the server is not MariaDB")
			}
			ctx := context.Background()
			if err := db.Setup(ctx, false); err != nil {
				b.Fatal(err)
			}
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
			if pid > 0 {
				b.ReportMetric(float64((thread()-srv0).Microseconds())/float64(b.N), "server-us/op")
			}
		})
	}
}
