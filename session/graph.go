package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/taobench/taobench/bulkload"
	"github.com/taobench/taobench/fleet"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/workload"
)

// GraphSeed is the seed of a graph loaded because a database held none.
const GraphSeed = 1

// GraphSpec sizes the graph a run needs; the run's workload (Graph's w,
// Prepare's run.Config.Workload) says which: a database with no graph gets
// its graph of Edges edges (so does a store that keeps no data), and the
// graph found must suit it.
type GraphSpec struct {
	// Also are more workloads the graph must suit (a ladder's steps).
	Also []*workload.Workload
	// Edges sizes the graph to load; with EdgesGiven, a graph found must
	// have as many.
	Edges      int64
	EdgesGiven bool
	// LoadThreads loaders load it (0: 2).
	LoadThreads int
}

// Check refuses, before the database is opened, a graph spec Graph would
// refuse only after opening it (a new SQLite file would be left behind):
// Edges given (EdgesGiven) that workload w's graph cannot be sized to.
// Without EdgesGiven the database's graph may be used whatever Edges
// would give, so nothing is checked.
func (spec GraphSpec) Check(w *workload.Workload) error {
	if !spec.EdgesGiven || w == nil {
		return nil
	}
	if _, err := graph.New(w, GraphSeed, spec.Edges); err != nil {
		return badInputErr(err)
	}
	return nil
}

// Graph returns the graph the session's database holds and the workload it
// was loaded with, loading workload w's graph, sized by spec, first when
// it holds none. A database holds one graph, loaded once; a run takes its
// request mix from its own workload, w, which the graph must suit. A store
// that keeps no data (null) gets w's graph, computed. Drivers of a split
// run (Options.Split) never load: each would load all of it.
func (s *Session) Graph(ctx context.Context, w *workload.Workload, spec GraphSpec) (*graph.Graph, *workload.Workload, error) {
	n := s.opts.Name
	db, ok := s.Database()
	if !ok {
		g, err := graph.New(w, GraphSeed, spec.Edges)
		if err != nil {
			return nil, nil, badInputErr(err)
		}
		return g, w, nil
	}
	if !s.opts.ReadOnly {
		if err := db.Setup(ctx, false); err != nil {
			return nil, nil, setupErr(n, err)
		}
	}
	g, loaded, err := bulkload.Loaded(ctx, db)
	graphOf := w
	switch {
	case errors.Is(err, store.ErrForeignSchema):
		return nil, nil, setupErr(n, err)
	case s.opts.ReadOnly && err != nil:
		return nil, nil, badInput("%s: replica %s: %v: load the graph on the primary (Session.Load) and let the replica replay it", n, s.url, err)
	case errors.Is(err, bulkload.ErrNoGraph):
		if d := s.opts.Split.Driver; d.Many() {
			return nil, nil, badInput("%s: Options.Split.Driver %s: %s holds no graph, and drivers do not load one (each would load all of it): load it first (Session.Load), once or in parts (LoadSpec.Part I/N), then start the drivers", n, d, s.url)
		}
		if g, err = graph.New(w, GraphSeed, spec.Edges); err != nil {
			return nil, nil, badInputErr(err)
		}
		s.sink.Note(fmt.Sprintf("%s holds no graph yet: loading workload %s's (%d edges, graph seed %d)", s.url, w.Name, spec.Edges, GraphSeed))
		if err := s.LoadGraph(ctx, g, w, spec.LoadThreads, fleet.Single, time.Time{}); err != nil {
			return nil, nil, err
		}
	case err != nil:
		return nil, nil, badInput("%s: %s: %v", n, s.url, err)
	default:
		graphOf = loaded
		if spec.EdgesGiven && spec.Edges != g.Edges() {
			return nil, nil, badInput("%s: %s holds workload %s's graph of %d edges, not %d: drop GraphSpec.Edges, or load another of that size (Session.Load with LoadSpec.Drop)", n, s.url, loaded.Name, g.Edges(), spec.Edges)
		}
	}
	for _, x := range append([]*workload.Workload{w}, spec.Also...) {
		if err := g.Compatible(x, graphOf.Name); err != nil {
			return nil, nil, badInput("%s: %s: %v", n, s.url, err)
		}
	}
	if err := s.sameGraphEverywhere(ctx); err != nil {
		return nil, nil, err
	}
	return g, graphOf, nil
}

