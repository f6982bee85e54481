package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/report"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
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
	// wrap, when set, wraps the store each step runs on; it is called
	// just before the step starts.
	wrap func(st store.Store) store.Store
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

// step is one rung of an experiment's ladder.
type step struct {
	label string // e.g. "hold 5ms" or "t3"
	w     *workload.Workload
}

// ladder opens the database, makes sure it holds a graph every step's
// workload can run on (loading the first step's when it holds none), runs
// the steps in order and returns their results. Ctrl-C stops it with the
// steps done so far.
func (f *expFlags) ladder(ctx context.Context, e *env, steps []step) (*report.Run, []*report.Experiment, error) {
	n := "experiment " + f.name
	e.sizeProcs(0, *f.threads)
	x := run.Experiment{Threads: *f.threads, Warmup: f.warmup, Duration: f.duration, Rate: *f.rate}
	sink := &cliSink{e: e, started: func(i, k int, label string, x run.Experiment) {
		fmt.Fprintf(e.stderr, "step %d of %d: %s: %d threads, warmup %v, duration %v%s, request timeout %v, retries %d\n",
			i+1, k, label, x.Threads, x.Warmup, x.Duration, rateNote(x.Rate, f.arrival), f.timeout, *f.retries)
	}}
	s, err := openSession(ctx, e, n, *f.db, *f.threads, session.Split{}, sink)
	if err != nil {
		return nil, nil, err
	}
	defer closeSession(e, s)
	if _, ok := s.Database(); !ok {
		return nil, nil, badInput("%s: %s keeps no data; give a database URL (sqlite:PATH, postgres://..., mysql://...)", n, s.Name())
	}
	ws := make([]*workload.Workload, len(steps))
	plan := session.Plan{
		Config: run.Config{Seed: *f.seed, Retries: *f.retries, Timeout: f.timeout, Drain: f.drain,
			Status: redactWriter{e.stderr, f.args}, Arrival: f.arrival},
	}
	for i, st := range steps {
		ws[i] = st.w
		plan.Steps = append(plan.Steps, session.Step{Label: st.label, Workload: st.w, Wrap: f.wrap})
		plan.Experiments = append(plan.Experiments, x)
	}
	g, loaded, err := s.Graph(ctx, session.GraphSpec{Workload: ws[0], Also: ws[1:], Edges: *f.edges, EdgesGiven: f.given["edges"], LoadThreads: *f.loadThr})
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(e.stderr, "graph: workload %s's, %d edges; seed %d (give --seed %d to repeat the requests)\n", loaded.Name, g.Edges(), *f.seed, *f.seed)
	info := s.RunInfo(session.Meta{Workloads: ws, GraphOf: loaded.Name, Graph: g, Seed: *f.seed, Retries: *f.retries})
	plan.Config.Graph = g
	done, err := s.Run(ctx, plan)
	return info, done, err
}

