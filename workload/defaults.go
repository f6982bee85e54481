package workload

import (
	"math"

	"github.com/taobench/taobench/tao"
)

// Defaults of the fields a file may leave out (docs/workloads.md).
const (
	DefaultShards       = 50     // the original's logical shards
	DefaultMaxOutdegree = 100000 // a node above this would dominate a small graph
	DefaultEmptySlots   = 0.1
	DefaultRangeLimit   = 6000 // TAO's per-type cap on list reads

	// TAO paper (ATC 2013) §7, Fig. 3-5: what edge reads find.
	DefaultEdgeHitRate       = 0.196
	DefaultRangeNonEmpty     = 0.31
	DefaultTimeRangeNonEmpty = 0.019
	// Fig. 4: 45% of assoc_count calls return zero.
	DefaultCountNonZero = 0.55
	DefaultRangeSizeOne = 0.64
	// TAOBench §3.3: 28.7% of write transactions span more than one shard;
	// TAO gives no figure for read transactions, so they take the same.
	DefaultMultiShardTxns = 0.287
	// TAO's assoc_add adds associations; overwrites are the exception.
	DefaultEdgeAddNew = 0.99
	// TAOBench Table 5 (T.2): 0.403% of unique adds find the association
	// exists, nearly all from intentionally racing inserts (§3.3).
	DefaultUniqueAddRace = 0.004
	// Racing inserts are off unless a workload asks for them; a race is
	// two requests unless it says more (TAOBench §3.3 gives no count).
	DefaultRacingCopies = 2
	// MaxRacingCopies bounds a race: each copy is a client's request.
	MaxRacingCopies = 64
	// No paper gives the share; small, so new content is touched without
	// concentrating the load on it.
	DefaultNewContentShare = 0.05
)

// linkReadsCDF is LinkBench's measured link_nreads (percent of lists read
// at most Bound times over its trace), at the same bounds as outdegreeCDF
// up to its maximum.
var linkReadsCDF = [...]struct {
	Bound   int
	Percent float64
}{
	{0, 95.57464021}, {1, 97.35467629}, {2, 98.13989627}, {3, 98.44935994}, {4, 98.67836042},
	{5, 98.83192672}, {6, 98.96675922}, {7, 99.08853407}, {8, 99.18295762}, {9, 99.30432903},
	{10, 99.39054578}, {11, 99.44370542}, {12, 99.48618097}, {13, 99.52417355}, {14, 99.55674850},
	{15, 99.58292735}, {16, 99.60741603}, {17, 99.62743492}, {18, 99.64548897}, {19, 99.66344093},
	{20, 99.67982819}, {30, 99.77770487}, {50, 99.85790162}, {70, 99.89261464}, {100, 99.91838248},
	{150, 99.93861313}, {200, 99.94964369}, {300, 99.96222281}, {500, 99.97515069}, {700, 99.98241131},
	{1000, 99.98918647}, {1500, 99.99504674}, {2000, 99.99772064}, {3000, 99.99950105}, {5000, 99.99993743},
	{7000, 99.99997826}, {10000, 99.99999144}, {15000, 99.99999638}, {20000, 99.99999835}, {30000, 99.99999934},
	{95718, 100},
}

// DefaultEdgeReadPopularity returns LinkBench's measured reads per list as
// a piecewise distribution, as DefaultOutdegree does for outdegree.
func DefaultEdgeReadPopularity() Dist[int] { return piecewise(linkReadsCDF[:]) }

// outdegreeCDF is LinkBench's measured outdegree CDF (the nlinks section of
// its Distribution.dat: percent of nodes with at most Bound out-edges) at
// the bounds of our pieces: every value 0..20, then 1-1.5-2-3-5-7 steps per
// decade up to the measured maximum. The reference lists only the degrees it
// saw, so the CDF at a bound is the one of the largest listed degree <= it.
var outdegreeCDF = [...]struct {
	Bound   int
	Percent float64
}{
	{0, 45.33160573}, {1, 77.46259112}, {2, 86.95805953}, {3, 91.99305428}, {4, 94.4507991},
	{5, 95.82807169}, {6, 96.72252805}, {7, 97.32008855}, {8, 97.76142319}, {9, 98.07767693},
	{10, 98.32803368}, {11, 98.53703922}, {12, 98.70025671}, {13, 98.82537746}, {14, 98.93357097},
	{15, 99.02687903}, {16, 99.10803256}, {17, 99.17988071}, {18, 99.23667679}, {19, 99.2832732},
	{20, 99.3269556}, {30, 99.55693901}, {50, 99.72156049}, {70, 99.78607028}, {100, 99.83136115},
	{150, 99.86621857}, {200, 99.88513523}, {300, 99.90606634}, {500, 99.92746369}, {700, 99.93935809},
	{1000, 99.95065916}, {1500, 99.96208469}, {2000, 99.96937201}, {3000, 99.97854898}, {5000, 99.98745332},
	{7000, 99.99171369}, {10000, 99.99504521}, {15000, 99.99749791}, {20000, 99.99853773}, {30000, 99.99938394},
	{50000, 99.99981396}, {70000, 99.99991472}, {100000, 99.99996279}, {150000, 99.99998189}, {200000, 99.99999045},
	{300000, 99.99999737}, {500000, 99.99999934}, {700000, 99.99999934}, {961963, 100},
}

// DefaultOutdegree returns LinkBench's measured outdegree as a piecewise
// distribution: the weight of a piece is the CDF's rise over it, in percent.
func DefaultOutdegree() Dist[int] { return piecewise(outdegreeCDF[:]) }

