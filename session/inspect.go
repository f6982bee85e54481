package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/taobench/taobench/gencheck"

	"github.com/taobench/taobench/fidelity"
	"github.com/taobench/taobench/fidelity/expect"
	"github.com/taobench/taobench/gen"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// Validation is what Validate found.
type Validation struct {
	Info   *result.Run
	Result *result.Experiment
	// GraphOf is the workload the graph was loaded with.
	GraphOf string
	// Rows are the graph's inventory against its workload, then the short
	// run's fidelity rows; fidelity.Failed says which failed.
	Rows []result.FidelityRow
	// Workload is the run's, Database the session's name; RunsBefore
	// counts the runs the database had had before (their writes move what
	// it holds away from the graph the rows expect).
	Workload, Database string
	RunsBefore         int64
}

// Validate checks the database against a workload (cfg.Workload): what it
// holds (the graph's inventory, loading the graph first when it holds
// none) and what a short run x finds there (the fidelity rows). The run
// draws the stream of cfg.Seed itself, so a seed repeats the requests of
// earlier versions.
func (s *Session) Validate(ctx context.Context, spec GraphSpec, cfg run.Config, x run.Experiment) (*Validation, error) {
	db, err := s.needDatabase()
	if err != nil {
		return nil, err
	}
	w := cfg.Workload
	before, _ := s.Runs(ctx) // runs since the load change what it holds
	g, loaded, err := s.Graph(ctx, w, spec)
	if err != nil {
		return nil, err
	}
	ins, ok := db.(store.Inspector)
	if !ok {
		return nil, badInput("%s: %s cannot list what it holds", s.opts.Name, s.url)
	}
	inv, err := ins.Inspect(ctx)
	if err != nil {
		return nil, err
	}
	v := &Validation{GraphOf: loaded.Name, Rows: expect.GraphRows(loaded, g, inv, before), Workload: w.Name, Database: s.url, RunsBefore: before}
	s.sink.Note(fmt.Sprintf("%s: %d clients, warmup %v, %v of workload %s on workload %s's graph (%d edges) in %s; request seed %d",
		s.opts.Name, x.Threads, x.Warmup, x.Duration, w.Name, loaded.Name, g.Edges(), s.url, cfg.Seed))
	v.Info = s.RunInfo(Meta{Workloads: []*workload.Workload{w}, GraphOf: loaded.Name, Graph: g, Seed: cfg.Seed, Retries: cfg.Retries})
	cfg.Graph, cfg.Store = g, db
	cfg = s.config(cfg, nil)
	if cfg.Run, err = s.ReserveRun(ctx, 0); err != nil {
		return nil, err
	}
	// The lists range reads meet, counted before and after the run: runs'
	// adds and deletes move them from the graph of the load. Each count
	// takes at most half the run's time.
	budget := max(time.Second, x.Duration/2)
	plan, err := gen.NewPlan(w, g, cfg.Seed)
	if err != nil {
		return nil, badInputErr(err)
	}
	probeBefore, err := probeRanges(ctx, db, plan, budget)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ErrInterrupted
		}
		return nil, err
	}
	// The plan's figures, as the run records them (no key draws: these
	// rows need none).
	targets := expect.Targets(w, plan, g.Nodes(), 0, 1)
	v.Rows = append(v.Rows, fidelity.LoadRangeRows(w, targets, probeBefore, before)...)
	v.Rows = append(v.Rows, fidelity.LoadMeanRow(w, targets, probeBefore, before)...)
	tplan, err := timeProbePlan(w, g, cfg.Seed)
	if err != nil {
		return nil, badInputErr(err)
	}
	times, err := probeTimes(ctx, db, tplan, budget)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ErrInterrupted
		}
		return nil, err
	}
	v.Rows = append(v.Rows, fidelity.TimeProbeRows(targets, times, before)...)
	if row, ok := placedColocation(ctx, db, w, plan, g); ok {
		v.Rows = append(v.Rows, row)
	}
	v.Result, err = run.Do(ctx, cfg, x)
	s.recordDeletes(ctx, v.Result)
	if err != nil {
		return nil, badInputErr(err)
	}
	if v.Result.Interrupted {
		return v, ErrInterrupted
	}
	probeAfter, err := probeRanges(ctx, db, plan, budget)
	if err != nil {
		if ctx.Err() != nil {
			return v, ErrInterrupted
		}
		return nil, err
	}
	if probeBefore.Reads > 0 && v.Result.Counters != nil {
		v.Result.Fidelity = fidelity.Replace(v.Result.Fidelity,
			fidelity.ProbedRangeRows(w, targets, v.Result.Counters, probeBefore, probeAfter))
	}
	v.Info.Started = v.Result.Started.UTC()
	v.Rows = append(v.Rows, v.Result.Fidelity...)
	return v, nil
}

