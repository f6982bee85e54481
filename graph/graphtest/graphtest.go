// Package graphtest builds workloads for tests of the graph, the generator
// and validation, shaped like the original workload O (figures from its
// file; long transaction-size lists shortened) with a heavy-tailed outdegree.
package graphtest

import (
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

func seq(n int) []int {
	v := make([]int, n)
	for i := range v {
		v[i] = i
	}
	return v
}

// WorkloadO returns a fresh workload-O-shaped configuration; callers may
// modify it.
func WorkloadO() *workload.Workload {
	return &workload.Workload{
		Name:     "test-o",
		Requests: workload.Dist[tao.Class]{Values: []tao.Class{tao.Read, tao.Write, tao.ReadTxn, tao.WriteTxn}, Weights: []float64{8387, 19, 242, 1}},
		ReadTxnSizes: workload.Dist[int]{Values: []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 50},
			Weights: []float64{553162, 311751, 166458, 106694, 80485, 62975, 53430, 33268, 27819, 36732, 9323}},
		WriteTxnSizes: workload.Dist[int]{Values: []int{2, 3, 4, 5, 7, 21, 26},
			Weights: []float64{104440, 283626, 340601, 43853, 107888, 51871, 20160}},
		PrimaryShards: workload.Dist[int]{Values: seq(50), Weights: []float64{94036, 36224, 3600, 612, 612, 612, 612, 612, 614, 612, 612, 612, 612, 612, 612, 612, 614, 612, 612, 612, 612, 612, 612, 612, 612, 614, 612, 612, 612, 612, 612, 612, 612, 614, 612, 612, 612, 612, 612, 612, 612, 614, 612, 612, 612, 612, 612, 612, 612, 600}},
		RemoteShards:  workload.Dist[int]{Values: seq(50), Weights: []float64{31712, 2563, 1925, 1722, 1663, 1620, 1037, 679, 381, 247, 176, 149, 130, 119, 112, 99, 96, 89, 80, 80, 76, 64, 64, 64, 64, 48, 48, 48, 48, 48, 45, 32, 32, 32, 32, 32, 32, 32, 32, 17, 16, 16, 16, 16, 16, 16, 16, 16, 16, 15}},
		ReadKinds:     workload.Dist[tao.Kind]{Values: tao.ReadKinds, Weights: []float64{479, 475, 0, 0, 0}},
		WriteKinds:    workload.Dist[tao.Kind]{Values: tao.WriteKinds, Weights: []float64{219, 75, 0, 1, 321, 0}},
		ReadTxnKinds:  workload.Dist[tao.Kind]{Values: []tao.Kind{tao.ObjRead, tao.EdgePointRead}, Weights: []float64{1, 5}},
		WriteTxnKinds: workload.Dist[tao.Kind]{Values: tao.WriteKinds, Weights: []float64{219, 75, 0, 1, 321, 0}},
		PayloadSizes:  workload.Dist[int]{Values: []int{0, 8, 16, 32, 64, 128, 150}, Weights: []float64{30, 20, 15, 15, 10, 7, 3}},
		EdgeTypes:     workload.Dist[tao.EdgeCategory]{Values: []tao.EdgeCategory{tao.Unique, tao.Bidirectional, tao.UniqueBidirectional, tao.Other}, Weights: []float64{100, 130, 109, 366}},
		OpPredicates: workload.Dist[tao.Predicate]{Values: []tao.Predicate{tao.PredWriteVisibility, tao.PredWriteUpdateOnly, tao.PredWriteVersion, tao.PredNone},
			Weights: []float64{14, 42, 20, 924}},
		TxnPredicates: workload.Dist[tao.Predicate]{Values: []tao.Predicate{tao.PredReadVisibility, tao.PredReadVersion, tao.PredWriteVisibility, tao.PredWriteVersion, tao.PredNone},
			Weights: []float64{0.2, 0.2, 0.2, 0.2, 0.2}},
		TxnPredicateCounts: workload.Dist[int]{Values: []int{0, 1, 2}, Weights: []float64{0.8, 0.1, 0.1}},
		ReadTiers:          workload.Dist[tao.Tier]{Values: []tao.Tier{tao.TierClientCache, tao.TierTAO, tao.TierDB}, Weights: []float64{14, 85, 1}},
		// Heavy-tailed: most nodes have a few slots, a few have thousands.
		Outdegree:    workload.Dist[int]{Values: []int{0, 1, 5, 10, 100, 1000, 10000}, Weights: []float64{10, 20, 30, 20, 15, 4, 1}},
		MaxOutdegree: 10000,
		EmptySlots:   0.2,
		KeySkew:      workload.Skew{Kind: workload.Zipf, Theta: 0.99},
		RangeLimit:   6000,
		// The fidelity targets' defaults (workload/defaults.go).
		EdgeHitRate:         workload.DefaultEdgeHitRate,
		RangeNonEmpty:       workload.DefaultRangeNonEmpty,
		TimeRangeNonEmpty:   workload.DefaultTimeRangeNonEmpty,
		RangeSizeOne:        workload.DefaultRangeSizeOne,
		EdgeReadCorrelation: workload.Auto,
		EdgeReadPopularity:  workload.DefaultEdgeReadPopularity(),
		MultiShardWriteTxns: workload.DefaultMultiShardTxns,
		MultiShardReadTxns:  workload.DefaultMultiShardTxns,
		EdgeAddNew:          workload.DefaultEdgeAddNew,
		UniqueAddRace:       workload.DefaultUniqueAddRace,
		NewContentShare:     workload.DefaultNewContentShare,
	}
}
