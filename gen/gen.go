// Package gen turns a workload and a computed graph into requests: every
// parameter of every request is drawn from its configured distribution with a
// client's own seeded RNG, and keys are chosen so that what the database
// finds (edge hits, list sizes, new rows, shards per transaction) follows the
// workload's fidelity targets. It does no I/O and reads no clock, so the same
// seed, workload, graph and client give the same request sequence, given the
// same observed results.
//
// How keys are chosen is described in docs/graph.md ("Key choice").
package gen

import (
	"fmt"
	"slices"

	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/randdist"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// DefaultRangeLimit is the limit of range reads when the workload gives none
// (TAO's per-type cap).
const DefaultRangeLimit = 6000

// Tries bound the redraws the generator makes before it settles.
const (
	listTries   = 32 // nodes drawn to find a list of the wanted size
	climbShards = 4  // shards climbed (climb) when those draws find no edge
	topScan     = 64 // a shard's highest-outdegree nodes climb looks through

	// newUniqueTypes is how many unique types past a node's preallocated
	// ones a new unique add chooses among, so adds rarely meet each other.
	newUniqueTypes = 1 << 12
	dupTries       = 16 // ops redrawn when a write transaction would write a key twice
	memTries       = 4  // remembered entries tried for a read_* predicate
)

// picker draws values of a distribution; an absent one yields def.
type picker[T any] struct {
	vals []T
	a    randdist.Alias
	def  T
}

func newPicker[T comparable](d workload.Dist[T], def T) (picker[T], error) {
	p := picker[T]{def: def}
	if len(d.Values) == 0 {
		return p, nil
	}
	a, err := randdist.NewAlias(d.Weights)
	if err != nil {
		return p, err
	}
	p.vals, p.a = slices.Clone(d.Values), a
	return p, nil
}

func (p *picker[T]) draw(r *randdist.Rand) T {
	if p.vals == nil {
		return p.def
	}
	return p.vals[p.a.Draw(r)]
}

// Plan is what the generators of one experiment share: the graph and the
// alias tables, samplers and permutations drawn from the workload. It is
// immutable, so any number of clients use one Plan at no memory per client.
type Plan struct {
	g    *graph.Graph
	seed uint64

	classes   picker[tao.Class]
	readSize  picker[int]
	writeSize picker[int]
	kinds     [tao.NumClasses]picker[tao.Kind]
	primary   randdist.Alias
	sizes     picker[int] // payload sizes of edges, and of objects unless objSizes has values
	objSizes  picker[int]
	limits    picker[int] // limits of list reads: none drawn (limit) unless range_limits is given
	cats      picker[tao.EdgeCategory]
	unique    picker[tao.EdgeCategory] // the unique categories, by their weights
	opPred    picker[tao.Predicate]
	txnPred   picker[tao.Predicate]
	predCount picker[int]
	tiers     picker[tao.Tier]

	skew     skewTables // key skew per class (skew.go)
	racing   float64    // racing_inserts
	limit    int
	tlo, thi int64

	// Fidelity targets (workload.Natural: untargeted).
	hit, nonEmpty, timeNonEmpty float64
	countNonZero                float64
	multi                       [tao.NumClasses]float64 // P(span shards | transaction of 2+ ops)
	addNew, race, freshShare    float64
	pop                         popularity
	targets                     Targets
	inject                      injectPlan // lock holds and injected failures (inject.go)

	// Object popularities (access.go), nil when objects follow the skew.
	objRead, objWrite *Popularity

	// sized: range reads aimed at lists with edges take one of one edge
	// with chance sizeOne, else one of two or more (rangemean.go).
	sized   bool
	sizeOne float64
}

// Targets are the figures the plan aims at, for validation to compare
// with what the database returned.
type Targets struct {
	EdgeHitRate       float64 // workload.Natural when untargeted
	RangeNonEmpty     float64
	TimeRangeNonEmpty float64
	CountNonZero      float64
	// RangeSizeOne is the share of non-empty list reads of one edge the
	// plan expects; SizeOneReached is false when the graph cannot reach
	// the workload's target at any correlation.
	RangeSizeOne   float64
	SizeOneReached bool
	Correlation    float64 // the correlation in use (solved or given)
	// MeanRangeRows is the expected rows of an edge_range_read at the
	// workload's limit, empty ones included.
	MeanRangeRows       float64
	MultiShardWriteTxns float64
	MultiShardReadTxns  float64
	// MultiShardWriteTxnsAtDB is the share of write transactions expected
	// to touch more than one shard at the database, the inverse rows of
	// bidirectional writes included (spans.go).
	MultiShardWriteTxnsAtDB float64
	EdgeAddNew              float64
}

// Targets returns what the plan aims at.
func (p *Plan) Targets() Targets { return p.targets }

// Generator makes the requests of one client. It is not safe for concurrent
// use; give each client its own.
type Generator struct {
	*Plan
	rng  randdist.Rand
	bufs Buffers // nil: big requests allocate their buffers

	run, client int64
	seq         uint64 // objects created so far
	clock       int64  // write times are graph end + clock

	cls   tao.Class // the class of the request being drawn, for its key skew
	raced bool      // the request holds a racing insert
	// cold draws keys uniformly whatever the class's skew: the ops of a
	// write transaction after its first (skew.go, "rarely in one
	// transaction").
	cold bool
	// sameCat makes op keep lastCat, the category of the op it redraws:
	// keys of some categories collide more under skew, and redrawing them
	// with a new category would bias edge_types.
	sameCat bool
	lastCat tao.EdgeCategory
	mem     memory
	fresh   recent
	reread  rereads  // client-cache locality (reread.go); off unless set
	races   []uint32 // per shard: contested unique adds issued so far
	// injRng draws lock holds and injected failures, apart from rng so a
	// workload's request stream is the same with and without them.
	injRng randdist.Rand
}

// New returns the generator of client (0-based) in run. w must be the
// workload g was built from or one compatible with it (graph.New has
// checked it); New panics if w fails graph.CheckWorkload or does not match
// g — use NewPlan for a workload that has not been through graph.New.
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
		rng:    randdist.NewRand(randdist.Hash(p.seed, uint64(client), 0x67656e, 0)),
		run:    run,
		client: int64(client),
		races:  make([]uint32, p.g.Shards()),
		injRng: randdist.NewRand(randdist.Hash(p.seed, uint64(client), 0x696e6a, 0)),
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
	p := &Plan{
		g:            g,
		seed:         seed,
		limit:        w.RangeLimit,
		hit:          w.EdgeHitRate,
		nonEmpty:     w.RangeNonEmpty,
		timeNonEmpty: w.TimeRangeNonEmpty,
		countNonZero: w.CountNonZero,
		addNew:       w.EdgeAddNew,
		race:         w.UniqueAddRace,
		freshShare:   w.NewContentShare,
		racing:       w.RacingInserts,
	}
	if p.limit <= 0 {
		p.limit = DefaultRangeLimit
	}
	p.tlo, p.thi = g.TimeRange()
	var errs [17]error
	p.classes, errs[0] = newPicker(w.Requests, tao.Read)
	p.readSize, errs[1] = newPicker(w.ReadTxnSizes, 1)
	p.writeSize, errs[2] = newPicker(w.WriteTxnSizes, 1)
	p.kinds[tao.Read], errs[3] = newPicker(w.ReadKinds, tao.ObjRead)
	p.kinds[tao.Write], errs[4] = newPicker(w.WriteKinds, tao.ObjUpdate)
	p.kinds[tao.ReadTxn], errs[5] = newPicker(w.ReadTxnKinds, tao.ObjRead)
	p.kinds[tao.WriteTxn], errs[6] = newPicker(w.WriteTxnKinds, tao.ObjUpdate)
	p.primary, errs[7] = randdist.NewAlias(w.PrimaryShards.Weights)
	p.sizes, errs[8] = newPicker(w.PayloadSizes, 0)
	if err := p.readMix(w); err != nil {
		return nil, fmt.Errorf("workload %q: %w", w.Name, err)
	}
	p.opPred, errs[9] = newPicker(w.OpPredicates, tao.PredNone)
	p.txnPred, errs[10] = newPicker(w.TxnPredicates, tao.PredNone)
	p.predCount, errs[11] = newPicker(w.TxnPredicateCounts, 0)
	p.tiers, errs[12] = newPicker(w.ReadTiers, tao.TierDB)
	p.cats, errs[13] = newPicker(w.EdgeTypes, tao.Other)
	var uq workload.Dist[tao.EdgeCategory]
	for i, c := range w.EdgeTypes.Values {
		if c.Type().IsUnique() && w.EdgeTypes.Weights[i] > 0 {
			uq.Values = append(uq.Values, c)
			uq.Weights = append(uq.Weights, w.EdgeTypes.Weights[i])
		}
	}
	p.unique, errs[14] = newPicker(uq, tao.Unique)
	p.skew, errs[15] = newSkewTables(w, g, seed)
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("workload %q: %w", w.Name, err)
		}
	}
	if err := p.objectAccess(w); err != nil {
		return nil, fmt.Errorf("workload %q: %w", w.Name, err)
	}
	p.multiShard(w)
	p.popularity(w)
	p.targets.MultiShardWriteTxnsAtDB = p.spansAtDatabase(w)
	var err error
	if p.inject, err = newInjectPlan(w); err != nil {
		return nil, fmt.Errorf("workload %q: %w", w.Name, err)
	}
	return p, nil
}

