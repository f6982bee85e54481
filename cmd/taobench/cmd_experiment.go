package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/taobench/taobench/internal/flagx"
	"github.com/taobench/taobench/outfile"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/workload"
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
             their high fan-out variant, with a % difference column (Table 7)
  compare    --workload t1 --workload t3 [...]: latency and contention side by side
             with a % difference column (Tables 6 and 7)

Common flags: --db URL --threads N --warmup D --duration D --retries N --timeout D
--rate R (open loop at a fixed offered load) --edges N --seed S --out FILE. Run "taobench experiment KIND -h" for all of them.
`

func cmdExperiment(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
			return &usageError{errHelp, experimentUsage}
		}
		return &exitError{exitBadInput, &usageError{errors.New("experiment: name the experiment: lock-hold, precondition-wait, fanout or compare"), experimentUsage}}
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
	return &exitError{exitBadInput, &usageError{fmt.Errorf("experiment: unknown experiment %q; use lock-hold, precondition-wait, fanout or compare", args[0]), experimentUsage}}
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
	ts      session.TierSpec
	rep     repeatSpec
	name    string
	args    []string // the command line, for redacting status lines
	// outF is --out, checked.
	outF *outfile.Results
}

func newExpFlags(name string) *expFlags {
	f := &expFlags{name: name, fs: flag.NewFlagSet("experiment "+name, flag.ContinueOnError), timeout: time.Second}
	fs := f.fs
	f.db.registerMany(fs, defaultDB(), dbHelp)
	f.gr.register(fs, false, 10_000, "graph size in edges, loaded when the database holds no graph: small, so keys are hot")
	f.rs.register(fs, runDefaults{threads: 32, warmup: 2 * time.Second, duration: 10 * time.Second, drain: 5 * time.Second,
		threadsHelp: "concurrent clients of every step; with --rate, the most requests in flight at once",
		seedHelp:    "request seed (default: a new one, printed)"})
	f.ol.register(fs, true, "target rate of every step in requests per second across all clients (open loop: the offered load stays fixed however slow the writes get, as TAO's users keep arriving); 0: closed loop")
	fs.Var(durationFlag{&f.timeout}, "timeout", "deadline of each request, its retries included: past it a request is cut and counts as a timeout (0: none)")
	f.outs.register(fs, "write the steps' results and the table as JSON to this file (- for stdout)")
	registerTiers(fs, &f.ts)
	f.rep.register(fs, "every step")
	return f
}

// parse parses the flags and checks the shared ones, the workload's
// (given by each experiment) aside.
func (f *expFlags) parse(e *env, args []string) error {
	n := "experiment " + f.name
	f.args = args
	if err := parse(f.fs, args); err != nil {
		return err
	}
	if f.timeout < 0 {
		return badInput("%s: --timeout must be 0 (none) or more", n)
	}
	if err := errors.Join(f.gr.check(n, f.fs), f.rs.check(n, f.fs, true), f.ol.check(n, f.fs, false), checkTiers(n, f.ts), f.rep.check(n, f.ts)); err != nil {
		return err
	}
	var err error
	f.outF, err = f.outs.open(e, n, f.fs)
	return err
}

// paper opens the database and runs one of the paper's experiments
// (do), printing each step as it starts, then writes --out. Ctrl-C stops
// it with the steps done so far.
//
// first is the first step's workload, whose graph an empty database gets:
// an --edges it cannot be sized to is refused before the open, which would
// create a new SQLite file.
func (f *expFlags) paper(ctx context.Context, e *env, first *workload.Workload, do func(*session.Session, session.Ladder) (*session.Paper, error)) error {
	n := "experiment " + f.name
	if err := f.gr.of().Check(first); err != nil {
		return err
	}
	e.sizeProcs(0, f.rs.threads)
	sink := e.sink(func(i, k int, label string, x run.Experiment) {
		fmt.Fprintf(e.stderr, "step %d of %d: %s: %d threads, warmup %v, duration %v%s, request timeout %v, retries %d\n",
			i+1, k, label, x.Threads, x.Warmup, x.Duration, rateNote(x.Rate, f.ol.arrival), f.timeout, f.rs.retries)
	}, nil)
	s, err := openSession(ctx, e, &f.db, f.outs.metricsAddr, session.Options{Name: n, Clients: f.rs.threads, Sink: sink, Tiers: f.ts})
	if err != nil {
		return err
	}
	defer closeSession(e, s)
	p, err := f.rep.repeatPaper(ctx, e, s, session.Ladder{
		Experiment: f.rs.experiment(f.ol.rate),
		Config: run.Config{Seed: f.rs.seed, Retries: f.rs.retries, Timeout: f.timeout, Drain: f.rs.drain,
			Status: store.RedactWriter{W: e.stderr, Args: f.args}, Arrival: f.ol.arrival},
		Graph: f.gr.of(), Tiers: f.ts,
	}, first, do)
	if rerr := writeRepeats(e, &f.rep, p); rerr != nil {
		return rerr
	}
	if werr := writePaper(f.outF, p); werr != nil {
		return werr
	}
	if f.outF != nil && f.outF.Stream() == nil && p != nil && p.Info != nil {
		fmt.Fprintln(e.stderr, f.outF.Written(false))
	}
	return err
}

// --- lock-hold ---------------------------------------------------------------

func cmdLockHold(ctx context.Context, e *env, args []string) error {
	f := newExpFlags("lock-hold")
	wl := f.fs.String("workload", "t1", "built-in workload or file whose writes hold their locks")
	holds := f.fs.String("holds", "0,5ms,20ms,50ms,100ms", "comma-separated lock hold times, one step each (Go durations; 0 for none)")
	if err := f.parse(e, args); err != nil {
		return err
	}
	hs, err := parseHolds(*holds)
	if err != nil {
		return badInput("experiment lock-hold: --holds %q: %v", *holds, err)
	}
	base, err := loadWorkload(e, *wl, false)
	if err != nil {
		return err
	}
	return f.paper(ctx, e, base, func(s *session.Session, l session.Ladder) (*session.Paper, error) {
		return s.LockHold(ctx, l, base, hs)
	})
}

// --- precondition-wait -------------------------------------------------------

// cmdPreconditionWait draws the waits together in one step
// (session.WaitStep says why).
func cmdPreconditionWait(ctx context.Context, e *env, args []string) error {
	f := newExpFlags("precondition-wait")
	wl := f.fs.String("workload", "preconditioned", "built-in workload or file whose writes carry version preconditions on keys the client read")
	waits := f.fs.String("waits", "0,30ms,60ms,150ms", "comma-separated waits between a read and its preconditioned write, drawn with equal chance in one step (Go durations)")
	if err := f.parse(e, args); err != nil {
		return err
	}
	ws, err := parseWaits(*waits)
	if err != nil {
		return badInput("experiment precondition-wait: %v", err)
	}
	base, err := loadWorkload(e, *wl, false)
	if err != nil {
		return err
	}
	if !session.HasVersionPredicate(base) {
		return badInput("experiment precondition-wait: workload %s draws no write_version or read_version precondition, so no write would wait; use --workload preconditioned or add one", base.Name)
	}
	return f.paper(ctx, e, base, func(s *session.Session, l session.Ladder) (*session.Paper, error) {
		return s.PreconditionWait(ctx, l, base, "waits "+*waits, ws)
	})
}

// --- compare -----------------------------------------------------------------

func cmdCompare(ctx context.Context, e *env, args []string) error {
	f := newExpFlags("compare")
	var wls []string
	f.fs.Var(flagx.List[string]{Items: &wls, Parse: func(s string) (string, error) { return s, nil }}, "workload", "a workload to compare (give two or more; the first is the baseline)")
	if err := f.parse(e, args); err != nil {
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
	if err := f.parse(e, args); err != nil {
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
	return f.paper(ctx, e, ws[0], func(s *session.Session, l session.Ladder) (*session.Paper, error) {
		return s.Compare(ctx, l, name, ws)
	})
}

// writePaper writes the experiment's document to out (--out), once a step
// measured a request (outfile.Results.WriteMeasured); a nil out or an
// experiment that never started writes nothing.
func writePaper(out *outfile.Results, p *session.Paper) error {
	if out == nil || p == nil || p.Info == nil {
		return nil
	}
	js, err := p.JSON()
	if err != nil {
		return fmt.Errorf("--out %s: %w", out.Given, err)
	}
	return out.WriteMeasured(func(w io.Writer) error { _, err := w.Write(js); return err }, p.Done, true)
}