func uniq(s []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// writeRequests are the measured writes and write transactions of e, and
// how many of them ended in o.
func writeOutcomes(e *report.Experiment, o tao.Outcome) (writes, n int64) {
	for _, c := range []tao.Class{tao.Write, tao.WriteTxn} {
		for out := range tao.NumOutcomes {
			writes += e.Counters.Outcomes[c][out]
		}
		n += e.Counters.Outcomes[c][o]
	}
	return writes, n
}

func pctOf(n, d int64) float64 {
	if d == 0 {
		return 0
	}
	return 100 * float64(n) / float64(d)
}

// --- lock-hold ---------------------------------------------------------------

// holdRow is one row of the lock-hold table.
type holdRow struct {
	Hold           string  `json:"hold"`
	HoldMs         float64 `json:"hold_ms"`
	Writes         int64   `json:"writes"`
	Throughput     float64 `json:"throughput"`
	ConflictPct    float64 `json:"conflict_pct"`
	ObjConflictPct float64 `json:"object_lock_conflict_pct"`
	AssocConflict  float64 `json:"association_lock_conflict_pct"`
	TimeoutPct     float64 `json:"timeout_pct"`
	FailedPct      float64 `json:"failed_pct"`
	P50Ms          float64 `json:"write_p50_ms"`
	P99Ms          float64 `json:"write_p99_ms"`
	// TargetRate is the step's offered load (open loop; 0: closed loop),
	// and Reached whether the clients issued it (result.OpenLoop.Reached).
	TargetRate float64 `json:"target_rate,omitempty"`
	Reached    bool    `json:"reached"`
}

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
	hs, err := parseHolds(*holds)
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
	steps := make([]step, len(hs))
	for i, h := range hs {
		w := *base
		w.LockHold = workload.Dist[time.Duration]{}
		if h > 0 {
			w.LockHold = workload.Dist[time.Duration]{Values: []time.Duration{h}, Weights: []float64{1}}
		}
		steps[i] = step{label: "hold " + h.String(), w: &w}
	}
	info, done, err := f.ladder(ctx, e, steps)
	rows := make([]holdRow, len(done))
	for i, x := range done {
		writes, touts := writeOutcomes(x, tao.Timeout)
		var failed int64
		for o := range tao.NumOutcomes {
			if o.Failed() {
				_, k := writeOutcomes(x, o)
				failed += k
			}
		}
		c := x.Summary.Contention()
		st := x.Summary.Stats("write", "write_txn")
		rows[i] = holdRow{
			Hold: hs[i].String(), HoldMs: float64(hs[i]) / 1e6, Writes: writes,
			Throughput:  float64(x.Summary.Requests()) / max(x.Measured.Seconds(), 1e-9),
			ConflictPct: c.OverallPct, ObjConflictPct: c.ObjectLockConflictPct, AssocConflict: c.AssociationLockConflictPct,
			TimeoutPct: pctOf(touts, writes), FailedPct: pctOf(failed, writes),
			P50Ms: st.P50 / 1000, P99Ms: st.P99 / 1000, // Stats are in µs
			TargetRate: x.OpenLoop.Rate, Reached: x.OpenLoop.Reached(),
		}
	}
	if len(rows) > 0 {
		writeHoldTable(e.stdout, info, rows)
	}
	if werr := writeExperimentJSON(e, f.outF, "lock-hold", info, done, labels(steps, len(done)), rows); werr != nil {
		return werr
	}
	return err
}

func labels(steps []step, n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = steps[i].label
	}
	return s
}

// --- precondition-wait -------------------------------------------------------

// waitRow is one row of the precondition-wait table.
type waitRow struct {
	Wait      string  `json:"wait"`
	WaitMs    float64 `json:"wait_ms"`
	Checked   int64   `json:"preconditioned_requests"`
	Failed    int64   `json:"precondition_failed"`
	FailedPct float64 `json:"precondition_failed_pct"`
	Ratio     float64 `json:"ratio"` // FailedPct over the first positive wait's; 0 when undefined
}

// The waits are drawn together in one step, each preconditioned write
// taking one at random, so every wait meets the same concurrent load: in a
// closed loop, a step per wait would let the waits themselves slow every
// client and lower the load the writes race against (docs/experiments.md).
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
	ws, err := parseHolds(*waits)
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
	if !hasVersionPredicate(base) {
		return badInput("experiment precondition-wait: workload %s draws no write_version or read_version precondition, so no write would wait; use --workload preconditioned or add one", base.Name)
	}
	w := *base
	w.PreconditionWait = workload.Dist[time.Duration]{Values: ws, Weights: make([]float64, len(ws))}
	for i := range ws {
		w.PreconditionWait.Weights[i] = 1
	}
	var wc *waitCounter
	f.wrap = func(st store.Store) store.Store {
		wc = newWaitCounter(st, ws, time.Now().Add(f.warmup))
		return wc
	}
	steps := []step{{label: "waits " + *waits, w: &w}}
	info, done, err := f.ladder(ctx, e, steps)
	var rows []waitRow
	if len(done) > 0 && wc != nil {
		ref := -1.0
		for i, d := range ws {
			r := waitRow{Wait: d.String(), WaitMs: float64(d) / 1e6, Checked: wc.checked[i].Load(), Failed: wc.failed[i].Load()}
			r.FailedPct = pctOf(r.Failed, r.Checked)
			if ref < 0 && d > 0 {
				ref = r.FailedPct
			}
			if ref > 0 {
				r.Ratio = r.FailedPct / ref
			}
			rows = append(rows, r)
		}
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
		openLoopNote(e.stdout, done, labels(steps, len(done)))
	}
	if werr := writeExperimentJSON(e, f.outF, "precondition-wait", info, done, labels(steps, len(done)), rows); werr != nil {
		return werr
	}
	return err
}

