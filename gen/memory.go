package gen

import (
	"github.com/taobench/taobench/randdist"
	"github.com/taobench/taobench/tao"
)

// memSize is the number of objects and of edges a client remembers having
// read, with their versions: rings, so memory stays fixed (6 KiB per
// client, 6 MiB at 1,024 clients) however large the graph or long the run,
// and the newest reads replace the oldest. Version preconditions aim the
// write at a remembered key (docs/graph.md, "Preconditions"), so the share
// of them that become real checks does not depend on this size, only on the
// client having read something of that kind at all.
const memSize = 128

type memObj struct{ id, ver int64 }

type memEdge struct {
	id1, id2, ver int64
	typ           tao.EdgeType
}

type memory struct {
	objs   [memSize]memObj
	edges  [memSize]memEdge
	nObj   int // entries ever stored; the next goes to nObj % memSize
	nEdges int
}

func (m *memory) store(k tao.Key, v int64) {
	if k.Edge {
		m.edges[m.nEdges%memSize] = memEdge{id1: k.ID1, id2: k.ID2, ver: v, typ: k.Type}
		m.nEdges++
		return
	}
	m.objs[m.nObj%memSize] = memObj{id: k.ID1, ver: v}
	m.nObj++
}

// update applies f to the version of every remembered copy of k.
func (m *memory) update(k tao.Key, f func(v int64) int64) {
	if k.Edge {
		for i := range min(m.nEdges, memSize) {
			if e := &m.edges[i]; e.id1 == k.ID1 && e.typ == k.Type && e.id2 == k.ID2 && e.ver > 0 {
				e.ver = f(e.ver)
			}
		}
		return
	}
	for i := range min(m.nObj, memSize) {
		if o := &m.objs[i]; o.id == k.ID1 && o.ver > 0 {
			o.ver = f(o.ver)
		}
	}
}

// lookup returns the newest remembered version of k.
func (m *memory) lookup(k tao.Key) (int64, bool) {
	if k.Edge {
		for i := m.nEdges - 1; i >= max(0, m.nEdges-memSize); i-- {
			if e := &m.edges[i%memSize]; e.id1 == k.ID1 && e.typ == k.Type && e.id2 == k.ID2 {
				return e.ver, e.ver > 0
			}
		}
		return 0, false
	}
	for i := m.nObj - 1; i >= max(0, m.nObj-memSize); i-- {
		if o := &m.objs[i%memSize]; o.id == k.ID1 {
			return o.ver, o.ver > 0
		}
	}
	return 0, false
}

// pick returns a remembered key of the kind asked (an edge or an object),
// on shard (any when shard < 0); lookup gives its newest version.
func (m *memory) pick(r *randdist.Rand, edge bool, shard int) (tao.Key, bool) {
	n := min(m.nObj, memSize)
	if edge {
		n = min(m.nEdges, memSize)
	}
	if n == 0 {
		return tao.Key{}, false
	}
	start := int(r.Uint64N(uint64(n)))
	for i := range n {
		j := (start + i) % n
		var k tao.Key
		var v int64
		if edge {
			e := &m.edges[j]
			k, v = tao.Key{Edge: true, ID1: e.id1, Type: e.typ, ID2: e.id2}, e.ver
		} else {
			k, v = tao.Key{ID1: m.objs[j].id}, m.objs[j].ver
		}
		if v > 0 && (shard < 0 || tao.ShardOf(k.ID1) == shard) {
			return k, true
		}
		if shard < 0 {
			break // a random entry, not a search
		}
	}
	return tao.Key{}, false
}

// pickOutside returns a remembered key of either kind that no op of ops
// writes, with its version.
func (m *memory) pickOutside(r *randdist.Rand, ops []tao.Op) (tao.Key, int64, bool) {
outer:
	for range memTries {
		k, ok := m.pick(r, r.Uint64()&1 == 0, -1)
		if !ok {
			continue
		}
		v, ok := m.lookup(k) // the newest read of k
		if !ok {
			continue
		}
		for i := range ops {
			if ops[i].Key() == k {
				continue outer
			}
		}
		return k, v, true
	}
	return tao.Key{}, 0, false
}

// recentSize is the number of objects and of edges a client remembers
// having created, so later operations can read, update and link them.
const recentSize = 64

type recent struct {
	objs   [recentSize]int64
	edges  [recentSize]tao.Key
	nObj   int
	nEdges int
}

func (c *recent) object(r *randdist.Rand, shard int) (int64, bool) {
	n := min(c.nObj, recentSize)
	if n == 0 {
		return 0, false
	}
	start := int(r.Uint64N(uint64(n)))
	for i := range n {
		if id := c.objs[(start+i)%n]; shard < 0 || tao.ShardOf(id) == shard {
			return id, true
		}
	}
	return 0, false
}

