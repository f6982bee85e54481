package sqlstore

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// TestPostgresReadTxnOneStatement checks that a read transaction of point
// reads runs as pgReadTxn and gives every read what the batch of prepared
// statements gives, over random transactions of all five read kinds on
// present and absent keys, repeated keys and bumped versions; and that a
// transaction holding another kind of read goes as a batch.
func TestPostgresReadTxnOneStatement(t *testing.T) {
	db := openPlanDB(t, testenv.FreshPostgres(t, testenv.PostgresURL(t)))
	ctx := context.Background()
	if err := db.Setup(ctx, false); err != nil {
		t.Fatal(err)
	}
	b := db.b.(*pgBackend)
	const n = 20
	for id := int64(1); id <= n; id++ {
		for range 1 + id%3 { // versions 1 to 3
			if res := execReq(t, db, &tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.ObjAdd, ID1: id, Time: id, Payload: []byte("p")}}}); res.Outcome != tao.OK {
				t.Fatalf("obj_add: %v %v", res.Outcome, res.Err)
			}
		}
		for k := int64(1); k <= id%5; k++ {
			for range k {
				req := &tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.EdgeAdd, ID1: id, Type: tao.TypeOther, ID2: 100 + k, Time: 10 * k}}}
				if res := execReq(t, db, req); res.Outcome != tao.OK {
					t.Fatalf("edge_add: %v %v", res.Outcome, res.Err)
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	points := []tao.Kind{tao.ObjRead, tao.EdgePointRead}
	arrays := 0
	// The same transactions on the fast path, where pgReadTxn goes through
	// pgconn with its arrays written by hand (pgfast.go).
	onlyObjs, onlyEdges := 0, 0
	for i := range 300 {
		kinds := points
		if i%3 == 0 {
			kinds = tao.ReadKinds
		}
		req := &tao.Request{Class: tao.ReadTxn}
		for range 2 + rng.IntN(24) {
			op := tao.Op{Kind: kinds[rng.IntN(len(kinds))], ID1: 1 + rng.Int64N(n+5), Type: tao.TypeOther,
				ID2: 100 + rng.Int64N(6), Limit: rng.IntN(4), Offset: rng.IntN(3), Low: rng.Int64N(30), High: rng.Int64N(60)}
			if rng.IntN(10) == 0 {
				op.Type = tao.TypeUnique // a type with no edges
			}
			req.Ops = append(req.Ops, op)
		}
		var want, got tao.Result
		want.Reset(len(req.Ops))
		got.Reset(len(req.Ops))
		if !b.batchReadTxn(ctx, db, req, &want) || want.Outcome != tao.OK {
			t.Fatalf("transaction %d as a batch: outcome %v (%v)", i, want.Outcome, want.Err)
		}
		allPoints := true
		for _, op := range req.Ops {
			allPoints = allPoints && (op.Kind == tao.ObjRead || op.Kind == tao.EdgePointRead)
		}
		if sent := arrayReadTxn(ctx, b.pool, db, req, &got, &b.noArrays); sent != allPoints {
			t.Fatalf("transaction %d %+v: sent as one statement %v, want %v", i, req.Ops, sent, allPoints)
		}
		if !allPoints {
			got = execReq(t, db, req)
		} else {
			arrays++
			var fast tao.Result
			fast.Reset(len(req.Ops))
			if !arrayReadTxn(ctx, b.autoQ.r, db, req, &fast, &b.noArrays) || fast.Outcome != tao.OK {
				t.Fatalf("transaction %d on the fast path: outcome %v (%v)", i, fast.Outcome, fast.Err)
			}
			objs := 0
			for j, op := range req.Ops {
				if op.Kind == tao.ObjRead {
					objs++
				}
				if fast.Ops[j] != want.Ops[j] {
					t.Errorf("transaction %d op %d %+v on the fast path: %+v, %+v as a batch", i, j, req.Ops[j], fast.Ops[j], want.Ops[j])
				}
			}
			switch objs {
			case len(req.Ops):
				onlyObjs++
			case 0:
				onlyEdges++
			}
		}
		if got.Outcome != tao.OK {
			t.Fatalf("transaction %d: outcome %v (%v)", i, got.Outcome, got.Err)
		}
		for j := range req.Ops {
			if got.Ops[j] != want.Ops[j] {
				t.Errorf("transaction %d op %d %+v: %+v, %+v as a batch", i, j, req.Ops[j], got.Ops[j], want.Ops[j])
			}
		}
	}
	// (The seed gives 201, 3 and 4: arrays empty on either side are sent too.)
	if arrays < 150 || onlyObjs < 2 || onlyEdges < 2 {
		t.Errorf("%d of 300 transactions went as one statement, %d of objects alone, %d of edges alone; want at least 150, 2 and 2", arrays, onlyObjs, onlyEdges)
	}
	if fastPrepared(t, db, fastTxn) == 0 {
		t.Error("no connection prepared pgReadTxn for the fast path: the transactions went through pgx")
	}

	// A server that does not know multi-argument unnest (here: it is
	// renamed away, in this database's own catalog) gets the reads as a
	// batch, this time and from then on.
	if _, err := b.pool.Exec(ctx, "ALTER FUNCTION pg_catalog.unnest(anyarray) RENAME TO unnest_gone"); err != nil {
		t.Fatal(err)
	}
	b.pool.Reset() // new connections, which prepare the statement anew
	points2 := &tao.Request{Class: tao.ReadTxn, Ops: []tao.Op{{Kind: tao.EdgePointRead, ID1: 1, Type: tao.TypeOther, ID2: 101}, {Kind: tao.ObjRead, ID1: 2}}}
	if res := execReq(t, db, points2); res.Outcome != tao.OK || !res.Ops[0].Found || res.Ops[1].Version != 3 || !b.noArrays.Load() {
		t.Errorf("without unnest: outcome %v (%v), ops %+v, batch from now on %v", res.Outcome, res.Err, res.Ops, b.noArrays.Load())
	}
	if _, err := b.pool.Exec(ctx, "ALTER FUNCTION pg_catalog.unnest_gone(anyarray) RENAME TO unnest"); err != nil {
		t.Fatal(err)
	}
	b.noArrays.Store(false)

	// A statement that fails ends the request in its error and leaves the
	// connection usable.
	if _, err := b.pool.Exec(ctx, "ALTER TABLE objects RENAME TO objects_gone"); err != nil {
		t.Fatal(err)
	}
	req := &tao.Request{Class: tao.ReadTxn, Ops: []tao.Op{{Kind: tao.EdgePointRead, ID1: 1, Type: tao.TypeOther, ID2: 101}, {Kind: tao.ObjRead, ID1: 1}}}
	res := execReq(t, db, req)
	var pe *pgconn.PgError
	if res.Outcome != tao.Error || !errors.As(res.Err, &pe) || pe.Code != "42P01" {
		t.Fatalf("outcome %v, err %v; want an error 42P01 (no such table)", res.Outcome, res.Err)
	}
	if _, err := b.pool.Exec(ctx, "ALTER TABLE objects_gone RENAME TO objects"); err != nil {
		t.Fatal(err)
	}
	if res := execReq(t, db, req); res.Outcome != tao.OK || !res.Ops[0].Found || !res.Ops[1].Found {
		t.Fatalf("after the failure: outcome %v (%v), ops %+v", res.Outcome, res.Err, res.Ops)
	}
}

