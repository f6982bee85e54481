package sqlstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/tao"
)

// TestPostgresDifferential sends 100,000 random read requests in the
// integration suite, issue 38's figure, and 40,000 in the unit suite (every read
// kind alone, and read transactions of point reads only, which go as one
// statement, and of mixed kinds, which go as a batch) through the store
// and, for each, the same reads through plain pgx.Conn.Query with SQL of
// the test's own: every answer must agree. 16 clients share the store's 2
// connections, as the reference's 2, so each connection's reused state
// (prepared statements, parameter buffers, the read in progress) serves
// one client after another: a read given another client's answer, as the
// hand-written protocol once did (1 read in 4,000 under contention), is
// caught here (about 10 of them in 40,000; a store giving a wrong version
// to 1 single read in 4,000 was caught twice in 40,000). -short sends 10,000.
func TestPostgresDifferential(t *testing.T) {
	ctx := context.Background()
	const nObj = 300
	var objs []tao.Object
	var edges []tao.Edge
	for id := int64(1); id <= nObj; id++ {
		objs = append(objs, tao.Object{ID: id, Time: id, Value: []byte(fmt.Sprint("object ", id))})
		for k := range id % 9 {
			edges = append(edges, tao.Edge{ID1: id, Type: tao.TypeOther, ID2: 1000 + k, Time: (id * k * 7) % 50, Value: []byte("e")})
		}
		if id%4 == 0 {
			edges = append(edges, tao.Edge{ID1: id, Type: tao.TypeStride, ID2: 2000 + id, Time: id, Value: []byte("s")})
		}
	}
	raw := testenv.FreshPostgres(t, testenv.PostgresURL(t))
	db := openLoadedURL(t, withParams(raw, "pool_max_conns=2"), objs, edges)
	b := db.b.(*pgBackend)
	// Versions other than 1, so a version from the wrong row or column shows.
	for _, s := range []string{
		"UPDATE objects SET version = id * 7 + 1 WHERE id % 3 <> 0",
		"UPDATE edges SET version = id1 * 13 + id2 WHERE id1 % 2 = 0",
	} {
		if _, err := b.pool.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}

	// The reference: two plain connections, pgx's defaults, each shared by
	// half the clients.
	type refConn struct {
		mu sync.Mutex
		c  *pgx.Conn
	}
	var refs [2]refConn
	for i := range refs {
		c, err := pgx.Connect(ctx, raw)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		refs[i].c = c
	}
	one := func(c *pgx.Conn, sql string, args ...any) (v int64, found bool, err error) {
		rows, err := c.Query(ctx, sql, args...)
		if err != nil {
			return 0, false, err
		}
		defer rows.Close()
		if rows.Next() {
			found = true
			if err := rows.Scan(&v); err != nil {
				return 0, false, err
			}
		}
		return v, found, rows.Err()
	}
	want := func(c *pgx.Conn, op *tao.Op) (tao.OpResult, error) {
		var r tao.OpResult
		var err error
		var n int64
		t := int64(op.Type)
		lim := int64(op.Limit)
		if lim <= 0 {
			lim = DefaultLimit
		}
		switch op.Kind {
		case tao.ObjRead:
			r.Version, r.Found, err = one(c, "SELECT version FROM objects WHERE id = $1", op.ID1)
		case tao.EdgePointRead:
			r.Version, r.Found, err = one(c, "SELECT version FROM edges WHERE id1 = $1 AND type = $2 AND id2 = $3", op.ID1, t, op.ID2)
		case tao.EdgeRangeRead:
			n, _, err = one(c, "SELECT count(*) FROM (SELECT 1 FROM edges WHERE id1 = $1 AND type = $2 ORDER BY timestamp DESC LIMIT $3 OFFSET $4) s", op.ID1, t, lim, int64(max(op.Offset, 0)))
		case tao.EdgeCountRead:
			n, _, err = one(c, "SELECT count(*) FROM edges WHERE id1 = $1 AND type = $2", op.ID1, t)
		case tao.EdgeTimeRead:
			n, _, err = one(c, "SELECT count(*) FROM (SELECT 1 FROM edges WHERE id1 = $1 AND type = $2 AND timestamp BETWEEN $3 AND $4 LIMIT $5) s", op.ID1, t, op.Low, op.High, lim)
		}
		r.Rows = int(n)
		return r, err
	}
	types := []tao.EdgeType{tao.TypeOther, tao.TypeOther, tao.TypeStride, tao.TypeUnique}
	randOp := func(rng *rand.Rand, kinds []tao.Kind) tao.Op {
		id := 1 + rng.Int64N(nObj+30) // some past the last object
		op := tao.Op{Kind: kinds[rng.IntN(len(kinds))], ID1: id, Type: types[rng.IntN(len(types))], ID2: 1000 + rng.Int64N(10)}
		if op.Type == tao.TypeStride && rng.IntN(2) == 0 {
			op.ID2 = 2000 + id
		}
		op.Limit, op.Offset = rng.IntN(7), rng.IntN(4) // limit 0: the default
		op.Low = rng.Int64N(50)
		op.High = op.Low + rng.Int64N(30) - 5 // some empty ranges
		return op
	}
	points := []tao.Kind{tao.ObjRead, tao.EdgePointRead}

	const clients = 16
	total := 40_000
	if testenv.IntegrationOn() {
		total = 100_000
	}
	if testing.Short() {
		total = 10_000
	}
	var next, wrong, found, missing, withRows, txns atomic.Int64
	var wg sync.WaitGroup
	for cl := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ref := &refs[cl%len(refs)]
			rng := rand.New(rand.NewPCG(uint64(cl), 38))
			var res tao.Result
			var exp []tao.OpResult
			for next.Add(1) <= int64(total) && wrong.Load() < 5 {
				req := tao.Request{Class: tao.Read}
				switch k := rng.IntN(10); {
				case k < 7:
					req.Ops = []tao.Op{randOp(rng, tao.ReadKinds)}
				case k < 9: // one statement (pgReadTxn)
					req.Class = tao.ReadTxn
					for range 2 + rng.IntN(8) {
						req.Ops = append(req.Ops, randOp(rng, points))
					}
				default: // a batch
					req.Class = tao.ReadTxn
					for range 2 + rng.IntN(5) {
						req.Ops = append(req.Ops, randOp(rng, tao.ReadKinds))
					}
				}
				res.Reset(len(req.Ops))
				db.Exec(ctx, &req, &res)
				exp = exp[:0]
				ref.mu.Lock()
				for i := range req.Ops {
					r, err := want(ref.c, &req.Ops[i])
					if err != nil {
						ref.mu.Unlock()
						t.Errorf("the reference, %+v: %v", req.Ops[i], err)
						wrong.Add(5)
						return
					}
					exp = append(exp, r)
				}
				ref.mu.Unlock()
				wantOut := tao.OK
				if req.Class == tao.Read && (req.Ops[0].Kind == tao.ObjRead || req.Ops[0].Kind == tao.EdgePointRead) && !exp[0].Found {
					wantOut = tao.NotFound
				}
				bad := res.Err != nil || res.Outcome != wantOut
				for i := range exp {
					bad = bad || res.Ops[i] != exp[i]
					switch {
					case exp[i].Found:
						found.Add(1)
					case exp[i].Rows > 1:
						withRows.Add(1)
					case req.Ops[i].Kind == tao.ObjRead || req.Ops[i].Kind == tao.EdgePointRead:
						missing.Add(1)
					}
				}
				if req.Class == tao.ReadTxn {
					txns.Add(1)
				}
				if bad && wrong.Add(1) <= 5 {
					t.Errorf("%v %+v: the store gave %v %+v (%v), pgx %v %+v", req.Class, req.Ops, res.Outcome, res.Ops, res.Err, wantOut, exp)
				}
			}
		}()
	}
	wg.Wait()
	if n := wrong.Load(); n > 0 {
		t.Fatalf("%d requests answered otherwise than pgx's (stopped after 5)", n)
	}
	// Enough of each case for the agreement to mean something.
	if f, m, r, x := found.Load(), missing.Load(), withRows.Load(), txns.Load(); f < int64(total)/4 || m < int64(total)/20 || r < int64(total)/10 || x < int64(total)/5 {
		t.Fatalf("too few cases: %d found, %d missing, %d with rows, %d transactions of %d requests", f, m, r, x, total)
	}
	for _, k := range []int{int(sObjGet), int(sEdgeGet), int(sEdgeRange), int(sEdgeCount), int(sEdgeTime), fastTxn} {
		if fastPrepared(t, db, k) == 0 {
			t.Errorf("fast statement %d was prepared on no connection: its reads did not take the fast path", k)
		}
	}
}