// Recorded is the record of the graph the database holds; a database with
// none is an InputError.
func (s *Session) Recorded(ctx context.Context) (map[string]string, error) {
	db, err := s.needDatabase()
	if err != nil {
		return nil, err
	}
	meta, err := db.Meta(ctx)
	if errors.Is(err, store.ErrForeignSchema) {
		return nil, setupErr(s.opts.Name, err)
	}
	if err != nil || len(meta) == 0 {
		return nil, badInput("%s: %s holds no taobench graph: load one (Session.Load)", s.opts.Name, s.url)
	}
	return meta, nil
}

// Check checks the invariants the database's rows must hold, and that the
// graph of its record meta is complete.
func (s *Session) Check(ctx context.Context, meta map[string]string) ([]store.Violation, error) {
	db, err := s.needDatabase()
	if err != nil {
		return nil, err
	}
	vs, err := db.Check(ctx)
	if err != nil {
		return nil, fmt.Errorf("check %s: %w", s.url, err)
	}
	return append(vs, completeness(ctx, db, meta)...), nil
}

// completeness checks the graph's record against the rows: the load
// finished, and, before any run could have deleted some, every object the
// graph has is there.
func completeness(ctx context.Context, db store.Database, meta map[string]string) []store.Violation {
	if meta[graph.MetaState] == graph.StateLoading {
		return []store.Violation{{Invariant: "the load is complete", Count: 1,
			Example: fmt.Sprintf("state loading since %s: resume it with Session.Load LoadSpec.Workload %s LoadSpec.Edges %s LoadSpec.Seed %s, or start over with LoadSpec.Drop",
				meta["load_started"], meta["workload"], meta["edges"], meta["seed"])}}
	}
	g, _, err := graph.FromMeta(meta)
	if err != nil {
		return []store.Violation{{Invariant: "the graph's record is readable", Count: 1, Example: err.Error()}}
	}
	ins, ok := db.(store.Inspector)
	if !ok {
		return nil
	}
	runs, err1 := ins.Runs(ctx)
	inv, err2 := ins.Inspect(ctx)
	if err := errors.Join(err1, err2); err != nil {
		return []store.Violation{{Invariant: "the rows can be counted", Count: 1, Example: err.Error()}}
	}
	var objects int64
	for _, n := range inv.Objects {
		objects += n
	}
	var vs []store.Violation
	if runs == 0 && objects != g.Nodes() {
		vs = append(vs, store.Violation{Invariant: "every loaded object exists", Count: g.Nodes() - objects,
			Example: fmt.Sprintf("%d of the graph's %d objects, and no run since the load", objects, g.Nodes())})
	}
	if v, ok := missingTargets(g, inv, objects, runs); ok {
		vs = append(vs, v)
	}
	vs = append(vs, placementViolation(ctx, db, g, inv)...)
	var early int64
	for _, n := range inv.EdgesBeforeTime {
		early += n
	}
	if early > 0 {
		lo, hi := g.TimeRange()
		vs = append(vs, store.Violation{Invariant: "edge timestamped within the load's time range or after it", Count: early,
			Example: fmt.Sprintf("before %d by type: %v (the load writes [%d, %d), runs later times)", lo, inv.EdgesBeforeTime, lo, hi)})
	}
	return vs
}

