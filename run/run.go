// Package run owns time: it runs experiments of clients against a store, in
// closed loop or at a target rate (open loop, pacer.go), excludes warmup,
// retries conflicts, backs off on errors and hands the merged measurements,
// as a result.Experiment, to the reporters.
//
// Each client owns its generator, its request and result buffers and a batch
// of samples, so the hot path shares nothing with other clients. A full batch,
// or one last handed over more than flushEvery ago, goes to one of at most
// maxRecorders recorders (HDR histograms per class and kind): memory stays
// bounded at any client count, and a recorder's lock is taken once per batch.
// Each client also counts its measured requests in atomic counters of its
// own, which the status line reads, so the line is current however slow the
// database. Warmup
// is excluded by each client comparing its request's start time with the
// experiment's fixed boundaries: no shared flag is flipped and no shared state
// is reset while clients run.
package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/taobench/taobench/fidelity"
	"github.com/taobench/taobench/fidelity/expect"
	"github.com/taobench/taobench/gen"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/internal/clock"
	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/randdist"
	"github.com/taobench/taobench/resources"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// MaxClients is the most clients one experiment may run; ids created at run
// time reserve 12 bits for the client.
const MaxClients = 4096

const (
	// maxRecorders bounds the histogram sets (about 2 MB each): with a
	// 64-sample batch, 8 serve 1,024 clients without contention.
	maxRecorders = 8
	// batchSize samples are recorded under one lock acquisition.
	batchSize = 64
	// flushEvery is the most time a client keeps a sample in its batch
	// while it completes requests, so status percentiles stay current.
	flushEvery = 250 * time.Millisecond
	// abandonAfter is how long after the drain deadline (or after ctx is
	// cancelled) Do waits for a client still inside Store.Exec before it
	// abandons the client: a store that ignores its context must not hold
	// the run.
	abandonAfter = 250 * time.Millisecond
	// keepOps is the largest request buffer a client keeps between
	// requests: a rare 500-op transaction would otherwise pin 48 KB in
	// every client for the rest of the run.
	keepOps = 64
)

// Experiment is one line of an experiments file: threads,warmup,duration
// and an optional target rate.
type Experiment struct {
	Threads  int
	Warmup   time.Duration
	Duration time.Duration
	// Rate is the target rate in requests per second across all clients
	// (open loop, pacer.go); 0 runs closed loop.
	Rate float64
	// At, when set, is the experiment's shared start (drivers of one run,
	// docs/distributed.md): Do waits for it, and when it is already past
	// keeps the shared windows, so a late process runs a shorter warmup or
	// measured window and records how late it was.
	At time.Time
}

// Config is what every experiment of a run shares.
type Config struct {
	Store store.Store
	// Endpoints, when two or more, are servers of one database the
	// clients are spread over (endpoints.go, EndpointOf); Store is then
	// unused, and the result breaks its figures down per endpoint.
	Endpoints []Endpoint
	Workload  *workload.Workload
	Graph     *graph.Graph
	Run       int64  // run number reserved in the database; part of new ids
	Seed      uint64 // seeds every client's generator
	// FirstClient is the run-wide number of this process's first client
	// when drivers share a run: client i here is client FirstClient+i of
	// the run, drawing that client's stream and creating its ids.
	FirstClient int
	// Drivers is the number of processes sharing the run (0 or 1: this
	// one alone): the hot keys' targets are recorded up to the count of
	// their merged results (expect.Targets).
	Drivers int

	// Retries is how often a request that ends in a conflict is tried again;
	// 0 fails fast. Backoff is capped, jittered and exponential.
	Retries    int
	BackoffMin time.Duration
	BackoffMax time.Duration

	// Drain is how long requests still in flight at the end of the
	// experiment may take before they are cancelled (and count as timeouts).
	// A request whose store ignores the cancel is abandoned abandonAfter
	// later, counted as a timeout, and Do returns without it.
	Drain time.Duration

	// Arrival is the arrival process of open-loop experiments.
	Arrival Arrival

	// InjectLatency makes every request sleep a delay drawn from its
	// class's *_latency field of the workload before it goes to the store
	// (inject.go); latency and service time include it.
	InjectLatency bool

	// Timeout, when positive, bounds each request, its retries included:
	// an attempt still running at the deadline is cancelled and the request
	// ends a timeout; no retry starts after it (docs/experiments.md).
	Timeout time.Duration

	// Status receives a status line every StatusEvery (none when nil).
	Status      io.Writer
	StatusEvery time.Duration

	// Live, when set, watches the experiment as it runs (live.go).
	Live Live
}

func (c *Config) defaults() {
	if c.BackoffMin <= 0 {
		c.BackoffMin = time.Millisecond
	}
	if c.BackoffMax < c.BackoffMin {
		c.BackoffMax = 200 * time.Millisecond
	}
	if c.Drain <= 0 {
		c.Drain = 10 * time.Second
	}
	if c.StatusEvery <= 0 {
		c.StatusEvery = 10 * time.Second
	}
}