func piecewise(cdf []struct {
	Bound   int
	Percent float64
}) Dist[int] {
	d := Dist[int]{Values: make([]int, len(cdf)), Weights: make([]float64, len(cdf))}
	prev := 0.0
	for i, p := range cdf {
		d.Values[i] = p.Bound
		// The reference has 8 decimals; rounding keeps the files readable.
		d.Weights[i] = math.Round((p.Percent-prev)*1e8) / 1e8
		prev = p.Percent
	}
	return d
}

// DefaultPayloadSizes returns the default size of written values, in bytes:
// half shaped like LinkBench's measured edge payloads (49% empty, mean about
// 10 B) and half like its object payloads (median 128 B), capped at 150 B,
// the original schema's VARCHAR(150).
func DefaultPayloadSizes() Dist[int] {
	return Dist[int]{
		Values:  []int{0, 8, 16, 32, 64, 96, 128, 150},
		Weights: []float64{49, 22, 15, 9, 20, 20, 30, 35},
	}
}

// uniformShards returns n shards of equal weight.
func uniformShards(n int) Dist[int] {
	d := Dist[int]{Values: make([]int, n), Weights: make([]float64, n)}
	for i := range d.Values {
		d.Values[i] = i
		d.Weights[i] = 1
	}
	return d
}

// applyDefaults fills every field the file left out that has a default.
// Absent kind and size lists stay empty: Validate requires them only where
// the request mix uses them.
func applyDefaults(w *Workload, seen map[string]bool) {
	switch {
	case !seen["primary_shards"] && !seen["remote_shards"]:
		w.PrimaryShards, w.RemoteShards = uniformShards(DefaultShards), uniformShards(DefaultShards)
	case !seen["primary_shards"]:
		w.PrimaryShards = uniformShards(len(w.RemoteShards.Values))
	case !seen["remote_shards"]:
		w.RemoteShards = uniformShards(len(w.PrimaryShards.Values))
	}
	if !seen["edge_types"] {
		w.EdgeTypes = Dist[tao.EdgeCategory]{Values: []tao.EdgeCategory{tao.Other}, Weights: []float64{1}}
	}
	if !seen["operation_predicates"] {
		w.OpPredicates = Dist[tao.Predicate]{Values: []tao.Predicate{tao.PredNone}, Weights: []float64{1}}
	}
	if !seen["txn_predicates"] {
		w.TxnPredicates = Dist[tao.Predicate]{Values: []tao.Predicate{tao.PredNone}, Weights: []float64{1}}
	}
	if !seen["txn_predicate_counts"] {
		w.TxnPredicateCounts = Dist[int]{Values: []int{0}, Weights: []float64{1}}
	}
	if !seen["read_tiers"] {
		w.ReadTiers = Dist[tao.Tier]{Values: []tao.Tier{tao.TierDB}, Weights: []float64{1}}
	}
	if !seen["payload_sizes"] {
		w.PayloadSizes = DefaultPayloadSizes()
	}
	if !seen["outdegree"] {
		w.Outdegree = DefaultOutdegree()
	}
	if !seen["max_outdegree"] {
		w.MaxOutdegree = DefaultMaxOutdegree
	}
	if !seen["empty_slots"] {
		w.EmptySlots = DefaultEmptySlots
	}
	if !seen["range_limit"] {
		w.RangeLimit = DefaultRangeLimit
	}
	// key_skew: the zero Skew is uniform. The per-class skews take it, so
	// a file written back says each explicitly.
	for _, f := range []struct {
		name string
		dst  **Skew
	}{{"read_key_skew", &w.ReadKeySkew}, {"write_key_skew", &w.WriteKeySkew}, {"write_txn_key_skew", &w.WriteTxnKeySkew}} {
		if !seen[f.name] {
			k := w.KeySkew
			*f.dst = &k
		}
	}
	if !seen["hotspot_overlap"] {
		w.HotspotOverlap = 1 // the same hot keys for every class, as key_skew alone gives
	}
	if !seen["racing_copies"] {
		w.RacingCopies = DefaultRacingCopies
	}
	for _, f := range []struct {
		name string
		dst  *float64
		def  float64
	}{
		{"edge_hit_rate", &w.EdgeHitRate, DefaultEdgeHitRate},
		{"range_nonempty", &w.RangeNonEmpty, DefaultRangeNonEmpty},
		{"time_range_nonempty", &w.TimeRangeNonEmpty, DefaultTimeRangeNonEmpty},
		{"count_nonzero", &w.CountNonZero, DefaultCountNonZero},
		{"range_size_one", &w.RangeSizeOne, DefaultRangeSizeOne},
		{"edge_read_correlation", &w.EdgeReadCorrelation, Auto},
		{"multi_shard_write_txns", &w.MultiShardWriteTxns, DefaultMultiShardTxns},
		{"multi_shard_read_txns", &w.MultiShardReadTxns, DefaultMultiShardTxns},
		{"edge_add_new", &w.EdgeAddNew, DefaultEdgeAddNew},
		{"unique_add_race", &w.UniqueAddRace, DefaultUniqueAddRace},
		{"new_content_share", &w.NewContentShare, DefaultNewContentShare},
	} {
		if !seen[f.name] {
			*f.dst = f.def
		}
	}
	if !seen["edge_read_popularity"] {
		w.EdgeReadPopularity = DefaultEdgeReadPopularity()
	}
	// read_tiers is drawn but no store has tiers yet: say so, as for the
	// other inert fields, when a file sends reads to other tiers than db.
	if seen["read_tiers"] {
		for i, t := range w.ReadTiers.Values {
			if t != tao.TierDB && w.ReadTiers.Weights[i] > 0 {
				w.NotApplied = append(w.NotApplied, "read_tiers")
				break
			}
		}
	}
}
