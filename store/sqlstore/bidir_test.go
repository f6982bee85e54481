package sqlstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// stepBackend is a backend without writeTxn and readTxn: Exec runs every
// transaction statement by statement, as it did before the one-round-trip
// paths (and as it still does for holds and injected failures).
type stepBackend struct{ backend }

// bidirCase is a request on a bidirectional association and the rows
// (forward, inverse, or an unrelated one) planted before it.
type bidirCase struct {
	name  string
	plant []tao.Edge
	req   *tao.Request
	want  tao.Outcome
}

// bidirCases returns the cases, each on its own ids from base: forward
// found and inverse found, forward missing (an inverse planted alone must
// stay as it is, and none may be written), forward found and inverse
// missing, with and without preconditions, alone and in write
// transactions.
func bidirCases(typ tao.EdgeType) []bidirCase {
	inv, _ := typ.Inverse()
	var cs []bidirCase
	base := int64(0)
	add := func(name string, want tao.Outcome, plantF, plantI bool, mk func(a, b int64) *tao.Request) {
		base += 10
		a, b := int64(typ)*1000+base, int64(typ)*1000+base+1
		c := bidirCase{name: name, req: mk(a, b), want: want}
		if plantF {
			c.plant = append(c.plant, tao.Edge{ID1: a, Type: typ, ID2: b, Time: 5, Version: 3, Value: []byte("f")})
		}
		if plantI {
			c.plant = append(c.plant, tao.Edge{ID1: b, Type: inv, ID2: a, Time: 6, Version: 7, Value: []byte("i")})
		}
		// An association the preconditions check.
		c.plant = append(c.plant, tao.Edge{ID1: a, Type: tao.TypeOther, ID2: b, Time: 1, Version: 2, Value: []byte("o")})
		cs = append(cs, c)
	}
	upd := func(a, b int64) tao.Op {
		return tao.Op{Kind: tao.EdgeUpdate, ID1: a, Type: typ, ID2: b, Time: 9, Payload: []byte("new")}
	}
	del := func(a, b int64) tao.Op { return tao.Op{Kind: tao.EdgeDelete, ID1: a, Type: typ, ID2: b} }
	single := func(op func(a, b int64) tao.Op, checks ...func(a, b int64) tao.Check) func(a, b int64) *tao.Request {
		return func(a, b int64) *tao.Request {
			r := &tao.Request{Class: tao.Write, Ops: []tao.Op{op(a, b)}}
			for _, c := range checks {
				r.Checks = append(r.Checks, c(a, b))
			}
			return r
		}
	}
	other := func(a, b int64) tao.Key { return tao.Key{Edge: true, ID1: a, Type: tao.TypeOther, ID2: b} }
	exists := func(a, b int64) tao.Check { return tao.Check{Kind: tao.CheckExists, Key: other(a, b)} }
	version := func(v int64) func(a, b int64) tao.Check {
		return func(a, b int64) tao.Check { return tao.Check{Kind: tao.CheckVersion, Key: other(a, b), Version: v} }
	}
	fwdVersion := func(v int64) func(a, b int64) tao.Check {
		return func(a, b int64) tao.Check {
			return tao.Check{Kind: tao.CheckVersion, Key: tao.Key{Edge: true, ID1: a, Type: typ, ID2: b}, Version: v}
		}
	}
	for _, k := range []struct {
		name string
		op   func(a, b int64) tao.Op
	}{{"update", upd}, {"delete", del}} {
		add(k.name+", forward and inverse found", tao.OK, true, true, single(k.op))
		add(k.name+", forward missing, inverse found", tao.NotFound, false, true, single(k.op))
		add(k.name+", forward and inverse missing", tao.NotFound, false, false, single(k.op))
		add(k.name+", forward found, inverse missing", tao.OK, true, false, single(k.op))
		add(k.name+", a holding exists check", tao.OK, true, true, single(k.op, exists))
		add(k.name+", a holding version check on the forward edge", tao.OK, true, true, single(k.op, fwdVersion(3)))
		add(k.name+", a failing version check", tao.PreconditionFailed, true, true, single(k.op, version(5)))
		add(k.name+", a holding check, forward missing", tao.NotFound, false, true, single(k.op, exists))
		add(k.name+", a holding check, inverse missing", tao.OK, true, false, single(k.op, version(2)))
		add(k.name+", a write transaction of one, forward missing", tao.OK, false, true, func(a, b int64) *tao.Request {
			return &tao.Request{Class: tao.WriteTxn, Ops: []tao.Op{k.op(a, b)}}
		})
		add(k.name+", a write transaction", tao.OK, true, false, func(a, b int64) *tao.Request {
			return &tao.Request{Class: tao.WriteTxn, Ops: []tao.Op{
				{Kind: tao.ObjAdd, ID1: a, Time: 1, Payload: []byte("x")},
				k.op(b, a), // missing: a no-op
				k.op(a, b),
				{Kind: tao.EdgeUpdate, ID1: a, Type: tao.TypeOther, ID2: b, Time: 3, Payload: []byte("y")},
			}}
		})
		add(k.name+", a write transaction with a failing check", tao.PreconditionFailed, true, true, func(a, b int64) *tao.Request {
			return &tao.Request{Class: tao.WriteTxn, Ops: []tao.Op{k.op(a, b), k.op(b, a)}, Checks: []tao.Check{exists(a, b), version(9)(a, b)}}
		})
		add(k.name+", a write transaction that fails after it", tao.UniqueViolation, true, true, func(a, b int64) *tao.Request {
			return &tao.Request{Class: tao.WriteTxn, Ops: []tao.Op{k.op(a, b),
				{Kind: tao.EdgeAdd, ID1: a, Type: tao.TypeUnique, ID2: 1, Time: 1},
				{Kind: tao.EdgeAdd, ID1: a, Type: tao.TypeUnique, ID2: 2, Time: 1}}} // a second unique edge
		})
	}
	return cs
}

