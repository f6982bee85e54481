package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/taobench/taobench/report"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
)

// The paper's experiments (TAOBench §5-§6), one command each: a ladder of
// run.Do experiments on one database and one graph, printed as the paper's
// table and written as JSON like run's (docs/experiments.md).

const experimentUsage = `usage: taobench experiment KIND [flags]

  lock-hold  --holds 0,5ms,20ms,50ms,100ms [--workload t1]: conflict and timeout
             rates of writes as they hold their locks longer (TAOBench §6.2, Fig. 12)
  precondition-wait  --waits 0,30ms,60ms,150ms [--workload preconditioned]: failure
             rate of writes preconditioned on a read, by the wait between them
             (TAOBench §6.3, Fig. 13)
  fanout     [--baseline t2 --fanout fanout]: cross-shard write transactions beside
             their high fan-out variant, with a %% difference column (Table 7)
  compare    --workload t1 --workload t3 [...]: latency and contention side by side
             with a %% difference column (Tables 6 and 7)

Common flags: --db URL --threads N --warmup D --duration D --retries N --timeout D
--rate R (open loop at a fixed offered load) --edges N --seed S --out FILE. Run "taobench experiment KIND -h" for all of them.
`

func cmdExperiment(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
			return &usageError{errHelp, fmt.Sprintf(experimentUsage)}
		}
		return &exitError{exitBadInput, &usageError{errors.New("experiment: name the experiment: lock-hold, precondition-wait, fanout or compare"), fmt.Sprintf(experimentUsage)}}
	}
	switch args[0] {
	case "lock-hold":
		return cmdLockHold(ctx, e, args[1:])
	case "compare":
		return cmdCompare(ctx, e, args[1:])
	case "precondition-wait":
		return cmdPreconditionWait(ctx, e, args[1:])
	case "fanout":
		return cmdFanout(ctx, e, args[1:])
	}
	return &exitError{exitBadInput, &usageError{fmt.Errorf("experiment: unknown experiment %q; use lock-hold, precondition-wait, fanout or compare", args[0]), fmt.Sprintf(experimentUsage)}}
}

// expFlags are the flags every experiment shares.
type expFlags struct {
	fs                        *flag.FlagSet
	db, out                   *string
	threads, retries, loadThr *int
	edges                     *int64
	seed                      *uint64
	rate                      *float64
	arrivalName               *string
	arrival                   run.Arrival
	warmup, duration, timeout time.Duration
	drain                     time.Duration
	given                     map[string]bool
	name                      string
	args                      []string // the command line, for redacting status lines
	// outF is --out, checked.
	outF *outFile
}

func newExpFlags(name string) *expFlags {
	f := &expFlags{name: name, fs: flag.NewFlagSet("experiment "+name, flag.ContinueOnError)}
	fs := f.fs
	f.db = fs.String("db", defaultDB(), "database URL: sqlite:PATH, postgres://…, mysql://…")
	f.threads = fs.Int("threads", 32, "concurrent clients of every step; with --rate, the most requests in flight at once")
	f.rate = fs.Float64("rate", 0, "target rate of every step in requests per second across all clients (open loop: the offered load stays fixed however slow the writes get, as TAO's users keep arriving); 0: closed loop")
	f.arrivalName = fs.String("arrival", "poisson", "open-loop arrivals with --rate: poisson or uniform")
	f.warmup, f.duration, f.timeout, f.drain = 2*time.Second, 10*time.Second, time.Second, 5*time.Second
	fs.Var(durationFlag{&f.warmup}, "warmup", "warmup of every step, excluded from results (seconds or Go syntax)")
	fs.Var(durationFlag{&f.duration}, "duration", "measured time of every step (seconds or Go syntax)")
	fs.Var(durationFlag{&f.timeout}, "timeout", "deadline of each request, its retries included: past it a request is cut and counts as a timeout (0: none)")
	fs.Var(durationFlag{&f.drain}, "drain", "time requests still running at a step's end may take before they count as timeouts")
	f.retries = fs.Int("retries", 10, "times a request that hit a conflict is retried within its --timeout (0: fail fast)")
	f.edges = fs.Int64("edges", 10_000, "graph size in edges, loaded when the database holds no graph: small, so keys are hot")
	f.seed = fs.Uint64("seed", 0, "request seed (default: a new one, printed)")
	f.loadThr = fs.Int("load-threads", 2, "loaders used when the graph must be loaded first (1 to 1024)")
	f.out = fs.String("out", "", "write the steps' results and the table as JSON to this file (- for stdout)")
	return f
}

