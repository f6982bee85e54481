package fidelity

import (
	"fmt"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// TAO's write-write conflicts (TAOBench §3.3).
const (
	TAORacingShare      = 0.973 // of write-write conflicts, from racing inserts: "over 97.3%"
	TAOWriteTxnConflict = 0.101 // of write transactions, with a write-write conflict
)

// RaceRows sets the write-write conflicts the database decided (c.Races)
// beside TAO's: the share that are racing inserts, and the write
// transactions that met one. Nothing when w sends no racing inserts.
func RaceRows(w *workload.Workload, c *result.Counters) []result.FidelityRow {
	if w.RacingInserts == 0 {
		return nil
	}
	r := &c.Races
	racing := atLeast("write-write conflicts that are racing inserts", TAORacingShare, r.RacingConflicted, r.Conflicted,
		fmt.Sprintf("TAO: over 97.3%%; %d of %d racing requests lost; %s", r.RacingConflicted, r.Racing, reportedNote(r)))
	exp := ExpectedWriteTxnConflicts(w)
	// The target assumes every race gets all its copies and nothing else
	// conflicts; fewer clients than copies, or copies that arrive after
	// the winner committed, lose fewer: a model error of 0.05.
	txn := share("write_txns with a write-write conflict", exp, 0.05, r.TxnConflicted, r.WriteTxns,
		fmt.Sprintf("TAO: 10.1%%; target: racing inserts alone on this mix (racing_inserts %g, racing_copies %d); the server signalled %d of the %d, the engine resolved %d without error",
			w.RacingInserts, copies(w), r.TxnSignalled, r.TxnConflicted, r.TxnResolved))
	return []result.FidelityRow{racing, txn}
}

// reportedNote says how the database reported the conflicts: signalled by
// an error code, or resolved by the engine without one.
func reportedNote(r *result.Races) string {
	return fmt.Sprintf("as the database reported them: server-signalled (by code) %d (racing %d, unique exists %d), "+
		"resolved without error %d (racing copies that found their row %d)",
		r.Signalled, r.RacingSignalled, r.UniqueSignalled, r.Resolved, r.RacingResolved)
}

func copies(w *workload.Workload) int {
	if w.RacingCopies < 2 {
		return workload.DefaultRacingCopies
	}
	return w.RacingCopies
}

// ExpectedWriteTxnConflicts is the share of write transactions that lose a
// race when every race gets all its copies and nothing else conflicts: a
// write transaction holds a new edge_add a times on average, a share
// racing_inserts of them race, and each race adds copies-1 transactions
// that lose.
func ExpectedWriteTxnConflicts(w *workload.Workload) float64 {
	size := mean(w.WriteTxnSizes)
	var adds, all float64
	for i, k := range w.WriteTxnKinds.Values {
		all += w.WriteTxnKinds.Weights[i]
		if k == tao.EdgeAdd {
			adds += w.WriteTxnKinds.Weights[i]
		}
	}
	if all == 0 {
		return 0
	}
	a := size * adds / all * w.EdgeAddNew
	// P(a transaction races) ≈ a·racing (adds are rare in a transaction).
	lost := min(1, a*w.RacingInserts) * float64(copies(w)-1)
	return lost / (1 + lost)
}

func mean(d workload.Dist[int]) float64 {
	var s, n float64
	for i, v := range d.Values {
		s += float64(v) * d.Weights[i]
		n += d.Weights[i]
	}
	if n == 0 {
		return 0
	}
	return s / n
}
