package sqlstore

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/taobench/taobench/internal/testenv"
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
		if sent := arrayReadTxn(ctx, b.pool, db, req, &got); sent != allPoints {
			t.Fatalf("transaction %d %+v: sent as one statement %v, want %v", i, req.Ops, sent, allPoints)
		}
		if !allPoints {
			got = execReq(t, db, req)
		} else {
			arrays++
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
	if arrays < 150 {
		t.Errorf("%d of 300 transactions went as one statement, want at least 150", arrays)
	}

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
