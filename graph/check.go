package graph

import (
	"fmt"
	"math"

	"github.com/taobench/taobench/randdist"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// MaxPayload bounds payload sizes, which share one buffer per graph.
const MaxPayload = 1 << 20

// CheckWorkload reports the first problem with w that the graph or the
// generator cannot work with. New calls it, so a Generator built over a
// Graph never meets a malformed distribution. A distribution with no values
// is absent; that is allowed only where nothing draws from it (the sizes and
// kinds of a class of weight zero) or where absence has a meaning
// (predicates: none; predicate counts: zero; read tiers: db).
func CheckWorkload(w *workload.Workload) error {
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("workload %q, %s: %s", w.Name, field, fmt.Sprintf(format, args...))
	}
	n := w.Shards()
	if n < 1 || n > tao.MaxShards {
		return bad("primary_shards", "%d shards: give 1 to %d weights (one per shard)", n, tao.MaxShards)
	}
	for i, s := range w.PrimaryShards.Values {
		if s != i {
			return bad("primary_shards", "value %d is %d: shards must be numbered 0..%d in order", i, s, n-1)
		}
	}
	for _, c := range distChecks(w) {
		if c.nvals == 0 && len(c.weights) == 0 {
			if c.required {
				return bad(c.field, "missing: give its weights")
			}
			continue
		}
		if c.nvals != len(c.weights) {
			return bad(c.field, "%d values but %d weights: give one weight per value", c.nvals, len(c.weights))
		}
		if _, err := randdist.NewAlias(c.weights); err != nil {
			return bad(c.field, "%v", err)
		}
		if c.valid != nil {
			for i := 0; i < c.nvals; i++ {
				if err := c.valid(i); err != nil {
					return bad(c.field, "%v", err)
				}
			}
		}
	}
	if w.MaxOutdegree < 0 {
		return bad("max_outdegree", "%d: give 0 (no cap) or a positive cap", w.MaxOutdegree)
	}
	if !(w.EmptySlots >= 0 && w.EmptySlots < 1) {
		return bad("empty_slots", "%v: give a fraction in [0, 1)", w.EmptySlots)
	}
	if w.KeySkew.Kind == workload.Zipf && (!(w.KeySkew.Theta > 0) || math.IsInf(w.KeySkew.Theta, 0)) {
		return bad("key_skew", "zipf exponent %v: give a finite exponent above 0 (YCSB uses 0.99)", w.KeySkew.Theta)
	}
	if w.KeySkew.Kind != workload.Uniform && w.KeySkew.Kind != workload.Zipf {
		return bad("key_skew", "unknown kind %d", w.KeySkew.Kind)
	}
	if w.RangeLimit < 0 {
		return bad("range_limit", "%d: give a positive limit (TAO uses 6000) or 0 for that default", w.RangeLimit)
	}
	return nil
}

// distCheck is what CheckWorkload checks of one distribution: one weight
// per value, weights an alias table takes, and each value valid.
type distCheck struct {
	field    string
	weights  []float64
	nvals    int
	required bool // when the classes that use it have weight
	valid    func(i int) error
}

