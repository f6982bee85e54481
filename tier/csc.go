package tier

import (
	"container/list"
	"sync"
	"time"
)

// csc is the client-side cache (TAOBench §3.2): one per process, bounded in
// entries (least recently used out first), each entry good for a TTL from
// when it was stored. Writes never invalidate it, as TAO's CSC "relies on
// short TTL ... for invalidation": that is where its staleness comes from.
type csc struct {
	ttl    time.Duration
	shards [cscShards]cscShard
}

// cscShards spreads the clients over locks; each holds size/cscShards.
const cscShards = 16

type cscShard struct {
	mu  sync.Mutex
	max int
	m   map[Key]*list.Element
	lru list.List // front: most recently used
}

type cscItem struct {
	k  Key
	e  Entry
	at time.Time // when stored (monotonic)
}

func newCSC(ttl time.Duration, size int) *csc {
	c := &csc{ttl: ttl}
	for i := range c.shards {
		s := &c.shards[i]
		s.max = max(1, size/cscShards)
		s.m = make(map[Key]*list.Element)
	}
	return c
}

func (c *csc) shard(k Key) *cscShard {
	h := uint64(k.ID1)*0x9e3779b97f4a7c15 ^ uint64(k.ID2)*0xbf58476d1ce4e5b9 ^ uint64(k.Type)<<7 ^ uint64(k.Low) ^ uint64(k.Kind)
	return &c.shards[(h>>32)%cscShards]
}

// get returns k's entry unless it is missing or older than the TTL at now.
func (c *csc) get(k Key, now time.Time) (Entry, bool) {
	s := c.shard(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	el, ok := s.m[k]
	if !ok {
		return Entry{}, false
	}
	it := el.Value.(*cscItem)
	if now.Sub(it.at) >= c.ttl {
		s.lru.Remove(el)
		delete(s.m, k)
		return Entry{}, false
	}
	s.lru.MoveToFront(el)
	return it.e, true
}

// put stores e under k at now, evicting the least recently used entry of
// k's shard when it is full.
func (c *csc) put(k Key, e Entry, now time.Time) {
	s := c.shard(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.m[k]; ok {
		it := el.Value.(*cscItem)
		it.e, it.at = e, now
		s.lru.MoveToFront(el)
		return
	}
	if s.lru.Len() >= s.max {
		old := s.lru.Back()
		s.lru.Remove(old)
		delete(s.m, old.Value.(*cscItem).k)
	}
	s.m[k] = s.lru.PushFront(&cscItem{k: k, e: e, at: now})
}

// len is how many entries the cache holds.
func (c *csc) len() int {
	n := 0
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		n += s.lru.Len()
		s.mu.Unlock()
	}
	return n
}
