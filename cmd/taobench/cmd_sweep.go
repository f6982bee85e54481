package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/report"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// loadFlags are the flags sweep and rate share: what each probe (one
// open-loop experiment at a target rate) runs.
type loadFlags struct {
	cmd                string
	dbURL, wlName, out string
	arrivalName        string
	edges              *int64
	seed               *uint64
	threads            *int
	retries            *int
	loadThreads        *int
	procs              *int
	inject             *bool
	warmup, duration   time.Duration
	drain              time.Duration
	given              map[string]bool
	metricsAddr        *string
}

func (f *loadFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.dbURL, "db", defaultDB(), "database URL: sqlite:PATH, postgres://…, mysql://…, or null (null?delay=1ms emulates a latency)")
	fs.StringVar(&f.wlName, "workload", defaultWorkload, "built-in workload (taobench workloads) or a workload file")
	f.edges = fs.Int64("edges", defaultEdges, "graph size in edges: loaded when the database holds no graph; the size used with --db null")
	f.seed = fs.Uint64("seed", 0, "request seed (default: a new one, printed); each probe draws its own stream from it")
	f.threads = fs.Int("threads", 64, "clients of every probe: the most requests in flight at once")
	f.warmup, f.duration = 5*time.Second, 20*time.Second
	fs.Var(durationFlag{&f.warmup}, "warmup", "warmup of every probe, excluded from results")
	fs.Var(durationFlag{&f.duration}, "duration", "measured time of every probe")
	fs.StringVar(&f.arrivalName, "arrival", "poisson", "arrivals: poisson (exponential inter-arrival times) or uniform")
	fs.StringVar(&f.out, "out", "", "write the results as JSON to this file, every probe an experiment")
	f.retries = fs.Int("retries", 10, "times a request that hit a conflict is retried (0: fail fast)")
	f.loadThreads = fs.Int("load-threads", 2, "loaders used when the graph must be loaded first (1 to 1024)")
	f.procs = fs.Int("procs", 0, "Go scheduler threads (GOMAXPROCS); 0: sized to the clients")
	f.inject = fs.Bool("inject-latency", false, "inject the workload's *_latency delays before each request (docs/load.md)")
	f.drain = 10 * time.Second
	fs.Var(durationFlag{&f.drain}, "drain", "time requests still running at the end of a probe may take before they count as timeouts")
	f.metricsAddr = metricsAddrFlag(fs)
}

// prober is a session's Prober with the command's output: --out written
// after each probe, the text through the sink's functions.
type prober struct {
	*session.Prober
	e     *env
	f     *loadFlags
	cfg   run.Config
	info  *report.Run
	outF  *outFile
	close func()
}

// prepare checks the shared flags, opens the store, finds or loads the
// graph and returns a prober whose sink prints with started and ended
// (nil: nothing); call close when done.
func (f *loadFlags) prepare(ctx context.Context, e *env, args []string, started func(run.Experiment), ended func(*report.Experiment)) (*prober, error) {
	c := f.cmd
	if *f.threads < 1 || *f.threads > run.MaxClients {
		return nil, badInput("%s: --threads %d: give 1 to %d", c, *f.threads, run.MaxClients)
	}
	if f.duration <= 0 || f.drain <= 0 {
		return nil, badInput("%s: --duration and --drain must be positive", c)
	}
	if *f.retries < 0 || *f.loadThreads < 1 || *f.loadThreads > 1024 || *f.procs < 0 || *f.edges < 1 {
		return nil, badInput("%s: --retries, --load-threads (1 to 1024), --procs and --edges (positive) out of range", c)
	}
	arrival, err := run.ParseArrival(f.arrivalName)
	if err != nil {
		return nil, badInput("%s: --arrival: %v", c, err)
	}
	e.sizeProcs(*f.procs, *f.threads)
	outF, err := checkOut(e, f.out)
	if err != nil {
		return nil, err
	}
	live, err := startLive(e, c, *f.metricsAddr)
	if err != nil {
		return nil, err
	}
	w, err := loadWorkload(e, f.wlName, *f.inject)
	if err == nil && *f.inject {
		err = noteInjection(e, w)
	}
	p := &prober{e: e, f: f, outF: outF}
	sink := &cliSink{e: e, started: func(_, _ int, _ string, x run.Experiment) {
		if started != nil {
			started(x)
		}
	}, ended: func(done []*report.Experiment, final bool) error {
		if ended != nil {
			ended(done[len(done)-1])
		}
		return p.outF.write(p.info, done, final)
	}}
	var s *session.Session
	if err == nil {
		s, err = openSession(ctx, e, c, f.dbURL, *f.threads, session.Split{}, sink)
	}
	if err != nil {
		stopLive(e, live)
		return nil, err
	}
	p.close = func() {
		closeSession(e, s)
		stopLive(e, live)
	}
	g, loaded, err := s.Graph(ctx, session.GraphSpec{Workload: w, Edges: *f.edges, EdgesGiven: f.given["edges"], LoadThreads: *f.loadThreads})
	if err != nil {
		p.close()
		return nil, err
	}
	if !f.given["seed"] {
		*f.seed = newSeed()
	}
	fmt.Fprintf(e.stderr, "graph: workload %s's, %d edges; requests: workload %s, seed %d (give --seed %d to repeat them)\n",
		loaded.Name, g.Edges(), w.Name, *f.seed, *f.seed)
	p.info = s.RunInfo(session.Meta{Workloads: []*workload.Workload{w}, GraphOf: loaded.Name, Graph: g, Seed: *f.seed, Retries: *f.retries, InjectLatency: *f.inject})
	p.cfg = run.Config{Workload: w, Graph: g, Seed: *f.seed, Retries: *f.retries, Drain: f.drain,
		Arrival: arrival, InjectLatency: *f.inject, Status: redactWriter{e.stderr, args}, StatusEvery: time.Hour,
		Live: e.liveRuns()}
	p.Prober = s.Prober(p.cfg, run.Experiment{Threads: *f.threads, Warmup: f.warmup, Duration: f.duration})
	return p, nil
}

