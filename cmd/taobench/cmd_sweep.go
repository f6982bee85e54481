package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/taobench/taobench/outfile"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/store"
)

// loadFlags are the flags sweep and rate share: what each probe (one
// open-loop experiment at a target rate) runs.
type loadFlags struct {
	cmd    string
	db     dbSpec
	gr     graphSpec
	rs     runSpec
	ol     openLoopSpec
	outs   outSpec
	ts     session.TierSpec
	inject bool
}

func (f *loadFlags) register(fs *flag.FlagSet) {
	f.db.registerMany(fs, defaultDB(), dbHelp+", or null (null?delay=1ms emulates a latency)")
	f.gr.register(fs, true, defaultEdges, "graph size in edges: loaded when the database holds no graph; the size used with --db null")
	f.rs.register(fs, runDefaults{threads: 64, warmup: 5 * time.Second, duration: 20 * time.Second, drain: 10 * time.Second, procs: true,
		threadsHelp: "clients of every probe: the most requests in flight at once",
		seedHelp:    "request seed (default: a new one, printed); each probe draws its own stream from it"})
	f.ol.register(fs, false, "")
	f.outs.register(fs, "write the results as JSON to this file, every probe an experiment")
	registerTiers(fs, &f.ts)
	fs.BoolVar(&f.inject, "inject-latency", false, "inject the workload's *_latency delays before each request (docs/target-load.md)")
}

// prober is a session's Prober with the command's output: --out written
// after each probe, the text through the sink's functions.
type prober struct {
	*session.Prober
	e     *env
	f     *loadFlags
	cfg   run.Config
	info  *result.Run
	outF  *outfile.Results
	close func()
}

// prepare checks the shared flags, opens the store, finds or loads the
// graph and returns a prober whose sink prints with started and ended
// (nil: nothing); call close when done.
func (f *loadFlags) prepare(ctx context.Context, e *env, fs *flag.FlagSet, args []string, started func(run.Experiment), ended func(*result.Experiment)) (*prober, error) {
	c := f.cmd
	if err := errors.Join(f.gr.check(c, fs), f.rs.check(c, fs, true), f.ol.check(c, fs, true), checkTiers(c, f.ts)); err != nil {
		return nil, err
	}
	e.sizeProcs(f.rs.procs, f.rs.threads)
	outF, err := f.outs.open(e, c, fs)
	if err != nil {
		return nil, err
	}
	w, err := loadWorkload(e, f.gr.workload, f.inject)
	if err != nil {
		return nil, err
	}
	p := &prober{e: e, f: f, outF: outF}
	sink := e.sink(func(_, _ int, _ string, x run.Experiment) {
		if started != nil {
			started(x)
		}
	}, func(done []*result.Experiment, final bool) error {
		if ended != nil {
			ended(done[len(done)-1])
		}
		return p.outF.WriteRun(p.info, done, final)
	})
	if err := f.gr.of().Check(w); err != nil {
		return nil, err
	}
	s, err := openSession(ctx, e, &f.db, f.outs.metricsAddr, session.Options{Name: c, Clients: f.rs.threads, Sink: sink, Tiers: f.ts})
	if err != nil {
		return nil, err
	}
	var closeTiers func()
	p.cfg, p.info, closeTiers, err = s.PrepareTiered(ctx, f.gr.of(), run.Config{Workload: w, Seed: f.rs.seed, Retries: f.rs.retries, Drain: f.rs.drain,
		Arrival: f.ol.arrival, InjectLatency: f.inject, Status: store.RedactWriter{W: e.stderr, Args: args}, StatusEvery: time.Hour}, f.ts, f.rs.threads)
	if err != nil {
		closeSession(e, s)
		return nil, err
	}
	p.close = func() { closeTiers(); closeSession(e, s) }
	p.Prober = s.Prober(p.cfg, f.rs.experiment(0))
	return p, nil
}

// finish writes the JSON a last time.
func (p *prober) finish() error {
	if err := p.outF.WriteRun(p.info, p.Done(), true); err != nil {
		return err
	}
	if p.f.outs.path != "" {
		fmt.Fprintf(p.e.stderr, "results written to %s\n", p.f.outs.path)
	}
	return nil
}

func cmdSweep(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	lf := &loadFlags{cmd: "sweep"}
	lf.register(fs)
	ratesFlag := fs.String("rates", "", "target rates to run, comma-separated and rising (default: automatic, from --start growing by --factor)")
	start := fs.Float64("start", 500, "automatic sweep: the first target rate (requests/s)")
	factor := fs.Float64("factor", 2, "automatic sweep: each step's rate is the previous one's times this (above 1)")
	maxSteps := fs.Int("max-steps", 12, "automatic sweep: the most steps")
	maxP99 := time.Second
	fs.Var(durationFlag{&maxP99}, "max-p99", "automatic sweep: stop once the p99 of all requests exceeds this (latency has exploded)")
	if err := parse(fs, args); err != nil {
		return err
	}
	spec := session.SweepSpec{Start: *start, Factor: *factor, MaxSteps: *maxSteps, MaxP99: maxP99}
	if *ratesFlag != "" {
		var err error
		if spec.Rates, err = parseRates(*ratesFlag); err != nil {
			return badInput("sweep: --rates: %v", err)
		}
	}
	if err := spec.Check(); err != nil {
		return err
	}
	step := 0
	p, err := lf.prepare(ctx, e, fs, args, func(x run.Experiment) {
		step++
		fmt.Fprintf(e.stderr, "step %d: target %g req/s\n", step, x.Rate)
	}, func(x *result.Experiment) { writeSweepRow(e.stdout, session.RowOf(x)) })
	if err != nil {
		return err
	}
	defer p.close()

	writeProbesTitle(e.stdout, "sweep", p.info, lf.rs.experiment(0), p.cfg.Arrival, "step", "")
	writeSweepHeader(e.stdout)
	end, err := p.Sweep(ctx, spec)
	if err != nil {
		return err
	}
	writeSweepEnd(e.stdout, end)
	return p.finish()
}
