// Package gen turns a workload and a computed graph into requests: every
// parameter of every request is drawn from its configured distribution with a
// client's own seeded RNG. It does no I/O and reads no clock, so the same
// seed, workload, graph and client give the same request sequence.
//
// How keys are chosen is described in docs/graph.md ("Generation").
package gen

import (
	"fmt"
	"slices"

	"github.com/taobench/taobench/dist"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// DefaultRangeLimit is the limit of range reads when the workload gives none
// (TAO's per-type cap).
const DefaultRangeLimit = 6000

// Tries bound the redraws the generator makes before it settles.
const (
	nodeTries = 4  // nodes redrawn (same shard) when an edge op meets a node with no slots
	dupTries  = 16 // ops redrawn when a write transaction would write a key twice
	memTries  = 4  // remembered entries tried for a read_* predicate
)

// picker draws values of a distribution; an absent one yields def.
type picker[T any] struct {
	vals []T
	a    dist.Alias
	def  T
}

func newPicker[T comparable](d workload.Dist[T], def T) (picker[T], error) {
	p := picker[T]{def: def}
	if len(d.Values) == 0 {
		return p, nil
	}
	a, err := dist.NewAlias(d.Weights)
	if err != nil {
		return p, err
	}
	p.vals, p.a = slices.Clone(d.Values), a
	return p, nil
}

func (p *picker[T]) draw(r *dist.Rand) T {
	if p.vals == nil {
		return p.def
	}
	return p.vals[p.a.Draw(r)]
}

// Plan is what the generators of one run share: the graph and the alias
// tables, Zipf sampler and permutations drawn from the workload. It is
// immutable, so any number of clients use one Plan at no memory per client.
type Plan struct {
	g    *graph.Graph
	seed uint64

	classes   picker[tao.Class]
	readSize  picker[int]
	writeSize picker[int]
	kinds     [tao.NumClasses]picker[tao.Kind]
	primary   dist.Alias
	sizes     picker[int]
	opPred    picker[tao.Predicate]
	txnPred   picker[tao.Predicate]
	predCount picker[int]
	tiers     picker[tao.Tier]

	zipf     bool
	z        dist.Zipf
	perms    []dist.Perm // one per shard
	perShard uint64
	limit    int
	tlo, thi int64
}

// Generator makes the requests of one client. It is not safe for concurrent
// use; give each client its own.
type Generator struct {
	*Plan
	rng dist.Rand

	run, client int64
	seq         uint64 // objects created so far
	clock       int64  // write times are graph end + clock

	mem memory
}

// New returns the generator of client (0-based) in run. w must be the
// workload g was built from (graph.New has checked it); New panics if w
// fails graph.CheckWorkload or does not match g — use NewPlan for a
// workload that has not been through graph.New.
func New(w *workload.Workload, g *graph.Graph, client int, run int64, seed uint64) *Generator {
	p, err := NewPlan(w, g, seed)
	if err != nil {
		panic(fmt.Sprintf("gen.New: %v", err))
	}
	return p.Client(client, run)
}

// NewChecked is New returning an error for a workload it cannot draw from.
func NewChecked(w *workload.Workload, g *graph.Graph, client int, run int64, seed uint64) (*Generator, error) {
	p, err := NewPlan(w, g, seed)
	if err != nil {
		return nil, err
	}
	return p.Client(client, run), nil
}

// Client returns the generator of client (0-based) in run; it gives the same
// requests as New with the Plan's workload, graph and seed.
func (p *Plan) Client(client int, run int64) *Generator {
	return &Generator{
		Plan:   p,
		rng:    dist.NewRand(dist.Hash(p.seed, uint64(client), 0x67656e, 0)),
		run:    run,
		client: int64(client),
	}
}

// NewPlan builds the tables the generators of w on g with seed share.
func NewPlan(w *workload.Workload, g *graph.Graph, seed uint64) (*Plan, error) {
	if err := graph.CheckWorkload(w); err != nil {
		return nil, err
	}
	if w.Shards() != g.Shards() {
		return nil, fmt.Errorf("workload %q has %d shards but the graph %d: build the graph from the same workload", w.Name, w.Shards(), g.Shards())
	}
	gen := &Plan{
		g:        g,
		seed:     seed,
		perShard: uint64(g.NodesPerShard()),
		limit:    w.RangeLimit,
	}
	if gen.limit <= 0 {
		gen.limit = DefaultRangeLimit
	}
	gen.tlo, gen.thi = g.TimeRange()
	var errs [15]error
	gen.classes, errs[0] = newPicker(w.Requests, tao.Read)
	gen.readSize, errs[1] = newPicker(w.ReadTxnSizes, 1)
	gen.writeSize, errs[2] = newPicker(w.WriteTxnSizes, 1)
	gen.kinds[tao.Read], errs[3] = newPicker(w.ReadKinds, tao.ObjRead)
	gen.kinds[tao.Write], errs[4] = newPicker(w.WriteKinds, tao.ObjUpdate)
	gen.kinds[tao.ReadTxn], errs[5] = newPicker(w.ReadTxnKinds, tao.ObjRead)
	gen.kinds[tao.WriteTxn], errs[6] = newPicker(w.WriteTxnKinds, tao.ObjUpdate)
	gen.primary, errs[7] = dist.NewAlias(w.PrimaryShards.Weights)
	gen.sizes, errs[8] = newPicker(w.PayloadSizes, 0)
	gen.opPred, errs[9] = newPicker(w.OpPredicates, tao.PredNone)
	gen.txnPred, errs[10] = newPicker(w.TxnPredicates, tao.PredNone)
	gen.predCount, errs[11] = newPicker(w.TxnPredicateCounts, 0)
	gen.tiers, errs[12] = newPicker(w.ReadTiers, tao.TierDB)
	if w.KeySkew.Kind == workload.Zipf {
		gen.zipf = true
		gen.z, errs[13] = dist.NewZipf(gen.perShard, w.KeySkew.Theta)
		gen.perms = make([]dist.Perm, g.Shards())
		for s := range gen.perms {
			// Keyed by seed, not client: every client shares the hot keys.
			gen.perms[s], errs[14] = dist.NewPerm(gen.perShard, dist.Hash(seed, uint64(s), 0x7065726d, 0))
		}
	}
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("workload %q: %w", w.Name, err)
		}
	}
	return gen, nil
}

