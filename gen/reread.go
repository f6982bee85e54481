package gen

import "github.com/taobench/taobench/tao"

// Client-cache locality (docs/tiers.md, "The client cache's locality"):
// TAO's client-side cache serves 14.1% of reads (TAOBench §3.2) because a
// web server reads again what it read moments ago, within the cache's
// short TTL. Keys drawn independently from a skewed distribution seldom
// come back to one client within seconds, so a client cache fed by them
// served 1 to 4% of reads. With a locality l, a read drawn to the client
// cache (a single read or a read transaction) is, with probability l, a
// read again of one of this client's last RereadWindow freshly drawn
// reads of its class, picked uniformly, and otherwise a fresh draw. A
// copy of a fresh draw picked uniformly has the draws' distribution, so
// kinds, keys and their skew are kept; only their timing changes.

// RereadWindow is how many of its last fresh reads of a class a client
// may read again: "moments ago", a few hundred milliseconds of one
// client's requests on a loaded database, within any client cache TTL of a
// second or more.
const RereadWindow = 16

// rereads are a client's last fresh reads: single reads and read
// transactions apart.
type rereads struct {
	l     float64
	ops   [RereadWindow]tao.Op
	n     int // fresh single reads seen
	txns  [RereadWindow][]tao.Op
	ntxns int // fresh read transactions seen
}

// Reread sets the client's locality l in [0, 1] (0: off, every read a
// fresh draw). Call it before the first Next.
func (gen *Generator) Reread(l float64) { gen.reread.l = min(max(l, 0), 1) }

// rereadInto makes req, a read, a read again of a recent one of its class
// when it was drawn to the client cache, with probability l; a fresh one
// is remembered.
func (gen *Generator) rereadInto(req *tao.Request) {
	rr := &gen.reread
	if rr.l == 0 {
		return
	}
	again := req.Tier == tao.TierClientCache
	switch {
	case req.Class == tao.Read && len(req.Ops) == 1:
		if again && rr.n > 0 && gen.rng.Float64() < rr.l {
			req.Ops[0] = rr.ops[gen.rng.Uint64N(uint64(min(rr.n, RereadWindow)))]
			return
		}
		rr.ops[rr.n%RereadWindow] = req.Ops[0]
		rr.n++
	case req.Class == tao.ReadTxn:
		if again && rr.ntxns > 0 && gen.rng.Float64() < rr.l {
			req.Ops = append(req.Ops[:0], rr.txns[gen.rng.Uint64N(uint64(min(rr.ntxns, RereadWindow)))]...)
			return
		}
		i := rr.ntxns % RereadWindow
		rr.txns[i] = append(rr.txns[i][:0], req.Ops...)
		rr.ntxns++
	}
}
