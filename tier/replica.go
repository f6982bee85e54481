package tier

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// Read replicas (docs/tiers.md, "Read replicas"). The database tier's
// reads go to the replicas in turn (round robin per request); writes go to
// the primary. A replica's answer has no basis of its own: how far it had
// replayed the primary's writes is learnt from a heartbeat. A goroutine
// writes one object of its own on the primary every HeartbeatEvery,
// remembering when each of its versions had committed (the write returned);
// each replica's poller reads that object from the replica. When a poll
// that began at P finds version h, the replica at P had not replayed
// version h+1, nor any write that began after h+1 had committed: such a
// write commits after it, and replicas replay in the primary's commit
// order. A read the replica answered before P saw no more than the replica
// at P, so the end of heartbeat h+1 is its basis, and the commit log
// classes it exactly as a cached answer (log.go). Reads wait in a queue
// for the next poll to begin after they returned.

// DefaultHeartbeat is how often the heartbeat writes on the primary, and
// about how often each replica is polled: the resolution of the replicas'
// staleness (a read whose missing write committed less than about this
// long before the read began may be counted fresh).
const DefaultHeartbeat = 10 * time.Millisecond

// maxBeats bounds the versions the heartbeat remembers; an older one is
// forgotten, and a read that needs it counts fresh (sound).
const maxBeats = 1 << 16

// HeartbeatID returns a heartbeat object id: in the last shard's node
// indices from the top down, where no graph's nodes reach, random so
// that no two processes share one (each must be the only writer of its
// object).
func HeartbeatID() int64 {
	return tao.ID(tao.MaxShards-1, tao.MaxNodesPerShard-1-rand.Int64N(1<<40))
}

// heartbeat writes the object id on the primary and remembers when each
// version of it had committed.
type heartbeat struct {
	primary store.Store
	id      int64
	every   time.Duration

	mu    sync.Mutex
	first int64   // the version of ends[0]
	ends  []int64 // ends[i]: Unix ns by which version first+i had committed; 0 unknown
	last  int64   // the last version written; 0: unknown (read it)
}

// commit notes that version v had committed by t.
func (h *heartbeat) commit(v, t int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case len(h.ends) == 0 || v < h.first:
		if len(h.ends) > 0 && v < h.first {
			return // older than remembered: a read of a lagging row
		}
		h.first, h.ends = v, append(h.ends[:0], t)
	case v-h.first < int64(len(h.ends)):
		if i := v - h.first; h.ends[i] == 0 {
			h.ends[i] = t
		}
	default:
		for int64(len(h.ends)) < v-h.first {
			h.ends = append(h.ends, 0)
		}
		h.ends = append(h.ends, t)
	}
	if len(h.ends) > maxBeats {
		n := len(h.ends) / 2
		h.first += int64(n)
		h.ends = append(h.ends[:0], h.ends[n:]...)
	}
}

// bound returns by when the version after the one a replica showed had
// committed: a write that began later is not in the replica's state. found
// is false for a replica that has not the object at all: then the first
// version known bounds it. ok is false when nothing is known.
func (h *heartbeat) bound(found bool, v int64) (int64, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.ends) == 0 {
		return 0, false
	}
	i := v + 1 - h.first
	if !found {
		i = 0
	}
	if i < 0 || i >= int64(len(h.ends)) || h.ends[i] == 0 {
		return 0, false
	}
	return h.ends[i], true
}