// Do runs one experiment. When ctx is cancelled (Ctrl-C) it stops early and
// still returns what was measured, marked Interrupted.
func Do(ctx context.Context, cfg Config, e Experiment) (*result.Experiment, error) {
	cfg.defaults()
	if err := checkExperiment(&cfg, e); err != nil {
		return nil, err
	}
	plan, err := gen.NewPlan(cfg.Workload, cfg.Graph, cfg.Seed)
	if err != nil {
		return nil, err
	}
	// An endpoint's recorders share one per-second timeline, so its
	// memory does not grow with their number.
	gs, of, err := groups(&cfg, e.Threads)
	if err != nil {
		return nil, err
	}
	if len(gs) > 1 {
		cfg.Store = gs[0].ep.Store // for the server's statistics and tiers
	}
	var recs []*metrics.Recorder
	for _, g := range gs {
		recs = append(recs, g.recs...)
	}
	var loss firstLoss
	x := newExpShared(&cfg, e.Threads)
	clients, err := newClients(plan, &cfg, gs, of, x, &loss)
	if err != nil {
		return nil, err
	}

	// A tier to warm is warmed first: the experiment's clock waits for it.
	if w, ok := cfg.Store.(Warmer); ok {
		w.Warm(ctx, cfg.Graph, cfg.Graph.Seed(), cfg.Run, cfg.Status)
	}
	// The experiment's clock starts once the plan and clients are built,
	// or at the shared start, and the server's statistics read.
	r := &experiment{cfg: &cfg, e: e, plan: plan, gs: gs, clients: clients, x: x}
	r.sampler = resources.Start(ctx, cfg.Store)
	if len(gs) > 1 {
		for _, g := range gs[1:] {
			g.server = resources.StartServer(ctx, g.ep.Store)
		}
	}
	r.start, r.late = sharedStart(ctx, e.At)
	b := bounds{measure: r.start.Add(e.Warmup), end: r.start.Add(e.Warmup + e.Duration)}
	if e.Rate > 0 {
		b.sched = newSchedule(NewPacer(cfg.Arrival, e.Rate, driverPacerSeed(cfg.Seed, cfg.FirstClient)), r.start, b)
		b.sched.lateBy = r.late // a late process does not catch up on arrivals it missed
	}
	r.b = b
	r.tiers, _ = cfg.Store.(Tiered)
	if r.tiers != nil {
		r.tiers.BeginExperiment(cfg.Graph.Seed(), cfg.Run, b.measure, b.end)
	}
	if cfg.Live != nil {
		cfg.Live.Begin(LiveExperiment{Threads: e.Threads, Rate: e.Rate, Start: r.start, Measure: b.measure, End: b.end,
			InFlight: func() int { return inFlight(clients) }})
		defer cfg.Live.End()
	}

	// Requests still running at the end get Drain to finish; then they are
	// cancelled so a stalled database cannot hang the run.
	execCtx, cancel := context.WithDeadline(ctx, b.end.Add(cfg.Drain))
	defer cancel()
	defer watchContexts(&cfg, clients, execCtx)()

	// A client reports on ended when its loop ends, unless Do abandoned it.
	ended := make(chan struct{}, len(clients))
	for _, c := range clients {
		go func() {
			// Each client's requests carry a context of its own, a child of
			// execCtx: a driver that watches every query's context (pgx
			// registers on it, and unregisters, per query) then takes the
			// client's own lock, not one lock all the clients contend for.
			cctx, ccancel := context.WithCancel(execCtx)
			defer ccancel()
			if c.loop(ctx, cctx, &cfg, b) {
				ended <- struct{}{}
			}
		}()
	}

	done := make(chan struct{})
	var statusWG sync.WaitGroup
	if cfg.Status != nil {
		statusWG.Add(1)
		go func() {
			defer statusWG.Done()
			status(done, &cfg, recs, clients, r.start, b)
		}()
	}
	abandoned := wait(ctx, clients, ended, b, b.end.Add(cfg.Drain))
	close(done)
	statusWG.Wait()
	if cfg.Status != nil && abandoned > 0 {
		fmt.Fprintf(cfg.Status, "%d request(s) still waiting on the database %v after the drain period were abandoned and count as timeouts\n",
			abandoned, abandonAfter)
	}
	if cfg.Status != nil && loss.err != nil {
		// The report counts lost requests; this says why they were lost.
		fmt.Fprintf(cfg.Status, "first lost request (%s, %.3f s into the measured window): %v\n",
			loss.outcome, loss.at.Seconds(), loss.err)
	}
	return r.report(ctx, time.Now(), abandoned), nil
}

