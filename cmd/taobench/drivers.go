package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/taobench/taobench/driver"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/load"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/workload"
)

// distFlags are run's flags for splitting one run across driver processes
// (docs/distributed.md). Kept apart from cmd_run.go so the run command
// gains only a few calls.
type distFlags struct {
	driver, runID, startAt string
}

func addDistFlags(fs *flag.FlagSet) *distFlags {
	f := &distFlags{}
	fs.StringVar(&f.driver, "driver", "", "I/N: run as driver I (counting from 0, as Kubernetes' JOB_COMPLETION_INDEX) of N processes sharing one run: this one runs its share of --threads and --rate; merge their --out files with taobench merge")
	fs.StringVar(&f.runID, "run-id", "", "the id all drivers of one run share (letters, digits, . _ -); default with --driver: derived from --start-at, workload and seed")
	fs.StringVar(&f.startAt, "start-at", "", "begin the first experiment at this instant, RFC 3339 (2026-11-23T14:00:00Z: lines up hosts) or +DURATION from now (+30s: lines up only processes started together); later experiments follow on the same schedule")
	return f
}

// distRun is what the flags resolved to.
type distRun struct {
	d        driver.Driver
	runID    string    // "" when neither given nor derived
	start    time.Time // zero: start when ready
	relative bool
}

// resolve checks the flags and fills in the shared seed: drivers given no
// --seed derive it from what they share, so client k draws the same stream
// whichever driver runs it.
func (f *distFlags) resolve(cmd string, workload string, seed *uint64, seedGiven bool, now time.Time) (distRun, error) {
	r := distRun{d: driver.Single}
	var err error
	if f.driver != "" {
		if r.d, err = driver.Parse("--driver", f.driver); err != nil {
			return r, badInput("%s: %v", cmd, err)
		}
	}
	if f.runID != "" {
		if err := driver.CheckRunID("--run-id", f.runID); err != nil {
			return r, badInput("%s: %v", cmd, err)
		}
		r.runID = f.runID
	}
	if f.startAt != "" {
		if r.start, r.relative, err = driver.ParseStart("--start-at", f.startAt, now); err != nil {
			return r, badInput("%s: %v", cmd, err)
		}
	}
	if r.d.Many() && r.runID == "" && (r.start.IsZero() || r.relative) {
		return r, badInput("%s: --driver %s needs what all drivers share: --run-id ID, or --start-at as an RFC 3339 instant (a relative --start-at differs per process)", cmd, r.d)
	}
	if !seedGiven {
		switch {
		case r.runID != "":
			*seed = driver.Seed("run-id " + r.runID)
		case r.d.Many():
			*seed = driver.Seed("start " + workload + " " + r.start.UTC().Format(time.RFC3339Nano))
		}
	}
	if r.d.Many() && r.runID == "" {
		r.runID = driver.DeriveRunID(workload, r.start, *seed)
	}
	return r, nil
}

// share turns the run's experiments into this driver's: its slice of the
// clients, its share of the rate, and the shared schedule. It returns the
// first client of each experiment's slice.
func (r distRun) share(cmd string, exps []run.Experiment) ([]run.Experiment, []int, error) {
	out := make([]run.Experiment, len(exps))
	firsts := make([]int, len(exps))
	spans := make([]time.Duration, len(exps))
	for i, x := range exps {
		spans[i] = x.Warmup + x.Duration
	}
	var at []time.Time
	if !r.start.IsZero() {
		at = driver.Schedule(r.start, spans)
	}
	for i, x := range exps {
		first, n := r.d.Slice(x.Threads)
		if x.Threads < r.d.N() { // every driver, not only this one, needs a client
			return nil, nil, badInput("%s: --driver %s: experiment %d has %d threads, fewer than the %d drivers: give at least %d threads, or fewer drivers",
				cmd, r.d, i+1, x.Threads, r.d.N(), r.d.N())
		}
		y := x
		y.Threads, y.Rate = n, r.d.Rate(x.Rate, x.Threads)
		if at != nil {
			y.At = at[i]
		}
		out[i], firsts[i] = y, first
	}
	return out, firsts, nil
}

// tag records the run id and driver in the run's results.
func (r distRun) tag(info *result.Run) {
	info.RunID, info.Drivers, info.DriverIndexes = r.runID, r.d.N(), []int{r.d.Index}
}

// tagExperiment records what share of the whole experiment all the
// result holds.
func (r distRun) tagExperiment(res *result.Experiment, all run.Experiment) {
	if r.d.Many() {
		res.AllThreads, res.AllRate = all.Threads, all.Rate
	}
}

