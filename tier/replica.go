package tier

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/taobench/taobench/result"
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

// replica is one read replica, its health, and the reads it answered
// that wait for a poll to be classed.
type replica struct {
	st   store.Store
	name string // its URL, redacted: how results and messages name it
	idx  int    // its place in Store.reps (Store.eps) and in an experiment's rows
	// endpoint: one of several endpoints of the database (endpoints.go),
	// not a replica: its reads count in its row alone.
	endpoint bool
	// role says whether its server is still a replica; nil: cannot tell.
	// wasIn: the watcher once saw it in recovery (only a replica seen in
	// recovery can leave it: an engine where the question means nothing
	// is not flagged).
	role  RecoveryReader
	wasIn bool

	// out: out of rotation, for failing (probed until it answers) or for
	// having been promoted (for good).
	out atomic.Bool

	mu      sync.Mutex
	pending []pendingRead
	// downSince is when its current outage began (Unix ns; 0: none);
	// outs its ended outages, oldest first.
	downSince int64
	outs      [][2]int64
	// promoted is when it was seen to have left recovery (Unix ns; 0: not).
	promoted int64
}

// RecoveryReader is a replica's store that can say whether its server is
// still a replica: a PostgreSQL standby in recovery (pg_is_in_recovery()),
// a MySQL or MariaDB replica with read_only on. A store that is not one is
// never checked.
type RecoveryReader interface {
	InRecovery(ctx context.Context) (bool, error)
}

// Replica health (docs/tiers.md, "Replicas that fail or are promoted").
const (
	// DefaultReplicaTimeout bounds a read on a replica when the request
	// has no deadline; with one, the replica gets at most half the time
	// left, the primary the rest.
	DefaultReplicaTimeout = 3 * time.Second
	// ProbeEvery is how often a replica out of rotation is probed, each
	// probe bounded by probeTimeout; a poll of one in rotation is bounded
	// so too.
	ProbeEvery   = time.Second
	probeTimeout = time.Second
	// RoleEvery is how often a replica in rotation is asked whether it
	// is still in recovery: a promotion is seen within about this.
	RoleEvery = 250 * time.Millisecond
	// maxOutages bounds the ended outages a replica remembers.
	maxOutages = 1 << 12
)

// down takes r out of rotation at now (Unix ns); false when it was out.
func (r *replica) down(now int64) bool {
	if !r.out.CompareAndSwap(false, true) {
		return false
	}
	r.mu.Lock()
	r.downSince = now
	r.mu.Unlock()
	return true
}

// up puts r back in rotation at now, ending its outage; it returns how
// long it was out.
func (r *replica) up(now int64) time.Duration {
	r.mu.Lock()
	since := r.endOutage(now)
	promoted := r.promoted != 0
	r.mu.Unlock()
	if !promoted {
		r.out.Store(false)
	}
	return time.Duration(now - since)
}

// endOutage ends the current outage at now and returns when it began;
// r.mu is held.
func (r *replica) endOutage(now int64) int64 {
	since := r.downSince
	if since != 0 {
		if len(r.outs) == maxOutages {
			r.outs = append(r.outs[:0], r.outs[1:]...)
		}
		r.outs = append(r.outs, [2]int64{since, now})
		r.downSince = 0
	}
	return since
}

// promote takes r out of rotation for good: at now it was seen to have
// left recovery. False when it had been seen before.
func (r *replica) promote(now int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.promoted != 0 {
		return false
	}
	r.promoted = now
	r.endOutage(now)
	r.out.Store(true)
	return true
}