// finish writes the JSON a last time.
func (p *prober) finish() error {
	if err := p.outF.write(p.info, p.Done(), true); err != nil {
		return err
	}
	if p.f.out != "" {
		fmt.Fprintf(p.e.stderr, "results written to %s\n", p.f.out)
	}
	return nil
}

// writeSweepHeader and writeSweepRow print the sweep's table: latencies in
// ms from the intended start, p50/p99/p99.9 for all requests and per class.
func writeSweepHeader(w io.Writer) {
	fmt.Fprintf(w, "%10s %10s %6s %7s %7s %9s  %-22s", "target/s", "achieved/s", "ok", "errors%", "failed%", "contend%", "all p50/p99/p99.9 ms")
	for c := range tao.NumClasses {
		fmt.Fprintf(w, "  %-22s", c.String()+" p50/p99/p99.9")
	}
	fmt.Fprintln(w)
}

func writeSweepRow(w io.Writer, r session.Row) {
	ok := "yes"
	if !r.Reached {
		ok = "NO"
	}
	fmt.Fprintf(w, "%10.0f %10.1f %6s %7.3f %7.3f %9.4f  %-22s", r.Target, r.Achieved, ok, r.ErrorsPct, r.FailedPct, r.ContentionPct, triple(r.All))
	for c := range tao.NumClasses {
		fmt.Fprintf(w, "  %-22s", triple(r.Classes[c]))
	}
	fmt.Fprintln(w)
}

func triple(st metrics.LatencyStats) string {
	if st.Count == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f/%.2f/%.2f", st.P50/1000, st.P99/1000, st.P999/1000)
}

// parseRates reads --rates: positive rates, comma-separated, rising.
func parseRates(s string) ([]float64, error) {
	var rates []float64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		r, err := strconv.ParseFloat(f, 64)
		if err != nil || r <= 0 || run.CheckRate(r) != nil {
			return nil, fmt.Errorf("rate %q: give positive requests per second up to %g, comma-separated (e.g. 1000,2000,4000)", f, float64(run.MaxRate))
		}
		if len(rates) > 0 && r <= rates[len(rates)-1] {
			return nil, fmt.Errorf("rates must rise: %g after %g", r, rates[len(rates)-1])
		}
		rates = append(rates, r)
	}
	return rates, nil
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
	lf.given = setFlags(fs)
	var rates []float64
	if *ratesFlag != "" {
		var err error
		if rates, err = parseRates(*ratesFlag); err != nil {
			return badInput("sweep: --rates: %v", err)
		}
	} else if !(*start > 0) || run.CheckRate(*start) != nil || !(*factor > 1) || math.IsInf(*factor, 0) || *maxSteps < 1 {
		return badInput("sweep: --start must be a positive rate, --factor above 1, --max-steps at least 1")
	}
	step := 0
	p, err := lf.prepare(ctx, e, args, func(x run.Experiment) {
		step++
		fmt.Fprintf(e.stderr, "step %d: target %g req/s\n", step, x.Rate)
	}, func(x *report.Experiment) { writeSweepRow(e.stdout, session.RowOf(x)) })
	if err != nil {
		return err
	}
	defer p.close()

	fmt.Fprintf(e.stdout, "sweep: workload %s on %s, %d clients, %v warmup + %v per step, %s arrivals\n",
		p.info.Workload, p.info.Database, *lf.threads, lf.warmup, lf.duration, p.cfg.Arrival)
	writeSweepHeader(e.stdout)
	end, err := p.Sweep(ctx, session.SweepSpec{Rates: rates, Start: *start, Factor: *factor, MaxSteps: *maxSteps, MaxP99: maxP99})
	if err != nil {
		return err
	}
	switch {
	case end.Unsaturated:
		fmt.Fprintf(e.stdout, "stopped after %d steps without saturating: give a higher --start or --max-steps\n", end.Steps)
	case end.Saturated != "":
		fmt.Fprintf(e.stdout, "saturated at a target of %g req/s: %s\n", end.Rate, end.Saturated)
	}
	return p.finish()
}
