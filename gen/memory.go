package gen

import (
	"github.com/taobench/taobench/dist"
	"github.com/taobench/taobench/tao"
)

// memSize is the number of versions a client remembers: a direct-mapped
// table, so memory stays fixed (8 KiB per client, 8 MiB at 1,024 clients)
// however large the graph or long the run; a newer read evicts an older one
// in the same entry.
const memSize = 256

type memEntry struct {
	id1, id2, ver int64
	tag           uint8 // 0 empty, 1 object, 2+type an edge of that type
}

type memory [memSize]memEntry

func tagOf(k tao.Key) uint8 {
	if k.Edge {
		return 2 + uint8(k.Type)
	}
	return 1
}

func (m *memory) entry(k tao.Key) (*memEntry, uint8) {
	tag := tagOf(k)
	h := dist.Mix(uint64(k.ID1)*0x9e3779b97f4a7c15 ^ uint64(k.ID2) ^ uint64(tag))
	return &m[h&(memSize-1)], tag
}

func (m *memory) store(k tao.Key, v int64) {
	e, tag := m.entry(k)
	*e = memEntry{id1: k.ID1, id2: k.ID2, ver: v, tag: tag}
}

func (m *memory) forget(k tao.Key) {
	if e, tag := m.entry(k); e.tag == tag && e.id1 == k.ID1 && e.id2 == k.ID2 {
		*e = memEntry{}
	}
}

func (m *memory) lookup(k tao.Key) (int64, bool) {
	e, tag := m.entry(k)
	if e.tag == tag && e.id1 == k.ID1 && e.id2 == k.ID2 {
		return e.ver, true
	}
	return 0, false
}

func (e *memEntry) key() tao.Key {
	if e.tag == 1 {
		return tao.Key{ID1: e.id1}
	}
	return tao.Key{Edge: true, ID1: e.id1, Type: tao.EdgeType(e.tag - 2), ID2: e.id2}
}

// pick returns a remembered key that no op of ops writes, with its version.
func (m *memory) pick(r *dist.Rand, ops []tao.Op) (tao.Key, int64, bool) {
outer:
	for range memTries {
		e := &m[r.Uint64N(memSize)]
		if e.tag == 0 {
			continue
		}
		k := e.key()
		for i := range ops {
			if ops[i].Key() == k {
				continue outer
			}
		}
		return k, e.ver, true
	}
	return tao.Key{}, 0, false
}
