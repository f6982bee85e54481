package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/taobench/taobench/internal/flagx"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/textreport"
)

func cmdRun(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var (
		db   dbSpec
		gr   graphSpec
		rs   runSpec
		ol   openLoopSpec
		outs outSpec
		dist splitSpec
		ts   session.TierSpec
		rp   repeatSpec
		proc = runDefaults{threads: 8, warmup: 2 * time.Second, duration: 10 * time.Second, drain: 10 * time.Second, procs: true,
			threadsHelp: "concurrent clients; with --rate, the most requests in flight at once (too few: requests queue, and the report says the rate was not reached)",
			seedHelp:    "request seed (default: a new one each run, printed); the graph's seed is the database's"}
	)
	db.registerMany(fs, defaultDB(), dbHelp+", or null (no database)")
	gr.register(fs, true, defaultEdges, "graph size in edges: loaded when the database holds no graph; the size used with --db null")
	rs.register(fs, proc)
	ol.register(fs, true, "target rate in requests per second across all clients (open loop; latency counts from each request's intended start); 0: closed loop")
	outs.register(fs, "write the results as JSON to this file (rewritten after each experiment; a device such as /dev/stdout gets one document at the end)")
	registerSplit(fs, &dist)
	registerTiers(fs, &ts)
	rp.register(fs, "the experiments")
	inject := fs.Bool("inject-latency", false, "before each request, sleep a client-side delay drawn from the workload's read_operation_latency, write_operation_latency or write_txn_latency (emulated cross-region round trips; included in latency, reported as injected_us)")
	expFile := fs.String("experiments", "", "file of experiments, one threads,warmup,duration[,rate] per line (overrides --threads/--warmup/--duration; --rate applies to lines without a rate)")
	format := fs.String("format", "text", "formats written to standard output, comma-separated: text (per experiment, as it ends), json (one document when the run ends), e.g. text,json")
	hdrLog := fs.String("hdr-log", "", "write the per-second latency histograms as an HdrHistogram interval log to this file (tags: the classes), for HdrHistogram's HistogramLogProcessor")
	maxLost := 1.0
	fs.Var(flagx.Percent{P: &maxLost}, "max-error-rate", "exit with status 3 when an experiment loses more than this percentage of its requests to errors and timeouts")
	maxStall := time.Second
	fs.Var(durationFlag{&maxStall}, "max-stall", "exit with status 3 when an experiment's measured window holds a stretch longer than this (measured to 0.1 s) in which requests were due and the database answered none")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := errors.Join(gr.check("run", fs), rs.check("run", fs, *expFile == ""), ol.check("run", fs, *expFile != ""), checkTiers("run", ts), rp.check("run", ts)); err != nil {
		return err
	}
	exps := []run.Experiment{rs.experiment(ol.rate)}
	if *expFile != "" {
		var err error
		if exps, err = readExperiments(*expFile, ol.rate); err != nil {
			return err
		}
	}
	split, seed, err := dist.resolve("run", gr.workload, rs.seed, rs.seedGiven, exps, time.Now())
	if err != nil {
		return err
	}
	mine, firsts, err := split.Share("run", exps)
	if err != nil {
		return badInputErr(err)
	}
	if rp.n > 1 && (split.RunID != "" || split.Driver.Many() || !split.Start.IsZero()) {
		return badInput("run: --repeat with --run-id, --driver or --start-at: the drivers of one run share its run numbers and its schedule, which a repeat would replay late; run each repeat as a run of its own, with its own --run-id and --start-at")
	}
	maxThreads := 0
	for _, x := range mine {
		maxThreads = max(maxThreads, x.Threads)
	}
	e.sizeProcs(rs.procs, maxThreads)

	reporters, err := textreport.ParseFormats("run: --format", *format)
	if err != nil {
		return badInputErr(err)
	}
	outF, err := outs.open(e, "run", fs)
	if err != nil {
		return err
	}
	for _, r := range reporters {
		if r.Run != nil && outF.Stream() == e.stdout {
			return badInput("run: --format %s and --out %s both write the document to standard output; drop one", r.Name, outs.path)
		}
	}
	logF, err := checkOutAs(e, "run: --hdr-log", *hdrLog)
	if err != nil {
		return err
	}
	w, err := loadWorkload(e, gr.workload, *inject)
	if err != nil {
		return err
	}
	var info *result.Run
	// Experiments of earlier repeats, and this one's number (from 0): the
	// session reports one repeat's experiments at a time.
	var before []*result.Experiment
	repeat := 0
	textOut := false
	for _, r := range reporters {
		textOut = textOut || r.Name == "text"
	}
	sink := e.sink(func(i, n int, _ string, x run.Experiment) {
		of := ""
		if rp.n > 1 {
			of = fmt.Sprintf(" (repeat %d of %d)", repeat+1, rp.n)
		}
		fmt.Fprintf(e.stderr, "experiment %d of %d%s: %d threads, warmup %v, duration %v%s, workload %s on %s\n",
			i+1, n, of, x.Threads, x.Warmup, x.Duration, rateNote(x.Rate, ol.arrival), w.Name, store.Redact(db.URL))
	}, func(cur []*result.Experiment, final bool) error {
		if rp.n > 1 {
			cur[len(cur)-1].Repeat = repeat + 1
		}
		done := append(before[:len(before):len(before)], cur...)
		// The session's final is this repeat's last experiment or a stop;
		// the run's, the last repeat's or a stop.
		last := cur[len(cur)-1]
		final = final && (repeat == rp.n-1 || last.Interrupted || ctx.Err() != nil)
		if len(done) == 1 {
			res := done[0]
			fmt.Fprintf(e.stderr, "first request issued %.3f s after taobench started\n",
				res.Started.Add(res.FirstRequest).Sub(e.launched).Seconds())
		}
		if err := textreport.WriteReports(e.stdout, reporters, info, done, final); err != nil {
			return err
		}
		if err := outF.WriteRun(info, done, final); err != nil {
			return err
		}
		if final && textOut && rp.n > 1 {
			if err := textreport.WriteRepeats(e.stdout, done, runLabels(exps, ol.arrival)); err != nil {
				return err
			}
		}
		return logF.WriteMeasured(func(w io.Writer) error { return textreport.WriteHDRLog(w, done) }, done, final)
	})
	alone, err := ts.Alone(flagx.Given(fs)["db"], w)
	if err != nil {
		return fmt.Errorf("run: %w (the primary: --db)", err)
	}
	if alone {
		db.URL = ts.Replicas[0]
	}
	if err := gr.of().Check(w); err != nil {
		return err
	}
	s, err := openSession(ctx, e, &db, outs.metricsAddr, session.Options{Name: "run", Clients: maxThreads, Split: split, Sink: sink, ReadOnly: alone, Tiers: ts})
	if err != nil {
		return err
	}
	defer closeSession(e, s)

	cfg, info, err := s.Prepare(ctx, gr.of(), run.Config{Workload: w, Seed: seed, Retries: rs.retries, Drain: rs.drain,
		Arrival: ol.arrival, InjectLatency: *inject, Status: store.RedactWriter{W: e.stderr, Args: args}})
	if err != nil {
		return err
	}
	if d := split.Describe(exps, mine, firsts); d != "" {
		fmt.Fprintln(e.stderr, d)
	}
	front, closeTiers, err := s.Tiers(ctx, ts, maxThreads, info)
	if err != nil {
		return err
	}
	defer closeTiers()
	cfg.Store = front
	var done []*result.Experiment
	seed0 := cfg.Seed
	for ; repeat < rp.n; repeat++ {
		if repeat > 0 && rp.reload {
			if err = reloadGraph(ctx, e, s, info, w, gr.loadThreads); err != nil {
				break
			}
		}
		cfg.Seed = rp.seed(seed0, repeat)
		if note := rp.note(repeat, cfg.Seed); note != "" {
			fmt.Fprintln(e.stderr, note)
		}
		var cur []*result.Experiment
		cur, err = s.Run(ctx, session.Plan{Config: cfg, Experiments: exps})
		done = append(done, cur...)
		before = done
		if err != nil {
			break
		}
	}
	interrupted := errors.Is(err, errInterrupted)
	if err != nil && !interrupted {
		return err
	}
	if m := outF.Written(interrupted); m != "" {
		fmt.Fprintln(e.stderr, m)
	}
	if interrupted {
		return err
	}
	return limitsErr("run", session.Limits{MaxLostPct: maxLost, MaxStall: maxStall}.Check(done))
}

// runLabels name run's experiments in the repeats' summary.
func runLabels(exps []run.Experiment, a run.Arrival) []string {
	out := make([]string, len(exps))
	for i, x := range exps {
		out[i] = fmt.Sprintf("experiment %d: %d threads%s", i+1, x.Threads, rateNote(x.Rate, a))
	}
	return out
}

// readExperiments reads --experiments, a file of experiments
// (run.ParseExperiments), giving rate to each line without one; its
// errors are bad input naming the file and line.
func readExperiments(path string, rate float64) ([]run.Experiment, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, badInput("run: --experiments: %v", err)
	}
	defer f.Close()
	exps, err := run.ParseExperiments(f, path)
	if err != nil {
		return nil, badInputErr(err)
	}
	for i := range exps {
		if exps[i].Rate == 0 {
			exps[i].Rate = rate
		}
	}
	return exps, nil
}