// waitCounter counts, by the wait drawn, the requests with a version check
// that reached a final answer after from (the end of the warmup), and
// those that failed on their precondition. A conflict is not final: it is
// retried (or counted by the run as a conflict).
type waitCounter struct {
	store.Store
	waits           []time.Duration
	from            time.Time
	checked, failed []atomic.Int64
}

func newWaitCounter(st store.Store, waits []time.Duration, from time.Time) *waitCounter {
	return &waitCounter{Store: st, waits: waits, from: from,
		checked: make([]atomic.Int64, len(waits)), failed: make([]atomic.Int64, len(waits))}
}

func (c *waitCounter) Exec(ctx context.Context, req *tao.Request, res *tao.Result) {
	c.Store.Exec(ctx, req, res)
	if res.Outcome.IsConflict() || time.Now().Before(c.from) {
		return
	}
	version := false
	for i := range req.Checks {
		version = version || req.Checks[i].Kind == tao.CheckVersion
	}
	if !version {
		return
	}
	for i, d := range c.waits {
		if d == req.Wait {
			c.checked[i].Add(1)
			if res.Outcome == tao.PreconditionFailed {
				c.failed[i].Add(1)
			}
			return
		}
	}
}

// hasVersionPredicate reports whether w draws a version precondition, the
// only kind of write precondition_wait delays.
func hasVersionPredicate(w *workload.Workload) bool {
	for _, d := range []workload.Dist[tao.Predicate]{w.OpPredicates, w.TxnPredicates} {
		for i, p := range d.Values {
			if (p == tao.PredWriteVersion || p == tao.PredReadVersion) && d.Weights[i] > 0 {
				return true
			}
		}
	}
	return false
}

// parseHolds reads a comma-separated list of durations; "0" is no hold.
func parseHolds(s string) ([]time.Duration, error) {
	var hs []time.Duration
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		d, err := time.ParseDuration(p)
		if err != nil {
			return nil, fmt.Errorf("%q is not a duration; give Go durations such as 0,5ms,20ms,100ms", p)
		}
		if d < 0 || d > workload.MaxLockHold {
			return nil, fmt.Errorf("%v: give holds from 0 to %v", d, workload.MaxLockHold)
		}
		hs = append(hs, d)
	}
	return hs, nil
}

