package sqlstore

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// BenchmarkPostgresRequest runs single-read requests of each kind, one at a
// time, against PostgreSQL: what the driver allocates and spends per
// request on the path a closed-loop client takes (docs/performance.md,
// "The driver's CPU per request").
//
//	go test -run XXX -bench PostgresRequest -benchmem ./store/sqlstore/
//
// TAOBENCH_BENCH_NOWATCH=1 leaves the request's context to pgx's own
// per-query watch, for comparison.
func BenchmarkPostgresRequest(b *testing.B) {
	noWatch := os.Getenv("TAOBENCH_BENCH_NOWATCH") != ""
	raw := testenv.FreshPostgres(b, testenv.PostgresURL(b))
	s, err := store.Default.Open(context.Background(), raw, store.Options{Clients: 1})
	if err != nil {
		b.Fatal(err)
	}
	db := s.(store.Database)
	defer db.Close()
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
			edges = append(edges, tao.Edge{ID1: id, Type: tao.TypeOther, ID2: 10000 + k, Time: k, Value: []byte("edge data")})
		}
	}
	l, err := db.NewLoader(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if err := l.Load(ctx, objs, edges); err != nil {
		b.Fatal(err)
	}
	l.Close()
	for _, k := range []struct {
		name string
		op   func(id int64) tao.Op
		n    int // reads in a read transaction; 0: a single read
	}{
		{"obj_read", func(id int64) tao.Op { return tao.Op{Kind: tao.ObjRead, ID1: id} }, 0},
		{"edge_point_read", func(id int64) tao.Op {
			return tao.Op{Kind: tao.EdgePointRead, ID1: id, Type: tao.TypeOther, ID2: 10000 + id%8}
		}, 0},
		{"edge_range_read", func(id int64) tao.Op {
			return tao.Op{Kind: tao.EdgeRangeRead, ID1: id, Type: tao.TypeOther, Limit: 10}
		}, 0},
		// A read transaction of 10 point reads, objects and edges by turns
		// (workload o's mean is about 20, 1 object in 6).
		{"read_txn_10", func(id int64) tao.Op {
			if id%2 == 0 {
				return tao.Op{Kind: tao.ObjRead, ID1: id}
			}
			return tao.Op{Kind: tao.EdgePointRead, ID1: id, Type: tao.TypeOther, ID2: 10000 + id%8}
		}, 10},
	} {
		b.Run(k.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 7))
			req := &tao.Request{Class: tao.Read, Ops: make([]tao.Op, max(k.n, 1))}
			if k.n > 0 {
				req.Class = tao.ReadTxn
			}
			var res tao.Result
			ctx, cancel := context.WithCancel(ctx) // a context that can end, as the run's
			defer cancel()
			if w, ok := db.(interface {
				WatchContext(context.Context) func()
			}); ok && !noWatch {
				defer w.WatchContext(ctx)() // as the run does
			}
			b.ReportAllocs()
			for b.Loop() {
				for i := range req.Ops {
					req.Ops[i] = k.op(1 + rng.Int64N(n))
				}
				res.Reset(len(req.Ops))
				db.Exec(ctx, req, &res)
				if res.Outcome != tao.OK && res.Outcome != tao.NotFound {
					b.Fatalf("outcome %v: %v", res.Outcome, res.Err)
				}
			}
		})
	}
}