// check validates the shared flags after parsing.
func (f *expFlags) check(e *env) error {
	f.given = setFlags(f.fs)
	n := "experiment " + f.name
	switch {
	case *f.threads < 1 || *f.threads > run.MaxClients:
		return badInput("%s: --threads %d: give 1 to %d", n, *f.threads, run.MaxClients)
	case f.duration <= 0:
		return badInput("%s: --duration must be positive", n)
	case f.warmup < 0:
		return badInput("%s: --warmup must be 0 or more", n)
	case f.timeout < 0:
		return badInput("%s: --timeout must be 0 (none) or more", n)
	case f.drain <= 0:
		return badInput("%s: --drain must be positive", n)
	case *f.retries < 0:
		return badInput("%s: --retries %d: give 0 or more", n, *f.retries)
	case *f.edges < 1:
		return badInput("%s: --edges %d: give a positive number of edges", n, *f.edges)
	case *f.loadThr < 1 || *f.loadThr > 1024:
		return badInput("%s: --load-threads %d: give 1 to 1024", n, *f.loadThr)
	}
	if err := run.CheckRate(*f.rate); err != nil {
		return badInput("%s: --rate: %v", n, err)
	}
	a, err := run.ParseArrival(*f.arrivalName)
	if err != nil {
		return badInput("%s: --arrival: %v", n, err)
	}
	if f.given["arrival"] && *f.rate == 0 {
		return badInput("%s: --arrival applies to open loop only: give --rate too", n)
	}
	f.arrival = a
	// --out goes through run's writer (out.go): atomic replacement,
	// symlinks, devices and the standard streams alike; "-" is stdout.
	path := *f.out
	if path == "-" {
		path = "/dev/stdout"
	}
	o, err := checkOutAs(e, n+": --out", path)
	if err != nil {
		return err
	}
	if o != nil {
		o.given = *f.out
	}
	f.outF = o
	if !f.given["seed"] {
		*f.seed = newSeed()
	}
	return nil
}

// ladder opens the database and runs the steps (session.RunLadder),
// printing each as it starts. Ctrl-C stops it with the steps done so far.
func (f *expFlags) ladder(ctx context.Context, e *env, steps []session.Step) (*report.Run, []*report.Experiment, error) {
	n := "experiment " + f.name
	e.sizeProcs(0, *f.threads)
	sink := &cliSink{e: e, started: func(i, k int, label string, x run.Experiment) {
		fmt.Fprintf(e.stderr, "step %d of %d: %s: %d threads, warmup %v, duration %v%s, request timeout %v, retries %d\n",
			i+1, k, label, x.Threads, x.Warmup, x.Duration, rateNote(x.Rate, f.arrival), f.timeout, *f.retries)
	}}
	s, err := openSession(ctx, e, n, *f.db, *f.threads, session.Split{}, sink)
	if err != nil {
		return nil, nil, err
	}
	defer closeSession(e, s)
	return s.RunLadder(ctx, session.Ladder{
		Experiment: run.Experiment{Threads: *f.threads, Warmup: f.warmup, Duration: f.duration, Rate: *f.rate},
		Config: run.Config{Seed: *f.seed, Retries: *f.retries, Timeout: f.timeout, Drain: f.drain,
			Status: redactWriter{e.stderr, f.args}, Arrival: f.arrival},
		Edges: *f.edges, EdgesGiven: f.given["edges"], LoadThreads: *f.loadThr,
	}, steps)
}

// --- lock-hold ---------------------------------------------------------------

func cmdLockHold(ctx context.Context, e *env, args []string) error {
	f := newExpFlags("lock-hold")
	wl := f.fs.String("workload", "t1", "built-in workload or file whose writes hold their locks")
	holds := f.fs.String("holds", "0,5ms,20ms,50ms,100ms", "comma-separated lock hold times, one step each (Go durations; 0 for none)")
	if err := parse(f.fs, args); err != nil {
		return err
	}
	f.args = args
	if err := f.check(e); err != nil {
		return err
	}
	hs, err := session.ParseHolds(*holds)
	if err != nil {
		return badInput("experiment lock-hold: --holds %q: %v", *holds, err)
	}
	base, err := loadWorkload(e, *wl, false)
	if err != nil {
		return err
	}
	if base.Holds() {
		fmt.Fprintf(e.stderr, "workload %s gives lock_hold; each step replaces it with the step's hold\n", base.Name)
	}
	steps := session.LockHoldSteps(base, hs)
	info, done, err := f.ladder(ctx, e, steps)
	rows := session.HoldRows(hs, done)
	if len(rows) > 0 {
		writeHoldTable(e.stdout, info, rows)
	}
	if werr := writeExperimentJSON(e, f.outF, "lock-hold", info, done, session.Labels(steps, len(done)), rows); werr != nil {
		return werr
	}
	return err
}

// --- precondition-wait -------------------------------------------------------