// run beats until ctx ends.
func (h *heartbeat) run(ctx context.Context) {
	t := time.NewTicker(h.every)
	defer t.Stop()
	for {
		h.beat(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (h *heartbeat) beat(ctx context.Context) {
	if h.last == 0 {
		h.sync(ctx)
		return
	}
	req := tao.Request{Class: tao.Write, Tier: tao.TierDB, Ops: []tao.Op{{Kind: tao.ObjUpdate, ID1: h.id, Time: time.Now().UnixMilli()}}}
	var res tao.Result
	res.Reset(1)
	h.primary.Exec(ctx, &req, &res)
	end := time.Now().UnixNano()
	if res.Outcome == tao.OK && res.Ops[0].Found {
		h.last++ // the only writer of its object: one more version
		h.commit(h.last, end)
		return
	}
	h.last = 0 // it may or may not have committed: read the version
	h.sync(ctx)
}

// sync learns the object's version from the primary, creating it first
// when it is absent: the version read had committed by the time the read
// returned.
func (h *heartbeat) sync(ctx context.Context) {
	read := tao.Request{Class: tao.Read, Tier: tao.TierDB, Ops: []tao.Op{{Kind: tao.ObjRead, ID1: h.id}}}
	var res tao.Result
	for range 2 {
		res.Reset(1)
		h.primary.Exec(ctx, &read, &res)
		if res.Outcome == tao.OK && res.Ops[0].Found {
			h.last = res.Ops[0].Version
			h.commit(h.last, time.Now().UnixNano())
			return
		}
		if res.Outcome != tao.NotFound {
			return
		}
		add := tao.Request{Class: tao.Write, Tier: tao.TierDB, Ops: []tao.Op{{Kind: tao.ObjAdd, ID1: h.id, Time: time.Now().UnixMilli()}}}
		res.Reset(1)
		h.primary.Exec(ctx, &add, &res)
	}
}

// remove deletes the heartbeat's object from the primary.
func (h *heartbeat) remove(ctx context.Context) {
	req := tao.Request{Class: tao.Write, Tier: tao.TierDB, Ops: []tao.Op{{Kind: tao.ObjDelete, ID1: h.id}}}
	var res tao.Result
	res.Reset(1)
	h.primary.Exec(ctx, &req, &res)
}

// replica is one read replica and the reads it answered that wait for a
// poll to be classed.
type replica struct {
	st store.Store

	mu      sync.Mutex
	pending []pendingRead
}

// pendingRead is a single read a replica answered, to be classed once
// its basis is known; ret is when it returned (Unix ns).
type pendingRead struct {
	j   judged
	ret int64
}

// maxPending bounds the reads waiting for a poll (a replica that stopped
// answering); a read beyond it is not classed, so counts fresh.
const maxPending = 1 << 16

func (r *replica) wait(p pendingRead) {
	r.mu.Lock()
	if len(r.pending) < maxPending {
		r.pending = append(r.pending, p)
	}
	r.mu.Unlock()
}

// waiting counts the reads of x not yet classed.
func (r *replica) waiting(x *experiment) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for i := range r.pending {
		if r.pending[i].j.x == x {
			n++
		}
	}
	return n
}

// take removes and returns the reads that returned before t.
func (r *replica) take(t int64) []pendingRead {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []pendingRead
	kept := r.pending[:0]
	for _, p := range r.pending {
		if p.ret <= t {
			out = append(out, p)
		} else {
			kept = append(kept, p)
		}
	}
	clear(r.pending[len(kept):])
	r.pending = kept
	return out
}

// poll reads the heartbeat from r until ctx ends, classing the reads r
// answered before each poll began.
func (s *Store) poll(ctx context.Context, r *replica) {
	req := tao.Request{Class: tao.Read, Tier: tao.TierDB, Ops: []tao.Op{{Kind: tao.ObjRead, ID1: s.hb.id}}}
	var res tao.Result
	t := time.NewTicker(s.hb.every / 2)
	defer t.Stop()
	for {
		began := time.Now().UnixNano()
		res.Reset(1)
		r.st.Exec(ctx, &req, &res)
		if res.Outcome == tao.OK || res.Outcome == tao.NotFound {
			b, ok := s.hb.bound(res.Ops[0].Found, res.Ops[0].Version)
			for _, p := range r.take(began) {
				p.j.basis = p.ret
				if ok && b < p.ret {
					p.j.basis = b
				}
				s.judge(p.j)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// settle waits (about a second at most for each) until every replica's
// reads of x have their basis and the shared log's classifier has classed
// what waits; reads left then count fresh.
func (s *Store) settle(x *experiment) {
	deadline := time.Now().Add(time.Second)
	if s.hb != nil {
		for _, r := range s.reps {
			for r.waiting(x) > 0 && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
		}
	}
	if s.shared != nil {
		for !s.shared.idle() && time.Now().Before(deadline.Add(time.Second)) {
			time.Sleep(time.Millisecond)
		}
	}
}