func writeHoldTable(w io.Writer, info *report.Run, rows []holdRow) {
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

// compareRow is one metric of the compare table: its value per workload
// and the % difference of each from the first.
type compareRow struct {
	Metric  string    `json:"metric"`
	Values  []float64 `json:"values"`
	DiffPct []float64 `json:"diff_pct"` // per workload after the first; null when the first is 0
}

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
	steps := make([]step, len(wls))
	for i, name := range wls {
		w, err := loadWorkload(e, name, false)
		if err != nil {
			return err
		}
		steps[i] = step{label: w.Name, w: w}
	}
	info, done, err := f.ladder(ctx, e, steps)
	var rows []compareRow
	if len(done) > 0 {
		rows = compareRows(done)
		writeCompareTable(e.stdout, info, labels(steps, len(done)), rows, latencyOf(done))
		openLoopNote(e.stdout, done, labels(steps, len(done)))
	}
	if werr := writeExperimentJSON(e, f.outF, name, info, done, labels(steps, len(done)), rows); werr != nil {
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

// latencyOf names the series the compare table's latencies are of: write
// transactions when every step has some (Tables 4, 6 and 7 are of write
// transactions), else every request.
func latencyOf(done []*report.Experiment) string {
	for _, x := range done {
		if x.Summary.Stats("write_txn").Count == 0 {
			return metrics.All
		}
	}
	return "write_txn"
}

func compareRows(done []*report.Experiment) []compareRow {
	series := latencyOf(done)
	type metric struct {
		name string
		f    func(x *report.Experiment) float64
	}
	// Stats are in µs.
	stat := func(x *report.Experiment) metrics.LatencyStats { return x.Summary.Stats(series) }
	rows := []metric{
		{"mean latency (ms)", func(x *report.Experiment) float64 { return stat(x).Mean / 1000 }},
		{"p50 latency (ms)", func(x *report.Experiment) float64 { return stat(x).P50 / 1000 }},
		{"p99 latency (ms)", func(x *report.Experiment) float64 { return stat(x).P99 / 1000 }},
		{"obj. lock conflict %", func(x *report.Experiment) float64 { return x.Summary.Contention().ObjectLockConflictPct }},
		{"assoc. lock conflict %", func(x *report.Experiment) float64 { return x.Summary.Contention().AssociationLockConflictPct }},
		{"overall contention %", func(x *report.Experiment) float64 { return x.Summary.Contention().OverallPct }},
		{"lock-conflicted writes", func(x *report.Experiment) float64 {
			w, _ := writeOutcomes(x, tao.OK)
			return math.Round(x.Summary.Contention().OverallPct * float64(w) / 100)
		}},
		{"unique assoc. exists %", func(x *report.Experiment) float64 { return x.Summary.Contention().UniqueAssociationExistsPct }},
		{"timeout %", func(x *report.Experiment) float64 { w, t := writeOutcomes(x, tao.Timeout); return pctOf(t, w) }},
		{"throughput (req/s)", func(x *report.Experiment) float64 {
			return float64(x.Summary.Requests()) / max(x.Measured.Seconds(), 1e-9)
		}},
	}
	out := make([]compareRow, len(rows))
	for i, m := range rows {
		r := compareRow{Metric: m.name}
		for _, x := range done {
			r.Values = append(r.Values, m.f(x))
		}
		for _, v := range r.Values[1:] {
			r.DiffPct = append(r.DiffPct, diffPct(r.Values[0], v))
		}
		out[i] = r
	}
	return out
}

// diffPct is (v - base) / base in percent; NaN when base is 0.
func diffPct(base, v float64) float64 {
	if base == 0 {
		return math.NaN()
	}
	return 100 * (v - base) / base
}

func writeCompareTable(w io.Writer, info *report.Run, names []string, rows []compareRow, series string) {
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

// writeExperimentJSON writes run's JSON document (report.WriteJSON: "run"
// and "experiments", one per step) with three more keys: "experiment" (its
// name), "steps" (each experiment's label) and "table" (the printed rows).
// Values that are not numbers (a % difference from 0) are written as null.
func writeExperimentJSON(e *env, out *outFile, name string, info *report.Run, done []*report.Experiment, steps []string, table any) error {
	if out == nil || info == nil {
		return nil
	}
	var b bytes.Buffer
	if err := report.WriteJSON(&b, info, done); err != nil {
		return fmt.Errorf("--out %s: %w", out.given, err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		return fmt.Errorf("--out %s: %w", out.given, err)
	}
	doc["experiment"], doc["steps"] = name, steps
	raw, err := json.Marshal(table)
	if err != nil {
		// NaN: marshal the rows again with NaN as null.
		raw, err = json.Marshal(nanToNull(table))
		if err != nil {
			return fmt.Errorf("--out %s: %w", out.given, err)
		}
	}
	doc["table"] = json.RawMessage(raw)
	js, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("--out %s: %w", out.given, err)
	}
	js = append(js, '\n')
	if err := out.writeWith(func(w io.Writer) error { _, err := w.Write(js); return err }, true); err != nil {
		return err
	}
	if out.stream == nil {
		fmt.Fprintf(e.stderr, "results written to %s\n", out.given)
	}
	return nil
}

// nanToNull returns compare rows with NaN differences as nil.
func nanToNull(table any) any {
	rows, ok := table.([]compareRow)
	if !ok {
		return table
	}
	type row struct {
		Metric  string     `json:"metric"`
		Values  []float64  `json:"values"`
		DiffPct []*float64 `json:"diff_pct"`
	}
	out := make([]row, len(rows))
	for i, r := range rows {
		out[i] = row{Metric: r.Metric, Values: r.Values}
		for _, d := range r.DiffPct {
			if math.IsNaN(d) {
				out[i].DiffPct = append(out[i].DiffPct, nil)
			} else {
				d := d
				out[i].DiffPct = append(out[i].DiffPct, &d)
			}
		}
	}
	return out
}