// BenchmarkPostgresReadTxn runs read transactions of 19 point reads (workload
// o's average size and mix, 1 object read to 5 association reads) from 4
// goroutines, as one batch and as one statement, and reports per
// transaction the client's CPU, the server's (its backends' /proc CPU; the
// server must run on this machine) and the tuples it fetched.
//
//	go test -run XXX -bench PostgresReadTxn -benchtime 20000x ./store/sqlstore/
func BenchmarkPostgresReadTxn(b *testing.B) {
	raw := testenv.FreshPostgres(b, testenv.PostgresURL(b))
	for _, mode := range []string{"batch", "statement"} {
		b.Run(mode, func(b *testing.B) {
			s, err := store.Default.Open(context.Background(), raw, store.Options{Clients: 4})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			db := s.(*DB)
			pb := db.b.(*pgBackend)
			ctx := context.Background()
			if err := db.Setup(ctx, false); err != nil {
				b.Fatal(err)
			}
			const n = 1000
			var objs []tao.Object
			var edges []tao.Edge
			for id := int64(1); id <= n; id++ {
				objs = append(objs, tao.Object{ID: id, Time: id, Value: []byte("some payload of a few dozen bytes, as in workload o")})
				for k := range id % 8 {
					edges = append(edges, tao.Edge{ID1: id, Type: tao.TypeOther, ID2: 10000 + k, Time: k, Value: []byte("an association's payload")})
				}
			}
			if l, err := db.NewLoader(ctx); err != nil {
				b.Fatal(err)
			} else if err := l.Load(ctx, objs, edges); err != nil {
				b.Fatal(err)
			} else {
				l.Close()
			}
			if _, err := pb.pool.Exec(ctx, "ANALYZE"); err != nil { // as a load ends
				b.Fatal(err)
			}
			run := func(req *tao.Request, res *tao.Result) {
				if mode == "batch" {
					pb.batchReadTxn(ctx, db, req, res)
				} else {
					arrayReadTxn(ctx, pb.pool, db, req, res, &pb.noArrays)
				}
			}
			// Open the pool's connections, then find their backends.
			var wg sync.WaitGroup
			for range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var res tao.Result
					req := &tao.Request{Class: tao.ReadTxn, Ops: []tao.Op{{Kind: tao.ObjRead, ID1: 1}, {Kind: tao.ObjRead, ID1: 2}}}
					for range 20 {
						res.Reset(2)
						run(req, &res)
					}
				}()
			}
			wg.Wait()
			srv := backendsCPU(ctx, b, pb.pool)
			tuples := func() int64 {
				// A backend reports its counts as a transaction ends, at most
				// once a second: a second on, one transaction on each.
				time.Sleep(1100 * time.Millisecond)
				var conns []*pgxpool.Conn
				for range 4 {
					c, err := pb.pool.Acquire(ctx)
					if err != nil {
						b.Fatal(err)
					}
					_, _ = c.Exec(ctx, "SELECT 1")
					conns = append(conns, c)
				}
				for _, c := range conns {
					c.Release()
				}
				var f int64
				_ = pb.pool.QueryRow(ctx, "SELECT tup_fetched FROM pg_stat_database WHERE datname = current_database()").Scan(&f)
				return f
			}
			t0 := tuples()
			var seed atomic.Uint64
			srv0, cli0 := srv(), selfCPU()
			b.SetParallelism(4 / max(1, runtime.GOMAXPROCS(0)))
			b.ResetTimer()
			b.RunParallel(func(p *testing.PB) {
				rng := rand.New(rand.NewPCG(seed.Add(1), 7))
				req := &tao.Request{Class: tao.ReadTxn, Ops: make([]tao.Op, 19)}
				var res tao.Result
				for p.Next() {
					for i := range req.Ops {
						id := 1 + rng.Int64N(n)
						if rng.IntN(6) == 0 {
							req.Ops[i] = tao.Op{Kind: tao.ObjRead, ID1: id}
						} else {
							req.Ops[i] = tao.Op{Kind: tao.EdgePointRead, ID1: id, Type: tao.TypeOther, ID2: 10000 + rng.Int64N(8)}
						}
					}
					res.Reset(len(req.Ops))
					run(req, &res)
					if res.Outcome != tao.OK {
						b.Errorf("outcome %v: %v", res.Outcome, res.Err)
						return
					}
				}
			})
			b.StopTimer()
			srv1, cli1 := srv(), selfCPU()
			b.ReportMetric(float64((cli1-cli0).Microseconds())/float64(b.N), "client-us/op")
			b.ReportMetric(float64((srv1-srv0).Microseconds())/float64(b.N), "server-us/op")
			b.ReportMetric(float64(tuples()-t0)/float64(b.N), "tuples/op")
		})
	}
}

