package gen_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/taobench/taobench/bulkload"
	"github.com/taobench/taobench/gen"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/store"
	_ "github.com/taobench/taobench/store/sqlstore" // sqlite:
	"github.com/taobench/taobench/tao"
)

// TestOneWriterNoSpuriousFailures: with one client nobody else writes, so
// every key the generator takes for existing exists and every precondition
// holds. 100,000 write requests of workloads a and o on a small graph in
// SQLite end with no precondition failure and no update that finds no row.
func TestOneWriterNoSpuriousFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000 writes through SQLite")
	}
	const writes = 100_000
	for _, name := range []string{"a"} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			w := builtinW(t, name)
			// Writes only, in the workload's proportion of single writes
			// to write transactions.
			for i, c := range w.Requests.Values {
				if c != tao.Write && c != tao.WriteTxn {
					w.Requests.Weights[i] = 0
				}
			}
			g, err := graph.New(w, 1, 20_000)
			if err != nil {
				t.Fatal(err)
			}
			st, err := store.Default.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "g.db"), store.Options{Clients: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			db := st.(store.Database)
			if err := db.Setup(ctx, false); err != nil {
				t.Fatal(err)
			}
			if _, err := bulkload.Load(ctx, db, g, g.Meta(w), bulkload.Options{}); err != nil {
				t.Fatal(err)
			}
			run, err := db.ReserveRun(ctx)
			if err != nil {
				t.Fatal(err)
			}
			p, err := gen.NewPlan(w, g, 11)
			if err != nil {
				t.Fatal(err)
			}
			gn := p.Client(0, run)
			var req tao.Request
			var res tao.Result
			var outcomes [tao.NumOutcomes]int
			updates, missed := 0, 0
			var example tao.Op
			for range writes {
				gn.Next(&req)
				res.Reset(len(req.Ops))
				st.Exec(ctx, &req, &res)
				gn.Observe(&req, &res)
				outcomes[res.Outcome]++
				if res.Outcome != tao.OK && res.Outcome != tao.NotFound {
					continue
				}
				for i, op := range req.Ops {
					if op.Kind == tao.ObjUpdate || op.Kind == tao.EdgeUpdate {
						updates++
						if !res.Ops[i].Found {
							missed++
							example = op
						}
					}
				}
			}
			t.Logf("%s: %d write requests, outcomes %v; %d updates", name, writes, outcomes, updates)
			if n := outcomes[tao.PreconditionFailed]; n > 0 {
				t.Errorf("%d of %d write requests failed a precondition with one client", n, writes)
			}
			if missed > 0 {
				t.Errorf("%d of %d updates found no row with one client, e.g. %+v", missed, updates, example)
			}
			if updates < writes/4 {
				t.Errorf("only %d updates in %d write requests: the test tests little", updates, writes)
			}
		})
	}
}