// checkExperiment refuses an experiment Do cannot run, saying why.
func checkExperiment(cfg *Config, e Experiment) error {
	if e.Threads < 1 || e.Threads > MaxClients {
		return fmt.Errorf("experiment: %d threads; use 1 to %d", e.Threads, MaxClients)
	}
	if cfg.FirstClient < 0 || cfg.FirstClient+e.Threads > MaxClients {
		return fmt.Errorf("experiment: clients %d to %d; a run has at most %d", cfg.FirstClient, cfg.FirstClient+e.Threads-1, MaxClients)
	}
	if (cfg.Store == nil && len(cfg.Endpoints) < 2) || cfg.Workload == nil || cfg.Graph == nil {
		return fmt.Errorf("experiment: the config needs a store, a workload and a graph")
	}
	if err := CheckRate(e.Rate); err != nil {
		return fmt.Errorf("experiment: %v", err)
	}
	if e.Warmup < 0 || e.Duration <= 0 {
		return fmt.Errorf("experiment: warmup %v and duration %v; the warmup may be 0, the duration must be positive", e.Warmup, e.Duration)
	}
	return nil
}

// newClients builds client i of the experiment on endpoint group gs[of[i]].
func newClients(plan *gen.Plan, cfg *Config, gs []*endpointGroup, of []int, x *expShared, loss *firstLoss) ([]*client, error) {
	clients := make([]*client, len(of))
	for i := range clients {
		k := cfg.FirstClient + i // run-wide client number
		g := gs[of[i]]
		c := newClient(plan, k, cfg, g.recs[len(g.clients)%len(g.recs)], x)
		c.st = g.ep.Store
		g.clients = append(g.clients, c)
		c.loss = loss
		c.id, c.live = i, cfg.Live
		if cfg.InjectLatency {
			var err error
			if c.inject, err = newInjector(cfg.Workload, randdist.Hash(cfg.Seed, uint64(k), 0x696e6a, 0)); err != nil {
				return nil, fmt.Errorf("experiment: injected latency: %v", err)
			}
		}
		clients[i] = c
	}
	return clients, nil
}

// watchContexts: without a request timeout every request carries execCtx,
// and a store that can watches it once, not per query (sqlstore's
// WatchContext). The function returned ends the watches.
func watchContexts(cfg *Config, clients []*client, execCtx context.Context) func() {
	var stops []func()
	if cfg.Timeout <= 0 {
		watched := map[store.Store]bool{}
		for _, c := range clients {
			if w, ok := c.st.(contextWatcher); ok && !watched[c.st] {
				watched[c.st] = true
				stops = append(stops, w.WatchContext(execCtx))
			}
		}
	}
	return func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
}

// experiment is one Do under way: what its report is made of once its
// clients have ended.
type experiment struct {
	cfg     *Config
	e       Experiment
	plan    *gen.Plan
	gs      []*endpointGroup
	clients []*client
	x       *expShared
	b       bounds
	start   time.Time
	late    time.Duration
	tiers   Tiered
	sampler *resources.Sampler
}

// report gathers what the clients, the tiers and the server saw into the
// experiment's result; finished is when the clients ended or were
// abandoned.
func (r *experiment) report(ctx context.Context, finished time.Time, abandoned int) *result.Experiment {
	cfg, e, b := r.cfg, r.e, r.b
	sum := metrics.NewSummary()
	sums := make([]*metrics.Summary, len(r.gs))
	for i, g := range r.gs {
		sums[i] = g.summary()
		sum.Merge(sums[i])
	}
	var fid result.Counters
	var codes result.ErrorCodes
	var first time.Time
	var overtime, deletes int64
	for _, c := range r.clients {
		fid.Merge(&c.fid)
		codes.Merge(c.codes)
		if !c.first.IsZero() && (first.IsZero() || c.first.Before(first)) {
			first = c.first
		}
		overtime += c.overtime.Load()
		deletes += c.deletes.Load()
	}
	// Abandoned clients' buffers are lost with them: they never flushed.
	fid.Keys = r.x.keys.Stats()
	// A late start shortens the measured window when it passed the warmup.
	from := b.measure
	if t := r.start.Add(r.late); t.After(from) {
		from = t
	}
	measured := max(0, b.end.Sub(from))
	interrupted := ctx.Err() != nil && finished.Before(b.end)
	if interrupted {
		measured = max(0, finished.Sub(from))
	}
	open := result.OpenLoop{}
	if b.sched != nil {
		open.Rate, open.Arrival = e.Rate, cfg.Arrival.String()
		open.Scheduled, open.NotIssued = b.sched.finish(finished)
	}
	var consistency *result.Consistency
	if r.tiers != nil {
		consistency = r.tiers.EndExperiment()
	}
	// Requests that timed out may mean a hung server, and Ctrl-C wants
	// out: the server's statistics must not hold the run.
	hurried := ctx.Err() != nil || abandoned > 0 || sum.Outcome(tao.Timeout) > 0
	res := r.sampler.Stop(ctx, hurried)
	var eps []result.Endpoint
	if len(r.gs) > 1 {
		for i, g := range r.gs {
			server := res.Server
			if i > 0 {
				server = g.server.Stop(ctx, hurried)
			}
			eps = append(eps, g.result(sums[i], server))
		}
	}
	var keys int64
	if fid.Keys != nil {
		keys = fid.Keys.Requests
	}
	targets := expect.Targets(cfg.Workload, r.plan, cfg.Graph.Nodes(), keys, cfg.Drivers)
	return &result.Experiment{
		Consistency:  consistency,
		Endpoints:    eps,
		Resources:    res,
		OpenLoop:     open,
		Overtime:     overtime,
		ObjDeletes:   deletes,
		Threads:      e.Threads,
		Warmup:       e.Warmup,
		Duration:     e.Duration,
		TotalRuntime: max(0, finished.Sub(r.start)),
		Measured:     measured,
		At:           e.At,
		Late:         r.late,
		FirstClient:  cfg.FirstClient,
		Interrupted:  interrupted,
		Started:      r.start,
		FirstRequest: max(0, first.Sub(r.start)),
		Summary:      sum,
		Fidelity:     append(fidelity.Rows(cfg.Workload, targets, &fid), fidelity.TierRows(cfg.Workload, consistency)...),
		Counters:     &fid,
		Targets:      targets,
		ErrorCodes:   codes,
	}
}

