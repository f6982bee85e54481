package tier

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
)

// Prefill (docs/tiers.md, "A warm tier"): TAO's cache tier is warm, an
// experiment's Redis keys start empty, and most of workload o's reads are
// point reads of edges that do not exist (80%), whose keys almost never
// repeat: filling on a miss alone never reaches TAO's shares. TAO answers
// such a read from the cached association list (a complete list, or a
// cached count of zero, says the edge is absent); so does the prefill. In
// the warmup, it reads from the database, node by node in read
// transactions, every object and every list the workload's reads can draw
// (its loaded members by point reads, and its count), and stores in the
// tier what the database answered: the objects, the edges, each list's
// count, and for a list whose count equals the members found its
// completeness (field "a" of the list's hash), from which a point read of
// an absent edge is answered. A write that changes the list deletes the
// hash, completeness included, as it does the count: the next point read
// of an absent edge then goes to the database. Every entry's basis is the
// return of the read transaction that produced it, as a fill's.

// prefillWorkers read the database at once; prefillOps bounds a read
// transaction; prefillMaxNodes bounds the nodes enumerated.
const (
	prefillWorkers  = 4
	prefillOps      = 512
	prefillMaxNodes = 1 << 21
	prefillChunk    = 64
)

type prefiller struct {
	s     *Store
	x     *experiment
	g     *graph.Graph
	begin time.Time
	stats struct{ objects, edges, lists, complete, errors atomic.Int64 }
}

// list is one association list a read can draw and its loaded members.
type plist struct {
	typ     tao.EdgeType
	members []int64
}

func (p *prefiller) run(ctx context.Context) {
	// Workers take runs of prefillChunk consecutive nodes: most nodes
	// have few edges, and one read transaction holds many of them.
	chunks := make(chan [2]int64, 16)
	var wg sync.WaitGroup
	for range prefillWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ops []tao.Op
			for c := range chunks {
				for id := c[0]; id < c[1]; id++ {
					ops = p.node(ctx, id, ops)
				}
			}
			p.txn(ctx, ops)
		}()
	}
	n := int64(0)
	done := true
feed:
	for s := range p.g.Shards() {
		for i := int64(0); i < p.g.ShardNodes(s); i += prefillChunk {
			if n += prefillChunk; n > prefillMaxNodes {
				done = false
				break feed
			}
			select {
			case chunks <- [2]int64{tao.ID(s, i), tao.ID(s, min(i+prefillChunk, p.g.ShardNodes(s)))}:
			case <-ctx.Done():
				break feed
			}
		}
	}
	close(chunks)
	wg.Wait()
	done = done && ctx.Err() == nil
	st := result.Prefill{Objects: p.stats.objects.Load(), Edges: p.stats.edges.Load(), Lists: p.stats.lists.Load(),
		Complete: p.stats.complete.Load(), Errors: p.stats.errors.Load(), Done: done, Took: time.Since(p.begin)}
	p.x.mu.Lock()
	p.x.c.Prefill = &st
	p.x.mu.Unlock()
}

// lists returns the lists of node n a read can draw: one per category of
// its first type (empty ones too: a point read of an absent edge draws
// any), and for a unique category one per type up to one past its slots,
// as the generator draws them.
func (p *prefiller) lists(n *graph.Node) []plist {
	var ls []plist
	for c := range tao.NumEdgeCategories {
		if c.Type().IsUnique() {
			for k := range n.Slots[c] + 1 {
				l := plist{typ: c.TypeN(k)}
				if k < n.Written[c] {
					l.members = []int64{p.g.Target(n, c, int64(k))}
				}
				ls = append(ls, l)
			}
			continue
		}
		l := plist{typ: c.Type()}
		for k := range n.Written[c] {
			l.members = append(l.members, p.g.Target(n, c, int64(k)))
		}
		slices.Sort(l.members)
		l.members = slices.Compact(l.members)
		ls = append(ls, l)
	}
	return ls
}

// node appends node id's object and lists to ops, sending them in read
// transactions of at most prefillOps operations (a list whole in one, so
// its count and members are of one snapshot; a longer list in several,
// long) and storing the answers; it returns what is left to send.
func (p *prefiller) node(ctx context.Context, id int64, ops []tao.Op) []tao.Op {
	n := p.g.Node(tao.ShardOf(id), tao.IndexOf(id))
	ops = append(ops, tao.Op{Kind: tao.ObjRead, ID1: id})
	for _, l := range p.lists(&n) {
		if 1+len(l.members) >= prefillOps {
			p.long(ctx, id, l)
			continue
		}
		if len(ops)+1+len(l.members) > prefillOps {
			p.txn(ctx, ops)
			ops = ops[:0]
		}
		ops = append(ops, tao.Op{Kind: tao.EdgeCountRead, ID1: id, Type: l.typ})
		for _, id2 := range l.members {
			ops = append(ops, tao.Op{Kind: tao.EdgePointRead, ID1: id, Type: l.typ, ID2: id2})
		}
	}
	return ops
}

