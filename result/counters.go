package result

import (
	"math/bits"

	"github.com/taobench/taobench/tao"
)

// Verdicts of a FidelityRow.
const (
	Pass    = "pass"
	Fail    = "FAIL"
	Skipped = "skipped"
)

// FidelityRow is one fidelity figure: its target, what was observed and
// the verdict. Package fidelity makes the rows; they are data here so
// that reading, merging and reporting results needs no workload, generator
// or store.
type FidelityRow struct {
	Figure    string  `json:"figure"`
	Target    float64 `json:"target"`
	Observed  float64 `json:"observed"`
	Tolerance float64 `json:"tolerance"` // absolute, in the figure's unit
	N         int64   `json:"n"`         // observations behind Observed
	P         float64 `json:"p_value"`   // chi-square rows only; -1 otherwise
	Verdict   string  `json:"verdict"`
	Note      string  `json:"note,omitempty"`
}

// Failed reports whether the row's verdict is Fail.
func (r FidelityRow) Failed() bool { return r.Verdict == Fail }

// SizeBuckets is the number of range-size buckets: bucket b holds sizes in
// [2^b, 2^(b+1)), so bucket 0 is exactly one edge.
const SizeBuckets = 24

// Counters are what one or more clients saw the database do, the raw
// counts behind the fidelity rows. Only requests started in the measured
// window are counted. Counting is per client, with no lock: a client owns
// its Counters and the runner merges them when the experiment ends.
type Counters struct {
	PointReads          int64                                  `json:"point_reads"`          // edge_point_read ops
	PointHits           int64                                  `json:"point_hits"`           // of those, found the edge
	RangeReads          int64                                  `json:"range_reads"`          // edge_range_read ops
	RangeNonEmpty       int64                                  `json:"range_nonempty"`       // of those, returned rows
	RangeRows           int64                                  `json:"range_rows"`           // rows all range reads returned
	RangeSizes          [SizeBuckets]int64                     `json:"range_sizes_log2"`     // non-empty ranges by size bucket
	CountReads          int64                                  `json:"count_reads"`          // edge_count_read ops
	CountNonEmpty       int64                                  `json:"count_nonempty"`       // of those, counted above 0
	TimeReads           int64                                  `json:"time_reads"`           // edge_time_read ops
	TimeNonEmpty        int64                                  `json:"time_nonempty"`        // of those, returned rows
	Txns                [tao.NumClasses]int64                  `json:"txns"`                 // by class: read_txn and write_txn, as drawn (copies apart)
	TxnCopies           [tao.NumClasses]int64                  `json:"txn_copies"`           // by class: copies of another client's racing insert, not in txns
	MultiShard          [tao.NumClasses]int64                  `json:"multi_shard"`          // of those, spanning shards by their keys' id1
	MultiShardDB        [tao.NumClasses]int64                  `json:"multi_shard_at_db"`    // of those, touching 2+ shards at the database, inverse rows included
	Adds                int64                                  `json:"edge_adds"`            // edge_add ops that committed
	AddsNew             int64                                  `json:"edge_adds_new"`        // of those, inserted a new row
	NoopWrites          int64                                  `json:"noop_writes"`          // committed updates and deletes that found no row
	VersionDrawn        int64                                  `json:"version_drawn"`        // write_version predicates drawn
	VersionChecked      int64                                  `json:"version_checked"`      // of those, became a check
	Outcomes            [tao.NumClasses][tao.NumOutcomes]int64 `json:"outcomes_by_class"`    // [class][outcome]
	PreconditionChecked int64                                  `json:"requests_with_checks"` // requests that carried a check
	PreconditionFailed  int64                                  `json:"precondition_failed"`  // of those, failed on a check
	UniqueAdds          int64                                  `json:"unique_adds"`          // adds of unique types that committed or were refused
	UniqueAddsRejected  int64                                  `json:"unique_adds_rejected"` // of those, refused: the association exists
	// Races are the write-write conflicts and racing inserts (races.go);
	// Keys the hot keys the database was asked for (keystats.go), nil
	// when the runner kept no key table.
	Races Races     `json:"races"`
	Keys  *KeyStats `json:"keys,omitempty"`
	// ObjectReadBins and ObjectWriteBins count the object reads and
	// updates the database answered by the popularity bin of their object
	// (gen.Popularity.Bin), when the workload draws objects by a measured
	// popularity; nil otherwise.
	ObjectReadBins  *[PopularityBins]int64 `json:"object_read_bins,omitempty"`
	ObjectWriteBins *[PopularityBins]int64 `json:"object_write_bins,omitempty"`
}

// PopularityBins is gen.PopularityBins (result links no generator).
const PopularityBins = 10

// Observe counts one finished request. It reads what the store filled in
// res: Found and Rows of each op, and the outcome.
func (c *Counters) Observe(req *tao.Request, res *tao.Result) { c.observe(req, res, false) }

// ObserveCopy counts a finished copy of another client's racing insert
// (run/race.go) as Observe does, except that a transaction counts in
// TxnCopies, not in Txns and the shard spans: those count draws. A copy
// repeats its draw's spans, and shares whose observations come in
// identical groups of racing_copies spread wider than the binomial the
// fidelity rows' tolerance assumes: one seed's early racing write
// transactions, each counted three times, put workload a's keys-spanning
// row five standard errors low.
func (c *Counters) ObserveCopy(req *tao.Request, res *tao.Result) { c.observe(req, res, true) }

