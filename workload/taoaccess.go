package workload

// TAO's key access (TAOBench §3.2–§3.3), which the original workload files
// do not carry: the built-in a and o are their original files with these
// settings on top (docs/workloads.md, "Skew and racing inserts", says which
// figure each follows and what is a choice).
const (
	// Reads: YCSB's exponent, the benchmark's usual "extreme skew".
	TAOReadTheta = 0.99
	// Fig. 2: at the P90 of the top 400K keys reads are 1000× as frequent
	// as writes on 472× the volume (99.7% against 0.211% of requests),
	// so single writes are less concentrated than reads; the exponent is
	// a choice that keeps that order.
	TAOWriteTheta = 0.8
	// Fig. 2: write transactions reach the writes' P90 (3.3 K/day) on
	// 1/13 of their volume (0.0162% against 0.211%): the most concentrated
	// class; the exponent is a choice that keeps that order.
	TAOWriteTxnTheta = 1.2
	// Fig. 3: over 99.0% of hot write keys of the Like association are read
	// less than once a day (99.6% of hot write-transaction keys).
	TAOHotspotOverlap = 0.01
	// §3.3: 10.1% of write transactions meet a write-write conflict, 97.3%
	// of those racing inserts. Every new association of a and o racing as
	// three identical requests gives two losers per race: about 9.4% of
	// workload a's write transactions (0.052 adds each), the nearest its
	// mix can come; the share and the count are that choice.
	TAORacingInserts = 1.0
	TAORacingCopies  = 3
)

// TAOAccess sets w's key skew per class, the overlap of its read and write
// hotspots and its racing inserts to TAO's (the constants above).
func TAOAccess(w *Workload) {
	r, wr, wt := Skew{Kind: Zipf, Theta: TAOReadTheta}, Skew{Kind: Zipf, Theta: TAOWriteTheta}, Skew{Kind: Zipf, Theta: TAOWriteTxnTheta}
	w.ReadKeySkew, w.WriteKeySkew, w.WriteTxnKeySkew = &r, &wr, &wt
	w.HotspotOverlap = TAOHotspotOverlap
	w.RacingInserts, w.RacingCopies = TAORacingInserts, TAORacingCopies
}