// missingTargets is the violation of edges pointing at loaded ids with no
// object, when more ids are missing than runs can have deleted (TAO keeps
// an object's associations when it deletes the object, so edges to
// deleted objects are no damage).
func missingTargets(g *graph.Graph, inv store.Inventory, objects, runs int64) (store.Violation, bool) {
	deleted := expect.RunsDeleted(g, inv, objects, runs)
	if inv.MissingIDs <= deleted {
		return store.Violation{}, false
	}
	return store.Violation{Invariant: "association points at an object the graph says exists", Count: inv.MissingTargets,
		Example: fmt.Sprintf("%s; %d ids missing, %d loaded objects deleted", inv.MissingExample, inv.MissingIDs, deleted)}, true
}

// Runs is how many run numbers the database has handed out; ok is false
// when it cannot tell.
func (s *Session) Runs(ctx context.Context) (n int64, ok bool) {
	ins, isIns := s.st.(store.Inspector)
	if !isIns {
		return 0, false
	}
	n, err := ins.Runs(ctx)
	return n, err == nil
}

// CheckGenerator checks offline, with no database, that the generator
// draws workload w's distributions: requests requests on its graph of
// edges edges, seed seed. Each row is one distribution tested, Holm
// corrected (gencheck); a graph that cannot be sized so is an InputError.
func CheckGenerator(w *workload.Workload, edges int64, requests int, seed uint64) ([]gencheck.Row, error) {
	g, err := graph.New(w, seed, edges)
	if err != nil {
		return nil, badInputErr(err)
	}
	return gencheck.Run(w, g, requests, seed), nil
}

// OpenRecorded opens a database that exists (Options.MustExist) and reads
// the record of the graph it holds (Recorded); a database with none is an
// InputError.
func OpenRecorded(ctx context.Context, url string, opts Options) (*Session, map[string]string, error) {
	opts.MustExist = true
	s, err := Open(ctx, url, opts)
	if err != nil {
		return nil, nil, err
	}
	meta, err := s.Recorded(ctx)
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	return s, meta, nil
}

// placedColocation is the colocation row of validate --db
// (fidelity.PlacedColocationRow): the hot write-transaction keys of the
// plan's own write transactions (a short run's touch too few), or, for a
// workload without write transactions, the hot write keys of its writes
// (fidelity.ColocClass), placed as the database holds them: one read each
// of the object a key sits with (an association's id1), its shard where
// found. None for a workload with no writes of either kind or whose keys'
// rows check nothing (fidelity.CheckKeys), or when the database cannot
// read an object.
func placedColocation(ctx context.Context, db store.Store, w *workload.Workload, plan *gen.Plan, g *graph.Graph) (result.FidelityRow, bool) {
	var txns, writes bool
	for i, c := range w.Requests.Values {
		if i < len(w.Requests.Weights) && w.Requests.Weights[i] > 0 {
			txns = txns || c == tao.WriteTxn
			writes = writes || c == tao.Write
		}
	}
	class, cl := tao.WriteTxn, result.KeyWriteTxns
	if !txns {
		class, cl = tao.Write, result.KeyWrites
	}
	if !txns && !writes || !fidelity.CheckKeys(w) {
		return result.FidelityRow{}, false
	}
	hot, objects := expect.HotWriteKeys(plan, g.Nodes(), expect.HotTxnDraws, class)
	shards := make([]int, len(hot))
	req := tao.Request{Class: tao.Read, Tier: tao.TierDB, Ops: make([]tao.Op, 1)}
	var res tao.Result
	for i, id := range objects {
		req.Ops[0] = tao.Op{Kind: tao.ObjRead, ID1: id}
		res.Reset(1)
		db.Exec(ctx, &req, &res)
		switch {
		case res.Outcome != tao.OK && res.Outcome != tao.NotFound:
			return result.FidelityRow{}, false
		case res.Ops[0].Found:
			shards[i] = tao.ShardOf(id)
		default:
			shards[i] = -1
		}
	}
	return fidelity.PlacedColocationRow(hot, shards, fidelity.HotColocated(hot), w.Shards(), cl), true
}