// cmdPreconditionWait draws the waits together in one step
// (session.WaitStep says why).
func cmdPreconditionWait(ctx context.Context, e *env, args []string) error {
	f := newExpFlags("precondition-wait")
	wl := f.fs.String("workload", "preconditioned", "built-in workload or file whose writes carry version preconditions on keys the client read")
	waits := f.fs.String("waits", "0,30ms,60ms,150ms", "comma-separated waits between a read and its preconditioned write, drawn with equal chance in one step (Go durations)")
	if err := parse(f.fs, args); err != nil {
		return err
	}
	f.args = args
	if err := f.check(e); err != nil {
		return err
	}
	ws, err := session.ParseHolds(*waits)
	if err != nil {
		return badInput("experiment precondition-wait: --waits %q: %v", *waits, err)
	}
	seen := map[time.Duration]bool{}
	for _, d := range ws {
		if seen[d] {
			return badInput("experiment precondition-wait: --waits %q gives %v twice; give each wait once", *waits, d)
		}
		seen[d] = true
	}
	base, err := loadWorkload(e, *wl, false)
	if err != nil {
		return err
	}
	if !session.HasVersionPredicate(base) {
		return badInput("experiment precondition-wait: workload %s draws no write_version or read_version precondition, so no write would wait; use --workload preconditioned or add one", base.Name)
	}
	step, wc := session.WaitStep(base, "waits "+*waits, ws, f.warmup)
	steps := []session.Step{step}
	info, done, err := f.ladder(ctx, e, steps)
	var rows []session.WaitRow
	if len(done) > 0 {
		rows = wc.Rows()
		fmt.Fprintf(e.stdout, "precondition wait (TAOBench §6.3, Fig. 13): workload %s on %s, %d edges, %d threads, retries %d\n",
			info.Workload, info.Database, info.Edges, *f.threads, info.Retries)
		fmt.Fprintln(e.stdout, "failed %: writes with a version precondition that failed on it, by the wait drawn; ratio: to the first positive wait's")
		tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "wait\tpreconditioned\tfailed\tfailed %\tratio\t")
		for _, r := range rows {
			ratio := "-"
			if r.Ratio > 0 {
				ratio = fmt.Sprintf("%.2f", r.Ratio)
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.3f\t%s\t\n", r.Wait, r.Checked, r.Failed, r.FailedPct, ratio)
		}
		tw.Flush()
		openLoopNote(e.stdout, done, session.Labels(steps, len(done)))
	}
	if werr := writeExperimentJSON(e, f.outF, "precondition-wait", info, done, session.Labels(steps, len(done)), rows); werr != nil {
		return werr
	}
	return err
}

func writeHoldTable(w io.Writer, info *report.Run, rows []session.HoldRow) {
	fmt.Fprintf(w, "lock hold time (TAOBench §6.2, Fig. 12): workload %s on %s, %d edges, retries %d\n", info.Workload, info.Database, info.Edges, info.Retries)
	fmt.Fprintln(w, "conflict %: writes that met a lock conflict (object or association; any attempt); timeout %, failed %: final outcome of writes")
	if len(rows) > 0 && rows[0].TargetRate > 0 {
		fmt.Fprintf(w, "open loop at %s req/s offered; latency from each request's intended start; * marks a step whose clients could not issue that rate (raise --threads)\n", strconv.FormatFloat(rows[0].TargetRate, 'f', -1, 64))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "hold\twrites\treq/s\tconflict %\tobj conflict %\tassoc conflict %\ttimeout %\tfailed %\tp50 ms\tp99 ms\t")
	for _, r := range rows {
		hold := r.Hold
		if !r.Reached {
			hold += "*"
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f\t%.2f\t\n", hold, r.Writes, r.Throughput,
			r.ConflictPct, r.ObjConflictPct, r.AssocConflict, r.TimeoutPct, r.FailedPct, r.P50Ms, r.P99Ms)
	}
	tw.Flush()
}

// --- compare -----------------------------------------------------------------

type workloadList []string

func (l *workloadList) String() string     { return strings.Join(*l, ",") }
func (l *workloadList) Set(s string) error { *l = append(*l, s); return nil }

func cmdCompare(ctx context.Context, e *env, args []string) error {
	f := newExpFlags("compare")
	var wls workloadList
	f.fs.Var(&wls, "workload", "a workload to compare (give two or more; the first is the baseline)")
	if err := parseRepeatable(f.fs, args); err != nil {
		return err
	}
	f.args = args
	if err := f.check(e); err != nil {
		return err
	}
	if len(wls) < 2 {
		return badInput("experiment compare: give two or more --workload flags, e.g. --workload t1 --workload t3")
	}
	return compare(ctx, e, f, "compare", wls)
}