// sharedStart waits until at, unless ctx ends first, and returns the
// experiment's start and how late this process reached it. With no shared
// start (at zero) the experiment starts now.
func sharedStart(ctx context.Context, at time.Time) (time.Time, time.Duration) {
	if at.IsZero() {
		return time.Now(), 0
	}
	if d := time.Until(at); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return time.Now(), 0 // interrupted while waiting: nothing runs
		}
	}
	return at, max(0, time.Since(at))
}

// driverPacerSeed seeds the arrivals of the process whose first client is
// first: drivers of one run must not all issue at the same instants, and
// a single process (first 0) keeps the arrivals it always had.
func driverPacerSeed(seed uint64, first int) uint64 {
	if first == 0 {
		return pacerSeed(seed)
	}
	return randdist.Hash(pacerSeed(seed), uint64(first), 0x6472, 0)
}

// ExperimentSeed is the request seed of experiment i (0-based) of a run
// with seed: every experiment of a run draws a stream of its own.
func ExperimentSeed(seed uint64, i int) uint64 {
	if i == 0 {
		return seed
	}
	return randdist.Hash(seed, uint64(i), 0x657870, 0)
}

// contextWatcher is a store that can end its requests under a context
// when the context ends, watching it once.
type contextWatcher interface {
	WatchContext(ctx context.Context) func()
}

// bounds are the fixed instants of an experiment: requests that start before
// measure are warmup, requests that would start at or after end are not issued.
type bounds struct {
	measure, end time.Time
	sched        *schedule // open loop; nil in closed loop
}

type client struct {
	st        store.Store // its endpoint's
	gen       *gen.Generator
	rec       *metrics.Recorder    // shared with other clients; see RecordBatch
	batch     []metrics.Sample     // measured samples not yet handed to rec
	flushDue  time.Time            // flushEvery after the batch was last handed to rec
	rng       *rand.Rand           // jitter only
	first     time.Time            // when the client issued its first request
	begin     time.Time            // when the current request began (intended, in open loop)
	actual    time.Time            // when the current request actually began
	late      bool                 // it began more than OvertimeTolerance late
	sleeper   *clock.Sleeper       // open loop: waits for intended starts; injected delays
	clk       clock.Mono           // tells a request's start and end
	inject    *injector            // nil: no injected latency
	errStreak int                  // consecutive requests that ended in Error
	fid       result.Counters      // what the database returned, for the fidelity rows
	codes     result.ErrorCodes    // measured attempts by the database's code
	codeSecs  result.CodesBySecond // the same by the second their request began in
	attempts  []result.ErrorCode   // the current request's counted attempts, until it is known measured
	loss      *firstLoss           // shared; nil keeps no error
	id        int                  // the client's number, for live
	live      Live                 // nil: no live metrics
	keys      *fidelity.KeyBuffer
	board     *raceBoard // nil: no racing inserts
	bufs      *bigBufs   // lends buffers to requests of more than keepOps operations
	ownOps    []tao.Op   // the client's own buffers while it holds lent ones
	ownRes    []tao.OpResult
	lastRace  *race // the race the client last joined
	joined    bool  // the current request is a copy of another client's
	req       tao.Request
	res       tao.Result
	s         metrics.Sample

	// state says whether the client is inside Store.Exec; Do abandons a
	// client stuck there by moving it to clientAbandoned, after which the
	// client touches nothing of its own again and Do owns its batch.
	state atomic.Int32
	// Measured requests completed, and those that failed or were lost, for
	// the status line: always current, unlike the batched histograms.
	done, failed, lost atomic.Int64
	// Measured requests that started more than OvertimeTolerance late.
	overtime atomic.Int64
	// deletes counts the obj_delete operations sent (deletes.go).
	deletes atomic.Int64
}

// Client states.
const (
	clientIdle      int32 = iota // outside Store.Exec
	clientInExec                 // inside Store.Exec
	clientAbandoned              // given up by Do while inside Store.Exec
)

// expShared is what the clients of one experiment share besides the
// recorders: the table of keys the database was asked for, and the board
// of racing inserts (nil when the workload has none).
type expShared struct {
	keys  *fidelity.KeyTable
	board *raceBoard
	bufs  *bigBufs
}

