package result

import (
	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/tao"
)

// Races count write-write conflicts as TAOBench §3.3 does (10.1% of write
// transactions, over 97.3% of them from intentionally racing inserts), and
// the racing inserts among them (the workload's racing_inserts).
type Races struct {
	WriteRequests    int64 `json:"write_requests"`        // single writes and write transactions
	WriteTxns        int64 `json:"write_txns"`            // of those, write transactions
	Conflicted       int64 `json:"write_write_conflicts"` // write requests that met a write-write conflict
	TxnConflicted    int64 `json:"write_txns_conflicted"` // of those, write transactions
	Racing           int64 `json:"racing_requests"`       // requests of a race: the first and its copies
	RacingConflicted int64 `json:"racing_conflicts"`      // of the conflicted, racing requests

	// The conflicted as the database reported them (reported.go): the
	// server signalled a conflict by an error code, or the engine
	// resolved it without one (MariaDB's upsert finding the row a racing
	// copy inserted). Signalled + Resolved = Conflicted.
	Signalled       int64 `json:"server_signalled_conflicts"`  // conflicted requests the server signalled by code
	TxnSignalled    int64 `json:"write_txns_server_signalled"` // of those, write transactions
	RacingSignalled int64 `json:"racing_server_signalled"`     // of those, racing requests
	UniqueSignalled int64 `json:"unique_exists_signalled"`     // of those, ending in "unique association exists" by code
	Resolved        int64 `json:"resolved_without_error"`      // conflicted requests no attempt of which got a code
	TxnResolved     int64 `json:"write_txns_resolved"`         // of those, write transactions
	RacingResolved  int64 `json:"racing_copies_resolved"`      // of those, racing requests: copies that found their row
}

// WriteWriteConflict reports whether a finished write request met another
// writer of one of its keys: it met a lock conflict on some attempt (lock),
// or was refused as "unique association exists", or, racing, found the
// association it adds already there (another copy inserted it first: the
// database decided who won).
func WriteWriteConflict(req *tao.Request, res *tao.Result, lock bool) bool {
	if lock || res.Outcome == tao.UniqueViolation {
		return true
	}
	if !req.Race || res.Outcome != tao.OK {
		return false
	}
	for i := range min(len(req.Ops), len(res.Ops)) {
		if req.Ops[i].Kind == tao.EdgeAdd && res.Ops[i].Found {
			return true
		}
	}
	return false
}

// Observe counts one finished request; conflict is WriteWriteConflict's.
// It knows no codes, so a conflict counts as resolved without error; the
// runner calls ObserveReported.
func (r *Races) Observe(req *tao.Request, conflict bool) {
	r.ObserveReported(req, conflict, Reported{})
}

// ObserveReported counts one finished request; conflict is
// WriteWriteConflict's, rep how the database reported it (Report).
func (r *Races) ObserveReported(req *tao.Request, conflict bool, rep Reported) {
	if req.Class != tao.Write && req.Class != tao.WriteTxn {
		return
	}
	txn := req.Class == tao.WriteTxn
	r.WriteRequests++
	r.WriteTxns += b2i(txn)
	r.Racing += b2i(req.Race)
	if conflict {
		r.Conflicted++
		r.TxnConflicted += b2i(txn)
		r.RacingConflicted += b2i(req.Race)
		if rep.Signalled {
			r.Signalled++
			r.TxnSignalled += b2i(txn)
			r.RacingSignalled += b2i(req.Race)
			r.UniqueSignalled += b2i(rep.Unique)
		} else {
			r.Resolved++
			r.TxnResolved += b2i(txn)
			r.RacingResolved += b2i(req.Race)
		}
	}
}

// Contention is an experiment's contention figures: the lock, unique and
// precondition ones of its summary, and the write-write conflicts of its
// Races. Those are counted once, here: the fidelity rows read the same
// counts.
type Contention struct {
	metrics.Contention
	// WriteWriteConflictPct is the write requests that met a write-write
	// conflict (WriteWriteConflict), WriteTxnConflictPct the same of
	// write transactions (TAOBench §3.3: 10.1%). RacingInsertConflictPct
	// is the write requests that met one as racing inserts, and
	// RacingInsertSharePct the racing inserts' share of all write-write
	// conflicts (TAO: over 97.3%).
	WriteWriteConflictPct   float64
	WriteTxnConflictPct     float64
	RacingInsertConflictPct float64
	RacingInsertSharePct    float64
	// The write-write conflicts as the database reported them, of write
	// requests: signalled by the server's code, and resolved by the
	// engine without error (RacingCopiesResolvedPct: racing copies that
	// found their row).
	ServerSignalledConflictPct float64
	WriteTxnSignalledPct       float64
	ResolvedWithoutErrorPct    float64
	RacingCopiesResolvedPct    float64
}

// Contention returns e's contention figures; a zero denominator gives 0.
func (e *Experiment) Contention() Contention {
	c := Contention{Contention: e.Sum().Contention()}
	if e.Counters == nil {
		return c
	}
	r := &e.Counters.Races
	c.WriteWriteConflictPct = pct(r.Conflicted, r.WriteRequests)
	c.WriteTxnConflictPct = pct(r.TxnConflicted, r.WriteTxns)
	c.RacingInsertConflictPct = pct(r.RacingConflicted, r.WriteRequests)
	c.RacingInsertSharePct = pct(r.RacingConflicted, r.Conflicted)
	c.ServerSignalledConflictPct = pct(r.Signalled, r.WriteRequests)
	c.WriteTxnSignalledPct = pct(r.TxnSignalled, r.WriteTxns)
	c.ResolvedWithoutErrorPct = pct(r.Resolved, r.WriteRequests)
	c.RacingCopiesResolvedPct = pct(r.RacingResolved, r.WriteRequests)
	return c
}

func pct(n, d int64) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d) * 100
}

// Merge adds o to r.
func (r *Races) Merge(o *Races) {
	r.WriteRequests += o.WriteRequests
	r.WriteTxns += o.WriteTxns
	r.Conflicted += o.Conflicted
	r.TxnConflicted += o.TxnConflicted
	r.Racing += o.Racing
	r.RacingConflicted += o.RacingConflicted
	r.Signalled += o.Signalled
	r.TxnSignalled += o.TxnSignalled
	r.RacingSignalled += o.RacingSignalled
	r.UniqueSignalled += o.UniqueSignalled
	r.Resolved += o.Resolved
	r.TxnResolved += o.TxnResolved
	r.RacingResolved += o.RacingResolved
}