// cmdFanout is Table 7: the cross-shard write-transaction workload beside
// its high fan-out variant (docs/experiments.md, "High fan-out").
func cmdFanout(ctx context.Context, e *env, args []string) error {
	f := newExpFlags("fanout")
	base := f.fs.String("baseline", "t2", "the cross-shard write-transaction workload (Table 7's baseline)")
	high := f.fs.String("fanout", "fanout", "its high fan-out variant")
	if err := parse(f.fs, args); err != nil {
		return err
	}
	f.args = args
	if err := f.check(e); err != nil {
		return err
	}
	return compare(ctx, e, f, "fanout", []string{*base, *high})
}

// compare runs the workloads in turn and prints them side by side, the
// first as the baseline; name is the experiment's name in the JSON.
func compare(ctx context.Context, e *env, f *expFlags, name string, wls []string) error {
	ws, err := loadWorkloads(e, wls, false)
	if err != nil {
		return err
	}
	steps := make([]session.Step, len(ws))
	for i, w := range ws {
		steps[i] = session.Step{Label: w.Name, Workload: w}
	}
	info, done, err := f.ladder(ctx, e, steps)
	var rows []session.CompareRow
	labels := session.Labels(steps, len(done))
	if len(done) > 0 {
		rows = session.CompareRows(done)
		writeCompareTable(e.stdout, info, labels, rows, session.LatencyOf(done))
		openLoopNote(e.stdout, done, labels)
	}
	if werr := writeExperimentJSON(e, f.outF, name, info, done, labels, rows); werr != nil {
		return werr
	}
	return err
}

// parseRepeatable is parse for a flag set with a repeatable flag, which
// parse's check for flags given twice would refuse.
func parseRepeatable(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return &usageError{errHelp, flagUsage(fs)}
		}
		return &exitError{exitBadInput, &usageError{fmt.Errorf("%s: %v", fs.Name(), err), flagUsage(fs)}}
	}
	if fs.NArg() > 0 {
		return &exitError{exitBadInput, &usageError{fmt.Errorf("%s: unexpected argument %q (flags start with --)", fs.Name(), fs.Arg(0)), flagUsage(fs)}}
	}
	return nil
}

func writeCompareTable(w io.Writer, info *report.Run, names []string, rows []session.CompareRow, series string) {
	fmt.Fprintf(w, "compare (TAOBench Tables 6, 7): %s on %s, %d edges, retries %d; latency of %s requests\n",
		strings.Join(names, " vs "), info.Database, info.Edges, info.Retries, series)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "metric\t" + strings.Join(names, "\t") + "\t"
	for _, n := range names[1:] {
		head += "% diff " + n + "\t"
	}
	fmt.Fprintln(tw, head)
	for _, r := range rows {
		line := r.Metric + "\t"
		for _, v := range r.Values {
			line += fmt.Sprintf("%.3f\t", v)
		}
		for _, d := range r.DiffPct {
			if math.IsNaN(d) {
				line += "-\t"
			} else {
				line += fmt.Sprintf("%+.1f%%\t", d)
			}
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
}

// openLoopNote says, under a table of open-loop steps, what load was
// offered and which steps' clients could not issue it: their latencies
// then include queueing for a client as well as for the database.
func openLoopNote(w io.Writer, done []*report.Experiment, names []string) {
	if len(done) == 0 || done[0].OpenLoop.Rate == 0 {
		return
	}
	var short []string
	for i, x := range done {
		if !x.OpenLoop.Reached() {
			short = append(short, fmt.Sprintf("%s (%d of %d scheduled requests not issued)", names[i], x.OpenLoop.NotIssued, x.OpenLoop.Scheduled))
		}
	}
	fmt.Fprintf(w, "open loop at %s req/s offered (%s arrivals); latency from each request's intended start\n",
		strconv.FormatFloat(done[0].OpenLoop.Rate, 'f', -1, 64), done[0].OpenLoop.Arrival)
	if len(short) > 0 {
		fmt.Fprintf(w, "rate not reached, raise --threads: %s\n", strings.Join(short, "; "))
	}
}

// --- JSON --------------------------------------------------------------------

// writeExperimentJSON writes the experiment's document (session.PaperJSON)
// to --out through run's writer (out.go).
func writeExperimentJSON(e *env, out *outFile, name string, info *report.Run, done []*report.Experiment, steps []string, table any) error {
	if out == nil || info == nil {
		return nil
	}
	js, err := session.PaperJSON(name, info, done, steps, table)
	if err != nil {
		return fmt.Errorf("--out %s: %w", out.given, err)
	}
	if err := out.writeWith(func(w io.Writer) error { _, err := w.Write(js); return err }, true); err != nil {
		return err
	}
	if out.stream == nil {
		fmt.Fprintf(e.stderr, "results written to %s\n", out.given)
	}
	return nil
}