// long prefills list l of node id, too long for one read transaction:
// its members prefillOps-1 at a time, each run with the list's count, and
// its completeness when every member was found and every count equals
// them (the list did not change between the transactions' snapshots).
// Before, such a list got its count alone, and every point read of an
// edge absent from it went to the database: the tao tier's only misses
// on workload a (docs/tiers.md, "Where the database's reads come from").
// A write after the first store updates the list's hash as any write
// does (through.go); one between a read and its store is missed, as by
// any fill, and the staleness check counts what it leaves stale. Each
// count read counts as a list in the prefill's figures (result.Prefill:
// its statements at the database).
func (p *prefiller) long(ctx context.Context, id int64, l plist) {
	same, all := true, true
	for start := 0; start == 0 || start < len(l.members); {
		ops := make([]tao.Op, 0, prefillOps)
		ops = append(ops, tao.Op{Kind: tao.EdgeCountRead, ID1: id, Type: l.typ})
		end := min(len(l.members), start+prefillOps-1)
		for _, id2 := range l.members[start:end] {
			ops = append(ops, tao.Op{Kind: tao.EdgePointRead, ID1: id, Type: l.typ, ID2: id2})
		}
		res, basis, ok := p.read(ctx, ops)
		if !ok {
			return
		}
		fills := make([]Fill, 0, len(ops)+1)
		var edges int64
		for i := range ops {
			op, r := &ops[i], &res.Ops[i]
			if op.Kind == tao.EdgeCountRead {
				same = same && r.Rows == len(l.members)
				fills = append(fills, Fill{cacheKey(op), Entry{Outcome: tao.OK, Rows: r.Rows, Basis: basis}})
				continue
			}
			fills = append(fills, Fill{cacheKey(op), found(r, basis)})
			all = all && r.Found
			edges++
		}
		complete := end == len(l.members) && all && same
		if complete {
			fills = append(fills, Fill{completeKey(id, l.typ), Entry{Outcome: tao.NotFound, Basis: basis}})
		}
		if !p.put(ctx, fills) {
			return
		}
		p.stats.edges.Add(edges)
		p.stats.lists.Add(1)
		if complete {
			p.stats.complete.Add(1)
		}
		start = max(end, 1)
	}
}

// read runs ops in one read transaction on the database, once more when
// it fails; ok is false (an error counted) when it did not answer them.
// basis is when it returned.
func (p *prefiller) read(ctx context.Context, ops []tao.Op) (res *tao.Result, basis int64, ok bool) {
	req := tao.Request{Class: tao.ReadTxn, Tier: tao.TierDB, Ops: ops}
	res = &tao.Result{}
	res.Reset(len(ops))
	db, _ := p.s.reader()
	db.Exec(ctx, &req, res)
	if res.Outcome != tao.OK && ctx.Err() == nil {
		res.Reset(len(ops))
		db.Exec(ctx, &req, res)
	}
	basis = time.Now().UnixNano()
	if res.Outcome != tao.OK || len(res.Ops) < len(ops) {
		if ctx.Err() == nil {
			p.stats.errors.Add(1)
		}
		return nil, 0, false
	}
	return res, basis, true
}

// put stores fills in the tier, once more when it fails; false (an error
// counted) when it did not.
func (p *prefiller) put(ctx context.Context, fills []Fill) bool {
	err := p.s.tao.c.Put(ctx, p.x.ns, fills...)
	if err != nil && ctx.Err() == nil {
		err = p.s.tao.c.Put(ctx, p.x.ns, fills...)
	}
	if err != nil && ctx.Err() == nil {
		p.stats.errors.Add(1)
	}
	return err == nil
}

// txn reads ops in one read transaction and stores what it answered.
func (p *prefiller) txn(ctx context.Context, ops []tao.Op) {
	if ctx.Err() != nil || len(ops) == 0 {
		return
	}
	res, basis, ok := p.read(ctx, ops)
	if !ok {
		return
	}
	var fills []Fill
	var objects, edges, lists, complete int64
	for i := 0; i < len(ops); i++ {
		op, r := &ops[i], &res.Ops[i]
		switch op.Kind {
		case tao.ObjRead:
			fills = append(fills, Fill{cacheKey(op), found(r, basis)})
			objects++
		case tao.EdgeCountRead:
			fills = append(fills, Fill{cacheKey(op), Entry{Outcome: tao.OK, Rows: r.Rows, Basis: basis}})
			lists++
			// The members follow their count; all found and as many as
			// the count: no other edge is in the list.
			j, all := i+1, true
			for ; j < len(ops) && ops[j].Kind == tao.EdgePointRead && ops[j].Type == op.Type; j++ {
				fills = append(fills, Fill{cacheKey(&ops[j]), found(&res.Ops[j], basis)})
				all = all && res.Ops[j].Found
				edges++
			}
			if all && r.Rows == j-i-1 {
				fills = append(fills, Fill{completeKey(op.ID1, op.Type), Entry{Outcome: tao.NotFound, Basis: basis}})
				complete++
			}
			i = j - 1
		}
	}
	if !p.put(ctx, fills) {
		return
	}
	p.stats.objects.Add(objects)
	p.stats.edges.Add(edges)
	p.stats.lists.Add(lists)
	p.stats.complete.Add(complete)
}

// found is the entry of a point read's answer, as a fill would store it.
func found(r *tao.OpResult, basis int64) Entry {
	e := Entry{Outcome: tao.NotFound, Found: r.Found, Version: r.Version, Rows: r.Rows, Basis: basis}
	if r.Found {
		e.Outcome = tao.OK
	}
	return e
}

// completeKey is the key of list (id1, typ)'s completeness: the list's
// members are all cached: a point read of any other edge finds none.
func completeKey(id1 int64, typ tao.EdgeType) Key {
	return Key{Kind: 'a', ID1: id1, Type: typ}
}
