package gen

import (
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// spansAtDatabase is the share of write transactions expected to touch
// more than one shard at the database. The stores write the inverse row of
// a bidirectional edge in the forward write's transaction, on id2's shard,
// so a transaction whose keys' id1 share one shard still spans shards at
// the database when it writes such an edge to another shard. TAO writes
// those inverses apart from the transaction (TAOBench §3.3; TAO §4.2), so
// multi_shard_write_txns, TAOBench's 28.7%, counts keys; this adds what the
// database sees on top.
//
// A transaction of n ops spans by its keys with chance multi (n >= 2);
// otherwise all its ops are on its home shard h (by primary_shards), and
// each op independently writes an inverse elsewhere with chance
// b * (1 - R_h): b the chance an op is an edge add, update or delete of a
// bidirectional category, R_h the share of id2s on h (remote_shards, which
// the graph's targets and new adds follow). So
//
//	P = sum_n P(n) [m_n + (1 - m_n) sum_h P(h) (1 - (1 - b (1 - R_h))^n)].
//
// It leaves out the rare redraws of a key written twice and new adds that
// link content the client created (new_content_share); TestSpansAtDatabase
// checks it against the generator's own draws. 0 without write
// transactions.
func (p *Plan) spansAtDatabase(w *workload.Workload) float64 {
	var kinds, writes float64
	for i, k := range w.WriteTxnKinds.Values {
		kinds += w.WriteTxnKinds.Weights[i]
		switch k {
		case tao.EdgeAdd, tao.EdgeUpdate, tao.EdgeDelete:
			writes += w.WriteTxnKinds.Weights[i]
		}
	}
	var cats, bidir float64
	for i, c := range w.EdgeTypes.Values {
		cats += w.EdgeTypes.Weights[i]
		if _, ok := c.Type().Inverse(); ok {
			bidir += w.EdgeTypes.Weights[i]
		}
	}
	var sizes float64
	for _, x := range w.WriteTxnSizes.Weights {
		sizes += x
	}
	if kinds == 0 || cats == 0 || sizes == 0 {
		return 0
	}
	b := writes / kinds * bidir / cats
	primary, remote := normalised(w.PrimaryShards.Weights), normalised(w.RemoteShards.Weights)
	total := 0.0
	for i, n := range w.WriteTxnSizes.Values {
		pn := w.WriteTxnSizes.Weights[i] / sizes
		if pn == 0 {
			continue
		}
		m := 0.0
		if n >= 2 {
			m = p.multi[tao.WriteTxn]
		}
		off := 0.0
		for h, ph := range primary {
			if ph > 0 {
				off += ph * (1 - pow(1-b*(1-remote[h]), n))
			}
		}
		total += pn * (m + (1-m)*off)
	}
	return min(max(total, 0), 1) // sums of shares may round past 1
}

func normalised(w []float64) []float64 {
	sum := 0.0
	for _, x := range w {
		sum += x
	}
	out := make([]float64, len(w))
	for i, x := range w {
		if sum > 0 {
			out[i] = x / sum
		}
	}
	return out
}

// pow is x^n for a small whole n.
func pow(x float64, n int) float64 {
	r := 1.0
	for range n {
		r *= x
	}
	return r
}