// reserve returns the run number of experiment k: shared by every driver
// of a run with an id, so the database records one run, not one per driver.
func (r distRun) reserve(ctx context.Context, db store.Database, k int) (int64, error) {
	if rk, ok := db.(store.RunKeyer); ok && r.runID != "" {
		return rk.ReserveRunKey(ctx, driver.RunKey(r.runID, k))
	}
	if r.d.Many() {
		return 0, fmt.Errorf("the database cannot share a run number between drivers")
	}
	return db.ReserveRun(ctx)
}

// describe is the opening line of a run with an id or drivers; "" for
// neither.
func (r distRun) describe(all, mine []run.Experiment, firsts []int) string {
	switch {
	case r.d.Many():
		return fmt.Sprintf("driver %s of run %s: clients %d to %d of experiment 1's %d", r.d, r.runID, firsts[0], firsts[0]+mine[0].Threads-1, all[0].Threads)
	case r.runID != "":
		return "run " + r.runID
	}
	return ""
}

// waitNote says that the driver waits for the shared start, before it does.
func (r distRun) waitNote(now time.Time, at time.Time) string {
	if at.IsZero() || !at.After(now) {
		return ""
	}
	who := "taobench"
	if r.d.Many() {
		who = "driver " + r.d.String()
	}
	return fmt.Sprintf("%s: waiting until %s (in %.1f s) for the shared start; Ctrl-C stops",
		who, at.UTC().Format(time.RFC3339Nano), at.Sub(now).Seconds())
}

// lateNote says that an experiment began after its shared start, and what
// that cut from its windows; "" when it was on time (within 50 ms, about
// what building the next experiment's clients takes).
func (r distRun) lateNote(k int, res *result.Experiment) string {
	if res.At.IsZero() || res.Late <= 50*time.Millisecond {
		return ""
	}
	who := "taobench"
	if r.d.Many() {
		who = "driver " + r.d.String()
	}
	cut := fmt.Sprintf("its warmup was %.3f s shorter", res.Late.Seconds())
	if res.Late > res.Warmup {
		cut = fmt.Sprintf("it ran no warmup and measured %.3f s of %.3f s", res.Measured.Seconds(), res.Duration.Seconds())
	}
	return fmt.Sprintf("%s: experiment %d began %.3f s after its shared start %s: %s (recorded as late_s)",
		who, k+1, res.Late.Seconds(), res.At.UTC().Format(time.RFC3339Nano), cut)
}

// loadPart reads load's --driver: which part of the graph this loader
// writes.
func loadPart(s string, drop bool) (driver.Driver, error) {
	if s == "" {
		return driver.Single, nil
	}
	d, err := driver.Parse("--driver", s)
	if err != nil {
		return d, badInput("load: %v", err)
	}
	if d.Many() && drop {
		return d, badInput("load: --drop with --driver %s would drop the rows the other loaders are writing: drop the old graph once first (a fresh database, or DROP TABLE objects, edges, taobench_meta, taobench_counter), then start every loader without --drop", d)
	}
	return d, nil
}

// loadGraphPart writes part d of g into db, saying on stderr whether the
// graph is now complete or which parts it still waits for.
func loadGraphPart(ctx context.Context, e *env, db store.Database, g *graph.Graph, w *workload.Workload, threads int, d driver.Driver) error {
	fmt.Fprintf(e.stderr, "loading part %s of workload %s's graph (%d nodes, about %d edges, in all) with %d loader(s)\n", d, w.Name, g.Nodes(), g.Edges(), threads)
	bar := newProgress(e.stderr)
	res, err := load.Load(ctx, db, g, g.Meta(w), load.Options{Threads: threads, Report: bar.report, Version: version(), Part: d.Index, Parts: d.N()})
	bar.finish()
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w: %v", errInterrupted, err)
		}
		return err
	}
	secs := res.Elapsed.Seconds()
	fmt.Fprintf(e.stderr, "loaded part %s: %d rows (%d nodes) in %.1fs: %.0f rows/s\n", d, res.Rows, res.Nodes, secs, float64(res.Rows)/max(secs, 1e-9))
	if res.Complete {
		fmt.Fprintf(e.stderr, "every part of the graph is loaded: the graph is complete\n")
	} else {
		fmt.Fprintf(e.stderr, "the graph is complete when part(s) %s are loaded too\n", res.Missing)
	}
	return nil
}

// needGraph refuses to let drivers load a graph into an empty database:
// each would load the whole graph at once. The graph is loaded first, once
// or in parts.
func (r distRun) needGraph(ctx context.Context, st store.Store, dbURL string) error {
	db, ok := st.(store.Database)
	if !ok || !r.d.Many() {
		return nil
	}
	if err := db.Setup(ctx, false); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	if _, _, err := load.Loaded(ctx, db); errors.Is(err, load.ErrNoGraph) {
		return badInput("run: --driver %s: %s holds no graph, and drivers do not load one (each would load all of it): load it first, once (taobench load) or in parts (taobench load --driver I/N), then start the drivers", r.d, store.Redact(dbURL))
	}
	return nil // other errors: runGraph reports them
}
