// Package expect computes what the database should show from the
// workload's model: the targets a run records for its fidelity rows
// (Targets: the plan's figures and its own draws of hot keys), and the
// rows of a loaded graph beside the graph it was loaded from (GraphRows).
// It needs the generator, the graph and the store's inventory; package
// fidelity, which compares counts with recorded targets, needs none of
// them, so merge recomputes rows without the generator.
package expect

import (
	"math"
	"slices"

	"github.com/taobench/taobench/fidelity"
	"github.com/taobench/taobench/gen"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// simClient is the generator client the expectation draws from: none of a
// run's (12 bits of client number in ids).
const simClient = 1 << 30

// Targets returns what a run of workload w on plan (a graph of nodes
// objects) is compared against, to record with its result. keys is the
// number of requests the run's key table counted (result.KeyStats); with
// drivers processes sharing the run the merged count is larger, so the
// key targets go on at steps of 2^(1/4) up to twice drivers times keys
// (fidelity.KeyTargetsAt interpolates between them). No key targets when
// keys is 0 or the workload's key rows check nothing.
func Targets(w *workload.Workload, plan *gen.Plan, nodes, keys int64, drivers int) *result.Targets {
	pt := plan.Targets()
	t := &result.Targets{EdgeHitRate: pt.EdgeHitRate, RangeNonEmpty: pt.RangeNonEmpty, TimeRangeNonEmpty: pt.TimeRangeNonEmpty,
		CountNonZero: pt.CountNonZero, RangeSizeOne: pt.RangeSizeOne, SizeOneReached: pt.SizeOneReached, Correlation: pt.Correlation,
		MeanRangeRows: pt.MeanRangeRows, MultiShardWriteTxns: pt.MultiShardWriteTxns, MultiShardReadTxns: pt.MultiShardReadTxns,
		MultiShardWriteTxnsAtDB: pt.MultiShardWriteTxnsAtDB, EdgeAddNew: pt.EdgeAddNew,
		ObjectReadWeights: popularityWeights(w, plan.ObjectPopularity(false)), ObjectWriteWeights: popularityWeights(w, plan.ObjectPopularity(true))}
	if keys > 0 && fidelity.CheckKeys(w) {
		t.Keys = KeyTargets(plan, nodes, Sizes(keys, drivers))
	}
	return t
}

// popularityWeights returns the share of draws of p expected in each of
// gen.PopularityBins bins of equal share by popularity rank, each shard's
// bins weighed by primary_shards; nil when p is (no popularity set).
func popularityWeights(w *workload.Workload, p *gen.Popularity) []float64 {
	if p == nil {
		return nil
	}
	weights := make([]float64, gen.PopularityBins)
	for b := range weights {
		for s, ws := range w.PrimaryShards.Weights {
			weights[b] += ws * p.BinShare(s, b)
		}
	}
	return weights
}

// Sizes are the request counts to record key targets at for a process
// that counted n of drivers processes' requests.
func Sizes(n int64, drivers int) []int64 {
	sizes := []int64{n}
	for x := float64(n); drivers > 1 && x < float64(2*int64(drivers)*n) && int64(x) < fidelity.MaxSimulated; {
		x *= math.Pow(2, 0.25)
		sizes = append(sizes, int64(x))
	}
	return sizes
}

// KeyTargets draws the plan's requests once and returns the hot keys'
// targets at each of sizes (counts above fidelity.MaxSimulated are taken
// at it), in increasing order.
func KeyTargets(plan *gen.Plan, nodes int64, sizes []int64) []result.KeyTargets {
	at := make([]int64, 0, len(sizes))
	for _, n := range sizes {
		if n > 0 {
			at = append(at, min(n, fidelity.MaxSimulated))
		}
	}
	slices.Sort(at)
	at = slices.Compact(at)
	var out []result.KeyTargets
	draw(plan, nodes, at, func(n int64, k *result.KeyStats) {
		kt := fidelity.KeyTargetsOf(k)
		kt.Requests = n // the count asked, as a run's table counts (thinned past its share)
		out = append(out, kt)
	})
	return out
}

// Keys counts n requests of plan (clients' own streams are not drawn)
// into a table for a graph of nodes objects, as a run counts them; at
// most fidelity.MaxSimulated.
func Keys(plan *gen.Plan, nodes int64, n int64) *result.KeyStats {
	var k *result.KeyStats
	draw(plan, nodes, []int64{min(n, fidelity.MaxSimulated)}, func(_ int64, s *result.KeyStats) { k = s })
	if k == nil {
		k = fidelity.NewKeyTable(nodes, 1).Stats()
	}
	return k
}

// draw counts the plan's requests into one table, calling at with its
// stats after each count of sizes (increasing): a prefix of one stream
// counts as that many requests drawn alone.
func draw(plan *gen.Plan, nodes int64, sizes []int64, at func(int64, *result.KeyStats)) {
	t := fidelity.NewKeyTable(nodes, 1)
	b := t.Buffer()
	g := plan.Client(simClient, 0)
	var req tao.Request
	var res tao.Result
	var drawn int64
	for _, n := range sizes {
		for ; drawn < n; drawn++ {
			g.Next(&req)
			b.Add(&req)
			observeOK(g, &req, &res)
		}
		b.Flush()
		at(n, t.Stats())
	}
}

// observeOK tells g that req was answered as if the database found what
// it read and updated and inserted what it added: the generator aims
// later writes with preconditions at keys it remembers, as in a run.
func observeOK(g *gen.Generator, req *tao.Request, res *tao.Result) {
	res.Reset(len(req.Ops))
	res.Outcome = tao.OK
	for i := range req.Ops {
		k := req.Ops[i].Kind
		res.Ops[i].Found, res.Ops[i].Version = k != tao.EdgeAdd && k != tao.ObjAdd, 1
	}
	g.Observe(req, res)
}

// HotTxnDraws is how many requests HotWriteKeys draws: about 50 hot
// write-transaction keys of workload a at 20,000 edges (1% of the keys
// they touch), where validate --db's short run gives 6 or 7, in a second
// or two.
const HotTxnDraws = 100_000

// HotWriteKeys draws n requests of class c (tao.WriteTxn or tao.Write) of
// plan alone (its other requests are not drawn: a short run's
// transactions touch too few keys for their hot set to say anything) and
// counts them as a run counts them, for a graph of nodes objects; it
// returns their hot keys (the top 1% of the keys touched, by both halves
// of the draws) and, by hot key, the object it sits with: its own id, or
// an association's id1 (TAO places an association with its source
// object; fidelity.KeyOf hashes the rest of its key).
func HotWriteKeys(plan *gen.Plan, nodes, n int64, c tao.Class) (hot []result.KeyCount, objects []int64) {
	t := fidelity.NewKeyTable(nodes, 1)
	b := t.Buffer()
	g := plan.Client(simClient, 0)
	var req tao.Request
	var res tao.Result
	of := map[int64]int64{}
	for range n {
		g.NextOf(&req, c)
		b.Add(&req)
		for i := range req.Ops {
			of[fidelity.KeyOf(&req.Ops[i])] = req.Ops[i].ID1
		}
		observeOK(g, &req, &res)
	}
	b.Flush()
	cl := result.KeyWriteTxns
	if c == tao.Write {
		cl = result.KeyWrites
	}
	hot = t.Stats().Classes[cl].Hot
	objects = make([]int64, len(hot))
	for i, k := range hot {
		objects[i] = of[k.ID1]
	}
	return hot, objects
}
