package tier

import "sync"

// commitLog remembers, per key, when the last few committed writes that
// changed it began and ended (Unix ns), so a read can be classed stale
// soundly: a cached answer whose database read returned at basis cannot
// hold a write that began after basis, and a write that ended before the
// read began had committed by then. Such a write makes the read stale; no
// other read is classed stale (docs/tiers.md). Memory is bounded: each key
// keeps its last logWrites writes and the log at most maxKeys keys; what
// is forgotten can only make a stale read pass as fresh, never the reverse.
type commitLog struct {
	shards [logShards]logShard
}

const (
	logShards = 64
	logWrites = 8
)

type logShard struct {
	mu  sync.Mutex
	max int
	m   map[Key]*writes
}

type writes struct {
	n int // writes logged, the last logWrites kept in w
	w [logWrites]Span
}

// Span is when a committed write began and returned (Unix ns).
type Span struct{ Start, End int64 }

func newCommitLog(maxKeys int) *commitLog {
	l := &commitLog{}
	for i := range l.shards {
		l.shards[i].max = max(1, maxKeys/logShards)
		l.shards[i].m = make(map[Key]*writes)
	}
	return l
}

func (l *commitLog) shard(k Key) *logShard {
	h := uint64(k.ID1)*0x9e3779b97f4a7c15 ^ uint64(k.ID2)*0xbf58476d1ce4e5b9 ^ uint64(k.Type)<<7 ^ uint64(k.Kind)
	return &l.shards[(h>>32)%logShards]
}

// add logs a committed write of k that began at start and returned at end.
func (l *commitLog) add(k Key, start, end int64) {
	s := l.shard(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.m[k]
	if !ok {
		if len(s.m) >= s.max {
			for old := range s.m { // any key: forgetting is sound
				delete(s.m, old)
				break
			}
		}
		w = &writes{}
		s.m[k] = w
	}
	w.w[w.n%logWrites] = Span{start, end}
	w.n++
}

// stale reports whether an answer for k whose database read returned at
// basis was stale for a read that began at begin, and if so its age: how
// long before begin the earliest such newer write (of those kept) ended.
func (l *commitLog) stale(k Key, basis, begin int64) (bool, int64) {
	s := l.shard(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.m[k]
	if !ok {
		return false, 0
	}
	first := int64(0)
	found := false
	for i := range min(w.n, logWrites) {
		x := w.w[i]
		if x.Start > basis && x.End < begin && (!found || x.End < first) {
			first, found = x.End, true
		}
	}
	if !found {
		return false, 0
	}
	return true, begin - first
}
