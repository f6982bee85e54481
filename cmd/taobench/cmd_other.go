package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/taobench/taobench/fidelity"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/load"
	"github.com/taobench/taobench/report"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/validate"
	"github.com/taobench/taobench/workload"
)

func cmdLoad(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	dbURL := fs.String("db", defaultDB(), "database URL: sqlite:PATH, postgres://…, mysql://…")
	wlName := fs.String("workload", defaultWorkload, "built-in workload (taobench workloads) or a workload file")
	edges := fs.Int64("edges", defaultEdges, "graph size in edges (the original suggests 165000000)")
	seed := fs.Uint64("seed", defaultSeed, "graph seed")
	threads := fs.Int("load-threads", 2, "parallel loaders")
	drop := fs.Bool("drop", false, "drop taobench's tables first, replacing whatever graph is there")
	metricsAddr := metricsAddrFlag(fs)
	part := fs.String("driver", "", "I/N: load part I (counting from 0) of N, so N processes load one graph together (docs/distributed.md); the graph is complete when all N parts are")
	if err := parse(fs, args); err != nil {
		return err
	}
	ld, err := loadPart(*part, *drop)
	if err != nil {
		return err
	}
	if *edges < 1 {
		return badInput("load: --edges %d: give a positive number of edges", *edges)
	}
	if *threads < 1 || *threads > 1024 {
		return badInput("load: --load-threads %d: give 1 to 1024", *threads)
	}
	live, err := startLive(e, "load", *metricsAddr)
	if err != nil {
		return err
	}
	defer stopLive(e, live)
	w, err := loadWorkload(e, *wlName)
	if err != nil {
		return err
	}
	g, err := graph.New(w, *seed, *edges)
	if err != nil {
		return badInputErr(err)
	}
	db, err := openDatabase(ctx, *dbURL, *threads)
	if err != nil {
		return err
	}
	defer db.Close()
	printNotes(e, db)
	if err := db.Setup(ctx, *drop); err != nil {
		return fmt.Errorf("load: %w", err) // Setup's errors name the URL
	}
	meta, err := db.Meta(ctx)
	if err != nil {
		return fmt.Errorf("load: reading what %s holds: %w", store.Redact(*dbURL), err)
	}
	if len(meta) > 0 {
		if err := g.CheckMeta(meta); err != nil {
			return badInput("load: %s already holds a different graph: %v (add --drop to replace it)", store.Redact(*dbURL), err)
		}
		if meta[graph.MetaState] != graph.StateLoading {
			fmt.Fprintf(e.stderr, "%s already holds this graph (%d edges, seed %d, workload %s); nothing to do (add --drop to load it afresh)\n",
				store.Redact(*dbURL), *edges, *seed, w.Name)
			return nil
		}
		if !ld.Many() {
			fmt.Fprintf(e.stderr, "%s holds an interrupted load of this graph: resuming it\n", store.Redact(*dbURL))
		}
	}
	if ld.Many() {
		if err := load.CheckParts(meta, ld.N()); err != nil {
			return badInput("load: %s: %v", store.Redact(*dbURL), err)
		}
		return loadGraphPart(ctx, e, db, g, w, *threads, ld)
	}
	return loadGraph(ctx, e, db, g, w, *threads)
}

