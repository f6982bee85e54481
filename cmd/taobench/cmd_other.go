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
	"github.com/taobench/taobench/session"
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
	ld, err := loadPart(*part)
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
	w, err := loadWorkload(e, *wlName, false)
	if err != nil {
		return err
	}
	s, err := openSession(ctx, e, "load", *dbURL, *threads, session.Split{}, &cliSink{e: e})
	if err != nil {
		return err
	}
	defer s.Close()
	return s.Load(ctx, session.LoadSpec{Workload: w, Seed: *seed, Edges: *edges, Threads: *threads, Drop: *drop, Part: ld})
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
	retries := fs.Int("retries", 10, "with --db: times a request that hit a conflict is retried (0: fail fast)")
	drain := 10 * time.Second
	fs.Var(durationFlag{&drain}, "drain", "with --db: time requests still running at the end may take before they count as timeouts")
	metricsAddr := metricsAddrFlag(fs)
	procs := fs.Int("procs", 0, "with --db: Go scheduler threads (GOMAXPROCS); 0: sized to the clients, unless GOMAXPROCS is set")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *requests < 1 {
		return badInput("validate: --requests %d: give a positive number", *requests)
	}
	var w *workload.Workload
	var err error
	if w, err = workload.Builtin(*wlName); err != nil {
		// validate checks the distributions taobench applies; the fields a
		// built-in carries but does not apply are documented, a file's are
		// noted.
		if w, err = loadWorkload(e, *wlName, false); err != nil {
			return err
		}
	}
	if *dbURL != "" {
		if *threads < 1 || *threads > run.MaxClients || duration <= 0 {
			return badInput("validate: --threads %d, --duration %v: give 1 to %d threads and a positive duration", *threads, duration, run.MaxClients)
		}
		if *retries < 0 || drain <= 0 || *procs < 0 || *loadThreads < 1 || *loadThreads > 1024 {
			return badInput("validate: --retries (0 or more), --drain (positive), --procs (0 or more) or --load-threads (1 to 1024) out of range")
		}
		outF, err := checkOut(e, *out)
		if err != nil {
			return err
		}
		if !setFlags(fs)["seed"] {
			// A second validation must not replay the first's adds.
			*seed = newSeed()
		}
		e.sizeProcs(*procs, *threads)
		live, err := startLive(e, "validate", *metricsAddr)
		if err != nil {
			return err
		}
		defer stopLive(e, live)
		cfg := run.Config{Workload: w, Seed: *seed, Retries: *retries, Drain: drain, Status: redactWriter{e.stderr, args}, Live: e.liveRuns()}
		return validateDB(ctx, e, *dbURL, *edges, cfg, run.Experiment{Threads: *threads, Warmup: warmup, Duration: duration}, *loadThreads, outF)
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
// graph's inventory) and what a short run of cfg.Workload finds there (the
// fidelity rows), one row per figure, failing when any row fails.
func validateDB(ctx context.Context, e *env, dbURL string, edges int64, cfg run.Config, x run.Experiment, loadThreads int, out *outFile) error {
	w, seed := cfg.Workload, cfg.Seed
	s, err := openSession(ctx, e, "validate", dbURL, x.Threads, session.Split{}, &cliSink{e: e})
	if err != nil {
		return err
	}
	defer closeSession(e, s)
	db, ok := s.Database()
	if !ok {
		return badInput("%s keeps no data; give a database URL (sqlite:PATH, postgres://..., mysql://...)", s.Name())
	}
	g, loaded, err := s.Graph(ctx, session.GraphSpec{Workload: w, Edges: edges, LoadThreads: loadThreads})
	if err != nil {
		return err
	}
	graphOf := loaded.Name
	ins, ok := db.(store.Inspector)
	if !ok {
		return badInput("validate: %s cannot list what it holds", s.Name())
	}
	inv, err := ins.Inspect(ctx)
	if err != nil {
		return err
	}
	graphRows := fidelity.GraphRows(loaded, g, inv)

	fmt.Fprintf(e.stderr, "validate: %d clients, warmup %v, %v of workload %s on workload %s's graph (%d edges) in %s; request seed %d\n",
		x.Threads, x.Warmup, x.Duration, w.Name, graphOf, g.Edges(), s.Name(), seed)
	info := s.RunInfo(session.Meta{Workloads: []*workload.Workload{w}, GraphOf: graphOf, Graph: g, Seed: seed, Retries: cfg.Retries})
	cfg.Graph = g
	// One experiment of seed itself (not ExperimentSeed(seed, 0)): --seed
	// repeats the requests of earlier versions.
	if cfg.Run, err = s.ReserveRun(ctx, 0); err != nil {
		return err
	}
	cfg.Store = db
	res, err := run.Do(ctx, cfg, x)
	if err != nil {
		return badInputErr(err)
	}
	if res.Interrupted {
		return errInterrupted
	}
	info.Started = res.Started.UTC()
	if err := out.write(info, []*result.Experiment{res}, true); err != nil {
		return err
	}
	rows := append(graphRows, res.Fidelity...)
	if err := report.WriteFidelity(e.stdout, rows); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "workload %s on workload %s's graph, %d requests in %.0f s; a share passes within max(%.2f, 4 standard errors) of its target, a mean within %.0f%%, a distribution when p >= %g\n",
		w.Name, graphOf, res.Summary.Requests(), res.Measured.Seconds(), fidelity.ShareTolerance, 100*fidelity.MeanTolerance, validate.Alpha)
	if failed := fidelity.Failed(rows); len(failed) > 0 {
		return fmt.Errorf("validate: %d figure(s) differ from their targets on %s", len(failed), s.Name())
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