// multiShard turns the workload's shares of multi-shard transactions into
// the chance that a transaction of two or more operations spans shards
// (one operation cannot).
func (p *Plan) multiShard(w *workload.Workload) {
	for _, c := range []struct {
		class  tao.Class
		sizes  workload.Dist[int]
		target float64
	}{{tao.WriteTxn, w.WriteTxnSizes, w.MultiShardWriteTxns}, {tao.ReadTxn, w.ReadTxnSizes, w.MultiShardReadTxns}} {
		var two, all float64
		for i, n := range c.sizes.Values {
			all += c.sizes.Weights[i]
			if n >= 2 {
				two += c.sizes.Weights[i]
			}
		}
		if two > 0 {
			p.multi[c.class] = min(1, c.target*all/two)
		}
	}
	p.targets.MultiShardWriteTxns = w.MultiShardWriteTxns
	p.targets.MultiShardReadTxns = w.MultiShardReadTxns
}

// popularity sets the correlation of edge reads with outdegree: given, or
// solved so that non-empty list reads have the target share of size one.
func (p *Plan) popularity(w *workload.Workload) {
	pop := w.EdgeReadPopularity
	if len(pop.Values) == 0 {
		pop = workload.DefaultEdgeReadPopularity()
	}
	uni, cor := pieceWeights(p.g, pop)
	// One table of list odds per limit a read may ask for (range_limits).
	limits := w.Limits()
	lsum := 0.0
	for _, x := range limits.Weights {
		lsum += x
	}
	lss := make([]listShares, len(limits.Values))
	for i, l := range limits.Values {
		if limits.Weights[i] > 0 {
			lss[i] = newListShares(p.g, l)
		}
	}
	var cats [tao.NumEdgeCategories]float64
	sum := 0.0
	for i, c := range w.EdgeTypes.Values {
		cats[c] += w.EdgeTypes.Weights[i]
		sum += w.EdgeTypes.Weights[i]
	}
	for c := range cats {
		cats[c] /= sum
	}
	primary := make([]float64, p.g.Shards())
	psum := 0.0
	for i, x := range w.PrimaryShards.Weights {
		primary[i] = x
		psum += x
	}
	for i := range primary {
		primary[i] /= psum
	}
	stats := func(corr float64) (one, rowsNE, rowsNat float64) {
		for i := range lss {
			if limits.Weights[i] == 0 {
				continue
			}
			o, ne, nat := rangeStats(&lss[i], uni, cor, corr, p.g.Pieces(), primary, cats)
			f := limits.Weights[i] / lsum
			one, rowsNE, rowsNat = one+f*o, rowsNE+f*ne, rowsNat+f*nat
		}
		return
	}
	corr, reached := w.EdgeReadCorrelation, true
	var sizedOne, sizedMean float64
	switch {
	case w.RangeMeanRows > 0:
		// The correlation set by the mean, the size one aimed key by key.
		corr, reached, sizedOne, sizedMean = sizedRanges(w, p.g, uni, cor, primary, cats)
		p.sized, p.sizeOne = true, w.RangeSizeOne
	case corr == workload.Auto:
		corr, reached = solveCorrelation(w.RangeSizeOne, func(c float64) float64 { one, _, _ := stats(c); return one })
	}
	one, rowsNE, rowsNat := stats(corr)
	p.pop = newPopularity(p.g, corr, uni, cor)
	t := &p.targets
	t.EdgeHitRate, t.RangeNonEmpty, t.TimeRangeNonEmpty = w.EdgeHitRate, w.RangeNonEmpty, w.TimeRangeNonEmpty
	t.RangeSizeOne, t.SizeOneReached, t.Correlation = one, reached, corr
	t.MeanRangeRows = rowsNat
	if w.RangeNonEmpty != workload.Natural {
		t.MeanRangeRows = w.RangeNonEmpty * rowsNE
	}
	if p.sized {
		// reached says whether the mean was: the size one holds by aim.
		t.RangeSizeOne, t.MeanRangeRows = sizedOne, sizedMean
	}
	t.EdgeAddNew = w.EdgeAddNew
}

