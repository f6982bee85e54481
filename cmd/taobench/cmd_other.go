package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/taobench/taobench/outfile"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/workload"
)

func cmdLoad(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	var (
		db dbSpec
		gr graphSpec
	)
	db.registerMany(fs, defaultDB(), dbHelp)
	gr.register(fs, true, defaultEdges, "graph size in edges (the original suggests 165000000)")
	seed := fs.Uint64("seed", defaultSeed, "graph seed")
	drop := fs.Bool("drop", false, "drop taobench's tables first, replacing whatever graph is there")
	metricsAddr := fs.String("metrics-addr", "", metricsAddrHelp)
	part := fs.String("driver", "", "I/N: load part I (counting from 0) of N, so N processes load one graph together (docs/distributed.md); the graph is complete when all N parts are")
	if err := parse(fs, args); err != nil {
		return err
	}
	ld, err := parseLoadPart(*part)
	if err != nil {
		return err
	}
	if err := gr.check("load", fs); err != nil {
		return err
	}
	w, err := loadWorkload(e, gr.workload, false)
	if err != nil {
		return err
	}
	spec := session.LoadSpec{Workload: w, Seed: *seed, Edges: gr.edges, Threads: gr.loadThreads, Drop: *drop, Part: ld, Started: e.launched}
	// Refused before the open, which would create a new SQLite file.
	if err := spec.Check("load"); err != nil {
		return err
	}
	s, err := openSession(ctx, e, &db, *metricsAddr, session.Options{Name: "load", Clients: gr.loadThreads})
	if err != nil {
		return err
	}
	defer s.Close()
	return s.Load(ctx, spec)
}

func cmdValidate(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	var (
		db   dbSpec
		gr   graphSpec
		rs   runSpec
		outs outSpec
	)
	db.register(fs, "", "check a database instead: what it holds and what a short run finds there")
	gr.register(fs, true, defaultEdges, "size of the computed graph (without --db, or to load into an empty --db)")
	rs.register(fs, runDefaults{threads: 4, warmup: time.Second, duration: 10 * time.Second, drain: 10 * time.Second, procs: true,
		threadsHelp: "with --db: clients of the short run",
		seedHelp:    "seed (without --db: default 1; with --db: the request seed, default a new one each time, printed)"})
	outs.register(fs, "with --db: write the short run's results, fidelity rows included, as JSON")
	requests := fs.Int("requests", 1_000_000, "requests to generate (without --db)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *requests < 1 {
		return badInput("validate: --requests %d: give a positive number", *requests)
	}
	// With --db, a second validation must not replay the first's adds: a
	// new seed each time unless given.
	if err := errors.Join(gr.check("validate", fs), rs.check("validate", fs, db.URL != "")); err != nil {
		return err
	}
	if !rs.seedGiven && db.URL == "" {
		rs.seed = defaultSeed
	}
	var w *workload.Workload
	var err error
	if w, err = workload.Builtin(gr.workload); err != nil {
		// validate checks the distributions taobench applies; the fields a
		// built-in carries but does not apply are documented, a file's are
		// noted.
		if w, err = loadWorkload(e, gr.workload, false); err != nil {
			return err
		}
	}
	if db.URL != "" {
		outF, err := outs.open(e, "validate", fs)
		if err != nil {
			return err
		}
		e.sizeProcs(rs.procs, rs.threads)
		cfg := run.Config{Workload: w, Seed: rs.seed, Retries: rs.retries, Drain: rs.drain, Status: store.RedactWriter{W: e.stderr, Args: args}}
		return validateDB(ctx, e, db.URL, outs.metricsAddr, gr, cfg, rs.experiment(0), outF)
	}
	rows, err := session.CheckGenerator(w, gr.edges, *requests, rs.seed)
	if err != nil {
		return err
	}
	return writeGencheck(e.stdout, w, *requests, rows)
}

// validateDB checks a database against the workload (session.Validate),
// one row per figure, failing when any row fails.
func validateDB(ctx context.Context, e *env, dbURL, metricsAddr string, gr graphSpec, cfg run.Config, x run.Experiment, out *outfile.Results) error {
	if err := gr.of().Check(cfg.Workload); err != nil {
		return err
	}
	s, err := openSession(ctx, e, &dbSpec{URL: dbURL}, metricsAddr, session.Options{Name: "validate", Clients: x.Threads})
	if err != nil {
		return err
	}
	defer closeSession(e, s)
	v, err := s.Validate(ctx, gr.of(), cfg, x)
	if err != nil {
		return err
	}
	if err := out.WriteRun(v.Info, []*result.Experiment{v.Result}, true); err != nil {
		return err
	}
	return writeValidation(e.stdout, v, "validate")
}

// openRecorded opens the database of a command's --db flag and reads the
// record of the graph it holds; a database with none is bad input.
func openRecorded(ctx context.Context, e *env, name string, args []string) (*session.Session, map[string]string, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	var db dbSpec
	db.register(fs, defaultDB(), "database `URL`")
	if err := parse(fs, args); err != nil {
		return nil, nil, err
	}
	return session.OpenRecorded(ctx, db.URL, session.Options{Name: name, Clients: 1})
}

func cmdCheck(ctx context.Context, e *env, args []string) error {
	s, meta, err := openRecorded(ctx, e, "check", args)
	if err != nil {
		return err
	}
	defer s.Close()
	vs, err := s.Check(ctx, meta)
	if err != nil {
		return err
	}
	return writeCheck(e.stdout, s.Name(), meta, vs)
}

// cmdInfo says what a database holds: the graph its load recorded and the
// runs since.
func cmdInfo(ctx context.Context, e *env, args []string) error {
	s, meta, err := openRecorded(ctx, e, "info", args)
	if err != nil {
		return err
	}
	defer s.Close()
	return writeInfo(ctx, e.stdout, s, meta)
}

func cmdSchema(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("schema", flag.ContinueOnError)
	var db dbSpec
	db.register(fs, defaultDB(), "database `URL` (the DDL depends on the database)")
	if err := parse(fs, args); err != nil {
		return err
	}
	ddl, err := session.Schema(ctx, db.URL)
	if err != nil {
		return err
	}
	for _, s := range ddl {
		fmt.Fprintf(e.stdout, "%s;\n", strings.TrimRight(s, "; \n"))
	}
	return nil
}

func cmdWorkloads(_ context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("workloads", flag.ContinueOnError)
	if err := parse(fs, args); err != nil {
		return err
	}
	for _, b := range workload.Builtins() {
		fmt.Fprintf(e.stdout, "%-10s %s\n", b.Name, b.Description)
	}
	return nil
}
