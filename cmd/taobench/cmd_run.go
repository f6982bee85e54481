package main

import (
	"context"
	cryptorand "crypto/rand"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/textreport"
	"github.com/taobench/taobench/workload"
)

// newSeed returns a fresh request seed, printed so a run can be repeated.
func newSeed() uint64 {
	var b [8]byte
	if _, err := cryptorand.Read(b[:]); err != nil {
		return uint64(time.Now().UnixNano())
	}
	return binary.LittleEndian.Uint64(b[:]) >> 12 // short enough to retype
}

func cmdRun(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var (
		db   dbSpec
		gr   graphSpec
		rs   runSpec
		ol   openLoopSpec
		outs outSpec
		dist distFlags
		ts   tierSpec
		proc = runDefaults{threads: 8, warmup: 2 * time.Second, duration: 10 * time.Second, drain: 10 * time.Second, procs: true,
			threadsHelp: "concurrent clients; with --rate, the most requests in flight at once (too few: requests queue, and the report says the rate was not reached)",
			seedHelp:    "request seed (default: a new one each run, printed); the graph's seed is the database's"}
	)
	db.register(fs, defaultDB(), dbHelp+", or null (no database)")
	gr.register(fs, true, defaultEdges, "graph size in edges: loaded when the database holds no graph; the size used with --db null")
	rs.register(fs, proc)
	ol.register(fs, true, "target rate in requests per second across all clients (open loop; latency counts from each request's intended start); 0: closed loop")
	outs.register(fs, "write the results as JSON to this file (rewritten after each experiment; a device such as /dev/stdout gets one document at the end)")
	dist.register(fs)
	ts.register(fs)
	inject := fs.Bool("inject-latency", false, "before each request, sleep a client-side delay drawn from the workload's read_operation_latency, write_operation_latency or write_txn_latency (emulated cross-region round trips; included in latency, reported as injected_us)")
	expFile := fs.String("experiments", "", "file of experiments, one threads,warmup,duration[,rate] per line (overrides --threads/--warmup/--duration; --rate applies to lines without a rate)")
	format := fs.String("format", "text", "formats written to standard output, comma-separated: text (per experiment, as it ends), json (one document when the run ends), e.g. text,json")
	hdrLog := fs.String("hdr-log", "", "write the per-second latency histograms as an HdrHistogram interval log to this file (tags: the classes), for HdrHistogram's HistogramLogProcessor")
	maxLost := 1.0
	fs.Var(lostRate{&maxLost}, "max-error-rate", "exit with status 3 when an experiment loses more than this percentage of its requests to errors and timeouts")
	maxStall := time.Second
	fs.Var(durationFlag{&maxStall}, "max-stall", "exit with status 3 when an experiment's measured window holds a stretch longer than this (in whole seconds) in which requests were due and the database answered none")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := errors.Join(gr.check("run", fs), rs.check("run", fs, *expFile == ""), ol.check("run", fs, *expFile != "")); err != nil {
		return err
	}
	if _, err := ts.options(1); err != nil {
		return err
	}
	dbURL, wlName, seed, out, arrival := &db.url, &gr.workload, &rs.seed, &outs.path, ol.arrival
	exps := []run.Experiment{rs.experiment(ol.rate)}
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
		for i := range exps {
			if exps[i].Rate == 0 {
				exps[i].Rate = ol.rate
			}
		}
	}
	split, err := dist.resolve("run", *wlName, seed, rs.seedGiven, time.Now())
	if err != nil {
		return err
	}
	allExps := exps
	if !split.Start.IsZero() {
		end := split.Start
		for _, x := range allExps {
			end = end.Add(x.Warmup + x.Duration)
		}
		if now := time.Now(); end.Before(now) {
			return badInput("run: --start-at %s is in the past: its schedule ended at %s, before now (%s); give a later instant, or +DURATION from now",
				dist.startAt, end.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
		}
	}
	exps, firsts, err := split.Share("run", exps)
	if err != nil {
		return badInputErr(err)
	}
	maxThreads := 0
	for _, x := range exps {
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
		if r.Run != nil && outF.stream() == e.stdout {
			return badInput("run: --format %s and --out %s both write the document to standard output; drop one", r.Name, *out)
		}
	}
	logF, err := checkOutAs(e, "run: --hdr-log", *hdrLog)
	if err != nil {
		return err
	}
	live, err := startLive(e, "run", outs.metricsAddr)
	if err != nil {
		return err
	}
	defer stopLive(e, live)
	w, err := loadWorkload(e, *wlName, *inject)
	if err != nil {
		return err
	}
	if *inject {
		if err := noteInjection(e, w); err != nil {
			return err
		}
	}
	var info *result.Run
	sink := &cliSink{e: e}
	sink.started = func(i, n int, _ string, x run.Experiment) {
		fmt.Fprintf(e.stderr, "experiment %d of %d: %d threads, warmup %v, duration %v%s, workload %s on %s\n",
			i+1, n, x.Threads, x.Warmup, x.Duration, rateNote(x.Rate, arrival), w.Name, store.Redact(*dbURL))
	}
	sink.ended = func(done []*result.Experiment, final bool) error {
		if len(done) == 1 {
			res := done[0]
			fmt.Fprintf(e.stderr, "first request issued %.3f s after taobench started\n",
				res.Started.Add(res.FirstRequest).Sub(e.launched).Seconds())
		}
		if err := writeReports(e.stdout, reporters, info, done, final); err != nil {
			return err
		}
		if err := outF.write(info, done, final); err != nil {
			return err
		}
		return logF.writeMeasured(func(w io.Writer) error { return textreport.WriteHDRLog(w, done) }, done, final)
	}
	s, err := openSession(ctx, e, "run", *dbURL, maxThreads, split, sink)
	if err != nil {
		return err
	}
	defer closeSession(e, s)

	g, loaded, err := s.Graph(ctx, gr.of(w))
	if err != nil {
		return err
	}
	graphOf := loaded.Name
	fmt.Fprintf(e.stderr, "graph: workload %s's, %d edges; requests: workload %s, seed %d (give --seed %d to repeat them)\n",
		graphOf, g.Edges(), w.Name, *seed, *seed)
	info = s.RunInfo(session.Meta{Workloads: []*workload.Workload{w}, GraphOf: graphOf, Graph: g, Seed: *seed, Retries: rs.retries, InjectLatency: *inject})
	if d := split.Describe(allExps, exps, firsts); d != "" {
		fmt.Fprintln(e.stderr, d)
	}
	ts.applied(info)
	front, closeTiers, err := ts.open(ctx, e, s.Store(), maxThreads)
	if err != nil {
		return err
	}
	defer closeTiers()
	cfg := run.Config{
		Store:         front,
		Workload:      w,
		Graph:         g,
		Seed:          *seed,
		Retries:       rs.retries,
		Drain:         rs.drain,
		Arrival:       arrival,
		InjectLatency: *inject,
		Status:        redactWriter{e.stderr, args},
		Live:          e.liveRuns(),
	}
	done, err := s.Run(ctx, session.Plan{Config: cfg, Experiments: allExps})
	interrupted := errors.Is(err, errInterrupted)
	if err != nil && !interrupted {
		return err
	}
	if m := outF.written(interrupted); m != "" {
		fmt.Fprintln(e.stderr, m)
	}
	if interrupted {
		return err
	}
	return limitsErr("run", session.Limits{MaxLostPct: maxLost, MaxStall: maxStall}.Check(done))
}

// redactWriter masks the passwords of the URLs among args in what it
// writes: status lines may quote a driver's error.
type redactWriter struct {
	w    io.Writer
	args []string
}

func (r redactWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(r.w, store.RedactArgs(string(p), r.args)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// rateNote describes an experiment's loop for its opening line.
func rateNote(rate float64, a run.Arrival) string {
	if rate == 0 {
		return ", closed loop"
	}
	return fmt.Sprintf(", target rate %s req/s (%s arrivals)", strconv.FormatFloat(rate, 'f', -1, 64), a)
}

// writeReports writes the experiment just ended (the last of done) in the
// streamed formats and, when the run is over, the whole run in the document
// formats, to w.
func writeReports(w io.Writer, reporters []textreport.Reporter, info *result.Run, done []*result.Experiment, final bool) error {
	for _, r := range reporters {
		switch {
		case r.Experiment != nil && len(done) > 0:
			if err := r.Experiment(w, done[len(done)-1]); err != nil {
				return err
			}
		case r.Run != nil && final:
			if err := r.Run(w, info, done); err != nil {
				return fmt.Errorf("--format %s: %w", r.Name, err)
			}
		}
	}
	return nil
}