// Buffers lends a generator buffers for requests larger than the one it is
// given to fill: Ops returns an empty slice of capacity at least n.
type Buffers interface {
	Ops(n int) []tao.Op
}

// UseBuffers has the generator take buffers for big requests from b.
func (gen *Generator) UseBuffers(b Buffers) { gen.bufs = b }

// Next fills req with the next request, reusing its slices.
func (gen *Generator) Next(req *tao.Request) {
	gen.next(req, gen.classes.draw(&gen.rng))
}

// NextOf fills req with the next request of class c, whatever the mix
// draws: the expectation draws write transactions alone for the hot keys
// of a class too rare in a short run (fidelity/expect.HotWriteKeys).
func (gen *Generator) NextOf(req *tao.Request, c tao.Class) { gen.next(req, c) }

// next fills req with a request of class c.
func (gen *Generator) next(req *tao.Request, c tao.Class) {
	r := &gen.rng
	n := 1
	switch c {
	case tao.ReadTxn:
		n = gen.readSize.draw(r)
	case tao.WriteTxn:
		n = gen.writeSize.draw(r)
	}
	req.Class = c
	gen.cls, gen.raced = c, false
	if n > cap(req.Ops) && gen.bufs != nil {
		req.Ops = gen.bufs.Ops(n)
	}
	req.Ops = slices.Grow(req.Ops[:0], n) // one allocation, of the right size
	req.Checks = req.Checks[:0]
	req.Predicates = req.Predicates[:0]
	kinds := &gen.kinds[c]
	// A transaction lives on one home shard, or, with the configured
	// chance, spans shards: then its last op is moved off the shard the
	// others share.
	home := gen.primary.Draw(r)
	multi := n >= 2 && r.Float64() < gen.multi[c]
	for i := range n {
		req.Ops = append(req.Ops, tao.Op{})
		op := &req.Ops[len(req.Ops)-1]
		gen.cold = c == tao.WriteTxn && i > 0
		k, shard := kinds.draw(r), home
		if multi {
			shard = gen.primary.Draw(r)
			if i == n-1 && oneShard(req.Ops[:len(req.Ops)-1], shard) {
				shard = gen.otherShard(shard)
			}
		}
		gen.op(op, k, shard)
		if c != tao.WriteTxn {
			continue
		}
		// A write transaction writes each key once: redraw the key in the
		// same shard with the same kind (so neither mix is biased), then in
		// another shard, and in the (tiny-graph) worst case leave the op out.
		tries := 0
		gen.sameCat = true
		for writesTwice(req.Ops) && tries < 2*dupTries {
			if tries == dupTries {
				// Hot keys of a small shard: go to another shard.
				shard = gen.otherShard(shard)
			}
			gen.op(op, k, shard)
			tries++
		}
		gen.sameCat = false
		if tries == 2*dupTries {
			req.Ops = req.Ops[:len(req.Ops)-1]
		}
	}
	gen.cold = false
	switch c {
	case tao.Write:
		gen.predicate(req, gen.opPred.draw(r), true)
		req.Tier = tao.TierDB
	case tao.WriteTxn:
		for range gen.predCount.draw(r) {
			gen.predicate(req, gen.txnPred.draw(r), false)
		}
		req.Tier = tao.TierDB
	default:
		req.Tier = gen.tiers.draw(r)
		gen.rereadInto(req)
	}
	req.Race = gen.raced
	gen.injectInto(req)
}

