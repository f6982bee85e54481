package tier

import (
	"context"
	"sync"
	"time"

	"github.com/taobench/taobench/tao"
)

// The commit log shared through the tao tier's Cache (docs/tiers.md,
// "Across driver processes"). With a tao tier every process also logs the
// writes it committed on the cache's server, in the same round trip as
// the changeset: per key its last LogWrites writes, under the graph's
// namespace so that every experiment and every driver of the graph sees
// them. Reads are then classed off the request path, in batches: a
// classifier looks their keys up in one round trip and applies the rule
// of log.go to the writes of every process together with this process's
// own. A write the shared log misses (a
// failed push, one still on its way) only hides a stale read, as the
// per-process log's gaps do.

// judged is an answered read waiting to be classed.
type judged struct {
	x            *experiment
	op           tao.Op
	r            tao.OpResult
	served       tao.Tier
	rep          *replica // the replica that answered; nil: none
	basis, begin int64    // Unix ns
	logNS        string
	txn          *txnJudge // an op of a read transaction; nil: a single read
}

// shared is the classifier of reads against the shared log.
type shared struct {
	t    *taoTier
	mu   sync.Mutex
	q    []judged
	busy bool
	wake chan struct{}
}

// maxQueue bounds the reads waiting to be classed (a Redis that stopped
// answering); a read beyond it is classed against this process's log
// alone.
const maxQueue = 1 << 17

// enqueue queues j to be classed.
func (sh *shared) enqueue(j judged) bool {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if len(sh.q) >= maxQueue {
		return false
	}
	sh.q = append(sh.q, j)
	if len(sh.q) == 1 {
		select {
		case sh.wake <- struct{}{}:
		default:
		}
	}
	return true
}

// idle reports whether no read waits or is being classed.
func (sh *shared) idle() bool {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return len(sh.q) == 0 && !sh.busy
}

// classify classes the queued reads until ctx ends.
func (s *Store) classify(ctx context.Context) {
	sh := s.shared
	for {
		select {
		case <-ctx.Done():
			return
		case <-sh.wake:
		case <-time.After(5 * time.Millisecond):
		}
		for {
			sh.mu.Lock()
			batch := sh.q[:min(len(sh.q), 1024)]
			batch = append([]judged(nil), batch...)
			sh.q = append(sh.q[:0], sh.q[len(batch):]...)
			sh.busy = len(batch) > 0
			sh.mu.Unlock()
			if len(batch) == 0 {
				break
			}
			s.classBatch(ctx, batch)
			sh.mu.Lock()
			sh.busy = false
			sh.mu.Unlock()
		}
	}
}

// classBatch looks up the shared log of a batch of reads in one round
// trip, each key once (hot keys repeat many times in a batch), and
// classes each read against it and this process's log.
func (s *Store) classBatch(ctx context.Context, batch []judged) {
	lctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	idx := make(map[LogKey]int, len(batch))
	keys := make([]LogKey, 0, len(batch))
	at := make([]int, len(batch))
	for i := range batch {
		k := LogKey{batch[i].logNS, logKey(&batch[i].op)}
		n, ok := idx[k]
		if !ok {
			n = len(keys)
			idx[k] = n
			keys = append(keys, k)
		}
		at[i] = n
	}
	ws := s.shared.t.c.Writes(lctx, keys) // a failed lookup leaves this process's log alone
	for i := range batch {
		j := &batch[i]
		stale, age := s.log.stale(logKey(&j.op), j.basis, j.begin)
		if at[i] < len(ws) {
			if st, a := staleIn(ws[at[i]], j.basis, j.begin); st && (!stale || a > age) {
				stale, age = true, a
			}
		}
		s.decide(j, stale, age)
	}
}

// staleIn applies the rule of commitLog.stale to the writes the shared
// log keeps.
func staleIn(ws []Span, basis, begin int64) (bool, int64) {
	first, found := int64(0), false
	for _, w := range ws {
		if w.Start > basis && w.End < begin && (!found || w.End < first) {
			first, found = w.End, true
		}
	}
	if !found {
		return false, 0
	}
	return true, begin - first
}
