package fidelity

import (
	"math"
	"sync"
	"sync/atomic"

	"github.com/taobench/taobench/randdist"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
)

// Key table sizes: a fixed table, whatever the graph's size. Up to
// tableKeys keys are admitted (a hash sample of them when more are
// touched: the sample halves each time the table fills), in twice as many
// slots so probes stay short.
const (
	tableKeys  = 1 << 16
	tableSlots = 2 * tableKeys
	bufferOps  = 256 // operations a client buffers before it takes the lock
	// fullCount requests of an experiment are all counted, shared evenly
	// by its clients (at least minFull each); past its share a client
	// counts one in 2, 3, ... (its requests so far over its share), which
	// keeps the null store's speed and leaves a database's runs whole.
	fullCount = 1 << 18
	minFull   = 256
	topShare  = 0.01
)

// KeyTable counts the keys the database was asked for, each exactly (an
// object's id, an association's (id1, type, id2), a list's (id1, type):
// KeyOf), per key class and half (result.KeyStats), in memory bounded by
// tableSlots: the hottest keys of each class, their share, how read and
// write hotspots overlap and where hot write-transaction keys sit. Clients
// count into their own KeyBuffer, which takes the table's lock once per
// bufferOps operations.
type KeyTable struct {
	mu       sync.Mutex
	slots    []keySlot
	used     int
	overflow int64
	// limit admits a key when its hash is below it; atomic, so clients
	// drop keys outside the sample before they take the lock.
	limit    atomic.Uint64
	sampled  float64
	universe int64
	ops      [result.NumKeyClasses][2]int64
	requests int64  // requests counted
	perFull  uint64 // requests each client counts in full
}

// keySlot is 32 bytes: ids are never negative, so -1 marks an empty slot.
type keySlot struct {
	id1 int64
	n   [result.NumKeyClasses][2]uint32 // saturating
}

const emptySlot = -1

// NewKeyTable returns a table for a graph of nodes objects and clients
// clients: it admits every key until tableKeys are touched, then a hash
// sample of them, halved each time the table fills (nodes only sets the
// Universe it reports).
func NewKeyTable(nodes int64, clients int) *KeyTable {
	t := &KeyTable{slots: make([]keySlot, tableSlots), sampled: 1,
		perFull: max(minFull, fullCount/uint64(max(clients, 1)))}
	t.limit.Store(^uint64(0))
	for i := range t.slots {
		t.slots[i].id1 = emptySlot
	}
	t.universe = nodes
	return t
}

// admit reports whether the table counts key: under t.mu for certain,
// without it as of a moment ago (the sample only shrinks).
func (t *KeyTable) admit(key int64) bool {
	l := t.limit.Load()
	return l == ^uint64(0) || randdist.Mix(uint64(key)^0x6b657973) < l
}

// keyIndexMask keeps a loaded id's node index (tao.IndexOf): an edge's or
// a list's key keeps its id1's shard and created-at-run-time bits above it,
// so the key sits on the shard the association does.
const keyIndexMask = 1<<56 - 1

// KeyOf is the exact key an operation touches: an object's id, an
// association's (id1, type, id2) or, for a list read, the list's (id1,
// type), the last two hashed into the low 56 bits beside id1's shard (a
// hash meets a loaded object's index with chance nodes / 2^56).
func KeyOf(o *tao.Op) int64 {
	switch o.Kind {
	case tao.ObjRead, tao.ObjAdd, tao.ObjUpdate, tao.ObjDelete:
		return o.ID1
	case tao.EdgeRangeRead, tao.EdgeCountRead, tao.EdgeTimeRead:
		return o.ID1&^keyIndexMask | int64(randdist.Hash(0x6c697374, uint64(o.ID1), uint64(o.Type), 0)&keyIndexMask)
	}
	return o.ID1&^keyIndexMask | int64(randdist.Hash(0x65646765, uint64(o.ID1), uint64(o.Type), uint64(o.ID2))&keyIndexMask)
}

// keyClass is the key class of a request class.
func keyClass(c tao.Class) int {
	switch c {
	case tao.Write:
		return result.KeyWrites
	case tao.WriteTxn:
		return result.KeyWriteTxns
	}
	return result.KeyReads
}

// KeyBuffer is one client's buffer into a KeyTable; not safe for
// concurrent use.
type KeyBuffer struct {
	t        *KeyTable
	half     int
	seen     uint64 // requests offered
	next     uint64 // the next of them counted (KeyTable.nextCounted)
	requests int64  // requests counted, not yet flushed
	ops      []bufferedOp
}

type bufferedOp struct {
	id1         int64
	class, half uint8
}

// Buffer returns a new client buffer of t.
func (t *KeyTable) Buffer() *KeyBuffer {
	return &KeyBuffer{t: t, ops: make([]bufferedOp, 0, bufferOps)}
}