// backendsCPU returns a function that sums the user plus system time of
// the database's client backends as they are now (the server must run on
// this machine).
func backendsCPU(ctx context.Context, tb testing.TB, pool *pgxpool.Pool) func() time.Duration {
	rows, err := pool.Query(ctx, "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'")
	if err != nil {
		tb.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		tb.Fatal(err)
	}
	return func() (d time.Duration) {
		for _, p := range pids {
			d += procCPU(p)
		}
		return d
	}
}

// TestAppendArray: the fast path's binary arrays are the bytes pgx's own
// type map encodes for the same values, empty (pgx sends a nil slice as
// NULL, which unnest reads as empty too), one and several elements,
// of both widths.
func TestAppendArray(t *testing.T) {
	m := pgtype.NewMap()
	for _, vals := range [][]int64{{}, {7}, {-1, 0, 1 << 40, -(1 << 62)}} {
		want, err := m.Encode(pgtype.Int8ArrayOID, pgtype.BinaryFormatCode, vals, []byte("kept"))
		if err != nil {
			t.Fatal(err)
		}
		if got := appendArray([]byte("kept"), vals); !bytes.Equal(got, want) {
			t.Errorf("bigint[] %v:\n got % x\nwant % x", vals, got, want)
		}
	}
	for _, vals := range [][]int32{{}, {3}, {0, -2147483648, 2147483647}} {
		want, err := m.Encode(pgtype.Int4ArrayOID, pgtype.BinaryFormatCode, vals, []byte("kept"))
		if err != nil {
			t.Fatal(err)
		}
		if got := appendArray([]byte("kept"), vals); !bytes.Equal(got, want) {
			t.Errorf("int[] %v:\n got % x\nwant % x", vals, got, want)
		}
	}
}
