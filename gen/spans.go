package gen

import (
	"github.com/taobench/taobench/randdist"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// SpanSamples is how many write transactions spansAtDatabase draws: its
// estimate's standard error is at most 0.5/sqrt(SpanSamples), 0.0025.
const SpanSamples = 40000

// spansAtDatabase estimates the share of write transactions that touch
// more than one shard at the database. The stores write the inverse row of
// a bidirectional edge in the forward write's transaction, on id2's shard,
// so a transaction whose keys' id1 share one shard still spans shards at
// the database when it writes such an edge to another shard. TAO writes
// those inverses apart from the transaction (TAOBench §3.3; TAO §4.2), so
// multi_shard_write_txns, TAOBench's 28.7%, counts keys; this is what the
// database sees on top, drawn by a generator of the plan itself (apart
// from every client's stream) because it depends on the mix of kinds,
// categories, sizes, shards and the graph's targets. 0 when w has no
// write transactions.
func (p *Plan) spansAtDatabase(w *workload.Workload) float64 {
	weight := 0.0
	for i, c := range w.Requests.Values {
		if c == tao.WriteTxn {
			weight += w.Requests.Weights[i]
		}
	}
	if weight == 0 {
		return 0
	}
	gen := p.Client(0, 0)
	gen.rng = randdist.NewRand(randdist.Hash(p.seed, 0, 0x7370616e, 0))
	var req tao.Request
	n := 0
	for range SpanSamples {
		gen.next(&req, tao.WriteTxn)
		if tao.SpansAtDatabase(req.Ops) {
			n++
		}
	}
	return float64(n) / SpanSamples
}