func cmdValidate(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	wlName := fs.String("workload", defaultWorkload, "built-in workload (taobench workloads) or a workload file")
	requests := fs.Int("requests", 1_000_000, "requests to generate (without --db)")
	edges := fs.Int64("edges", defaultEdges, "size of the computed graph (without --db, or to load into an empty --db)")
	seed := fs.Uint64("seed", defaultSeed, "seed (with --db: the request seed; default a new one each time, printed)")
	dbURL := fs.String("db", "", "check a database instead: what it holds and what a short run finds there")
	threads := fs.Int("threads", 4, "with --db: clients of the short run")
	warmup, duration := time.Second, 10*time.Second
	fs.Var(durationFlag{&warmup}, "warmup", "with --db: warmup of the short run")
	fs.Var(durationFlag{&duration}, "duration", "with --db: measured time of the short run")
	loadThreads := fs.Int("load-threads", 2, "with --db: loaders used when the database holds no graph")
	out := fs.String("out", "", "with --db: write the short run's results, fidelity rows included, as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *requests < 1 {
		return badInput("validate: --requests %d: give a positive number", *requests)
	}
	if _, err := workload.Builtin(*wlName); err == nil {
		// validate checks the distributions taobench applies; the fields a
		// built-in carries but does not apply are documented.
		e.notedNotApplied = true
	}
	w, err := loadWorkload(e, *wlName)
	if err != nil {
		return err
	}
	if *dbURL != "" {
		if *threads < 1 || *threads > run.MaxClients || duration <= 0 {
			return badInput("validate: --threads %d, --duration %v: give 1 to %d threads and a positive duration", *threads, duration, run.MaxClients)
		}
		outF, err := checkOut(e, *out)
		if err != nil {
			return err
		}
		if !setFlags(fs)["seed"] {
			// A second validation must not replay the first's adds.
			*seed = newSeed()
		}
		return validateDB(ctx, e, w, *dbURL, *edges, *seed, run.Experiment{Threads: *threads, Warmup: warmup, Duration: duration}, *loadThreads, outF)
	}
	g, err := graph.New(w, *seed, *edges)
	if err != nil {
		return badInputErr(err)
	}
	rows := validate.Run(w, g, *requests, *seed)
	tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "distribution\tcategories\tobserved\tchi-square\tdf\tp-value\tresult\t")
	failed := 0
	for _, r := range rows {
		verdict := "pass"
		switch {
		case r.Skipped:
			verdict = "skipped"
		case !r.Pass:
			verdict = "FAIL"
			failed++
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%d\t%.4f\t%s\t\n", r.Name, r.Categories, r.N, r.ChiSquare, r.DF, r.P, verdict)
	}
	tw.Flush()
	fmt.Fprintf(e.stdout, "%d requests of workload %s; a distribution passes when p >= %g\n", *requests, w.Name, validate.Alpha)
	if failed > 0 {
		return fmt.Errorf("validate: %d distribution(s) differ from the workload's weights", failed)
	}
	return nil
}

// validateDB checks a database against the workload: what it holds (the
// graph's inventory) and what a short run of w finds there (the fidelity
// rows), one row per figure, failing when any row fails.
func validateDB(ctx context.Context, e *env, w *workload.Workload, dbURL string, edges int64, seed uint64, x run.Experiment, loadThreads int, out *outFile) error {
	db, err := openDatabase(ctx, dbURL, x.Threads)
	if err != nil {
		return err
	}
	defer db.Close()
	printNotes(e, db)
	if err := db.Setup(ctx, false); err != nil {
		return fmt.Errorf("validate: creating the schema in %s: %w", store.Redact(dbURL), err)
	}
	g, loaded, err := load.Loaded(ctx, db)
	switch {
	case errors.Is(err, load.ErrNoGraph):
		if g, err = graph.New(w, defaultSeed, edges); err != nil {
			return badInputErr(err)
		}
		fmt.Fprintf(e.stderr, "%s holds no graph yet: loading workload %s's (%d edges)\n", store.Redact(dbURL), w.Name, edges)
		if err := loadGraph(ctx, e, db, g, w, loadThreads); err != nil {
			return err
		}
		loaded = w
	case err != nil:
		return badInput("validate: %s: %v", store.Redact(dbURL), err)
	}
	if err := g.Compatible(w, loaded.Name); err != nil {
		return badInput("validate: %s: %v", store.Redact(dbURL), err)
	}
	ins, ok := db.(store.Inspector)
	if !ok {
		return badInput("validate: %s cannot list what it holds", store.Redact(dbURL))
	}
	inv, err := ins.Inspect(ctx)
	if err != nil {
		return err
	}
	graphRows := fidelity.GraphRows(loaded, g, inv)

	runID, err := db.ReserveRun(ctx)
	if err != nil {
		return fmt.Errorf("validate: reserving a run number: %w", err)
	}
	fmt.Fprintf(e.stderr, "validate: %d clients, warmup %v, %v of workload %s on workload %s's graph (%d edges) in %s; request seed %d\n",
		x.Threads, x.Warmup, x.Duration, w.Name, loaded.Name, g.Edges(), store.Redact(dbURL), seed)
	res, err := run.Do(ctx, run.Config{Store: db, Workload: w, Graph: g, Run: runID, Seed: seed, Retries: 10}, x)
	if err != nil {
		return badInputErr(err)
	}
	if res.Interrupted {
		return errInterrupted
	}
	info := &result.Run{Database: store.Redact(dbURL), Workload: w.Name, GraphWorkload: loaded.Name, GraphSeed: g.Seed(),
		Seed: seed, Edges: g.Edges(), Retries: 10, Started: res.Started.UTC(), Version: version(), Revision: revision(), NotApplied: notApplied(w, false)}
	if err := out.write(info, []*result.Experiment{res}, true); err != nil {
		return err
	}
	rows := append(graphRows, res.Fidelity...)
	if err := report.WriteFidelity(e.stdout, rows); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "workload %s on workload %s's graph, %d requests in %.0f s; a share passes within max(%.2f, 4 standard errors) of its target, a mean within %.0f%%, a distribution when p >= %g\n",
		w.Name, loaded.Name, res.Summary.Requests(), res.Measured.Seconds(), fidelity.ShareTolerance, 100*fidelity.MeanTolerance, validate.Alpha)
	if failed := fidelity.Failed(rows); len(failed) > 0 {
		return fmt.Errorf("validate: %d figure(s) differ from their targets on %s", len(failed), store.Redact(dbURL))
	}
	return nil
}

