package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/taobench/taobench/bulkload"
	"github.com/taobench/taobench/chisquare"
	"github.com/taobench/taobench/gencheck"
	"github.com/taobench/taobench/textreport"

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

// Write prints the rows and what they were measured on, and returns an
// error when a row failed, saying how to check a fresh load when runs
// since the load can explain it.
func (v *Validation) Write(w io.Writer, name string) error {
	if err := textreport.WriteFidelity(w, v.Rows); err != nil {
		return err
	}
	fmt.Fprintf(w, "workload %s on workload %s's graph, %d requests in %.0f s; a share passes within %d standard errors of its target plus the row's model error (%.3f targeted, %.3f graph expectation), a mean within %.0f%%, a distribution when p >= %g; range reads against the lists they draw counted in the database before and after the run\n",
		v.Workload, v.GraphOf, v.Result.Summary.Requests(), v.Result.Measured.Seconds(), fidelity.Sigmas, fidelity.ModelTargeted, fidelity.ModelGraph, 100*fidelity.MeanTolerance, chisquare.Alpha)
	if failed := fidelity.Failed(v.Rows); len(failed) > 0 {
		hint := ""
		if v.RunsBefore > 0 {
			hint = fmt.Sprintf("; the database has had %d run(s) since its load, whose writes move what it holds away from the graph the rows expect: validate a fresh load (taobench load --drop) to check the load itself", v.RunsBefore)
		}
		return fmt.Errorf("%s: %d figure(s) differ from their targets on %s%s", name, len(failed), v.Database, hint)
	}
	return nil
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
	spec.Workload = w
	before, _ := s.Runs(ctx) // runs since the load change what it holds
	g, loaded, err := s.Graph(ctx, spec)
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
		return nil, badInput("%s: %s holds no taobench graph: load one with taobench load --db URL", s.opts.Name, s.url)
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

// WriteCheck prints the violations vs Check found in the database whose
// graph's record is meta, and returns an error when there are any.
func (s *Session) WriteCheck(w io.Writer, meta map[string]string, vs []store.Violation) error {
	if len(vs) == 0 {
		fmt.Fprintf(w, "%s: every invariant holds (the load of %s is complete with every index; bidirectional edges have their inverses; edges point at objects that exist; edges are timestamped within the load's time range or after it; unique types have at most one edge per (id1, type); loaded ids sit where the graph places them)\n",
			s.url, bulkload.Describe(meta))
		return nil
	}
	half := false
	for _, v := range vs {
		fmt.Fprintf(w, "VIOLATION %s: %d row(s), e.g. %s\n", v.Invariant, v.Count, v.Example)
		half = half || v.Invariant == "bidirectional edge has its inverse" || v.Invariant == "inverse edge has its forward edge"
	}
	if half {
		fmt.Fprintln(w, "note: a run whose workload injects fail_after_primary_commit leaves exactly such rows by design: a cross-shard bidirectional write committed on its primary shard, never on the other (docs/experiments.md)")
	}
	return fmt.Errorf("check %s: %d invariant(s) violated", s.url, len(vs))
}

// WriteInfo prints what the database holds: the graph its load recorded
// (meta) and the runs since.
func (s *Session) WriteInfo(ctx context.Context, w io.Writer, meta map[string]string) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "database\t%s\n", s.url)
	for _, k := range []struct{ key, label string }{
		{"workload", "graph of workload"}, {"edges", "edges"}, {"nodes", "nodes"}, {"shards", "shards"},
		{"seed", "graph seed"}, {graph.MetaState, "load state"}, {"load_started", "load started"},
		{"load_finished", "load finished"}, {"taobench_version", "loaded by taobench"},
		{"format_version", "graph format"}, {"graph_hash", "graph hash"},
	} {
		v := meta[k.key]
		if v == "" {
			v = "(unrecorded)"
		}
		fmt.Fprintf(tw, "%s\t%s\n", k.label, v)
	}
	if runs, ok := s.Runs(ctx); ok {
		fmt.Fprintf(tw, "run numbers reserved\t%d (one per experiment)\n", runs)
	}
	return tw.Flush()
}

// completeness checks the graph's record against the rows: the load
// finished, and, before any run could have deleted some, every object the
// graph has is there.
func completeness(ctx context.Context, db store.Database, meta map[string]string) []store.Violation {
	if meta[graph.MetaState] == graph.StateLoading {
		return []store.Violation{{Invariant: "the load is complete", Count: 1,
			Example: fmt.Sprintf("state loading since %s: resume it with taobench load --workload %s --edges %s --seed %s, or start over with --drop",
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
// draws workload w's distributions (gencheck: requests requests on its
// graph of edges edges, seed seed), printing the table to out; an error
// when one differs.
func CheckGenerator(out io.Writer, w *workload.Workload, edges int64, requests int, seed uint64) error {
	g, err := graph.New(w, seed, edges)
	if err != nil {
		return badInputErr(err)
	}
	rows := gencheck.Run(w, g, requests, seed)
	failed := gencheck.WriteTable(out, rows)
	fmt.Fprintf(out, "%d requests of workload %s; %d distributions tested: a distribution passes when its Holm-adjusted p >= %g (Holm–Bonferroni: p-values, smallest first, held to the levels shown until one passes), so a correct workload fails with chance at most %g in all (docs/workloads.md)\n",
		requests, w.Name, gencheck.Tested(rows), chisquare.Alpha, chisquare.Alpha)
	if failed > 0 {
		return fmt.Errorf("validate: %d distribution(s) differ from the workload's weights", failed)
	}
	return nil
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
// plan's own write transactions (a short run's touch too few), placed as
// the database holds them: one read each of the object a key sits with
// (an association's id1), its shard where found. None for a workload with
// no write transactions or whose keys' rows check nothing
// (fidelity.CheckKeys), or when the database cannot read an object.
func placedColocation(ctx context.Context, db store.Store, w *workload.Workload, plan *gen.Plan, g *graph.Graph) (result.FidelityRow, bool) {
	txns := false
	for i, c := range w.Requests.Values {
		txns = txns || c == tao.WriteTxn && i < len(w.Requests.Weights) && w.Requests.Weights[i] > 0
	}
	if !txns || !fidelity.CheckKeys(w) {
		return result.FidelityRow{}, false
	}
	hot, objects := expect.HotWriteTxnKeys(plan, g.Nodes(), expect.HotTxnDraws)
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
	return fidelity.PlacedColocationRow(hot, shards, fidelity.HotColocated(hot), w.PrimaryShards.Weights), true
}
