// Package workload is the workload configuration model: the discrete
// distributions of the TAOBench paper's Table 2 plus what the computed graph
// needs. It reads the native format (docs/workloads.md) and the original
// TAOBench JSON-lines files, and embeds the built-in workloads.
package workload

import (
	"time"

	"github.com/taobench/taobench/tao"
)

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

	// KeySkew is how a key is chosen inside its shard; the per-class
	// skews below take it when nil (a file that leaves them out).
	KeySkew Skew
	// ReadKeySkew, WriteKeySkew and WriteTxnKeySkew are the key skew of
	// reads (single and in read transactions), single writes and write
	// transactions: TAOBench §3.2 (Fig. 2) finds them different. Use
	// ClassSkew to read them.
	ReadKeySkew, WriteKeySkew, WriteTxnKeySkew *Skew
	// HotspotOverlap is how much the hot keys of writes and write
	// transactions coincide with those of reads: 1 the same ranks, 0
	// disjoint hot sets (TAOBench §3.2, Fig. 3: over 99.0% of hot write
	// keys of the Like association are read less than once a day).
	HotspotOverlap float64

	// RangeLimit caps the rows of range and time-range reads (TAO: 6,000).
	RangeLimit int
	// RangeLimits is the limit a range or time-range read asks for, each
	// at most RangeLimit (TAO §7, Fig. 5: 12% of queries limit 1, 95% of
	// the rest 1000 or more). Absent (empty): every read asks for
	// RangeLimit.
	RangeLimits Dist[int]
	// ObjectPayloadSizes is the size of objects' values, when it differs
	// from PayloadSizes (TAO §7, Fig. 6: objects hold more than
	// associations). Absent (empty): PayloadSizes serves both.
	ObjectPayloadSizes Dist[int]

	// What edge reads find, transactions span and writes create: targets
	// the generator meets on the database (docs/graph.md, "Key choice").
	// A fraction of Natural means untargeted: the key is whatever the
	// popularity model draws.
	EdgeHitRate       float64 // edge_point_read that target an existing edge (TAO: 0.196)
	RangeNonEmpty     float64 // edge_range_read of a non-empty list (TAO: 0.31)
	TimeRangeNonEmpty float64 // edge_time_read whose window holds an edge (TAO: 0.019)
	CountNonZero      float64 // edge_count_read of a non-empty list (TAO: 0.55, Fig. 4)
	// RangeSizeOne is the share of non-empty list reads whose list has one
	// edge (TAO: 0.64); when EdgeReadCorrelation is Auto it is solved for.
	RangeSizeOne float64
	// EdgeReadCorrelation is the share of edge reads whose node is drawn by
	// EdgeReadPopularity in outdegree order (LinkBench's p_corr); the rest
	// are uniform over nodes. Auto: solved so RangeSizeOne holds.
	EdgeReadCorrelation float64
	// RangeMeanRows, when above 0, is the mean rows of edge_range_read,
	// empty ones included (LinkBench Table 4b: 21.9). Range reads aimed
	// at a list with edges then take one of one edge with chance
	// RangeSizeOne, key by key, else one of two or more, and an Auto
	// correlation is solved for this mean instead (gen, "Key choice").
	RangeMeanRows float64
	// EdgeReadPopularity is the accesses of a list at each outdegree
	// quantile, piecewise like Outdegree (LinkBench's measured link_nreads).
	EdgeReadPopularity Dist[int]
	// ObjectReadPopularity and ObjectWritePopularity are the accesses of
	// an object at each quantile, piecewise like Outdegree, for object
	// reads and for object updates (LinkBench's measured node_nreads and
	// node_nwrites), over one order of each shard's objects unrelated to
	// outdegree (LinkBench §4.5.1: node queries are uncorrelated with it).
	// Absent (empty): objects are drawn by the class's key skew.
	ObjectReadPopularity, ObjectWritePopularity Dist[int]
	// Shares of write and read transactions whose keys span more than one
	// shard (TAO: 0.287 of write transactions).
	MultiShardWriteTxns float64
	MultiShardReadTxns  float64
	// EdgeAddNew is the share of edge_add that insert a new association;
	// the rest overwrite an existing one.
	EdgeAddNew float64
	// UniqueAddRace is the share of unique-type edge_add aimed at a key
	// every client of the run races to insert.
	UniqueAddRace float64
	// RacingInserts is the share of edge_add of new associations the
	// application sends as RacingCopies concurrent identical requests, from
	// different clients; the database decides which one inserts (TAOBench
	// §3.3: over 97.3% of write-write conflicts are racing inserts).
	RacingInserts float64
	RacingCopies  int
	// NewContentShare is the share of object and edge operations aimed at
	// content the client created earlier in the run.
	NewContentShare float64

	// Injected latency (docs/target-load.md): an extra client-side delay per
	// request, drawn by class when a run injects latency (--inject-latency),
	// emulating cross-region round trips (TAOBench §5.1). Read requests
	// and read transactions draw from ReadLatency, single writes from
	// WriteLatency, write transactions from WriteTxnLatency. Absent (empty)
	// means no delay.
	ReadLatency, WriteLatency, WriteTxnLatency Dist[time.Duration]
	// LatencyBuckets is set when a latency field gave the original's bucket
	// indices, taken as LatencyBucketValues.
	LatencyBuckets bool

	// LockHold is how long a write or write transaction holds its locks
	// after its writes, before it commits (TAOBench §6.2, Fig. 12); absent:
	// no hold. Errors and TxnErrors are where single writes and write
	// transactions fail on purpose (absent: never). See experiment.go.
	LockHold  Dist[time.Duration]
	Errors    Dist[tao.FailPoint]
	TxnErrors Dist[tao.FailPoint]
	// PreconditionWait is the wait between a client's read of a key and
	// its later write of that key with a version precondition (TAOBench
	// §6.3, Fig. 13); absent: none.
	PreconditionWait Dist[time.Duration]

	// NotApplied names fields present in the file that have no effect yet
	// (read_tiers), to be reported once. The *_latency fields are applied
	// only by a run that injects latency; the command reports them.
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

