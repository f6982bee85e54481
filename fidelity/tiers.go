package fidelity

import (
	"fmt"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// ModelTiers is the model error of the rows of reads served per tier
// (docs/results.md, "Fidelity"): the published files round TAO's 14.1 /
// 85.0 / 0.872% (TAOBench §3.2) to 14 / 85 / 1, a difference of at most
// 0.13 points; the rest of the tolerance is sampling error. A cache that
// misses is not model error: it fails these rows, as it should (TAO's
// shares need warm tiers).
const ModelTiers = 0.002

// TierRows are the read tiers' rows of a run with tiers (c nil: none):
// whether the generator drew read_tiers (a chi-square row over the reads
// drawn to each tier, which must pass), the share of reads each tier
// served after falling through against read_tiers' share (fails when a
// cache misses), and the staleness checker's self-check: no read the
// database answered may be classed stale, since it began before the
// database answered (docs/tiers.md). A run with no tier (c.CheckOnly: the
// checker ran alone, on a real database) has the self-check alone; a run
// on the null store has no checker (nothing to read back) and no row.
func TierRows(w *workload.Workload, c *result.Consistency) []result.FidelityRow {
	if c == nil {
		return nil
	}
	if c.CheckOnly && len(c.Endpoints) > 0 {
		// Several endpoints: their reads are classed against each one's
		// heartbeat, and may be stale (docs/distributed.md); none is the
		// self-check's.
		return nil
	}
	if c.CheckOnly {
		return []result.FidelityRow{selfCheck(c)}
	}
	var drawn, served [tao.NumTiers]int64
	var all int64
	for i := range c.Tiers {
		drawn[i], served[i] = c.Tiers[i].Drawn, c.Tiers[i].Served
		all += served[i]
	}
	if c.Replica != nil { // the database tier's reads that replicas served
		served[tao.TierDB] += c.Replica.Served
		all += c.Replica.Served
	}
	weights := tierWeights(w)
	rows := []result.FidelityRow{Chi("reads drawn per tier vs read_tiers", drawn[:], weights[:],
		"the generator's draws, before any tier answered")}
	// A tier the run did not ask for has no row: its reads fall through
	// to the next tier asked for, whose target takes its share.
	asked, servedWeights := askedTiers(c, weights)
	var sum float64
	for _, x := range servedWeights {
		sum += x
	}
	// Read transactions are served where TAO serves them, as single reads
	// are (docs/tiers.md, "Read transactions"): read_tiers shares every
	// read request; with them sent to the database (c.TxnsAtDB) the
	// database also serves every transaction.
	txn, rule := 0.0, "read transactions served as single reads"
	if c.TxnsAtDB {
		txn, rule = txnShare(w), "read transactions go to db"
	}
	for i := range c.Tiers {
		if !asked[i] {
			continue
		}
		name := tao.Tier(i).String()
		want := (1 - txn) * servedWeights[i] / sum
		if tao.Tier(i) == tao.TierDB {
			want += txn
		}
		rows = append(rows, share("reads served by "+name, want, ModelTiers, served[i], all,
			fmt.Sprintf("after falling through on misses (drawn %d); %s; TAO §3.2: 14.1 / 85.0 / 0.872%% from warm tiers", drawn[i], rule)))
	}
	return append(rows, selfCheck(c))
}

// selfCheck is the staleness checker's self-check: exactly 0 stale among
// the reads the primary answered (a replica's may be stale), n the reads
// checked: every one with tiers, a sample by key with the checker alone
// (c.CheckEvery); every committed write is logged either way.
func selfCheck(c *result.Consistency) result.FidelityRow {
	db := &c.Tiers[tao.TierDB]
	which := "every one"
	if c.CheckOnly && c.CheckEvery > 1 {
		which = fmt.Sprintf("1 in %d by key (no tier: a sample)", c.CheckEvery)
	}
	self := result.FidelityRow{Figure: "stale reads (self-check)", Target: 0, N: db.Served, P: -1,
		Note: "reads the database (not a replica) answered, " + which + " checked against every write committed: each began before its answer, so none can be stale; a stale one means the checker is wrong"}
	if db.Served > 0 {
		self.Observed = float64(db.Stale) / float64(db.Served)
	}
	// Exactly 0, whatever the number of reads: one wrong class fails it;
	// with no read checked it says nothing.
	self.Verdict = selfCheckVerdict(db.Served, db.Stale)
	return self
}

// tierWeights are read_tiers' weights by tier; a workload without
// read_tiers sends every read to the database.
func tierWeights(w *workload.Workload) [tao.NumTiers]float64 {
	var x [tao.NumTiers]float64
	if len(w.ReadTiers.Values) == 0 {
		x[tao.TierDB] = 1
		return x
	}
	for i, t := range w.ReadTiers.Values {
		if t < tao.NumTiers {
			x[t] += w.ReadTiers.Weights[i]
		}
	}
	return x
}

// txnShare is the share of read transactions among the reads the workload
// issues (single reads and read transactions).
func txnShare(w *workload.Workload) float64 {
	var read, txn float64
	for i, c := range w.Requests.Values {
		switch c {
		case tao.Read:
			read += w.Requests.Weights[i]
		case tao.ReadTxn:
			txn += w.Requests.Weights[i]
		}
	}
	if read+txn == 0 {
		return 0
	}
	return txn / (read + txn)
}