// distChecks lists w's distributions with their checks.
func distChecks(w *workload.Workload) []distCheck {
	n := w.Shards()
	var cw [tao.NumClasses]float64
	for i, c := range w.Requests.Values {
		if c < tao.NumClasses && i < len(w.Requests.Weights) {
			cw[c] += w.Requests.Weights[i]
		}
	}
	return []distCheck{
		{"operations", w.Requests.Weights, len(w.Requests.Values), true, func(i int) error {
			if w.Requests.Values[i] >= tao.NumClasses {
				return fmt.Errorf("value %d is not a request class", i)
			}
			return nil
		}},
		{"read_txn_sizes", w.ReadTxnSizes.Weights, len(w.ReadTxnSizes.Values), cw[tao.ReadTxn] > 0, sizesOK(w.ReadTxnSizes)},
		{"write_txn_sizes", w.WriteTxnSizes.Weights, len(w.WriteTxnSizes.Values), cw[tao.WriteTxn] > 0, sizesOK(w.WriteTxnSizes)},
		{"primary_shards", w.PrimaryShards.Weights, n, true, nil},
		{"remote_shards", w.RemoteShards.Weights, len(w.RemoteShards.Values), true, func(i int) error {
			if s := w.RemoteShards.Values[i]; s < 0 || s >= n {
				return fmt.Errorf("value %d is shard %d, but primary_shards has %d shards (0..%d)", i, s, n, n-1)
			}
			return nil
		}},
		{"read_operation_types", w.ReadKinds.Weights, len(w.ReadKinds.Values), cw[tao.Read] > 0, kindsOK(w.ReadKinds, true)},
		{"write_operation_types", w.WriteKinds.Weights, len(w.WriteKinds.Values), cw[tao.Write] > 0, kindsOK(w.WriteKinds, false)},
		{"read_txn_operation_types", w.ReadTxnKinds.Weights, len(w.ReadTxnKinds.Values), cw[tao.ReadTxn] > 0, kindsOK(w.ReadTxnKinds, true)},
		{"write_txn_operation_types", w.WriteTxnKinds.Weights, len(w.WriteTxnKinds.Values), cw[tao.WriteTxn] > 0, kindsOK(w.WriteTxnKinds, false)},
		{"payload_sizes", w.PayloadSizes.Weights, len(w.PayloadSizes.Values), true, func(i int) error {
			if s := w.PayloadSizes.Values[i]; s < 0 || s > MaxPayload {
				return fmt.Errorf("value %d is %d bytes: sizes run 0..%d", i, s, MaxPayload)
			}
			return nil
		}},
		{"object_payload_sizes", w.ObjectPayloadSizes.Weights, len(w.ObjectPayloadSizes.Values), false, func(i int) error {
			if s := w.ObjectPayloadSizes.Values[i]; s < 0 || s > MaxPayload {
				return fmt.Errorf("value %d is %d bytes: sizes run 0..%d", i, s, MaxPayload)
			}
			return nil
		}},
		{"range_limits", w.RangeLimits.Weights, len(w.RangeLimits.Values), false, func(i int) error {
			if l := w.RangeLimits.Values[i]; l < 1 {
				return fmt.Errorf("value %d is %d: give limits of 1 row or more", i, l)
			}
			return nil
		}},
		{"edge_types", w.EdgeTypes.Weights, len(w.EdgeTypes.Values), true, func(i int) error {
			if w.EdgeTypes.Values[i] >= tao.NumEdgeCategories {
				return fmt.Errorf("value %d is not an edge category", i)
			}
			return nil
		}},
		{"operation_predicates", w.OpPredicates.Weights, len(w.OpPredicates.Values), false, predsOK(w.OpPredicates)},
		{"txn_predicates", w.TxnPredicates.Weights, len(w.TxnPredicates.Values), false, predsOK(w.TxnPredicates)},
		{"txn_predicate_counts", w.TxnPredicateCounts.Weights, len(w.TxnPredicateCounts.Values), false, func(i int) error {
			if c := w.TxnPredicateCounts.Values[i]; c < 0 || c > 1000 {
				return fmt.Errorf("value %d is %d: counts run 0..1000", i, c)
			}
			return nil
		}},
		{"read_tiers", w.ReadTiers.Weights, len(w.ReadTiers.Values), false, func(i int) error {
			if w.ReadTiers.Values[i] >= tao.NumTiers {
				return fmt.Errorf("value %d is not a read tier", i)
			}
			return nil
		}},
		{"outdegree", w.Outdegree.Weights, len(w.Outdegree.Values), true, func(i int) error {
			v := w.Outdegree.Values
			if v[i] < 0 || (i > 0 && v[i] <= v[i-1]) {
				return fmt.Errorf("value %d is %d: values must be non-negative and strictly ascending", i, v[i])
			}
			return nil
		}},
	}
}

// kindsOK checks value i of d is a read (read) or write operation.
func kindsOK(d workload.Dist[tao.Kind], read bool) func(int) error {
	return func(i int) error {
		k := d.Values[i]
		if k >= tao.NumKinds || k.IsRead() != read {
			what := "write"
			if read {
				what = "read"
			}
			return fmt.Errorf("value %d (%v) is not a %s operation", i, k, what)
		}
		return nil
	}
}

// sizesOK checks value i of d is a transaction size.
func sizesOK(d workload.Dist[int]) func(int) error {
	return func(i int) error {
		if d.Values[i] < 1 || d.Values[i] > 100000 {
			return fmt.Errorf("value %d is %d: a transaction has 1 to 100000 operations", i, d.Values[i])
		}
		return nil
	}
}

// predsOK checks value i of d is a predicate.
func predsOK(d workload.Dist[tao.Predicate]) func(int) error {
	return func(i int) error {
		if d.Values[i] >= tao.NumPredicates {
			return fmt.Errorf("value %d is not a predicate", i)
		}
		return nil
	}
}