func (c *Counters) observe(req *tao.Request, res *tao.Result, copied bool) {
	if req.Class >= tao.NumClasses || res.Outcome >= tao.NumOutcomes {
		return
	}
	c.Outcomes[req.Class][res.Outcome]++
	switch {
	case req.Class != tao.ReadTxn && req.Class != tao.WriteTxn:
		// Not a transaction: no transaction counts.
	case copied:
		c.TxnCopies[req.Class]++
	default:
		c.Txns[req.Class]++
		if spans(req.Ops) {
			c.MultiShard[req.Class]++
		}
		if tao.SpansAtDatabase(req.Ops) {
			c.MultiShardDB[req.Class]++
		}
	}
	for _, p := range req.Predicates {
		// A version check cannot apply to a request that only adds.
		if p == tao.PredWriteVersion && !onlyAdds(req.Ops) {
			c.VersionDrawn++
		}
	}
	for i := range req.Checks {
		if req.Checks[i].Pred == tao.PredWriteVersion {
			c.VersionChecked++
		}
	}
	if len(req.Checks) > 0 {
		c.PreconditionChecked++
		if res.Outcome == tao.PreconditionFailed {
			c.PreconditionFailed++
		}
	}
	answered := res.Outcome == tao.OK || res.Outcome == tao.NotFound
	committed := res.Outcome == tao.OK
	for i := range min(len(req.Ops), len(res.Ops)) {
		op, r := &req.Ops[i], &res.Ops[i]
		if op.Kind == tao.EdgeAdd && op.Type.IsUnique() {
			switch res.Outcome {
			case tao.OK:
				c.UniqueAdds++
			case tao.UniqueViolation:
				c.UniqueAdds++
				c.UniqueAddsRejected++
			}
		}
		if !answered {
			continue
		}
		switch op.Kind {
		case tao.EdgePointRead:
			c.PointReads++
			c.PointHits += b2i(r.Found)
		case tao.EdgeRangeRead:
			c.RangeReads++
			c.RangeRows += int64(r.Rows)
			if r.Rows > 0 {
				c.RangeNonEmpty++
				c.RangeSizes[min(bits.Len(uint(r.Rows))-1, SizeBuckets-1)]++
			}
		case tao.EdgeCountRead:
			c.CountReads++
			c.CountNonEmpty += b2i(r.Rows > 0)
		case tao.EdgeTimeRead:
			c.TimeReads++
			c.TimeNonEmpty += b2i(r.Rows > 0)
		case tao.EdgeAdd:
			// A race is one add of the application: its winner counts
			// (a new row), the copies that found the row do not (Races
			// counts them).
			if committed && (!req.Race || !r.Found) {
				c.Adds++
				c.AddsNew += b2i(!r.Found)
			}
		case tao.ObjUpdate, tao.ObjDelete, tao.EdgeUpdate, tao.EdgeDelete:
			if committed && !r.Found {
				c.NoopWrites++
			}
		}
	}
}

func onlyAdds(ops []tao.Op) bool {
	for i := range ops {
		if k := ops[i].Kind; k != tao.ObjAdd && k != tao.EdgeAdd {
			return false
		}
	}
	return true
}

// spans reports whether ops touch keys of more than one shard (the shard
// of each key's id1; the inverse of a bidirectional edge is not counted).
func spans(ops []tao.Op) bool {
	for i := 1; i < len(ops); i++ {
		if tao.ShardOf(ops[i].ID1) != tao.ShardOf(ops[0].ID1) {
			return true
		}
	}
	return false
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// Merge adds o to c.
func (c *Counters) Merge(o *Counters) {
	if o == nil {
		return
	}
	c.PointReads += o.PointReads
	c.PointHits += o.PointHits
	c.RangeReads += o.RangeReads
	c.RangeNonEmpty += o.RangeNonEmpty
	c.RangeRows += o.RangeRows
	for i := range c.RangeSizes {
		c.RangeSizes[i] += o.RangeSizes[i]
	}
	c.CountReads += o.CountReads
	c.CountNonEmpty += o.CountNonEmpty
	c.TimeReads += o.TimeReads
	c.TimeNonEmpty += o.TimeNonEmpty
	for i := range c.Txns {
		c.Txns[i] += o.Txns[i]
		c.TxnCopies[i] += o.TxnCopies[i]
		c.MultiShard[i] += o.MultiShard[i]
		c.MultiShardDB[i] += o.MultiShardDB[i]
		for j := range c.Outcomes[i] {
			c.Outcomes[i][j] += o.Outcomes[i][j]
		}
	}
	c.Adds += o.Adds
	c.AddsNew += o.AddsNew
	c.NoopWrites += o.NoopWrites
	c.VersionDrawn += o.VersionDrawn
	c.VersionChecked += o.VersionChecked
	c.PreconditionChecked += o.PreconditionChecked
	c.PreconditionFailed += o.PreconditionFailed
	c.UniqueAdds += o.UniqueAdds
	c.UniqueAddsRejected += o.UniqueAddsRejected
	c.Races.Merge(&o.Races)
	c.ObjectReadBins = addBins(c.ObjectReadBins, o.ObjectReadBins)
	c.ObjectWriteBins = addBins(c.ObjectWriteBins, o.ObjectWriteBins)
	if o.Keys != nil {
		if c.Keys == nil {
			c.Keys = &KeyStats{}
		}
		c.Keys.Merge(o.Keys)
	}
}

// addBins adds the counts of o to c.
func addBins(c, o *[PopularityBins]int64) *[PopularityBins]int64 {
	if o == nil {
		return c
	}
	if c == nil {
		c = new([PopularityBins]int64)
	}
	for i, n := range o {
		c[i] += n
	}
	return c
}