// Next fills req with the next request, reusing its slices.
func (gen *Generator) Next(req *tao.Request) {
	r := &gen.rng
	c := gen.classes.draw(r)
	n := 1
	switch c {
	case tao.ReadTxn:
		n = gen.readSize.draw(r)
	case tao.WriteTxn:
		n = gen.writeSize.draw(r)
	}
	req.Class = c
	req.Ops = slices.Grow(req.Ops[:0], n) // one allocation, of the right size
	req.Checks = req.Checks[:0]
	req.Predicates = req.Predicates[:0]
	kinds := &gen.kinds[c]
	for range n {
		req.Ops = append(req.Ops, tao.Op{})
		op := &req.Ops[len(req.Ops)-1]
		k, shard := kinds.draw(r), gen.primary.Draw(r)
		gen.op(op, k, shard)
		if c != tao.WriteTxn {
			continue
		}
		// A write transaction writes each key once: redraw the key in the
		// same shard with the same kind (so neither mix is biased), and in
		// the (tiny-graph) worst case leave the op out.
		tries := 0
		for writesTwice(req.Ops) && tries < dupTries {
			gen.op(op, k, shard)
			tries++
		}
		if tries == dupTries {
			req.Ops = req.Ops[:len(req.Ops)-1]
		}
	}
	switch c {
	case tao.Write:
		gen.predicate(req, gen.opPred.draw(r))
		req.Tier = tao.TierDB
	case tao.WriteTxn:
		for range gen.predCount.draw(r) {
			gen.predicate(req, gen.txnPred.draw(r))
		}
		req.Tier = tao.TierDB
	default:
		req.Tier = gen.tiers.draw(r)
	}
}

// writesTwice reports whether the last op writes a key an earlier one does.
func writesTwice(ops []tao.Op) bool {
	last := ops[len(ops)-1].Key()
	for i := range ops[:len(ops)-1] {
		if ops[i].Key() == last {
			return true
		}
	}
	return false
}

