// Package workload is the workload configuration model: the discrete
// distributions of the TAOBench paper's Table 2 plus what the computed graph
// needs. It reads the native format (docs/workloads.md) and the original
// TAOBench JSON-lines files, and embeds the built-in workloads.
package workload

import "github.com/taobench/taobench/tao"

// Dist is a discrete distribution: Values[i] is drawn with probability
// Weights[i] / sum(Weights). Values and Weights have the same length, weights
// are finite and non-negative, and at least one is positive.
type Dist[T comparable] struct {
	Values  []T
	Weights []float64
}

// SkewKind is how keys are chosen inside a shard.
type SkewKind uint8

const (
	Uniform SkewKind = iota
	Zipf
)

// Skew is the key popularity inside a shard. Zipf ranks are scattered over
// the shard by an invertible permutation so hot keys are not neighbours.
type Skew struct {
	Kind  SkewKind
	Theta float64 // Zipf exponent, > 0 (0.99 as in YCSB)
}

// Workload is a complete workload configuration.
type Workload struct {
	Name        string
	Description string

	// Request mix: weights of read, write, read_txn and write_txn.
	Requests Dist[tao.Class]

	// Transaction sizes, in operations.
	ReadTxnSizes  Dist[int]
	WriteTxnSizes Dist[int]

	// Sharding: Values are shard numbers 0..n-1 in order; their count is the
	// shard count. PrimaryShards picks the shard of the key an operation
	// touches, RemoteShards the shard of an edge's id2.
	PrimaryShards Dist[int]
	RemoteShards  Dist[int]

	// Operation kinds of single reads, single writes and transactions.
	ReadKinds     Dist[tao.Kind]
	WriteKinds    Dist[tao.Kind]
	ReadTxnKinds  Dist[tao.Kind]
	WriteTxnKinds Dist[tao.Kind]

	// PayloadSizes is the size in bytes of a written value.
	PayloadSizes Dist[int]

	// EdgeTypes is the association category of edges.
	EdgeTypes Dist[tao.EdgeCategory]

	// OpPredicates is the precondition of a single write; TxnPredicates the
	// kind of each precondition of a write transaction and
	// TxnPredicateCounts how many it has (Values are counts 0..n).
	OpPredicates       Dist[tao.Predicate]
	TxnPredicates      Dist[tao.Predicate]
	TxnPredicateCounts Dist[int]

	// ReadTiers is the tier a read is sent to when a tiered store is used.
	ReadTiers Dist[tao.Tier]

	// Outdegree is the number of edge slots of a node, as a piecewise
	// distribution: Values ascend; value i with weight w means a draw falls
	// uniformly in (Values[i-1], Values[i]] with probability w (Values[0]
	// exactly for the first). MaxOutdegree caps a draw (0: no cap).
	Outdegree    Dist[int]
	MaxOutdegree int

	// EmptySlots is the fraction of edge slots left unwritten at load, so
	// inserts and uniqueness checks meet real absent rows.
	EmptySlots float64

	// KeySkew is how a key is chosen inside its shard.
	KeySkew Skew

	// RangeLimit caps the rows of range and time-range reads (TAO: 6,000).
	RangeLimit int

	// NotApplied names fields present in the file that have no effect yet
	// (the *_latency weights, errors, txn_errors), to be reported once.
	NotApplied []string

	// Raw holds the entries of the NotApplied fields verbatim, in file
	// order, so that writing the workload back loses nothing.
	Raw []RawDist
}

// RawDist is a field read but not interpreted. Where the original format
// implies values by index, Values are the indices "0", "1", ...
type RawDist struct {
	Name    string
	Values  []string
	Weights []float64
}

// Shards returns the shard count.
func (w *Workload) Shards() int { return len(w.PrimaryShards.Values) }