func newExpShared(cfg *Config, threads int) *expShared {
	x := &expShared{keys: fidelity.NewKeyTable(cfg.Graph.Nodes(), threads), bufs: &bigBufs{}}
	if cfg.Workload.RacingInserts > 0 {
		x.board = newRaceBoard(cfg.Workload.RacingCopies)
	}
	return x
}

// newClient returns client i of an experiment, recording into rec.
func newClient(plan *gen.Plan, i int, cfg *Config, rec *metrics.Recorder, x *expShared) *client {
	c := &client{
		st:       cfg.Store,
		keys:     x.keys.Buffer(),
		board:    x.board,
		bufs:     x.bufs,
		gen:      plan.Client(i, cfg.Run),
		rec:      rec,
		batch:    make([]metrics.Sample, 0, batchSize),
		flushDue: time.Now().Add(flushEvery),
		rng:      rand.New(rand.NewPCG(cfg.Seed, uint64(i)+1)),
		clk:      clock.NewMono(),
	}
	c.gen.UseBuffers(c)
	if r, ok := cfg.Store.(Rereader); ok {
		c.gen.Reread(r.Reread())
	}
	return c
}

// record keeps s, a measured request that ended at now, in the client's
// batch, handing the batch to the recorder when it is full or was last
// handed over flushEvery ago; and counts s for the status line.
func (c *client) record(s *metrics.Sample, now time.Time) {
	c.keep(s, now)
	c.done.Add(1)
	if s.Outcome.Failed() {
		c.failed.Add(1)
		if s.Outcome == tao.Error || s.Outcome == tao.Timeout {
			c.lost.Add(1)
		}
	}
}

// keep puts s, a request that ended at now, in the batch, handing the batch
// to the recorder when it is full or was last handed over flushEvery ago.
func (c *client) keep(s *metrics.Sample, now time.Time) {
	c.batch = append(c.batch, *s)
	if len(c.batch) == cap(c.batch) || !now.Before(c.flushDue) {
		c.flush(now)
	}
}

func (c *client) flush(now time.Time) {
	if len(c.batch) > 0 {
		c.rec.RecordBatch(c.batch)
		if c.live != nil {
			c.live.Observe(c.id, c.batch)
		}
		c.batch = c.batch[:0]
	}
	c.flushDue = now.Add(flushEvery)
}

// loop is a client: it issues the next request when the previous one has
// finished (closed loop) or, in open loop, when the next intended start of
// the schedule is due, until the experiment ends or ctx is cancelled. It reports
// false when Do abandoned the client, which then owns what the client held.
func (c *client) loop(ctx, execCtx context.Context, cfg *Config, b bounds) bool {
	defer func() {
		if c.sleeper != nil {
			c.sleeper.Close() // the client's own: safe even when abandoned
		}
	}()
	for {
		more, abandoned := c.step(ctx, execCtx, cfg, b)
		if abandoned {
			return false
		}
		if !more {
			break
		}
	}
	c.flush(time.Now())
	c.keys.Flush()
	return true
}

// step issues one request, with its retries, and records it when it began
// in the measured window. more is false when the loop should end: ctx is
// cancelled or the experiment is over. abandoned is true when Do gave up on
// the client while it was inside Store.Exec: the client must then touch
// nothing of its own.
//
// A request goes through when (pacing: its intended start), start and do
// (precondition wait, injected delay, attempts with backoff) and account
// (recording); errorBackoff then spaces requests to a server that went away.
func (c *client) step(ctx, execCtx context.Context, cfg *Config, b bounds) (more, abandoned bool) {
	if ctx.Err() != nil {
		return false, false
	}
	var due time.Time // closed loop: due when the previous request ended
	if b.sched != nil {
		var ok bool
		if due, ok = c.when(ctx, b.sched); !ok {
			return false, false
		}
	}
	c.next()
	if !c.start(ctx, &b, due) {
		if b.sched != nil {
			b.sched.skip(due) // handed out, never issued
		}
		return false, false
	}
	c.countDeletes()
	cut, abandoned := c.do(ctx, execCtx, cfg)
	if abandoned {
		return false, true
	}
	end := c.clk.Now()
	c.account(ctx, &b, cut, end)
	if c.res.Outcome != tao.Error {
		c.errStreak = 0
		return true, false
	}
	return c.errorBackoff(ctx, b.end, end), false
}

// next draws the client's next request: a copy of another client's racing
// insert when one waits to be joined, else the generator's, which it posts
// when it races.
func (c *client) next() {
	c.joined = false
	if c.board == nil {
		c.gen.Next(&c.req)
		return
	}
	if c.joined = c.board.join(&c.req, c.id, &c.lastRace); c.joined {
		return
	}
	c.gen.Next(&c.req)
	if c.req.Race {
		c.board.post(&c.req, c.id)
	}
}

// when paces an open-loop client: the request is due at the next intended
// start of the schedule s, and the client waits for it, or starts late when
// it was busy until after it. (In closed loop a request is due when the
// previous one has ended, and step does not call when.) ok is false when
// the loop should end: the schedule is over, or ctx was cancelled during the
// wait.
func (c *client) when(ctx context.Context, s *schedule) (due time.Time, ok bool) {
	at, ok := s.next()
	if !ok {
		return time.Time{}, false
	}
	if !c.waitUntil(ctx.Done(), at) {
		s.skip(at)
		return time.Time{}, false
	}
	return at, true
}

