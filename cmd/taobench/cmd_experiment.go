package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/taobench/taobench/result"
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
	fs      *flag.FlagSet
	db      dbSpec
	gr      graphSpec
	rs      runSpec
	ol      openLoopSpec
	outs    outSpec
	timeout time.Duration
	name    string
	args    []string // the command line, for redacting status lines
	// outF is --out, checked.
	outF *outFile
}

func newExpFlags(name string) *expFlags {
	f := &expFlags{name: name, fs: flag.NewFlagSet("experiment "+name, flag.ContinueOnError), timeout: time.Second}
	fs := f.fs
	f.db.register(fs, defaultDB(), dbHelp)
	f.gr.register(fs, false, 10_000, "graph size in edges, loaded when the database holds no graph: small, so keys are hot")
	f.rs.register(fs, runDefaults{threads: 32, warmup: 2 * time.Second, duration: 10 * time.Second, drain: 5 * time.Second,
		threadsHelp: "concurrent clients of every step; with --rate, the most requests in flight at once",
		seedHelp:    "request seed (default: a new one, printed)"})
	f.ol.register(fs, true, "target rate of every step in requests per second across all clients (open loop: the offered load stays fixed however slow the writes get, as TAO's users keep arriving); 0: closed loop")
	fs.Var(durationFlag{&f.timeout}, "timeout", "deadline of each request, its retries included: past it a request is cut and counts as a timeout (0: none)")
	f.outs.register(fs, "write the steps' results and the table as JSON to this file (- for stdout)")
	return f
}

// check validates the shared flags after parsing, the workload's (given
// by each experiment) aside.
func (f *expFlags) check(e *env, args []string) error {
	n := "experiment " + f.name
	f.args = args
	if f.timeout < 0 {
		return badInput("%s: --timeout must be 0 (none) or more", n)
	}
	if err := errors.Join(f.gr.check(n, f.fs), f.rs.check(n, f.fs, true), f.ol.check(n, f.fs, false)); err != nil {
		return err
	}
	var err error
	f.outF, err = f.outs.open(e, n, f.fs)
	return err
}

// ladder opens the database and runs the steps (session.RunLadder),
// printing each as it starts. Ctrl-C stops it with the steps done so far.
func (f *expFlags) ladder(ctx context.Context, e *env, steps []session.Step) (*result.Run, []*result.Experiment, error) {
	n := "experiment " + f.name
	e.sizeProcs(0, f.rs.threads)
	sink := &cliSink{e: e, started: func(i, k int, label string, x run.Experiment) {
		fmt.Fprintf(e.stderr, "step %d of %d: %s: %d threads, warmup %v, duration %v%s, request timeout %v, retries %d\n",
			i+1, k, label, x.Threads, x.Warmup, x.Duration, rateNote(x.Rate, f.ol.arrival), f.timeout, f.rs.retries)
	}}
	live, err := startLive(e, n, f.outs.metricsAddr)
	if err != nil {
		return nil, nil, err
	}
	defer stopLive(e, live)
	s, err := openSession(ctx, e, n, f.db.url, f.rs.threads, session.Split{}, sink)
	if err != nil {
		return nil, nil, err
	}
	defer closeSession(e, s)
	return s.RunLadder(ctx, session.Ladder{
		Experiment: f.rs.experiment(f.ol.rate),
		Config: run.Config{Seed: f.rs.seed, Retries: f.rs.retries, Timeout: f.timeout, Drain: f.rs.drain,
			Status: redactWriter{e.stderr, f.args}, Arrival: f.ol.arrival, Live: e.liveRuns()},
		Edges: f.gr.edges, EdgesGiven: f.gr.edgesGiven, LoadThreads: f.gr.loadThreads,
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
	if err := f.check(e, args); err != nil {
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
		session.WriteHoldTable(e.stdout, info, rows)
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
	if err := f.check(e, args); err != nil {
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
	step, wc := session.WaitStep(base, "waits "+*waits, ws, f.rs.warmup)
	steps := []session.Step{step}
	info, done, err := f.ladder(ctx, e, steps)
	var rows []session.WaitRow
	if len(done) > 0 {
		rows = wc.Rows()
		session.WriteWaitTable(e.stdout, info, f.rs.threads, rows)
		session.OpenLoopNote(e.stdout, done, session.Labels(steps, len(done)))
	}
	if werr := writeExperimentJSON(e, f.outF, "precondition-wait", info, done, session.Labels(steps, len(done)), rows); werr != nil {
		return werr
	}
	return err
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
	if err := f.check(e, args); err != nil {
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
	if err := f.check(e, args); err != nil {
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
		session.WriteCompareTable(e.stdout, info, labels, rows, session.LatencyOf(done))
		session.OpenLoopNote(e.stdout, done, labels)
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

// --- JSON --------------------------------------------------------------------

// writeExperimentJSON writes the experiment's document (session.PaperJSON)
// to --out through run's writer (out.go).
func writeExperimentJSON(e *env, out *outFile, name string, info *result.Run, done []*result.Experiment, steps []string, table any) error {
	if out == nil || info == nil {
		return nil
	}
	js, err := session.PaperJSON(name, info, done, steps, table)
	if err != nil {
		return fmt.Errorf("--out %s: %w", out.given, err)
	}
	if err := out.writeMeasured(func(w io.Writer) error { _, err := w.Write(js); return err }, done, true); err != nil {
		return err
	}
	if out.stream() == nil {
		fmt.Fprintln(e.stderr, out.written(false))
	}
	return nil
}
