package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/taobench/taobench/graph"
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
	if err := parse(fs, args); err != nil {
		return err
	}
	if *edges < 1 {
		return badInput("load: --edges %d: give a positive number of edges", *edges)
	}
	if *threads < 1 || *threads > 1024 {
		return badInput("load: --load-threads %d: give 1 to 1024", *threads)
	}
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
		return fmt.Errorf("load: creating the schema in %s: %w", store.Redact(*dbURL), err)
	}
	meta, err := db.Meta(ctx)
	if err != nil {
		return fmt.Errorf("load: reading what %s holds: %w", store.Redact(*dbURL), err)
	}
	if len(meta) > 0 {
		if err := g.CheckMeta(meta); err != nil {
			return badInput("load: %s already holds a different graph: %v (add --drop to replace it)", store.Redact(*dbURL), err)
		}
		fmt.Fprintf(e.stderr, "%s already holds this graph (%d edges, seed %d, workload %s); nothing to do (add --drop to load it afresh)\n",
			store.Redact(*dbURL), *edges, *seed, w.Name)
		return nil
	}
	return loadGraph(ctx, e, db, g, *threads)
}

func cmdValidate(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	wlName := fs.String("workload", defaultWorkload, "built-in workload (taobench workloads) or a workload file")
	requests := fs.Int("requests", 1_000_000, "requests to generate")
	edges := fs.Int64("edges", defaultEdges, "size of the computed graph the requests are drawn over")
	seed := fs.Uint64("seed", defaultSeed, "seed")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *requests < 1 {
		return badInput("validate: --requests %d: give a positive number", *requests)
	}
	w, err := loadWorkload(e, *wlName)
	if err != nil {
		return err
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

func cmdCheck(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	dbURL := fs.String("db", defaultDB(), "database URL")
	if err := parse(fs, args); err != nil {
		return err
	}
	db, err := openDatabase(ctx, *dbURL, 1)
	if err != nil {
		return err
	}
	defer db.Close()
	vs, err := db.Check(ctx)
	if err != nil {
		return fmt.Errorf("check %s: %w", store.Redact(*dbURL), err)
	}
	if len(vs) == 0 {
		fmt.Fprintf(e.stdout, "%s: every invariant holds (bidirectional edges have their inverses; unique types have at most one edge per (id1, type))\n", store.Redact(*dbURL))
		return nil
	}
	for _, v := range vs {
		fmt.Fprintf(e.stdout, "VIOLATION %s: %d row(s), e.g. %s\n", v.Invariant, v.Count, v.Example)
	}
	return fmt.Errorf("check %s: %d invariant(s) violated", store.Redact(*dbURL), len(vs))
}

func cmdSchema(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("schema", flag.ContinueOnError)
	dbURL := fs.String("db", defaultDB(), "database URL (the DDL depends on the database)")
	if err := parse(fs, args); err != nil {
		return err
	}
	db, err := openDatabase(ctx, *dbURL, 1)
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
		fmt.Fprintf(e.stdout, "%-4s %s\n", b.Name, b.Description)
	}
	return nil
}