// health fills row with r's outages within [from, to) (Unix ns) and its
// promotion.
func (r *replica) health(row *result.ReplicaStats, from, to int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	spans := r.outs
	if r.downSince != 0 {
		spans = append(spans[:len(spans):len(spans)], [2]int64{r.downSince, to})
	}
	for _, o := range spans {
		a, b := max(o[0], from), min(o[1], to)
		if a >= b {
			continue
		}
		d := time.Duration(b - a)
		row.Outages++
		row.Outage += d
		row.Longest = max(row.Longest, d)
	}
	if r.promoted != 0 && r.promoted < to {
		row.PromotedAt = time.Unix(0, r.promoted)
	}
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

// waiting counts the reads of x (nil: of any) not yet classed.
func (r *replica) waiting(x *experiment) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for i := range r.pending {
		if x == nil || r.pending[i].j.x == x {
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

// watch polls r until ctx ends: in rotation, it reads the heartbeat
// (with no primary, a missing object: any answer will do) every half
// heartbeat, classing the reads r answered before each poll began and
// noting its lag, and asks every RoleEvery whether r is still in
// recovery; a poll that fails takes r out of rotation. Out of rotation, it
// probes r every ProbeEvery until it answers, and puts it back. Once r is
// promoted it polls only until r's reads waiting to be classed are.
func (s *Store) watch(ctx context.Context, r *replica) {
	id, every := HeartbeatID(), RoleEvery
	if s.hb != nil {
		id, every = s.hb.id, s.hb.every/2
	}
	req := tao.Request{Class: tao.Read, Tier: tao.TierDB, Ops: []tao.Op{{Kind: tao.ObjRead, ID1: id}}}
	var res tao.Result
	var asked time.Time
	for {
		wait := every
		switch {
		case r.isPromoted():
			if r.waiting(nil) == 0 {
				return
			}
			s.poll(ctx, r, &req, &res)
		case r.out.Load():
			if err := s.poll(ctx, r, &req, &res); err == nil {
				d := r.up(time.Now().UnixNano())
				s.warn("replica %s answers again: back in rotation after %.1f s out", r.name, d.Seconds())
			} else {
				wait = ProbeEvery
			}
		default:
			if err := s.poll(ctx, r, &req, &res); err != nil && ctx.Err() == nil {
				s.fail(r, err)
				wait = ProbeEvery
			} else if r.role != nil && time.Since(asked) >= RoleEvery {
				asked = time.Now()
				s.askRole(ctx, r)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// poll reads req's object from r once, bounded by probeTimeout; when r
// answers and there is a heartbeat, it classes the reads r answered
// before the poll began and records r's lag. It returns why r did not
// answer.
func (s *Store) poll(ctx context.Context, r *replica, req *tao.Request, res *tao.Result) error {
	began := time.Now().UnixNano()
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	res.Reset(1)
	r.st.Exec(pctx, req, res)
	cancel()
	if res.Outcome != tao.OK && res.Outcome != tao.NotFound {
		return cmp.Or(res.Err, error(errNoAnswer))
	}
	if s.hb == nil {
		return nil
	}
	b, ok := s.hb.bound(res.Ops[0].Found, res.Ops[0].Version)
	for _, p := range r.take(began) {
		p.j.basis = p.ret
		if ok && b < p.ret {
			p.j.basis = b
		}
		s.judge(p.j)
	}
	// The first write r had not replayed had committed by b: r was at
	// least began - b behind.
	lag := time.Duration(0)
	if ok && b < began {
		lag = time.Duration(began - b)
	}
	if x := s.exp.Load(); x.in(began) && !r.out.Load() {
		x.mu.Lock()
		row := x.row(r)
		row.Lag = orNew(row.Lag)
		row.Lag.Record(lag)
		x.mu.Unlock()
	}
	return nil
}

var errNoAnswer = errors.New("no answer")

// askRole asks r whether it is still in recovery, and takes it out of
// rotation for good when it is not: a promoted standby takes writes of
// its own and replays the primary's no more, so its reads are no
// replica's.
func (s *Store) askRole(ctx context.Context, r *replica) {
	rctx, cancel := context.WithTimeout(ctx, probeTimeout)
	in, err := r.role.InRecovery(rctx)
	cancel()
	if err != nil || in || !r.wasIn {
		r.wasIn = r.wasIn || (err == nil && in)
		return // a failure to answer is the polls' to see
	}
	at := time.Now()
	if r.promote(at.UnixNano()) {
		s.warn("replica %s left recovery at %s (promoted, or no longer read-only): it no longer replays the primary; out of rotation for the rest of the run, its reads go to %s",
			r.name, at.UTC().Format("15:04:05.000"), s.elsewhere())
	}
}

// fail takes r out of rotation after a read or poll on it failed with err.
func (s *Store) fail(r *replica, err error) {
	if !r.down(time.Now().UnixNano()) {
		return
	}
	s.warn("replica %s stopped answering (%s): out of rotation, its reads go to %s; probing it every %v",
		r.name, firstLine(err), s.elsewhere(), ProbeEvery)
}

// elsewhere says where a replica's reads go when it is out of rotation.
func (s *Store) elsewhere() string {
	if s.db != nil {
		return "the primary"
	}
	return "the other replicas"
}

func (r *replica) isPromoted() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.promoted != 0
}

// warn says what happened to a replica, as it happens.
func (s *Store) warn(format string, args ...any) {
	if s.warnf != nil {
		s.warnf(fmt.Sprintf(format, args...))
	}
}

func firstLine(err error) string {
	if err == nil {
		return "no answer"
	}
	line, _, _ := strings.Cut(err.Error(), "\n")
	return line
}

// settle waits (about a second at most for each) until every replica's
// reads of x have their basis and the shared log's classifier has classed
// what waits; reads left then count fresh.
func (s *Store) settle(x *experiment) {
	deadline := time.Now().Add(time.Second)
	if s.hb != nil {
		for _, r := range append(s.reps[:len(s.reps):len(s.reps)], s.eps...) {
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
	// Each lookup of a miss's cause is bounded by a second (missed).
	for x.whys.Load() > 0 && time.Now().Before(deadline.Add(2*time.Second)) {
		time.Sleep(time.Millisecond)
	}
}