// dumpEdges returns every row of edges, in key order.
func dumpEdges(t *testing.T, db *DB) []string {
	t.Helper()
	var rows []string
	err := db.b.auto().query(context.Background(), "SELECT id1, type, id2, timestamp, value, version, ukey FROM edges ORDER BY id1, type, id2", nil,
		func(scan func(...any) error) error {
			var id1, typ, id2, ts, v, uk int64
			var val string
			if err := scan(&id1, &typ, &id2, &ts, &val, &v, &uk); err != nil {
				return err
			}
			rows = append(rows, fmt.Sprintf("(%d, %d, %d) t%d %q v%d ukey %d", id1, typ, id2, ts, val, v, uk))
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// rowDiff returns the rows only one of got and want holds, "" when none.
func rowDiff(got, want []string) string {
	var d []string
	for _, r := range got {
		if !slices.Contains(want, r) {
			d = append(d, "only in one statement: "+r)
		}
	}
	for _, r := range want {
		if !slices.Contains(got, r) {
			d = append(d, "only statement by statement: "+r)
		}
	}
	return strings.Join(d, "\n")
}

// TestPostgresBidirOneStatement checks that an update or delete of a
// bidirectional association, alone (one statement in autocommit), with
// preconditions or in a write transaction (in the one-batch pipeline),
// gives the result and leaves the rows the statement-by-statement path
// does, case by case on two databases; that the inverse is written only
// when the forward row was found; and that the graph keeps its inverses
// under concurrent writers of the same associations.
func TestPostgresBidirOneStatement(t *testing.T) {
	admin := testenv.PostgresURL(t)
	ctx := context.Background()
	one := openPlanDB(t, testenv.FreshPostgres(t, admin))
	stepDB := openPlanDB(t, testenv.FreshPostgres(t, admin))
	step := &DB{d: stepDB.d, b: stepBackend{stepDB.b}, name: stepDB.name}
	if _, ok := step.b.(writePipeliner); ok {
		t.Fatal("stepBackend still pipelines writes")
	}
	var cases []bidirCase
	for _, typ := range []tao.EdgeType{tao.TypeBidirectional, tao.TypeUniqueBidir} {
		cases = append(cases, bidirCases(typ)...)
	}
	// An update of an inverse type whose own inverse is unique and already
	// taken from that id1: the inverse's insert is a unique violation.
	taken := bidirCase{name: "update of an inverse type, its inverse's unique slot taken", plant: []tao.Edge{
		{ID1: 91, Type: tao.TypeUniqueBidirInv, ID2: 90, Time: 1, Version: 1, Value: []byte("i")},
		{ID1: 90, Type: tao.TypeUniqueBidir, ID2: 92, Time: 1, Version: 1, Value: []byte("f")},
	}, req: &tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.EdgeUpdate, ID1: 91, Type: tao.TypeUniqueBidirInv, ID2: 90, Time: 2}}},
		want: tao.UniqueViolation}
	cases = append(cases, taken)

	for _, db := range []*DB{one, step} {
		if err := db.Setup(ctx, false); err != nil {
			t.Fatal(err)
		}
		l, err := db.NewLoader(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			if err := l.Load(ctx, nil, c.plant); err != nil {
				t.Fatal(err)
			}
		}
		l.Close()
	}
	if a, b := dumpEdges(t, one), dumpEdges(t, step); rowDiff(a, b) != "" || len(a) == 0 {
		t.Fatalf("the planted rows differ:\n%s", rowDiff(a, b))
	}
	for _, c := range cases {
		if !pipelinable(c.req) {
			t.Fatalf("%s: not sent in one round trip", c.name)
		}
		got, want := execReq(t, one, c.req), execReq(t, step, c.req)
		if want.Outcome != c.want {
			t.Errorf("%s: statement by statement %v (%v), want %v", c.name, want.Outcome, want.Err, c.want)
		}
		if got.Outcome != want.Outcome || got.Err != nil != (want.Err != nil) {
			t.Errorf("%s: outcome %v (%v), statement by statement %v (%v)", c.name, got.Outcome, got.Err, want.Outcome, want.Err)
		}
		if got.Outcome == tao.OK || got.Outcome == tao.NotFound {
			for i := range got.Ops {
				if got.Ops[i].Found != want.Ops[i].Found {
					t.Errorf("%s: op %d found %v, statement by statement %v", c.name, i, got.Ops[i].Found, want.Ops[i].Found)
				}
			}
		}
		if d := rowDiff(dumpEdges(t, one), dumpEdges(t, step)); d != "" {
			t.Fatalf("%s: the rows differ from the statement-by-statement path's:\n%s", c.name, d)
		}
	}
	rows := strings.Join(dumpEdges(t, one), "\n")
	for _, want := range []string{
		// update, forward and inverse found: both overwritten
		fmt.Sprintf("(%d, %d, %d) t9 \"new\" v4", 2010, tao.TypeBidirectional, 2011),
		fmt.Sprintf("(%d, %d, %d) t9 \"new\" v8", 2011, tao.TypeBidirectionalInv, 2010),
		// update, forward missing, inverse found: the inverse untouched
		fmt.Sprintf("(%d, %d, %d) t6 \"i\" v7", 2021, tao.TypeBidirectionalInv, 2020),
		// update, forward found, inverse missing: the inverse written
		fmt.Sprintf("(%d, %d, %d) t9 \"new\" v1", 2041, tao.TypeBidirectionalInv, 2040),
	} {
		if !strings.Contains(rows, want) {
			t.Errorf("no row %s in\n%s", want, rows)
		}
	}
	for _, gone := range []string{
		fmt.Sprintf("(%d, %d, %d) ", 2031, tao.TypeBidirectionalInv, 2030), // forward and inverse missing: none written
		fmt.Sprintf("(%d, %d, %d) ", 2031, tao.TypeBidirectional, 2030),
	} {
		if strings.Contains(rows, gone) {
			t.Errorf("row %s written", gone)
		}
	}

	// Concurrent writers of a few associations, through the new path:
	// every committed write leaves the forward and inverse together. The
	// cases' rows go first: some were planted without their inverse.
	pool := one.b.(*pgBackend).pool
	if _, err := pool.Exec(ctx, "DELETE FROM edges"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	outcomes := map[tao.Outcome]int{}
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			kinds := []tao.Kind{tao.EdgeAdd, tao.EdgeUpdate, tao.EdgeUpdate, tao.EdgeDelete}
			for range 300 {
				op := tao.Op{Kind: kinds[rng.IntN(len(kinds))], ID1: 5000 + rng.Int64N(3), Type: tao.TypeBidirectional, ID2: 6000 + rng.Int64N(3), Time: rng.Int64N(100)}
				req := &tao.Request{Class: tao.Write, Ops: []tao.Op{op}}
				if rng.IntN(3) == 0 {
					op2 := op
					op2.ID1 = 5000 + rng.Int64N(3)
					req = &tao.Request{Class: tao.WriteTxn, Ops: []tao.Op{op, op2}}
				}
				res := execReq(t, one, req)
				mu.Lock()
				outcomes[res.Outcome]++
				mu.Unlock()
				switch res.Outcome {
				case tao.OK, tao.NotFound, tao.ConflictAssociation:
				default:
					t.Errorf("%+v: %v (%v)", req.Ops, res.Outcome, res.Err)
					return
				}
			}
		}()
	}
	wg.Wait()
	vs, err := one.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		t.Errorf("after concurrent writes: %s: %d, e.g. %s", v.Invariant, v.Count, v.Example)
	}
	var n int64
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM edges WHERE type = $1", int64(tao.TypeBidirectional)).Scan(&n); err != nil {
		t.Fatal(err)
	}
	t.Logf("concurrent writes: outcomes %v; %d forward associations left", outcomes, n)
	if outcomes[tao.OK] < 500 {
		t.Errorf("only %d of 2,400 concurrent writes succeeded", outcomes[tao.OK])
	}
}

