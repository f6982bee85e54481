package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/taobench/taobench/fidelity"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/store"
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
	v := &Validation{GraphOf: loaded.Name, Rows: fidelity.GraphRows(loaded, g, inv)}
	s.sink.Note(fmt.Sprintf("%s: %d clients, warmup %v, %v of workload %s on workload %s's graph (%d edges) in %s; request seed %d",
		s.opts.Name, x.Threads, x.Warmup, x.Duration, w.Name, loaded.Name, g.Edges(), s.url, cfg.Seed))
	v.Info = s.RunInfo(Meta{Workloads: []*workload.Workload{w}, GraphOf: loaded.Name, Graph: g, Seed: cfg.Seed, Retries: cfg.Retries})
	cfg.Graph, cfg.Store = g, db
	if cfg.Run, err = s.ReserveRun(ctx, 0); err != nil {
		return nil, err
	}
	if v.Result, err = run.Do(ctx, cfg, x); err != nil {
		return nil, badInputErr(err)
	}
	if v.Result.Interrupted {
		return v, ErrInterrupted
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
	if v, ok := missingTargets(g, inv, objects); ok {
		vs = append(vs, v)
	}
	return vs
}

// missingTargets is the violation of edges pointing at loaded ids with no
// object, when more ids are missing than runs can have deleted (TAO keeps
// an object's associations when it deletes the object, so edges to
// deleted objects are no damage).
func missingTargets(g *graph.Graph, inv store.Inventory, objects int64) (store.Violation, bool) {
	deleted := max(g.Nodes()-objects, 0)
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
