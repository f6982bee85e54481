package run

import (
	"slices"
	"sync/atomic"

	"github.com/taobench/taobench/tao"
)

// raceBoard makes racing inserts race (the workload's racing_inserts;
// TAOBench §3.3): a client whose generator drew a request marked Race
// posts a copy on the board as it sends the request, and the next clients
// to start a request send that same request instead of their own draw,
// until copies-1 have joined. They join within about one request time of
// the first, while it is still in the database, and the database decides
// which insert wins. The board holds only the latest race, behind one
// atomic pointer: the hot path of every client is one atomic load, and
// there is no lock. Races are among the clients of one process.
type raceBoard struct {
	latest atomic.Pointer[race]
	copies int32 // requests per race, the first included
}

// race is one posted request; immutable once posted but for joined.
type race struct {
	req    tao.Request
	owner  int // the client that drew it
	joined atomic.Int32
}

func newRaceBoard(copies int) *raceBoard {
	return &raceBoard{copies: int32(max(copies, 2))}
}

// post puts a copy of req, drawn by client owner, on the board.
func (b *raceBoard) post(req *tao.Request, owner int) {
	r := &race{owner: owner}
	r.req = tao.Request{Class: req.Class, Ops: slices.Clone(req.Ops), Checks: slices.Clone(req.Checks),
		Predicates: slices.Clone(req.Predicates), Tier: req.Tier, Hold: req.Hold, Race: true}
	b.latest.Store(r)
}

// join copies the latest race into req when client id may still join it
// (it has not joined it before: *last), and reports whether it did.
func (b *raceBoard) join(req *tao.Request, id int, last **race) bool {
	r := b.latest.Load()
	if r == nil || r == *last || r.owner == id || r.joined.Load() >= b.copies-1 {
		return false
	}
	*last = r
	if r.joined.Add(1) > b.copies-1 {
		return false
	}
	// The client's own slices are reused; the race's are read only.
	req.Class, req.Tier, req.Hold, req.Race = r.req.Class, r.req.Tier, r.req.Hold, true
	req.Ops = append(req.Ops[:0], r.req.Ops...)
	req.Checks = append(req.Checks[:0], r.req.Checks...)
	req.Predicates = append(req.Predicates[:0], r.req.Predicates...)
	req.Fail, req.Wait = tao.Success, 0
	return true
}