// Add counts the keys of one request (past fullCount, of a thinning
// share); counted requests alternate halves.
func (b *KeyBuffer) Add(req *tao.Request) {
	b.seen++
	if b.seen < b.next {
		return
	}
	b.next = b.t.nextCounted(b.seen)
	b.requests++
	c := uint8(keyClass(req.Class))
	h := uint8(b.half)
	b.half ^= 1
	for i := range req.Ops {
		k := KeyOf(&req.Ops[i])
		if !b.t.admit(k) {
			continue
		}
		b.ops = append(b.ops, bufferedOp{k, c, h})
		if len(b.ops) == cap(b.ops) {
			b.Flush()
		}
	}
}

// nextCounted returns the first request number after s that a buffer
// counts: request x is counted when its stride x/perFull is at most 1 or
// divides x. Computed once per counted request, it spares the uncounted
// ones two divisions (a tenth of the key table's cost on the null store).
func (t *KeyTable) nextCounted(s uint64) uint64 {
	x := s + 1
	k := x / t.perFull
	if k <= 1 {
		return x
	}
	// The stride is k up to (k+1)*perFull, a multiple of the next stride.
	m := (x + k - 1) / k * k
	return min(m, (k+1)*t.perFull)
}

// Flush hands the buffered operations to the table.
func (b *KeyBuffer) Flush() {
	if len(b.ops) == 0 && b.requests == 0 {
		return
	}
	t := b.t
	t.mu.Lock()
	t.requests += b.requests
	b.requests = 0
	for _, o := range b.ops {
		if !t.admit(o.id1) {
			continue
		}
		s := t.slot(o.id1)
		for s == nil {
			t.shrink()
			if !t.admit(o.id1) {
				break
			}
			s = t.slot(o.id1)
		}
		if s == nil {
			continue
		}
		t.ops[o.class][o.half]++
		if s.n[o.class][o.half] < math.MaxUint32 {
			s.n[o.class][o.half]++
		}
	}
	t.mu.Unlock()
	b.ops = b.ops[:0]
}

// slot finds or claims id1's slot by linear probing; nil when the table
// holds tableKeys keys already.
func (t *KeyTable) slot(id1 int64) *keySlot {
	i := randdist.Mix(uint64(id1)) & (tableSlots - 1)
	for {
		s := &t.slots[i]
		if s.id1 == emptySlot {
			if t.used >= tableKeys {
				return nil
			}
			s.id1 = id1
			t.used++
			return s
		}
		if s.id1 == id1 {
			return s
		}
		i = (i + 1) & (tableSlots - 1)
	}
}

// shrink halves the sample of keys the table admits, dropping the keys
// the smaller sample leaves out, with their operations: the totals are
// those of the keys kept. t.mu is held.
func (t *KeyTable) shrink() {
	t.limit.Store(t.limit.Load() >> 1)
	t.sampled /= 2
	var kept []keySlot
	for i := range t.slots {
		if s := t.slots[i]; s.id1 != emptySlot && t.admit(s.id1) {
			kept = append(kept, s)
		}
		t.slots[i].id1 = emptySlot
		t.slots[i].n = [result.NumKeyClasses][2]uint32{}
	}
	t.used = 0
	t.ops = [result.NumKeyClasses][2]int64{}
	for _, k := range kept {
		s := t.slot(k.id1)
		s.n = k.n
		for c := range k.n {
			t.ops[c][0] += int64(k.n[c][0])
			t.ops[c][1] += int64(k.n[c][1])
		}
	}
}

// Stats returns what the table counted (call it once the clients have
// flushed).
func (t *KeyTable) Stats() *result.KeyStats {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := &result.KeyStats{Sampled: t.sampled, Universe: t.universe, Overflow: t.overflow, Requests: t.requests}
	for c := range result.NumKeyClasses {
		kc := &k.Classes[c]
		kc.Ops = t.ops[c]
		var all []result.KeyCount
		for i := range t.slots {
			s := &t.slots[i]
			if s.id1 != emptySlot && s.n[c][0]+s.n[c][1] > 0 {
				all = append(all, result.KeyCount{ID1: s.id1, N: [2]int64{int64(s.n[c][0]), int64(s.n[c][1])}})
			}
		}
		kc.Keys = int64(len(all))
		// The top 1% of the keys the class touched (in the sample): a
		// key never touched is in no top set.
		kc.TopN = TopOf(kc.Keys)
		k.TopN = max(k.TopN, kc.TopN)
		result.SortKeys(all, func(x result.KeyCount) int64 { return x.N[0] })
		kc.Top = append([]result.KeyCount(nil), all[:min(len(all), kc.TopN)]...)
		result.SortKeys(all, func(x result.KeyCount) int64 { return x.N[0] + x.N[1] })
		kc.Hot = append([]result.KeyCount(nil), all[:min(len(all), kc.TopN)]...)
	}
	return k
}

// TopOf is the size of the top 1% of keys keys (at least 1, at most
// result.MaxTopKeys).
func TopOf(keys int64) int {
	return min(result.MaxTopKeys, max(1, int(float64(keys)*topShare+0.5)))
}