// index draws a node index inside a shard.
func (gen *Generator) index(shard int) int64 {
	if gen.zipf {
		return int64(gen.perms[shard].Map(gen.z.Draw(&gen.rng) - 1))
	}
	return int64(gen.rng.Uint64N(gen.perShard))
}

// op fills op with an operation of kind k on a key of shard.
func (gen *Generator) op(op *tao.Op, k tao.Kind, shard int) {
	r := &gen.rng
	idx := gen.index(shard)
	*op = tao.Op{Kind: k, ID1: graph.ID(shard, idx)}
	switch k {
	case tao.ObjRead, tao.ObjDelete:
		return
	case tao.ObjAdd:
		// Run, client and seq wrap at their bit widths (docs/graph.md).
		op.ID1, _ = graph.NewID(shard, gen.run&(1<<graph.RunBits-1), int(gen.client&(1<<graph.ClientBits-1)), gen.seq&(1<<graph.SeqBits-1))
		gen.seq++
		gen.write(op)
		return
	case tao.ObjUpdate:
		gen.write(op)
		return
	}
	d := gen.g.Outdegree(shard, idx)
	for t := 0; d == 0 && t < nodeTries; t++ {
		idx = gen.index(shard)
		d = gen.g.Outdegree(shard, idx)
	}
	j := 0 // a node with no slots still has slot 0's (absent) edge
	if d > 0 {
		j = int(r.Uint64N(uint64(d)))
	}
	cat, id2 := gen.g.Target(shard, idx, j)
	op.ID1, op.Type, op.ID2 = graph.ID(shard, idx), cat.Type(), id2
	switch k {
	case tao.EdgeRangeRead:
		op.ID2, op.Limit = 0, gen.limit
	case tao.EdgeCountRead:
		op.ID2 = 0
	case tao.EdgeTimeRead:
		span := uint64(gen.thi - gen.tlo)
		a, b := gen.tlo+int64(r.Uint64N(span)), gen.tlo+int64(r.Uint64N(span))
		op.ID2, op.Low, op.High, op.Limit = 0, min(a, b), max(a, b), gen.limit
	case tao.EdgeAdd, tao.EdgeUpdate:
		gen.write(op)
	}
}

// write gives op a time after every loaded row and a payload.
func (gen *Generator) write(op *tao.Op) {
	gen.clock++
	op.Time = gen.thi + gen.clock
	op.Payload = gen.g.Payload(gen.sizes.draw(&gen.rng), gen.rng.Uint64())
}

// predicate records p and turns it into a check on req (docs/graph.md).
func (gen *Generator) predicate(req *tao.Request, p tao.Predicate) {
	req.Predicates = append(req.Predicates, p)
	if len(req.Ops) == 0 {
		return
	}
	op := &req.Ops[gen.rng.Uint64N(uint64(len(req.Ops)))]
	var ck tao.Check
	switch p {
	case tao.PredWriteVisibility, tao.PredWriteUpdateOnly, tao.PredWriteVersion:
		if op.Kind == tao.ObjAdd {
			return // a new id is neither visible nor read yet: nothing to check
		}
		ck.Key = op.Key()
		if p == tao.PredWriteVisibility {
			ck.Key = tao.Key{ID1: op.ID1} // the object the write refers to
		}
		if p == tao.PredWriteVersion {
			v, ok := gen.mem.lookup(ck.Key)
			if !ok {
				return
			}
			ck.Kind, ck.Version = tao.CheckVersion, v
		}
	case tao.PredReadVisibility, tao.PredReadVersion:
		k, v, ok := gen.mem.pick(&gen.rng, req.Ops)
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

// Observe remembers the versions req's point reads found (and forgets keys
// they found absent), for later version and read predicates.
func (gen *Generator) Observe(req *tao.Request, res *tao.Result) {
	if res.Outcome != tao.OK && res.Outcome != tao.NotFound {
		return
	}
	for i := range min(len(req.Ops), len(res.Ops)) {
		op := &req.Ops[i]
		if op.Kind != tao.ObjRead && op.Kind != tao.EdgePointRead {
			continue
		}
		if res.Ops[i].Found {
			gen.mem.store(op.Key(), res.Ops[i].Version)
		} else {
			gen.mem.forget(op.Key())
		}
	}
}
