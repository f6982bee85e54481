package result

// Targets are what a run's fidelity rows compare against, from the
// generator's plan (gen.Targets and the plan's own draws of keys),
// recorded with the run so that merge recomputes the rows from merged
// counts without the generator, the graph or the store
// (fidelity.Recompute). docs/results.md, "Fidelity", defines each.
type Targets struct {
	EdgeHitRate       float64 `json:"edge_hit_rate"` // workload.Natural when untargeted
	RangeNonEmpty     float64 `json:"range_non_empty"`
	TimeRangeNonEmpty float64 `json:"time_range_non_empty"`
	CountNonZero      float64 `json:"count_non_zero"`
	RangeSizeOne      float64 `json:"range_size_one"`
	SizeOneReached    bool    `json:"size_one_reached"`
	Correlation       float64 `json:"correlation"`
	MeanRangeRows     float64 `json:"mean_range_rows"`
	// Shares of transactions spanning shards: by keys, and at the
	// database with the inverse rows of bidirectional writes.
	MultiShardWriteTxns     float64 `json:"multi_shard_write_txns"`
	MultiShardReadTxns      float64 `json:"multi_shard_read_txns"`
	MultiShardWriteTxnsAtDB float64 `json:"multi_shard_write_txns_at_db"`
	EdgeAddNew              float64 `json:"edge_add_new"`
	// ObjectReadWeights and ObjectWriteWeights are the shares of obj_read
	// and obj_update objects expected in each of the PopularityBins bins
	// (fidelity.ObjectRows); nil when the workload sets no
	// object_read_popularity or object_write_popularity.
	ObjectReadWeights  []float64 `json:"object_read_weights,omitempty"`
	ObjectWriteWeights []float64 `json:"object_write_weights,omitempty"`
	// Keys are the hot keys' targets at increasing request counts: the
	// estimator's result depends on the sample's size, so merge takes the
	// targets at the merged count (fidelity.KeyTargetsAt). Empty when the
	// workload asks for no skew the rows could check.
	Keys []KeyTargets `json:"keys,omitempty"`
}

// KeyTargets are the hot keys' figures of the plan's own draws of Requests
// requests (counted as a run counts them, fidelity.KeyTable).
type KeyTargets struct {
	Requests int64 `json:"requests"`
	TopN     int   `json:"top_n"`
	// Top is each key class's share of operations on its top keys
	// (KeyClass.TopShare); Keys how many keys the class touched.
	Top  [NumKeyClasses]float64 `json:"top"`
	Keys [NumKeyClasses]int64   `json:"keys"`
	// HotOverlap is the share of hot write keys that are hot read keys;
	// HotColocated that of the pairs of hot write-transaction keys on
	// one shard (of hot write keys, when the draws have no write
	// transactions: fidelity.ColocClass).
	HotOverlap   float64 `json:"hot_overlap"`
	HotColocated float64 `json:"hot_colocated"`
}

// mergeTargets returns the targets of merged experiments: the drivers of
// one run share their plan, so their targets agree but for the key
// targets, each driver's at its own counts, which merge keeps all of (in
// order of requests, one per count).
func mergeTargets(m, e *Targets) *Targets {
	if e == nil {
		return m
	}
	if m == nil {
		c := *e
		c.Keys = append([]KeyTargets(nil), e.Keys...)
		c.ObjectReadWeights = append([]float64(nil), e.ObjectReadWeights...)
		c.ObjectWriteWeights = append([]float64(nil), e.ObjectWriteWeights...)
		return &c
	}
	for _, k := range e.Keys {
		i := 0
		for i < len(m.Keys) && m.Keys[i].Requests < k.Requests {
			i++
		}
		if i < len(m.Keys) && m.Keys[i].Requests == k.Requests {
			continue
		}
		m.Keys = append(m.Keys[:i], append([]KeyTargets{k}, m.Keys[i:]...)...)
	}
	return m
}
