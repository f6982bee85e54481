package gen

import (
	"math"
	"testing"

	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/randdist"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// TestSpansAtDatabase: the closed form of write transactions spanning
// shards at the database agrees with what the generator draws, counted as
// the database sees it (tao.SpansAtDatabase), within 0.01 (the row's
// model error), for every built-in with write transactions.
func TestSpansAtDatabase(t *testing.T) {
	const draws = 40000 // standard error at most 0.0025
	for _, name := range []string{"a", "o", "t2", "fanout"} {
		w, err := workload.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		g, err := graph.New(w, 1, 200000)
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewPlan(w, g, 1)
		if err != nil {
			t.Fatal(err)
		}
		gen := p.Client(0, 0)
		gen.rng = randdist.NewRand(7)
		var req tao.Request
		n := 0
		for range draws {
			gen.next(&req, tao.WriteTxn)
			if tao.SpansAtDatabase(req.Ops) {
				n++
			}
		}
		drawn, want := float64(n)/draws, p.Targets().MultiShardWriteTxnsAtDB
		if math.Abs(drawn-want) > 0.01 {
			t.Errorf("%s: %.4f of drawn write transactions span shards at the database, the closed form says %.4f", name, drawn, want)
		} else {
			t.Logf("%s: drawn %.4f, closed form %.4f", name, drawn, want)
		}
	}
}