// openRecorded opens the database of a command's --db flag and reads the
// record of the graph it holds; a database with none is bad input.
func openRecorded(ctx context.Context, name string, args []string) (store.Database, map[string]string, string, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	dbURL := fs.String("db", defaultDB(), "database URL")
	if err := parse(fs, args); err != nil {
		return nil, nil, "", err
	}
	db, err := openDatabase(ctx, *dbURL, 1)
	if err != nil {
		return nil, nil, "", err
	}
	meta, err := db.Meta(ctx)
	if err != nil || len(meta) == 0 {
		db.Close()
		return nil, nil, "", badInput("%s: %s holds no taobench graph: load one with taobench load --db URL", name, store.Redact(*dbURL))
	}
	return db, meta, *dbURL, nil
}

func cmdCheck(ctx context.Context, e *env, args []string) error {
	db, meta, dbURL, err := openRecorded(ctx, "check", args)
	if err != nil {
		return err
	}
	defer db.Close()
	vs, err := db.Check(ctx)
	if err != nil {
		return fmt.Errorf("check %s: %w", store.Redact(dbURL), err)
	}
	vs = append(vs, completeness(ctx, db, meta)...)
	if len(vs) == 0 {
		fmt.Fprintf(e.stdout, "%s: every invariant holds (the load of %s is complete with every index; bidirectional edges have their inverses; unique types have at most one edge per (id1, type))\n",
			store.Redact(dbURL), load.Describe(meta))
		return nil
	}
	half := false
	for _, v := range vs {
		fmt.Fprintf(e.stdout, "VIOLATION %s: %d row(s), e.g. %s\n", v.Invariant, v.Count, v.Example)
		half = half || v.Invariant == "bidirectional edge has its inverse" || v.Invariant == "inverse edge has its forward edge"
	}
	if half {
		fmt.Fprintln(e.stdout, "note: a run whose workload injects fail_after_primary_commit leaves exactly such rows by design: a cross-shard bidirectional write committed on its primary shard, never on the other (docs/experiments.md)")
	}
	return fmt.Errorf("check %s: %d invariant(s) violated", store.Redact(dbURL), len(vs))
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
	if runs == 0 && objects != g.Nodes() {
		return []store.Violation{{Invariant: "every loaded object exists", Count: g.Nodes() - objects,
			Example: fmt.Sprintf("%d of the graph's %d objects, and no run since the load", objects, g.Nodes())}}
	}
	return nil
}

// cmdInfo says what a database holds: the graph its load recorded and the
// runs since.
func cmdInfo(ctx context.Context, e *env, args []string) error {
	db, meta, dbURL, err := openRecorded(ctx, "info", args)
	if err != nil {
		return err
	}
	defer db.Close()
	tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "database\t%s\n", store.Redact(dbURL))
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
	if ins, ok := db.(store.Inspector); ok {
		if runs, err := ins.Runs(ctx); err == nil {
			fmt.Fprintf(tw, "run numbers reserved\t%d (one per experiment)\n", runs)
		}
	}
	return tw.Flush()
}

func cmdSchema(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("schema", flag.ContinueOnError)
	dbURL := fs.String("db", defaultDB(), "database URL (the DDL depends on the database)")
	if err := parse(fs, args); err != nil {
		return err
	}
	// The DDL needs no connection where the store can tell it without one:
	// an SQLite file is then neither opened nor created.
	db, err := openDatabaseOpts(ctx, *dbURL, store.Options{Clients: 1, SchemaOnly: true})
	if err != nil {
		return err
	}
	defer db.Close()
	for _, s := range db.Schema() {
		fmt.Fprintf(e.stdout, "%s;\n", strings.TrimRight(s, "; \n"))
	}
	return nil
}

func cmdWorkloads(e *env, args []string) error {
	fs := flag.NewFlagSet("workloads", flag.ContinueOnError)
	if err := parse(fs, args); err != nil {
		return err
	}
	for _, b := range workload.Builtins() {
		fmt.Fprintf(e.stdout, "%-10s %s\n", b.Name, b.Description)
	}
	return nil
}