var _ pgx.Row = scanRow(nil)

// BenchmarkPostgresBidirWrite runs single updates and deletes of
// bidirectional associations that exist (each delete's association added
// back by the next request on its key, statement by statement in both
// modes) from 4 goroutines, one statement or statement by statement, and
// reports per write the client's CPU and the server's (its backends' /proc
// CPU; the server must run on this machine).
//
//	go test -run XXX -bench PostgresBidirWrite -benchtime 20000x ./store/sqlstore/
func BenchmarkPostgresBidirWrite(b *testing.B) {
	raw := testenv.FreshPostgres(b, testenv.PostgresURL(b))
	for _, mode := range []string{"statements", "statement"} {
		b.Run(mode, func(b *testing.B) {
			ctx := context.Background()
			s, err := store.Default.Open(ctx, raw, store.Options{Clients: 4})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			db := s.(*DB)
			if err := db.Setup(ctx, true); err != nil {
				b.Fatal(err)
			}
			const n = 4000
			var edges []tao.Edge
			for id := int64(1); id <= n; id++ {
				edges = append(edges, tao.Edge{ID1: id, Type: tao.TypeBidirectional, ID2: n + id, Time: 1, Value: []byte("an association's payload")},
					tao.Edge{ID1: n + id, Type: tao.TypeBidirectionalInv, ID2: id, Time: 1, Value: []byte("an association's payload")})
			}
			if l, err := db.NewLoader(ctx); err != nil {
				b.Fatal(err)
			} else if err := l.Load(ctx, nil, edges); err != nil {
				b.Fatal(err)
			} else {
				l.Close()
			}
			pb := db.b.(*pgBackend)
			if _, err := pb.pool.Exec(ctx, "VACUUM ANALYZE edges"); err != nil {
				b.Fatal(err)
			}
			run := db
			if mode == "statements" {
				run = &DB{d: db.d, b: stepBackend{db.b}, name: db.name}
			}
			// Each goroutine writes its own keys: no conflicts.
			work := func(g int, k int) {
				var res tao.Result
				id := int64(g) + 4*int64(k%(n/4)) + 1
				op := tao.Op{Kind: tao.EdgeUpdate, ID1: id, Type: tao.TypeBidirectional, ID2: n + id, Time: int64(k), Payload: []byte("another payload")}
				if k%4 == 3 {
					op.Kind = tao.EdgeDelete
				}
				req := &tao.Request{Class: tao.Write, Ops: []tao.Op{op}}
				res.Reset(1)
				run.Exec(ctx, req, &res)
				if res.Outcome != tao.OK {
					b.Errorf("%+v: %v (%v)", op, res.Outcome, res.Err)
				}
				if op.Kind == tao.EdgeDelete {
					res.Reset(1)
					db.Exec(ctx, &tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.EdgeAdd, ID1: id, Type: tao.TypeBidirectional, ID2: n + id, Time: 1}}}, &res)
				}
			}
			var wg sync.WaitGroup
			for g := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for k := range 40 {
						work(g, k)
					}
				}()
			}
			wg.Wait()
			srv := backendsCPU(ctx, b, pb.pool)
			srv0, cli0 := srv(), selfCPU()
			b.ResetTimer()
			per := (b.N + 3) / 4
			for g := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for k := range per {
						work(g, 40+k)
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			srv1, cli1 := srv(), selfCPU()
			ops := float64(4 * per)
			b.ReportMetric(float64((cli1-cli0).Microseconds())/ops, "client-us/op")
			b.ReportMetric(float64((srv1-srv0).Microseconds())/ops, "server-us/op")
		})
	}
}
