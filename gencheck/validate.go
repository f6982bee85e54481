package gencheck

import (
	"fmt"
	"github.com/taobench/taobench/chisquare"
	"math"

	"github.com/taobench/taobench/gen"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/stats"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// Row is the test of one distribution.
type Row struct {
	Name       string // the workload field, e.g. "primary_shards"
	Categories int    // bins after pooling
	N          int64  // observations
	ChiSquare  float64
	DF         int
	P          float64
	// Threshold is the level Holm's step gives P by its rank among the
	// rows tested (chisquare.Alpha / (m - rank), the smallest P first), and
	// AdjustedP is P corrected for the m rows tested: Pass is AdjustedP >=
	// chisquare.Alpha (see Correct).
	Threshold float64
	AdjustedP float64
	Pass      bool
	Skipped   bool // nothing to test: df < 1 or the distribution is absent
	Note      string
}

// Counts are what generated requests contained, by the value drawn.
type Counts struct {
	Requests      map[tao.Class]int64
	ReadTxnSizes  map[int]int64
	WriteTxnSizes map[int]int64
	Kinds         [tao.NumClasses]map[tao.Kind]int64
	PrimaryShards map[int]int64
	RemoteShards  map[int]int64 // id2 shard of each node's first edge op that has an id2
	EdgeTypes     map[tao.EdgeCategory]int64
	PayloadSizes  map[int]int64 // of edge writes, and of object writes unless the workload sizes objects apart
	ObjectSizes   map[int]int64 // of object writes, when object_payload_sizes is given
	RangeLimits   map[int]int64 // limits of range and time-range reads
	OpPredicates  map[tao.Predicate]int64
	TxnPredicates map[tao.Predicate]int64
	TxnPredCounts map[int]int64
	ReadTiers     map[tao.Tier]int64
	// ObjectReads and ObjectWrites are object reads and updates of loaded
	// objects by popularity bin, with the bins' expected counts, when the
	// workload gives object_read_popularity or object_write_popularity.
	ObjectReads, ObjectWrites *popularityBins
}

func newCounts() *Counts {
	c := &Counts{
		Requests: map[tao.Class]int64{}, ReadTxnSizes: map[int]int64{}, WriteTxnSizes: map[int]int64{},
		PrimaryShards: map[int]int64{}, RemoteShards: map[int]int64{}, EdgeTypes: map[tao.EdgeCategory]int64{},
		PayloadSizes: map[int]int64{}, ObjectSizes: map[int]int64{}, RangeLimits: map[int]int64{}, OpPredicates: map[tao.Predicate]int64{}, TxnPredicates: map[tao.Predicate]int64{},
		TxnPredCounts: map[int]int64{}, ReadTiers: map[tao.Tier]int64{},
	}
	for i := range c.Kinds {
		c.Kinds[i] = map[tao.Kind]int64{}
	}
	return c
}

// Run generates n requests of w over g with client 0's generator and tests
// every distribution against w's weights.
func Run(w *workload.Workload, g *graph.Graph, n int, seed uint64) []Row {
	c, err := Observe(w, g, n, seed)
	if err != nil {
		return []Row{{Name: "workload", Note: err.Error()}}
	}
	return Compare(w, c)
}

// Observe generates n requests of w over g and counts what they contain.
// The generator draws each edge op's category before it picks a node, so
// every edge op's category is an independent draw and counts. (Counting
// only the first op of each node, as before, was biased: a category whose
// ops concentrate on fewer, hotter nodes was undercounted.) id2 shards are
// properties of the graph's slots, and under key skew the same hot slots
// come back again and again, so only the first edge op of each node counts
// for them (which slot is picked does not depend on its id2).
func Observe(w *workload.Workload, g *graph.Graph, n int, seed uint64) (*Counts, error) {
	gn, err := gen.NewChecked(w, g, 0, 0, seed)
	if err != nil {
		return nil, err
	}
	c := newCounts()
	c.ObjectReads = newPopularityBins(gn.ObjectPopularity(false))
	c.ObjectWrites = newPopularityBins(gn.ObjectPopularity(true))
	seenID2 := map[int64]bool{}
	var req tao.Request
	for range n {
		gn.Next(&req)
		c.Requests[req.Class]++
		switch req.Class {
		case tao.Read, tao.ReadTxn:
			c.ReadTiers[req.Tier]++
		case tao.Write:
			for _, p := range req.Predicates {
				c.OpPredicates[p]++
			}
		case tao.WriteTxn:
			c.TxnPredCounts[len(req.Predicates)]++
			for _, p := range req.Predicates {
				c.TxnPredicates[p]++
			}
		}
		switch req.Class {
		case tao.ReadTxn:
			c.ReadTxnSizes[len(req.Ops)]++
		case tao.WriteTxn:
			c.WriteTxnSizes[len(req.Ops)]++
		}
		if len(req.Ops) > 0 {
			// One shard per request: a transaction's ops share a home shard.
			c.PrimaryShards[tao.ShardOf(req.Ops[0].ID1)]++
		}
		for i := range req.Ops {
			op := &req.Ops[i]
			c.Kinds[req.Class][op.Kind]++
			switch op.Kind {
			case tao.ObjRead:
				c.ObjectReads.add(op.ID1)
			case tao.ObjUpdate:
				c.ObjectWrites.add(op.ID1)
			}
			switch op.Kind {
			case tao.ObjAdd, tao.ObjUpdate:
				if len(w.ObjectPayloadSizes.Values) > 0 {
					c.ObjectSizes[len(op.Payload)]++
				} else {
					c.PayloadSizes[len(op.Payload)]++
				}
			case tao.EdgeAdd, tao.EdgeUpdate:
				c.PayloadSizes[len(op.Payload)]++
			case tao.EdgeRangeRead, tao.EdgeTimeRead:
				c.RangeLimits[op.Limit]++
			}
			if !op.Kind.IsEdge() {
				continue
			}
			c.EdgeTypes[category(op.Type)]++
			switch op.Kind {
			case tao.EdgePointRead, tao.EdgeAdd, tao.EdgeUpdate, tao.EdgeDelete:
				if !seenID2[op.ID1] {
					seenID2[op.ID1] = true
					c.RemoteShards[tao.ShardOf(op.ID2)]++
				}
			}
		}
	}
	return c, nil
}

// category returns the category of forward type t.
func category(t tao.EdgeType) tao.EdgeCategory {
	if c, ok := t.Category(); ok {
		return c
	}
	return tao.NumEdgeCategories
}

// Compare tests the counts against w's weights, one row per distribution.
func Compare(w *workload.Workload, c *Counts) []Row {
	rows := []Row{
		row("operations", w.Requests, c.Requests, ""),
		row("read_operation_types", w.ReadKinds, c.Kinds[tao.Read], ""),
		row("write_operation_types", w.WriteKinds, c.Kinds[tao.Write], ""),
		row("read_txn_operation_types", w.ReadTxnKinds, c.Kinds[tao.ReadTxn], ""),
		row("write_txn_operation_types", w.WriteTxnKinds, c.Kinds[tao.WriteTxn], ""),
		row("read_txn_sizes", w.ReadTxnSizes, c.ReadTxnSizes, ""),
		row("write_txn_sizes", w.WriteTxnSizes, c.WriteTxnSizes, ""),
		row("primary_shards", w.PrimaryShards, c.PrimaryShards, "first op of each request"),
		row("remote_shards", w.RemoteShards, c.RemoteShards, "every edge op"),
		row("edge_types", w.EdgeTypes, c.EdgeTypes, "every edge op"),
		row("payload_sizes", w.PayloadSizes, c.PayloadSizes, ""),
		row("object_payload_sizes", w.ObjectPayloadSizes, c.ObjectSizes, ""),
		row("range_limits", w.Limits(), c.RangeLimits, "range and time-range reads"),
		row("operation_predicates", w.OpPredicates, c.OpPredicates, ""),
		row("txn_predicates", w.TxnPredicates, c.TxnPredicates, ""),
		row("txn_predicate_counts", w.TxnPredicateCounts, c.TxnPredCounts, ""),
		row("read_tiers", w.ReadTiers, c.ReadTiers, ""),
	}
	if c.ObjectReads != nil {
		rows = append(rows, c.ObjectReads.row("object_read_popularity", "obj_read of loaded objects"))
	}
	if c.ObjectWrites != nil {
		rows = append(rows, c.ObjectWrites.row("object_write_popularity", "obj_update of loaded objects"))
	}
	Correct(rows, chisquare.Alpha)
	return rows
}

// Tested is how many of rows were tested (not skipped): the size of the
// family Correct corrects for.
func Tested(rows []Row) int {
	m := 0
	for _, r := range rows {
		if !r.Skipped {
			m++
		}
	}
	return m
}

// Correct applies Holm's step-down correction (Holm–Bonferroni) to the
// rows tested, so that a correct generator fails any of them with chance at
// most alpha in all (the family-wise false-alarm rate), not alpha each: a
// dozen distributions each tested at alpha fail a correct workload about a
// dozen times as often. The rows' p-values, smallest first, are held to
// alpha/m, alpha/(m-1), ..., alpha; once one passes its level, every later
// one passes. Each row's AdjustedP is the smallest family rate at which it
// would fail: max over the rows up to its rank of min(1, (m-rank) p).
func Correct(rows []Row, alpha float64) {
	var order []int
	var ps []float64
	for i := range rows {
		if !rows[i].Skipped {
			order = append(order, i)
			ps = append(ps, rows[i].P)
		}
	}
	levels, adjusted := stats.Holm(ps, alpha)
	for j, i := range order {
		r := &rows[i]
		r.Threshold, r.AdjustedP = levels[j], adjusted[j]
		r.Pass = r.AdjustedP >= alpha
	}
}

// row tests observed counts by value against d. Values d does not list
// become zero-weight categories, so drawing one fails the test.
func row[T comparable](name string, d workload.Dist[T], obs map[T]int64, note string) Row {
	r := Row{Name: name, Note: note}
	if len(d.Values) == 0 {
		r.Skipped = true
		r.Note = "not configured"
		for _, n := range obs {
			r.N += n
		}
		return r
	}
	var vals []T
	var weights []float64
	at := map[T]int{}
	for i, v := range d.Values {
		j, ok := at[v]
		if !ok {
			j = len(vals)
			at[v] = j
			vals = append(vals, v)
			weights = append(weights, 0)
		}
		weights[j] += d.Weights[i]
	}
	counts := make([]int64, len(vals))
	for v, n := range obs {
		r.N += n
		j, ok := at[v]
		if !ok {
			counts = append(counts, n)
			weights = append(weights, 0)
			r.Note = joinNote(r.Note, fmt.Sprintf("drew %v, which has no weight", v))
			continue
		}
		counts[j] += n
	}
	r.ChiSquare, r.DF, r.P, r.Categories = chisquare.Test(counts, weights)
	if math.IsInf(r.ChiSquare, 1) && r.Note == "" {
		r.Note = "drew a value of weight zero"
	}
	if r.DF < 1 && r.P != 0 {
		r.Skipped = true
		r.Note = joinNote(r.Note, "too few observations or categories to test")
		return r
	}
	r.Pass = r.P >= chisquare.Alpha // until Correct sets it for the family
	return r
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
