package tier

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/taobench/taobench/tao"
)

// The commit log shared through Redis (docs/tiers.md, "Across driver
// processes"). With a tao tier every process also logs the writes it
// committed on the Redis server, in the same round trip as the
// invalidation: a list per key of its last logWrites writes ("start,end",
// Unix ns), under the graph's namespace so that every experiment and
// every driver of the graph sees them. Reads are then classed off the
// request path, in batches: a classifier looks their keys up in one
// pipeline and applies the rule of log.go to the writes of every process
// together with this process's own. A write the shared log misses (a
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

// logName is the Redis list of k's writes under the log namespace ns.
func logName(ns string, k key) string {
	b := make([]byte, 0, len(ns)+48)
	b = append(b, ns...)
	b = append(b, k.kind, ':')
	b = strconv.AppendInt(b, k.id1, 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(k.typ), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, k.id2, 10)
	return string(b)
}

// logNamespace is the shared log's namespace of a graph: not of a run, so
// that writes of earlier experiments and of every driver count.
func (t *taoTier) logNamespace(graphSeed uint64) string {
	return t.prefix + ":" + strconv.FormatUint(graphSeed, 10) + ":w:"
}

// commit invalidates the entries of invalid and logs the writes of changed
// in one pipeline.
func (t *taoTier) commit(ctx context.Context, ns string, invalid []key, ch []change, logNS string, changed []key, start, end int64) (dropped int64, err error) {
	p := t.c.Pipeline()
	th := t.queueThrough(ctx, p, ns, ch, end)
	if len(invalid) > 0 {
		names := make([]string, 0, len(invalid))
		for _, k := range invalid {
			name, _ := redisKey(ns, k)
			names = append(names, name)
		}
		p.Del(ctx, names...)
	}
	v := strconv.FormatInt(start, 10) + "," + strconv.FormatInt(end, 10)
	for _, k := range changed {
		n := logName(logNS, k)
		p.LPush(ctx, n, v)
		p.LTrim(ctx, n, 0, logWrites-1)
		p.PExpire(ctx, n, t.expire)
	}
	if _, err = p.Exec(ctx); err != nil {
		return 0, err
	}
	if th != nil {
		dropped, _ = th.Int64()
	}
	return dropped, nil
}

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

// classBatch looks up the shared log of a batch of reads in one pipeline,
// each key once (hot keys repeat many times in a batch), and classes each
// read against it and this process's log.
func (s *Store) classBatch(ctx context.Context, batch []judged) {
	p := s.shared.t.c.Pipeline()
	lctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	type lookup = interface{ Result() ([]string, error) }
	byName := make(map[string]lookup, len(batch))
	cmds := make([]lookup, len(batch))
	for i := range batch {
		n := logName(batch[i].logNS, logKey(&batch[i].op))
		c, ok := byName[n]
		if !ok {
			c = p.LRange(lctx, n, 0, logWrites-1)
			byName[n] = c
		}
		cmds[i] = c
	}
	p.Exec(lctx) // a failed lookup leaves this process's log alone
	for i := range batch {
		j := &batch[i]
		stale, age := s.log.stale(logKey(&j.op), j.basis, j.begin)
		if vs, err := cmds[i].Result(); err == nil {
			if st, a := staleIn(vs, j.basis, j.begin); st && (!stale || a > age) {
				stale, age = true, a
			}
		}
		s.decide(j, stale, age)
	}
}

// staleIn applies the rule of commitLog.stale to writes as the shared log
// keeps them.
func staleIn(vs []string, basis, begin int64) (bool, int64) {
	first, found := int64(0), false
	for _, v := range vs {
		a, b, ok := strings.Cut(v, ",")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseInt(a, 10, 64)
		end, err2 := strconv.ParseInt(b, 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		if start > basis && end < begin && (!found || end < first) {
			first, found = end, true
		}
	}
	if !found {
		return false, 0
	}
	return true, begin - first
}