// oneShard reports whether every op of ops is on shard s.
func oneShard(ops []tao.Op, s int) bool {
	for i := range ops {
		if tao.ShardOf(ops[i].ID1) != s {
			return false
		}
	}
	return true
}

// otherShard draws a shard other than s by primary_shards (s itself when
// no other has weight).
func (gen *Generator) otherShard(s int) int {
	for range dupTries {
		if t := gen.primary.Draw(&gen.rng); t != s {
			return t
		}
	}
	return s
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

// index draws a node index inside a shard: uniform, as data is placed by
// primary_shards, or by the request class's key skew.
func (gen *Generator) index(shard int) int64 {
	if gen.skew.on[gen.cls] && !gen.cold {
		return gen.skew.shardRank(&gen.rng, gen.cls, shard)
	}
	return int64(gen.rng.Uint64N(uint64(gen.g.ShardNodes(shard))))
}

// chance reports true with probability p.
func (gen *Generator) chance(p float64) bool { return p > 0 && gen.rng.Float64() < p }

// op fills op with an operation of kind k on a key of shard.
func (gen *Generator) op(op *tao.Op, k tao.Kind, shard int) {
	r := &gen.rng
	*op = tao.Op{Kind: k}
	switch k {
	case tao.ObjRead, tao.ObjUpdate, tao.ObjDelete:
		op.ID1 = tao.ID(shard, gen.objectIndex(k, shard))
		if gen.chance(gen.freshShare) {
			if id, ok := gen.fresh.object(r, shard); ok {
				op.ID1 = id
			}
		}
		if k == tao.ObjUpdate {
			gen.writeObject(op)
		}
		return
	case tao.ObjAdd:
		// Run, client and seq wrap at their bit widths (docs/graph.md).
		op.ID1, _ = tao.NewID(shard, gen.run&(1<<tao.RunBits-1), int(gen.client&(1<<tao.ClientBits-1)), gen.seq&(1<<tao.SeqBits-1))
		gen.seq++
		gen.writeObject(op)
		return
	}
	c := gen.cats.draw(r)
	if gen.sameCat {
		c = gen.lastCat
	}
	gen.lastCat = c
	op.Type = c.Type()
	switch k {
	case tao.EdgePointRead:
		switch {
		case gen.hit == workload.Natural:
			n := gen.popular(shard, false)
			j := gen.slot(n.Slots[c])
			op.ID1, op.Type, op.ID2 = n.ID, typeOf(c, j), gen.g.Target(&n, c, j)
		case gen.chance(gen.hit):
			gen.existing(op, shard, c)
		default:
			n := gen.g.Node(shard, gen.index(shard))
			j := gen.slot(n.Slots[c] + 1)
			op.ID1, op.Type, op.ID2 = n.ID, typeOf(c, j), gen.g.Absent(&n, c, j, r.Uint64())
		}
	case tao.EdgeRangeRead, tao.EdgeCountRead:
		// List reads keep to the graph's lists, whose sizes the targets
		// are computed over; new content is read by point reads. Counts
		// have their own target (TAO §7, Fig. 4: 55% non-zero).
		p := gen.nonEmpty
		if k == tao.EdgeCountRead {
			p = gen.countNonZero
		}
		want := gen.wantList(p)
		var n graph.Node
		var j int64
		if k == tao.EdgeRangeRead && gen.sized && want == wantEdges && !c.Type().IsUnique() {
			n, j = gen.sizedList(shard, c, gen.chance(gen.sizeOne))
		} else {
			n, j = gen.list(shard, c, want)
		}
		op.ID1, op.Type = n.ID, typeOf(c, j)
	case tao.EdgeTimeRead:
		want := gen.wantList(gen.timeNonEmpty)
		n, j := gen.list(shard, c, want)
		op.ID1, op.Type = n.ID, typeOf(c, j)
		switch {
		case want == wantAny:
			// finishEdge draws a window in the graph's year.
		case want == wantEdges && n.Written[c] > 0:
			// A window around one written edge's time.
			k := j
			if !c.Type().IsUnique() {
				k = gen.slot(n.Written[c])
			}
			t := gen.g.Edge(&n, c, k).Time
			op.Low = t - int64(r.Uint64N(graph.TimeSpan/8))
			op.High = t + int64(r.Uint64N(graph.TimeSpan/8))
		default:
			op.Low, op.High = gen.tlo-2*graph.TimeSpan, gen.tlo-1 // before every row
		}
	case tao.EdgeAdd:
		gen.add(op, shard, c)
	case tao.EdgeUpdate, tao.EdgeDelete:
		gen.existing(op, shard, c)
	}
	gen.finishEdge(op)
}

// typeOf is the type of slot j of category c: the category's type, or for
// a unique category the type of its list j.
func typeOf(c tao.EdgeCategory, j int64) tao.EdgeType {
	if c.Type().IsUnique() {
		return c.TypeN(int(j))
	}
	return c.Type()
}

// recentEdge aims op, with chance new_content_share, at an edge this
// client created on shard, and reports whether it did.
func (gen *Generator) recentEdge(op *tao.Op, shard int) bool {
	if !gen.chance(gen.freshShare) {
		return false
	}
	e, ok := gen.fresh.edge(&gen.rng, shard)
	if ok {
		op.ID1, op.Type, op.ID2 = e.ID1, e.Type, e.ID2
	}
	return ok
}

// What a list read asks for.
const (
	wantAny   = iota // untargeted: whatever the popular node holds
	wantEdges        // a list holding edges
	wantEmpty        // a list holding none
)

// wantList draws what a list read with non-empty share p asks for.
func (gen *Generator) wantList(p float64) int {
	switch {
	case p == workload.Natural:
		return wantAny
	case gen.chance(p):
		return wantEdges
	}
	return wantEmpty
}

// finishEdge completes an edge op's per-kind fields.
func (gen *Generator) finishEdge(op *tao.Op) {
	r := &gen.rng
	switch op.Kind {
	case tao.EdgeRangeRead:
		op.ID2, op.Limit = 0, gen.limits.draw(r)
	case tao.EdgeCountRead:
		op.ID2 = 0
	case tao.EdgeTimeRead:
		op.ID2, op.Limit = 0, gen.limits.draw(r)
		if op.High == 0 {
			span := uint64(gen.thi - gen.tlo)
			a, b := gen.tlo+int64(r.Uint64N(span)), gen.tlo+int64(r.Uint64N(span))
			op.Low, op.High = min(a, b), max(a, b)
		}
	case tao.EdgeAdd, tao.EdgeUpdate:
		gen.write(op)
	}
}

// slot draws a slot of a list of n slots (slot 0 of an empty one).
func (gen *Generator) slot(n int) int64 {
	if n <= 0 {
		return 0
	}
	return int64(gen.rng.Uint64N(uint64(n)))
}

// popular draws a node of shard by the popularity of edge reads; linked
// leaves out nodes of outdegree 0, which have no lists.
func (gen *Generator) popular(shard int, linked bool) graph.Node {
	t := &gen.pop.any[shard]
	if linked {
		t = &gen.pop.linked[shard]
	}
	k := t.pieces[t.a.Draw(&gen.rng)]
	ends := gen.g.PieceRanks(shard)
	start := int64(0)
	if k > 0 {
		start = ends[k-1]
	}
	if gen.skew.on[gen.cls] && !gen.cold {
		return gen.g.NodeAtRank(shard, start+gen.skew.pieceRank(&gen.rng, gen.cls, shard, k))
	}
	return gen.g.NodeAtRank(shard, start+int64(gen.rng.Uint64N(uint64(ends[k]-start))))
}

// withEdges draws a popular node with a written edge of category c. When
// listTries draws find none (few nodes of a small shard hold c), it climbs
// the shard's outdegree ranks, where lists are longer, then tries other
// shards; only if none of them holds such an edge does it settle for the
// last node drawn, which has none.
func (gen *Generator) withEdges(shard int, c tao.EdgeCategory) graph.Node {
	var n graph.Node
	for range listTries {
		if n = gen.popular(shard, true); n.Written[c] > 0 {
			return n
		}
	}
	for range climbShards {
		if m, ok := gen.climb(shard, c); ok {
			return m
		}
		shard = gen.otherShard(shard)
	}
	return n
}

// climb looks for a node of shard with a written edge of category c at
// ever higher outdegree ranks, each drawn uniformly above the last (about
// log2 of the shard's nodes draws), then among the topScan highest.
func (gen *Generator) climb(shard int, c tao.EdgeCategory) (graph.Node, bool) {
	n := gen.g.ShardNodes(shard)
	for lo := int64(0); lo < n; {
		r := lo + int64(gen.rng.Uint64N(uint64(n-lo)))
		if m := gen.g.NodeAtRank(shard, r); m.Written[c] > 0 {
			return m, true
		}
		lo = r + 1
	}
	for r := n - 1; r >= max(0, n-topScan); r-- {
		if m := gen.g.NodeAtRank(shard, r); m.Written[c] > 0 {
			return m, true
		}
	}
	return graph.Node{}, false
}

// list draws a list of category c for a list read: the node, and the list
// (the type number, for a unique category). Any popular node's list; one
// holding edges; or one holding none (a uniform node's empty list, or an
// unwritten unique list).
func (gen *Generator) list(shard int, c tao.EdgeCategory, want int) (graph.Node, int64) {
	unique := c.Type().IsUnique()
	var n graph.Node
	switch want {
	case wantAny:
		n = gen.popular(shard, false)
		return n, gen.slot(n.Slots[c])
	case wantEdges:
		n = gen.withEdges(shard, c)
		return n, gen.slot(n.Written[c])
	}
	for range listTries {
		if n = gen.g.Node(shard, gen.index(shard)); n.Written[c] == 0 || unique {
			break
		}
	}
	if unique {
		// A list past the written ones: unwritten, or never preallocated.
		return n, int64(n.Written[c]) + gen.slot(n.Slots[c]-n.Written[c]+1)
	}
	return n, 0
}

// existing aims op at a written edge of category c, or, with chance
// new_content_share, at one this client created.
func (gen *Generator) existing(op *tao.Op, shard int, c tao.EdgeCategory) {
	if gen.recentEdge(op, shard) {
		return
	}
	n := gen.withEdges(shard, c)
	j := gen.slot(n.Written[c])
	op.ID1, op.Type, op.ID2 = n.ID, typeOf(c, j), gen.g.Target(&n, c, j)
}

// add aims an edge_add: a new association with chance edge_add_new (on a
// unique category, at a node without one; with chance unique_add_race at
// the key all clients race for), else an existing edge, overwritten.
func (gen *Generator) add(op *tao.Op, shard int, c tao.EdgeCategory) {
	r := &gen.rng
	if !gen.chance(gen.addNew) {
		gen.existing(op, shard, c)
		return
	}
	if c.Type().IsUnique() && gen.chance(gen.race) {
		gen.contested(op, shard)
		return
	}
	// A racing insert is an ordinary new association the runner has other
	// clients send too (racing_inserts; run/race.go).
	if gen.chance(gen.racing) {
		gen.raced = true
	}
	// A uniform node: the popular ones hold lists that may nearly fill a
	// small shard, where adds would soon meet each other.
	n := gen.g.Node(shard, gen.index(shard))
	j := int64(0)
	if c.Type().IsUnique() {
		// A unique type past every preallocated one: an empty list.
		j = int64(n.Slots[c]) + int64(r.Uint64N(newUniqueTypes))
	}
	op.ID1, op.Type, op.ID2 = n.ID, typeOf(c, j), gen.g.Absent(&n, c, j, r.Uint64())
	if gen.chance(gen.freshShare) {
		// Link content this client created.
		if id, ok := gen.fresh.object(r, -1); ok {
			op.ID2 = id
		}
	}
}

// contested aims op at the next unique association every client of the
// run races to insert on shard: the j-th contested add of each client on a
// shard is the same (id1, type), with a target of the client's own, so all
// but the first insert find "unique association exists".
func (gen *Generator) contested(op *tao.Op, shard int) {
	j := gen.races[shard]
	gen.races[shard]++
	h := randdist.Hash(gen.seed, uint64(shard), uint64(j), 0x72616365)
	c := gen.unique.vals[gen.unique.a.Pick(h)]
	n := gen.g.Node(shard, int64(randdist.Below(randdist.Mix(h), uint64(gen.g.ShardNodes(shard)))))
	// The first type past the node's preallocated ones: no edge at load.
	k := int64(n.Slots[c])
	op.ID1, op.Type = n.ID, typeOf(c, k)
	op.ID2 = gen.g.Absent(&n, c, k, gen.rng.Uint64())
}

// write gives op a time after every loaded row and a payload.
func (gen *Generator) write(op *tao.Op) {
	gen.clock++
	op.Time = gen.thi + gen.clock
	op.Payload = gen.g.Payload(gen.sizes.draw(&gen.rng), gen.rng.Uint64())
}
