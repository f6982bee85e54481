package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/report"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/store"
)

func cmdRun(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	dbURL := fs.String("db", defaultDB(), "database URL: sqlite:PATH, postgres://…, mysql://…, or null (no database)")
	wlName := fs.String("workload", defaultWorkload, "built-in workload (taobench workloads) or a workload file")
	edges := fs.Int64("edges", defaultEdges, "graph size in edges: loaded when the database holds no graph; the size used with --db null")
	seed := fs.Uint64("seed", defaultSeed, "graph and request seed")
	threads := fs.Int("threads", 8, "concurrent clients (closed loop)")
	warmup, duration := 2*time.Second, 10*time.Second
	fs.Var(durationFlag{&warmup}, "warmup", "warmup, excluded from results (seconds or Go syntax: 10, 30s, 2m)")
	fs.Var(durationFlag{&duration}, "duration", "measured time after warmup (seconds or Go syntax)")
	expFile := fs.String("experiments", "", "file of experiments, one threads,warmup,duration per line (overrides --threads/--warmup/--duration)")
	out := fs.String("out", "", "write the results as JSON to this file (rewritten after each experiment)")
	retries := fs.Int("retries", 10, "times a request that hit a conflict is retried (0: fail fast)")
	loadThreads := fs.Int("load-threads", 2, "loaders used when the graph must be loaded first")
	if err := parse(fs, args); err != nil {
		return err
	}
	given := setFlags(fs)
	if *retries < 0 {
		return badInput("run: --retries %d: give 0 or more", *retries)
	}
	if *edges < 1 {
		return badInput("run: --edges %d: give a positive number of edges", *edges)
	}

	exps := []run.Experiment{{Threads: *threads, Warmup: warmup, Duration: duration}}
	if *expFile != "" {
		f, err := os.Open(*expFile)
		if err != nil {
			return badInput("run: --experiments: %v", err)
		}
		exps, err = run.ParseExperiments(f, *expFile)
		f.Close()
		if err != nil {
			return badInputErr(err)
		}
	} else if *threads < 1 || *threads > run.MaxClients {
		return badInput("run: --threads %d: give 1 to %d", *threads, run.MaxClients)
	} else if duration <= 0 {
		return badInput("run: --duration must be positive")
	}
	maxThreads := 0
	for _, x := range exps {
		maxThreads = max(maxThreads, x.Threads)
	}

	w, err := loadWorkload(e, *wlName)
	if err != nil {
		return err
	}
	st, err := openStore(ctx, *dbURL, maxThreads)
	if err != nil {
		return err
	}
	defer st.Close()
	printNotes(e, st)

	// A database holds one graph; the run must use the same. With no
	// database (null) the graph is whatever --edges and --seed say.
	var g *graph.Graph
	var runID int64
	if db, ok := st.(store.Database); ok {
		if err := db.Setup(ctx, false); err != nil {
			return fmt.Errorf("run: creating the schema in %s: %w", store.Redact(*dbURL), err)
		}
		meta, err := db.Meta(ctx)
		if err != nil {
			return fmt.Errorf("run: reading what %s holds: %w", store.Redact(*dbURL), err)
		}
		if len(meta) == 0 {
			if g, err = graph.New(w, *seed, *edges); err != nil {
				return badInputErr(err)
			}
			fmt.Fprintf(e.stderr, "%s holds no graph yet: loading one (%d edges, seed %d)\n", store.Redact(*dbURL), *edges, *seed)
			if err := loadGraph(ctx, e, db, g, *loadThreads); err != nil {
				return err
			}
		} else {
			e2, s2 := *edges, *seed
			if !given["edges"] {
				if e2, err = strconv.ParseInt(meta["edges"], 10, 64); err != nil {
					return fmt.Errorf("run: %s records an unreadable graph size %q; load it again with taobench load --drop", store.Redact(*dbURL), meta["edges"])
				}
			}
			if !given["seed"] {
				if s2, err = parseUint(meta["seed"]); err != nil {
					return fmt.Errorf("run: %s records an unreadable seed %q; load it again with taobench load --drop", store.Redact(*dbURL), meta["seed"])
				}
			}
			if g, err = graph.New(w, s2, e2); err != nil {
				return badInputErr(err)
			}
			if err := g.CheckMeta(meta); err != nil {
				return badInput("run: %s: %v", store.Redact(*dbURL), err)
			}
			*seed = s2 // the graph's seed also seeds the requests and is reported
		}
		if runID, err = db.ReserveRun(ctx); err != nil {
			return fmt.Errorf("run: reserving a run number: %w", err)
		}
	} else if g, err = graph.New(w, *seed, *edges); err != nil {
		return badInputErr(err)
	}

	info := &report.Run{
		Database:   store.Redact(*dbURL),
		Workload:   w.Name,
		Seed:       *seed,
		Edges:      g.Edges(),
		Retries:    *retries,
		Started:    time.Now().UTC(),
		Version:    version(),
		NotApplied: w.NotApplied,
	}
	cfg := run.Config{
		Store:    st,
		Workload: w,
		Graph:    g,
		Run:      runID,
		Seed:     *seed,
		Retries:  *retries,
		Status:   redactWriter{e.stderr, args},
	}
	var done []*report.Experiment
	for i, x := range exps {
		fmt.Fprintf(e.stderr, "experiment %d of %d: %d threads, warmup %v, duration %v, workload %s on %s\n",
			i+1, len(exps), x.Threads, x.Warmup, x.Duration, w.Name, store.Redact(*dbURL))
		res, err := run.Do(ctx, cfg, x)
		if err != nil {
			return badInputErr(err)
		}
		done = append(done, res)
		if i == 0 {
			fmt.Fprintf(e.stderr, "first request issued %.3f s after taobench started\n",
				res.Started.Add(res.FirstRequest).Sub(e.launched).Seconds())
		}
		if err := report.WriteText(e.stdout, res); err != nil {
			return err
		}
		if *out != "" {
			if err := writeJSON(*out, info, done); err != nil {
				return err
			}
		}
		if res.Interrupted || ctx.Err() != nil {
			if *out != "" {
				fmt.Fprintf(e.stderr, "interrupted: results so far written to %s\n", *out)
			}
			return errInterrupted
		}
	}
	if *out != "" {
		fmt.Fprintf(e.stderr, "results written to %s\n", *out)
	}
	return nil
}

// redactWriter masks the passwords of the URLs among args in what it
// writes: status lines may quote a driver's error.
type redactWriter struct {
	w    io.Writer
	args []string
}

func (r redactWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(r.w, redactArgs(string(p), r.args)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// writeJSON replaces path atomically, so an interrupted write never leaves a
// truncated result file behind.
func writeJSON(path string, info *report.Run, exps []*report.Experiment) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".taobench-*.json")
	if err != nil {
		return fmt.Errorf("--out %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := report.WriteJSON(tmp, info, exps); err != nil {
		tmp.Close()
		return fmt.Errorf("--out %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("--out %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("--out %s: %w", path, err)
	}
	return nil
}

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "devel"
}
