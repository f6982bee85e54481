package tier

import (
	"context"
	"time"

	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// Read transactions where TAO serves them (docs/tiers.md, "Read
// transactions"). TAO's read-only transactions are layered on its cache
// tier (RAMP-TAO, TAOBench §2.2 and its reference [25]), which is
// read-through: a key the cache holds is answered from it, a key it does
// not is fetched from the database and filled. So here, key by key: a
// read transaction drawn to client_cache looks its reads up in the client
// cache, then (drawn to client_cache or tao) the ones still missing in the
// tao tier in one pipelined round trip, and sends the ones still missing
// to the database in one read transaction (one snapshot for them), whose
// answers fill the tiers it passed. A transaction drawn to db goes to the
// database whole. The database thus sees exactly the transaction's
// misses, as TAO's would. Every read is classed fresh or stale against
// the writes committed with its answer's basis, exactly as a single read;
// the transaction counts once, stale when any read is, and as served by
// the lowest tier that answered any of its reads. What is not modelled:
// RAMP-TAO's second round, which repairs a fractured read (one that sees
// part of a write transaction) from the database; a fractured read whose
// missing write had committed before the transaction began is counted
// stale, one whose write was still in flight is not seen.

// txnTiered serves a read transaction key by key through the tiers it
// drew (above).
func (s *Store) txnTiered(ctx context.Context, req *tao.Request, res *tao.Result) {
	x := s.exp.Load()
	begin := time.Now()
	n := len(req.Ops)
	tr := trace{drawn: req.Tier, served: tao.TierClientCache}
	es := make([]Entry, n)
	from := make([]tao.Tier, n)
	want := make([]bool, n)
	missing := n
	for i := range want {
		want[i], from[i] = true, tao.TierDB
	}
	if req.Tier == tao.TierClientCache && s.csc != nil {
		tr.looked[tao.TierClientCache] = true
		for i := range req.Ops {
			if e, ok := s.csc.get(cacheKey(&req.Ops[i]), begin); ok {
				es[i], want[i], from[i] = e, false, tao.TierClientCache
				missing--
			}
		}
	}
	useTAO := req.Tier <= tao.TierTAO && s.tao != nil
	if missing > 0 && useTAO {
		tr.looked[tao.TierTAO], tr.served = true, tao.TierTAO
		hits, err := s.tao.getTxn(ctx, x.ns, req.Ops, want, es, from)
		tr.failed[tao.TierTAO] = err != nil
		missing -= hits
		if x.in(begin.UnixNano()) {
			for i := range req.Ops {
				if want[i] {
					s.missed(x, req.Ops[i], err)
				}
			}
		}
	}
	ret := begin
	if missing > 0 {
		tr.served = tao.TierDB
		sub := tao.Request{Class: tao.ReadTxn, Tier: tao.TierDB, Ops: make([]tao.Op, 0, missing)}
		for i := range req.Ops {
			if want[i] {
				sub.Ops = append(sub.Ops, req.Ops[i])
			}
		}
		var sr tao.Result
		sr.Reset(len(sub.Ops))
		ok := s.dbRead(ctx, &sub, &sr, &tr, func(ctx context.Context, db store.Store) bool {
			db.Exec(ctx, &sub, &sr)
			return sr.Outcome == tao.OK || sr.Outcome == tao.NotFound
		})
		ret = time.Now()
		if !ok {
			res.Outcome, res.Err = sr.Outcome, sr.Err
			x.record(&tr, begin, ret.Sub(begin))
			return
		}
		basis := ret.UnixNano()
		k := 0
		for i := range req.Ops {
			if want[i] {
				es[i], from[i] = answered(&req.Ops[i], &sr.Ops[k], basis), tao.TierDB
				res.Ops[i] = sr.Ops[k]
				k++
			}
		}
		if useTAO {
			tr.failed[tao.TierTAO] = s.fillTxn(ctx, x, &sub, &sr, basis) != nil || tr.failed[tao.TierTAO]
		}
	}
	took := time.Since(begin)
	var one tao.Result
	for i := range req.Ops {
		if from[i] != tao.TierDB {
			one.Reset(1)
			es[i].answer(&req.Ops[i], &one)
			res.Ops[i] = one.Ops[0]
		}
	}
	if s.csc != nil {
		s.cscTxn(req, es)
	}
	res.Outcome, res.Err = tao.OK, nil
	tr.answered, tr.hit[tr.served] = true, true
	res.Served, res.Tiered = tr.served, true
	x.record(&tr, begin, took)
	var by [tao.NumTiers]int
	for _, t := range from {
		by[t]++
	}
	for t, k := range by {
		x.ops(tao.Tier(t), k, begin)
	}
	s.judgeTxn(x, req, res, tr.served, nil, begin.UnixNano(), ret.UnixNano(), es, from)
}

// fillTxn stores in the tao tier what the database answered to a read
// transaction, every entry with the transaction's return as its basis (as
// a single read's fill): objects, edges, counts and time ranges. A range
// read is left out: its entry is the list's size, which the range's
// answer does not give.
func (s *Store) fillTxn(ctx context.Context, x *experiment, req *tao.Request, res *tao.Result, basis int64) error {
	fills := make([]Fill, 0, len(req.Ops))
	for i := range min(len(req.Ops), len(res.Ops)) {
		op := &req.Ops[i]
		if op.Kind != tao.EdgeRangeRead {
			fills = append(fills, Fill{cacheKey(op), answered(op, &res.Ops[i], basis)})
		}
	}
	if len(fills) == 0 {
		return nil
	}
	return s.tao.c.Put(ctx, x.ns, fills...)
}

// cscTxn stores a read transaction's answers (es, by op) in the client
// cache, as every answer a client gets passes through its process's
// cache. A range read's answer is not its list's size: it is left out.
func (s *Store) cscTxn(req *tao.Request, es []Entry) {
	now := time.Now()
	for i := range min(len(req.Ops), len(es)) {
		if req.Ops[i].Kind != tao.EdgeRangeRead {
			s.csc.put(cacheKey(&req.Ops[i]), es[i], now)
		}
	}
}

// answered is the entry of a read op's answer from the database, with
// basis, as a fill would store it.
func answered(op *tao.Op, r *tao.OpResult, basis int64) Entry {
	switch op.Kind {
	case tao.ObjRead, tao.EdgePointRead:
		return found(r, basis)
	}
	return Entry{Outcome: tao.OK, Rows: r.Rows, Basis: basis}
}