// LatencyBucketValues are the delays taken for the original format's latency
// buckets 0 to 6, which give weights only: the original files do not say
// what the buckets are. The values span a local answer (0) to a slow
// cross-region round trip (TAO: 58.1 ms between regions, CONTEXT.md).
var LatencyBucketValues = [...]time.Duration{0, time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond,
	25 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond}

// MaxInjectedLatency bounds an injected delay.
const MaxInjectedLatency = time.Minute

// Natural marks a fidelity fraction as untargeted, and Auto a correlation
// to be solved for; both are written as words in the native format.
const (
	Natural = -1.0
	Auto    = -1.0
)

// ClassSkew returns the key skew of requests of class c: the class's own,
// or KeySkew when the class has none.
func (w *Workload) ClassSkew(c tao.Class) Skew {
	var s *Skew
	switch c {
	case tao.Read, tao.ReadTxn:
		s = w.ReadKeySkew
	case tao.Write:
		s = w.WriteKeySkew
	case tao.WriteTxn:
		s = w.WriteTxnKeySkew
	}
	if s == nil {
		return w.KeySkew
	}
	return *s
}

// AsksSkew reports whether the workload asks for skewed keys: a class's
// key skew other than uniform, write hot sets kept apart from the reads',
// or objects drawn by a measured popularity.
func (w *Workload) AsksSkew() bool {
	for _, c := range []tao.Class{tao.Read, tao.Write, tao.WriteTxn} {
		if w.ClassSkew(c).Kind != Uniform {
			return true
		}
	}
	return w.HotspotOverlap < 1 || len(w.ObjectReadPopularity.Values) > 0 || len(w.ObjectWritePopularity.Values) > 0
}

// AimedWrites is the share of single writes aimed at a key the client
// read (a write_version precondition takes the client's remembered read).
func (w *Workload) AimedWrites() float64 {
	var aimed, all float64
	for i, p := range w.OpPredicates.Values {
		all += w.OpPredicates.Weights[i]
		if p == tao.PredWriteVersion {
			aimed += w.OpPredicates.Weights[i]
		}
	}
	if all == 0 {
		return 0
	}
	return aimed / all
}

// Shards returns the shard count.
func (w *Workload) Shards() int { return len(w.PrimaryShards.Values) }

// Limits returns the limits range and time-range reads ask for:
// RangeLimits, or RangeLimit alone when it is absent.
func (w *Workload) Limits() Dist[int] {
	if len(w.RangeLimits.Values) > 0 {
		return w.RangeLimits
	}
	return Dist[int]{Values: []int{w.RangeLimit}, Weights: []float64{1}}
}

// ObjectPayloads returns the size distribution of objects' values:
// ObjectPayloadSizes, or PayloadSizes when it is absent.
func (w *Workload) ObjectPayloads() Dist[int] {
	if len(w.ObjectPayloadSizes.Values) > 0 {
		return w.ObjectPayloadSizes
	}
	return w.PayloadSizes
}