func (c *recent) edge(r *randdist.Rand, shard int) (tao.Key, bool) {
	n := min(c.nEdges, recentSize)
	if n == 0 {
		return tao.Key{}, false
	}
	start := int(r.Uint64N(uint64(n)))
	for i := range n {
		if k := c.edges[(start+i)%n]; shard < 0 || tao.ShardOf(k.ID1) == shard {
			return k, true
		}
	}
	return tao.Key{}, false
}

// predicate records p and turns it into a check on req (docs/graph.md,
// "Preconditions"). single tells a single write from a transaction.
func (gen *Generator) predicate(req *tao.Request, p tao.Predicate, single bool) {
	req.Predicates = append(req.Predicates, p)
	if len(req.Ops) == 0 {
		return
	}
	r := &gen.rng
	op := &req.Ops[r.Uint64N(uint64(len(req.Ops)))]
	if p == tao.PredWriteVisibility || p == tao.PredWriteVersion {
		// A check of the written key applies to a key that exists: take
		// an op that is not an add where there is one.
		for i := range len(req.Ops) {
			if !isAdd(op.Kind) {
				break
			}
			op = &req.Ops[(int(r.Uint64N(uint64(len(req.Ops))))+i)%len(req.Ops)]
		}
	}
	ck := tao.Check{Pred: p}
	switch p {
	case tao.PredWriteVisibility:
		if op.Kind == tao.ObjAdd {
			return // a new id is not visible yet: nothing to check
		}
		ck.Key = tao.Key{ID1: op.ID1} // the object the write refers to
	case tao.PredWriteUpdateOnly:
		if op.Kind == tao.ObjAdd || op.Kind == tao.EdgeAdd {
			return // an add of a new key would fail by construction
		}
		ck.Key = op.Key()
	case tao.PredWriteVersion:
		if isAdd(op.Kind) {
			return // a new key has no version to compare
		}
		ck.Kind, ck.Key = tao.CheckVersion, op.Key()
		v, ok := gen.mem.lookup(ck.Key)
		if !ok {
			// Read, then write if unchanged (TAOBench §6.3): aim the write
			// at a key this client read, on the same shard in a transaction.
			shard := -1
			if !single {
				shard = tao.ShardOf(op.ID1)
			}
			var k tao.Key
			var found bool
			if gen.inject.waits {
				// With precondition_wait, the newest read: the gap
				// between read and write is the wait (inject.go).
				k, found = gen.mem.newest(op.Kind.IsEdge(), shard)
			} else {
				k, found = gen.mem.pick(r, op.Kind.IsEdge(), shard)
			}
			if !found || (!single && writes(req.Ops, k)) {
				return
			}
			if v, found = gen.mem.lookup(k); !found { // the newest read of k
				return
			}
			op.ID1, op.Type, op.ID2 = k.ID1, k.Type, k.ID2
			ck.Key = k
		}
		ck.Version = v
	case tao.PredReadVisibility, tao.PredReadVersion:
		k, v, ok := gen.mem.pickOutside(r, req.Ops)
		if !ok {
			return
		}
		ck.Key = k
		if p == tao.PredReadVersion {
			ck.Kind, ck.Version = tao.CheckVersion, v
		}
	default:
		return
	}
	req.Checks = append(req.Checks, ck)
}

func isAdd(k tao.Kind) bool { return k == tao.ObjAdd || k == tao.EdgeAdd }

// writes reports whether an op of ops writes k.
func writes(ops []tao.Op, k tao.Key) bool {
	for i := range ops {
		if ops[i].Key() == k {
			return true
		}
	}
	return false
}

// Observe learns from a request's result: the versions its point reads
// found, the keys its successful writes changed (a remembered version is
// bumped by the client's own update, so its later check is not failed by
// itself) and the content it created.
func (gen *Generator) Observe(req *tao.Request, res *tao.Result) {
	if res.Outcome != tao.OK && res.Outcome != tao.NotFound {
		return
	}
	write := req.Class == tao.Write || req.Class == tao.WriteTxn
	for i := range min(len(req.Ops), len(res.Ops)) {
		op, or := &req.Ops[i], &res.Ops[i]
		switch op.Kind {
		case tao.ObjRead, tao.EdgePointRead:
			if or.Found {
				gen.mem.store(op.Key(), or.Version)
			}
		}
		if !write || res.Outcome != tao.OK {
			continue
		}
		switch op.Kind {
		case tao.ObjAdd:
			gen.fresh.objs[gen.fresh.nObj%recentSize] = op.ID1
			gen.fresh.nObj++
		case tao.EdgeAdd:
			if !or.Found {
				gen.fresh.edges[gen.fresh.nEdges%recentSize] = op.Key()
				gen.fresh.nEdges++
				continue
			}
			gen.mem.update(op.Key(), func(v int64) int64 { return v + 1 })
		case tao.ObjUpdate, tao.EdgeUpdate:
			if or.Found {
				gen.mem.update(op.Key(), func(v int64) int64 { return v + 1 })
			}
		case tao.ObjDelete, tao.EdgeDelete:
			gen.mem.update(op.Key(), func(int64) int64 { return 0 })
		}
	}
}