// start begins the request c.gen drew, due at due (zero in closed loop). A
// preconditioned write first waits after the client's read of its key
// (precondition_wait), idle and outside its latency: in open loop its
// intended start moves by the wait. start then fixes the request's intended
// and actual starts (c.begin, c.actual, c.late, read by abandon too) and
// opens its sample. It reports false, issuing nothing, when ctx is cancelled
// during the wait or the experiment has ended.
func (c *client) start(ctx context.Context, b *bounds, due time.Time) bool {
	intended := due
	if c.req.Wait > 0 {
		if !c.sleep(ctx, c.req.Wait) {
			return false
		}
		if !intended.IsZero() {
			intended = intended.Add(c.req.Wait)
		}
	}
	now := c.clk.Now()
	if !now.Before(b.end) {
		return false
	}
	if c.first.IsZero() {
		c.first = now
	}
	c.late = false
	if intended.IsZero() {
		intended = now // closed loop: due when it starts
	} else {
		c.late = now.Sub(intended) > OvertimeTolerance
	}
	c.begin, c.actual = intended, now
	s := &c.s
	*s = metrics.Sample{Class: c.req.Class, Kind: tao.NumKinds}
	if len(c.req.Ops) == 1 && (c.req.Class == tao.Read || c.req.Class == tao.Write) {
		s.Kind = c.req.Ops[0].Kind
	}
	return true
}

// do executes the started request: the injected delay, then attempts until
// one ends in other than a conflict, the retries are used up or the request's
// deadline has passed, with a jittered backoff between attempts. It counts
// attempts and conflicts in c.s and leaves the last attempt's result in
// c.res. cut is true when the user's cancel ended the injected delay or a
// backoff; abandoned is true when Do gave up on the client inside Store.Exec.
func (c *client) do(ctx, execCtx context.Context, cfg *Config) (cut, abandoned bool) {
	s := &c.s
	// The request timeout counts from the actual start (an injected delay
	// included), as the service time does.
	reqCtx := execCtx
	if cfg.Timeout > 0 {
		var cancel context.CancelFunc
		reqCtx, cancel = context.WithDeadline(execCtx, c.actual.Add(cfg.Timeout))
		defer cancel()
	}
	if c.inject != nil {
		// The emulated round trip, once per request, before the store.
		s.Inject = true
		s.Injected = c.inject.draw(c.req.Class)
		if s.Injected > 0 {
			if c.sleeper == nil {
				c.sleeper = clock.New()
			}
			if cut = !c.sleeper.Until(ctx.Done(), c.actual.Add(s.Injected)); cut {
				c.resetResult()
				c.res.Outcome, c.res.Err = tao.Timeout, ctx.Err()
			}
		}
	}
	for !cut {
		c.resetResult()
		c.state.Store(clientInExec)
		c.st.Exec(reqCtx, &c.req, &c.res)
		if !c.state.CompareAndSwap(clientInExec, clientIdle) {
			return false, true
		}
		s.Attempts++
		if result.Counted(c.res.Outcome) {
			c.attempts = append(c.attempts, result.ErrorCode{Outcome: c.res.Outcome, Code: c.res.Code})
		}
		switch c.res.Outcome {
		case tao.ConflictObject:
			s.ObjectConflicts++
		case tao.ConflictAssociation:
			s.AssocConflicts++
		}
		if !c.res.Outcome.IsConflict() || s.Attempts > cfg.Retries {
			break
		}
		if cfg.Timeout > 0 && !time.Now().Before(c.actual.Add(cfg.Timeout)) {
			break // past the request's deadline: no retry could finish
		}
		if !c.sleep(ctx, backoff(cfg.BackoffMin, cfg.BackoffMax, s.Attempts, c.rng)) {
			cut = true
		}
	}
	return cut, false
}