// LoadGraph writes g, or part d of it, into the session's database,
// reporting progress to the sink; the time and rate it reports run from
// started (zero: from the load's own start).
func (s *Session) LoadGraph(ctx context.Context, g *graph.Graph, w *workload.Workload, threads int, d fleet.Driver, started time.Time) error {
	db, err := s.needDatabase()
	if err != nil {
		return err
	}
	if threads < 1 {
		threads = 2
	}
	if d.Many() {
		s.sink.Note(fmt.Sprintf("loading part %s of workload %s's graph (%d nodes, about %d edges, in all) with %d loader(s)", d, w.Name, g.Nodes(), g.Edges(), threads))
	} else {
		s.sink.Note(fmt.Sprintf("loading %d nodes (about %d edges) of workload %s's graph with %d loader(s)", g.Nodes(), g.Edges(), w.Name, threads))
	}
	res, err := bulkload.Load(ctx, db, g, g.Meta(w), bulkload.Options{Threads: threads, Report: s.sink.LoadProgress, Version: s.opts.Version, Part: d.Index, Parts: d.N(), Started: started,
		Via: s.loaders(threads), Ready: s.sameGraphEverywhere})
	s.sink.LoadEnded()
	if err != nil {
		return interrupted(ctx, err)
	}
	secs := res.Elapsed.Seconds()
	rate := float64(res.Rows) / max(secs, 1e-9)
	if !d.Many() {
		// By wall clock from the command's start to a usable graph:
		// connecting, the schema and the index builds are part of the
		// wait, so part of the rate.
		s.sink.Note(fmt.Sprintf("loaded %d rows (%d nodes) in %.1fs (start and writing %.1fs, indexes and statistics %.1fs): %.0f rows/s",
			res.Rows, res.Nodes, secs, (res.Elapsed - res.Index).Seconds(), res.Index.Seconds(), rate))
		return nil
	}
	s.sink.Note(fmt.Sprintf("loaded part %s: %d rows (%d nodes) in %.1fs: %.0f rows/s", d, res.Rows, res.Nodes, secs, rate))
	if res.Complete {
		s.sink.Note("every part of the graph is loaded: the graph is complete")
	} else {
		s.sink.Note(fmt.Sprintf("the graph is complete when part(s) %s are loaded too", res.Missing))
	}
	return nil
}

// LoadSpec is what Load loads.
type LoadSpec struct {
	Workload *workload.Workload
	Seed     uint64
	Edges    int64
	Threads  int
	// Drop replaces whatever graph the database holds.
	Drop bool
	// Part is the part this loader writes; fleet.Single: all of it.
	Part fleet.Driver
	// Started is when the load command started: the time and rate it
	// prints run from it, by wall clock (zero: from the load's start).
	Started time.Time
}

// Check refuses spec as Load would, before the database is opened, so a
// refused load leaves nothing behind (no new SQLite file): command name n.
func (spec LoadSpec) Check(n string) error {
	_, err := spec.graph(n)
	return err
}

// graph is the graph spec loads, or why it cannot be loaded.
func (spec LoadSpec) graph(n string) (*graph.Graph, error) {
	if spec.Part.Many() && spec.Drop {
		return nil, badInput("%s: LoadSpec.Drop with LoadSpec.Part %s would drop the rows the other loaders are writing: drop the old graph once first (a fresh database, or DROP TABLE objects, edges, taobench_meta, taobench_counter), then start every loader without LoadSpec.Drop", n, spec.Part)
	}
	g, err := graph.New(spec.Workload, spec.Seed, spec.Edges)
	if err != nil {
		return nil, badInputErr(err)
	}
	return g, nil
}

// Load loads the graph of spec into the session's database: nothing when
// it holds it already, the rest of an interrupted load, or one part of a
// graph several loaders load together.
func (s *Session) Load(ctx context.Context, spec LoadSpec) error {
	n := s.opts.Name
	if spec.Part.N() == 0 {
		spec.Part = fleet.Single
	}
	g, err := spec.graph(n)
	if err != nil {
		return err
	}
	db, err := s.needDatabase()
	if err != nil {
		return err
	}
	if err := db.Setup(ctx, spec.Drop); err != nil {
		return setupErr(n, err)
	}
	meta, err := db.Meta(ctx)
	if err != nil {
		return setupErr(n, fmt.Errorf("reading what %s holds: %w", s.url, err))
	}
	if len(meta) > 0 {
		if err := g.CheckMeta(meta); err != nil {
			return badInput("%s: %s already holds a different graph: %v (add LoadSpec.Drop to replace it)", n, s.url, err)
		}
		if meta[graph.MetaState] != graph.StateLoading {
			s.sink.Note(fmt.Sprintf("%s already holds this graph (%d edges, seed %d, workload %s); nothing to do (add LoadSpec.Drop to load it afresh)", s.url, spec.Edges, spec.Seed, spec.Workload.Name))
			return nil
		}
		if !spec.Part.Many() {
			s.sink.Note(fmt.Sprintf("%s holds an interrupted load of this graph: resuming it", s.url))
		}
	}
	if spec.Part.Many() {
		if err := bulkload.CheckParts(meta, spec.Part.N()); err != nil {
			return badInput("%s: %s: %v", n, s.url, err)
		}
	}
	return s.LoadGraph(ctx, g, spec.Workload, spec.Threads, spec.Part, spec.Started)
}

// setupErr is a failed Setup's error for the command named n (Setup's
// errors name the URL). A read-only server is the wrong target, as an
// unreachable one is, and so is a database whose tables are not
// taobench's: bad input, not a failed run.
func setupErr(n string, err error) error {
	err = fmt.Errorf("%s: %w", n, err)
	if errors.Is(err, store.ErrReadOnly) || errors.Is(err, store.ErrForeignSchema) {
		return badInputErr(err)
	}
	return err
}
