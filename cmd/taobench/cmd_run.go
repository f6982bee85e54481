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

	"github.com/taobench/taobench/report"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/store"
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
	dbURL := fs.String("db", defaultDB(), "database URL: sqlite:PATH, postgres://…, mysql://…, or null (no database)")
	wlName := fs.String("workload", defaultWorkload, "built-in workload (taobench workloads) or a workload file")
	edges := fs.Int64("edges", defaultEdges, "graph size in edges: loaded when the database holds no graph; the size used with --db null")
	seed := fs.Uint64("seed", 0, "request seed (default: a new one each run, printed); the graph's seed is the database's")
	threads := fs.Int("threads", 8, "concurrent clients; with --rate, the most requests in flight at once (too few: requests queue, and the report says the rate was not reached)")
	rate := fs.Float64("rate", 0, "target rate in requests per second across all clients (open loop; latency counts from each request's intended start); 0: closed loop")
	inject := fs.Bool("inject-latency", false, "before each request, sleep a client-side delay drawn from the workload's read_operation_latency, write_operation_latency or write_txn_latency (emulated cross-region round trips; included in latency, reported as injected_us)")
	arrivalName := fs.String("arrival", "poisson", "open-loop arrivals with --rate: poisson (exponential inter-arrival times) or uniform")
	warmup, duration := 2*time.Second, 10*time.Second
	fs.Var(durationFlag{&warmup}, "warmup", "warmup, excluded from results (seconds or Go syntax: 10, 30s, 2m)")
	fs.Var(durationFlag{&duration}, "duration", "measured time after warmup (seconds or Go syntax)")
	expFile := fs.String("experiments", "", "file of experiments, one threads,warmup,duration[,rate] per line (overrides --threads/--warmup/--duration; --rate applies to lines without a rate)")
	format := fs.String("format", "text", "formats written to standard output, comma-separated: text (per experiment, as it ends), json (one document when the run ends), e.g. text,json")
	hdrLog := fs.String("hdr-log", "", "write the per-second latency histograms as an HdrHistogram interval log to this file (tags: the classes), for HdrHistogram's HistogramLogProcessor")
	out := fs.String("out", "", "write the results as JSON to this file (rewritten after each experiment; a device such as /dev/stdout gets one document at the end)")
	retries := fs.Int("retries", 10, "times a request that hit a conflict is retried (0: fail fast)")
	loadThreads := fs.Int("load-threads", 2, "loaders used when the graph must be loaded first (1 to 1024)")
	maxLost := 1.0
	fs.Var(lostRate{&maxLost}, "max-error-rate", "exit with status 3 when an experiment loses more than this percentage of its requests to errors and timeouts")
	drain := 10 * time.Second
	fs.Var(durationFlag{&drain}, "drain", "time requests still running at the end may take before they count as timeouts")
	metricsAddr := metricsAddrFlag(fs)
	dist := addDistFlags(fs)
	procs := fs.Int("procs", 0, "Go scheduler threads (GOMAXPROCS); 0: one per 4 clients, at most the CPUs, unless GOMAXPROCS is set")
	if err := parse(fs, args); err != nil {
		return err
	}
	given := setFlags(fs)
	if *retries < 0 {
		return badInput("run: --retries %d: give 0 or more", *retries)
	}
	if *loadThreads < 1 || *loadThreads > 1024 {
		return badInput("run: --load-threads %d: give 1 to 1024", *loadThreads)
	}
	if drain <= 0 {
		return badInput("run: --drain must be positive")
	}
	if *edges < 1 {
		return badInput("run: --edges %d: give a positive number of edges", *edges)
	}

	if err := run.CheckRate(*rate); err != nil {
		return badInput("run: --rate: %v", err)
	}
	arrival, err := run.ParseArrival(*arrivalName)
	if err != nil {
		return badInput("run: --arrival: %v", err)
	}
	if given["arrival"] && *rate == 0 && *expFile == "" {
		return badInput("run: --arrival applies to open loop only: give --rate too")
	}

	exps := []run.Experiment{{Threads: *threads, Warmup: warmup, Duration: duration, Rate: *rate}}
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
				exps[i].Rate = *rate
			}
		}
	} else if *threads < 1 || *threads > run.MaxClients {
		return badInput("run: --threads %d: give 1 to %d", *threads, run.MaxClients)
	} else if duration <= 0 {
		return badInput("run: --duration must be positive")
	}
	if !given["seed"] {
		*seed = newSeed()
	}
	split, err := dist.resolve("run", *wlName, seed, given["seed"], time.Now())
	if err != nil {
		return err
	}
	allExps := exps
	exps, firsts, err := split.Share("run", exps)
	if err != nil {
		return badInputErr(err)
	}
	maxThreads := 0
	for _, x := range exps {
		maxThreads = max(maxThreads, x.Threads)
	}
	// Size the Go runtime to the clients: idle scheduler threads spin
	// on the cores the database needs (run/procs.go, docs/performance.md).
	if *procs < 0 {
		return badInput("run: --procs %d: give 0 (sized to the clients) or more", *procs)
	}
	e.sizeProcs(*procs, maxThreads)

	reporters, err := report.ParseFormats("run: --format", *format)
	if err != nil {
		return badInputErr(err)
	}
	outF, err := checkOut(e, *out)
	if err != nil {
		return err
	}
	for _, r := range reporters {
		if r.Run != nil && outF != nil && outF.stream == e.stdout {
			return badInput("run: --format %s and --out %s both write the document to standard output; drop one", r.Name, *out)
		}
	}
	logF, err := checkOutAs(e, "run: --hdr-log", *hdrLog)
	if err != nil {
		return err
	}
	live, err := startLive(e, "run", *metricsAddr)
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
		return logF.writeWith(func(w io.Writer) error { return report.WriteHDRLog(w, done) }, final)
	}
	s, err := openSession(ctx, e, "run", *dbURL, maxThreads, split, sink)
	if err != nil {
		return err
	}
	defer closeSession(e, s)

	g, loaded, err := s.Graph(ctx, session.GraphSpec{Workload: w, Edges: *edges, EdgesGiven: given["edges"], LoadThreads: *loadThreads})
	if err != nil {
		return err
	}
	graphOf := loaded.Name
	fmt.Fprintf(e.stderr, "graph: workload %s's, %d edges; requests: workload %s, seed %d (give --seed %d to repeat them)\n",
		graphOf, g.Edges(), w.Name, *seed, *seed)
	info = s.RunInfo(session.Meta{Workloads: []*workload.Workload{w}, GraphOf: graphOf, Graph: g, Seed: *seed, Retries: *retries, InjectLatency: *inject})
	if d := split.Describe(allExps, exps, firsts); d != "" {
		fmt.Fprintln(e.stderr, d)
	}
	cfg := run.Config{
		Workload:      w,
		Graph:         g,
		Seed:          *seed,
		Retries:       *retries,
		Drain:         drain,
		Arrival:       arrival,
		InjectLatency: *inject,
		Status:        redactWriter{e.stderr, args},
		Live:          e.liveRuns(),
	}
	done, err := s.Run(ctx, session.Plan{Config: cfg, Experiments: allExps})
	if errors.Is(err, errInterrupted) {
		if *out != "" {
			fmt.Fprintf(e.stderr, "interrupted: results so far written to %s\n", *out)
		}
		return err
	}
	if err != nil {
		return err
	}
	if *out != "" {
		fmt.Fprintf(e.stderr, "results written to %s\n", *out)
	}
	return tooManyLost(done, maxLost)
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
func writeReports(w io.Writer, reporters []report.Reporter, info *result.Run, done []*result.Experiment, final bool) error {
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