// account records the request that ended at end: its latency from its
// intended start, its service time in open loop, its outcome. Begun in the
// measured window, it goes to the measured samples, the fidelity counters
// and the first loss; begun in the warmup, to the per-second series only,
// marked. A request cut short by the user's Ctrl-C (in the database or
// while waiting to retry) says nothing about the database and is not
// recorded; one cut by the drain deadline is a real timeout. The generator
// observes every result.
func (c *client) account(ctx context.Context, b *bounds, cut bool, end time.Time) {
	s := &c.s
	s.Latency = end.Sub(c.begin)
	if b.sched != nil {
		s.Service = max(end.Sub(c.actual), 1) // nonzero: recorded
	}
	s.Outcome = c.res.Outcome
	s.Tier, s.Tiered = c.res.Served, c.res.Tiered
	userCancelled := cut || (ctx.Err() != nil && c.res.Outcome == tao.Timeout)
	if !c.begin.Before(b.measure) && !userCancelled {
		if c.late {
			c.overtime.Add(1)
		}
		c.describe(s)
		s.At = c.begin.Sub(b.measure)
		c.record(s, end)
		if c.joined {
			c.fid.ObserveCopy(&c.req, &c.res)
		} else {
			c.fid.Observe(&c.req, &c.res)
		}
		c.countObjects()
		for _, k := range c.attempts {
			c.codes.Add(k, 1)
			c.codeSecs.Add(int(s.At/time.Second), k, 1)
		}
		// Write-write conflicts are counted here only: the contention
		// percentages come from these counts (result.Races).
		c.fid.Races.ObserveReported(&c.req, result.WriteWriteConflict(&c.req, &c.res, s.ObjectConflicts+s.AssocConflicts > 0),
			result.Report(c.attempts, &c.res))
		// A racing insert's copies are one draw of the plan, sent copies
		// times: its keys count once, as the plan's draws that the hot-key
		// rows compare against count them.
		if !c.joined {
			c.keys.Add(&c.req)
		}
		if c.loss != nil && c.res.Err != nil && (s.Outcome == tao.Error || s.Outcome == tao.Timeout) {
			c.loss.keep(s.Outcome, s.At, c.res.Err)
		}
	} else if !userCancelled {
		c.describe(s)
		s.At, s.Warmup = c.begin.Sub(b.measure), true
		c.keep(s, end)
	}
	c.attempts = c.attempts[:0]
	if !c.joined {
		// A copy is not what this client's generator drew.
		c.gen.Observe(&c.req, &c.res)
	}
	c.giveBack()
}

// giveBack returns buffers lent for a big request, and takes the client's
// own back.
func (c *client) giveBack() {
	if cap(c.req.Ops) > keepOps || cap(c.res.Ops) > keepOps {
		c.bufs.put(c.req.Ops, c.res.Ops)
		c.req.Ops, c.res.Ops = c.ownOps[:0], c.ownRes[:0]
		c.ownOps, c.ownRes = nil, nil
	}
}

// Ops gives the generator a buffer for a request bigger than the client's
// (gen.Buffers): up to keepOps the client's own grows; beyond, c.bufs lends
// one until the request ends.
func (c *client) Ops(n int) []tao.Op {
	if n <= keepOps || c.bufs == nil {
		return make([]tao.Op, 0, n)
	}
	c.ownOps = c.req.Ops
	return c.bufs.Ops(n)
}

// resetResult readies c.res for c.req, a big request's results in a
// buffer lent by c.bufs.
func (c *client) resetResult() {
	if n := len(c.req.Ops); n > cap(c.res.Ops) && n > keepOps && c.bufs != nil {
		c.ownRes = c.res.Ops
		c.res.Ops = c.bufs.results(n)
	}
	c.res.Reset(len(c.req.Ops))
}

// errorBackoff waits after a request that ended in Error at end, longer
// with each such request in a row, so clients do not spin against a server
// that went away before it reconnects. After the experiment's end there is
// no next request to wait for. It reports false when ctx was cancelled
// during the wait.
func (c *client) errorBackoff(ctx context.Context, expEnd, end time.Time) bool {
	c.errStreak++
	return !end.Before(expEnd) || c.sleep(ctx, backoff(10*time.Millisecond, time.Second, c.errStreak, c.rng))
}

// errAbandoned is the error of a request abandoned inside Store.Exec.
var errAbandoned = errors.New("no answer from the database by the end of the drain period, even after the request was cancelled: abandoned")

// wait returns once every client has ended or been abandoned. A client
// still inside Store.Exec abandonAfter past the drain deadline, or
// abandonAfter after ctx is cancelled, is abandoned: Do takes over its batch
// and counts its request as a timeout (not at all when the user cancelled),
// and its goroutine is left to return from Exec whenever the store lets it.
// wait returns how many clients it abandoned.
func wait(ctx context.Context, clients []*client, ended <-chan struct{}, b bounds, drainEnd time.Time) int {
	running := len(clients)
	giveUp := time.NewTimer(time.Until(drainEnd.Add(abandonAfter)))
	defer giveUp.Stop()
	cancelled := ctx.Done()
	var poll <-chan time.Time // once giving up: look for stuck clients
	var ticker *time.Ticker
	defer func() {
		if ticker != nil {
			ticker.Stop()
		}
	}()
	abandoned := 0
	taken := make([]bool, len(clients))
	for running > 0 {
		select {
		case <-ended:
			running--
		case <-cancelled:
			cancelled = nil
			if time.Until(drainEnd) > 0 {
				giveUp.Reset(abandonAfter)
			}
		case <-giveUp.C:
			ticker = time.NewTicker(5 * time.Millisecond)
			poll = ticker.C
		case now := <-poll:
			// A client outside Exec ends soon on its own (its next
			// request would start after the end, or ctx is cancelled);
			// one inside is taken over.
			for i, c := range clients {
				if !taken[i] && c.state.CompareAndSwap(clientInExec, clientAbandoned) {
					taken[i] = true
					c.abandon(ctx, b, now)
					abandoned++
					running--
				}
			}
		}
	}
	return abandoned
}

// abandon records the request a stuck client was executing as a timeout
// (unless the user cancelled the run, or it began in the warmup) and hands
// over the client's batch. Only Do calls it, after taking the client over.
func (c *client) abandon(ctx context.Context, b bounds, now time.Time) {
	s := &c.s
	s.Attempts++ // the attempt that never came back
	if !c.begin.Before(b.measure) && ctx.Err() == nil {
		s.Latency = now.Sub(c.begin)
		if b.sched != nil {
			s.Service = max(now.Sub(c.actual), 1)
		}
		if c.late {
			c.overtime.Add(1)
		}
		s.Outcome = tao.Timeout
		c.describe(s)
		s.At = c.begin.Sub(b.measure)
		c.record(s, now)
		// A write request all the same, its conflicts those of its earlier
		// attempts (c.res is still the stuck Exec's).
		c.fid.Races.Observe(&c.req, s.ObjectConflicts+s.AssocConflicts > 0)
		if c.loss != nil {
			c.loss.keep(tao.Timeout, s.At, errAbandoned)
		}
	}
	c.flush(now)
}

// firstLoss keeps the error of the first measured request lost to an error
// or a timeout, so the user learns why requests were lost, not only how many.
type firstLoss struct {
	once    sync.Once
	outcome tao.Outcome
	at      time.Duration // since the start of measurement
	err     error
}

func (l *firstLoss) keep(o tao.Outcome, at time.Duration, err error) {
	l.once.Do(func() { l.outcome, l.at, l.err = o, at, err })
}

// describe fills the request facts the contention figures need.
func (c *client) describe(s *metrics.Sample) {
	s.HasChecks = len(c.req.Checks) > 0
	if c.req.Class != tao.Write && c.req.Class != tao.WriteTxn {
		return
	}
	for i := range c.req.Ops {
		op := &c.req.Ops[i]
		if op.Kind.IsEdge() {
			s.WritesEdges = true
			if op.Kind == tao.EdgeAdd && op.Type.IsUnique() {
				s.AddsUniqueEdge = true
			}
		} else {
			s.WritesObjects = true
		}
	}
}

// sleep waits d or until ctx is cancelled; it reports whether it slept fully.
func (c *client) sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// backoff is capped exponential backoff with full jitter: attempt n waits a
// uniform time in [lo, min(hi, lo·2^(n-1))].
func backoff(lo, hi time.Duration, n int, rng *rand.Rand) time.Duration {
	d := hi
	if n < 30 {
		d = min(hi, lo<<(n-1))
	}
	if d <= lo {
		return lo
	}
	return lo + time.Duration(rng.Int64N(int64(d-lo)+1))
}

// status prints a status line every cfg.StatusEvery until done is closed:
// "warmup" before the measured window, then the measured requests so far
// and their rate since the previous line (or since the window began). The
// counts come from the clients' counters and are current; the p99 comes from
// the recorders, which lag by at most a batch (flushEvery or batchSize).
func status(done <-chan struct{}, cfg *Config, recs []*metrics.Recorder, clients []*client, start time.Time, b bounds) {
	t := time.NewTicker(cfg.StatusEvery)
	defer t.Stop()
	var prevN int64
	prevAt := b.measure
	for {
		select {
		case <-done:
			return
		case now := <-t.C:
			if now.Before(b.measure) {
				fmt.Fprintf(cfg.Status, "[%6.1fs] warmup until %.1fs: nothing measured yet\n",
					now.Sub(start).Seconds(), b.measure.Sub(start).Seconds())
				continue
			}
			st := metrics.Status{Elapsed: now.Sub(start), Measured: min(now.Sub(b.measure), b.end.Sub(b.measure))}
			for _, c := range clients {
				st.Requests += c.done.Load()
				st.Failed += c.failed.Load()
				st.Lost += c.lost.Load()
			}
			if d := now.Sub(prevAt); d > 0 {
				st.Rate = float64(st.Requests-prevN) / d.Seconds()
			}
			cur := metrics.NewSummary()
			for _, r := range recs {
				cur.Merge(r.Snapshot())
			}
			st.P99 = cur.Stats(metrics.All).P99
			fmt.Fprintln(cfg.Status, st.String())
			prevN, prevAt = st.Requests, now
		}
	}
}

// countObjects counts the objects of the request the database answered by
// their popularity bins, when the workload draws objects by popularity.
func (c *client) countObjects() {
	rp, wp := c.gen.ObjectPopularity(false), c.gen.ObjectPopularity(true)
	if rp == nil && wp == nil || c.res.Outcome != tao.OK && c.res.Outcome != tao.NotFound {
		return
	}
	if c.fid.ObjectReadBins == nil {
		c.fid.ObjectReadBins, c.fid.ObjectWriteBins = new([result.PopularityBins]int64), new([result.PopularityBins]int64)
	}
	for i := range c.req.Ops {
		rp.Count(&c.req.Ops[i], false, c.fid.ObjectReadBins[:])
		wp.Count(&c.req.Ops[i], true, c.fid.ObjectWriteBins[:])
	}
}
