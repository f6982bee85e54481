// Package run owns time: it runs experiments of closed-loop clients against a
// store, excludes warmup, retries conflicts, backs off on errors and hands the
// merged measurements to the report package.
//
// Each client owns its generator, its request and result buffers and a batch
// of samples, so the hot path shares nothing with other clients. A full batch
// goes to one of at most maxRecorders recorders (HDR histograms per class and
// kind): memory stays bounded at any client count, and a recorder's lock is
// taken once per batch. Warmup
// is excluded by each client comparing its request's start time with the
// experiment's fixed boundaries: no shared flag is flipped and no shared state
// is reset while clients run.
package run

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/taobench/taobench/gen"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/report"
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
	// keepOps is the largest request buffer a client keeps between
	// requests: a rare 500-op transaction would otherwise pin 48 KB in
	// every client for the rest of the run.
	keepOps = 64
)

// Experiment is one line of an experiments file: threads,warmup,duration.
type Experiment struct {
	Threads  int
	Warmup   time.Duration
	Duration time.Duration
}

// Config is what every experiment of a run shares.
type Config struct {
	Store    store.Store
	Workload *workload.Workload
	Graph    *graph.Graph
	Run      int64  // run number reserved in the database; part of new ids
	Seed     uint64 // seeds every client's generator

	// Retries is how often a request that ends in a conflict is tried again;
	// 0 fails fast. Backoff is capped, jittered and exponential.
	Retries    int
	BackoffMin time.Duration
	BackoffMax time.Duration

	// Drain is how long requests still in flight at the end of the
	// experiment may take before they are cancelled (and count as timeouts).
	Drain time.Duration

	// Status receives a status line every StatusEvery (none when nil).
	Status      io.Writer
	StatusEvery time.Duration
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
func Do(ctx context.Context, cfg Config, e Experiment) (*report.Experiment, error) {
	cfg.defaults()
	if e.Threads < 1 || e.Threads > MaxClients {
		return nil, fmt.Errorf("experiment: %d threads; use 1 to %d", e.Threads, MaxClients)
	}
	if cfg.Store == nil || cfg.Workload == nil || cfg.Graph == nil {
		return nil, fmt.Errorf("experiment: the config needs a store, a workload and a graph")
	}
	if e.Warmup < 0 || e.Duration <= 0 {
		return nil, fmt.Errorf("experiment: warmup %v and duration %v; the warmup may be 0, the duration must be positive", e.Warmup, e.Duration)
	}

	start := time.Now()
	b := bounds{measure: start.Add(e.Warmup), end: start.Add(e.Warmup + e.Duration)}

	// Requests still running at the end get Drain to finish; then they are
	// cancelled so a stalled database cannot hang the run.
	execCtx, cancel := context.WithDeadline(ctx, b.end.Add(cfg.Drain))
	defer cancel()

	plan, err := gen.NewPlan(cfg.Workload, cfg.Graph, cfg.Seed)
	if err != nil {
		return nil, err
	}
	recs := make([]*metrics.Recorder, min(e.Threads, maxRecorders))
	for i := range recs {
		recs[i] = metrics.NewRecorder()
	}
	var loss firstLoss
	clients := make([]*client, e.Threads)
	for i := range clients {
		clients[i] = newClient(plan, i, &cfg, recs[i%len(recs)])
		clients[i].loss = &loss
	}

	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.loop(ctx, execCtx, &cfg, b)
		}()
	}

	done := make(chan struct{})
	var statusWG sync.WaitGroup
	if cfg.Status != nil {
		statusWG.Add(1)
		go func() {
			defer statusWG.Done()
			status(done, &cfg, recs, start, b)
		}()
	}
	wg.Wait()
	close(done)
	statusWG.Wait()
	if cfg.Status != nil && loss.err != nil {
		// The report counts lost requests; this says why they were lost.
		fmt.Fprintf(cfg.Status, "first lost request (%s, %.3f s into the measured window): %v\n",
			loss.outcome, loss.at.Seconds(), loss.err)
	}

	finished := time.Now()
	var first time.Time
	for _, c := range clients {
		if !c.first.IsZero() && (first.IsZero() || c.first.Before(first)) {
			first = c.first
		}
	}
	sum := metrics.NewSummary()
	for _, r := range recs {
		sum.Merge(r.Snapshot())
	}
	measured := b.end.Sub(b.measure)
	interrupted := ctx.Err() != nil && finished.Before(b.end)
	if interrupted {
		measured = max(0, finished.Sub(b.measure))
	}
	return &report.Experiment{
		Threads:      e.Threads,
		Warmup:       e.Warmup,
		Duration:     e.Duration,
		TotalRuntime: finished.Sub(start),
		Measured:     measured,
		Interrupted:  interrupted,
		Started:      start,
		FirstRequest: max(0, first.Sub(start)),
		Summary:      sum,
	}, nil
}

// bounds are the fixed instants of an experiment: requests that start before
// measure are warmup, requests that would start at or after end are not issued.
type bounds struct {
	measure, end time.Time
}

type client struct {
	gen       *gen.Generator
	rec       *metrics.Recorder // shared with other clients; see RecordBatch
	batch     []metrics.Sample  // measured samples not yet handed to rec
	rng       *rand.Rand        // jitter only
	first     time.Time         // when the client issued its first request
	errStreak int               // consecutive requests that ended in Error
	loss      *firstLoss        // shared; nil keeps no error
	req       tao.Request
	res       tao.Result
	s         metrics.Sample
}

// newClient returns client i of an experiment, recording into rec.
func newClient(plan *gen.Plan, i int, cfg *Config, rec *metrics.Recorder) *client {
	return &client{
		gen:   plan.Client(i, cfg.Run),
		rec:   rec,
		batch: make([]metrics.Sample, 0, batchSize),
		rng:   rand.New(rand.NewPCG(cfg.Seed, uint64(i)+1)),
	}
}

// record keeps s in the client's batch, handing a full batch to the recorder.
func (c *client) record(s *metrics.Sample) {
	c.batch = append(c.batch, *s)
	if len(c.batch) == cap(c.batch) {
		c.flush()
	}
}

func (c *client) flush() {
	c.rec.RecordBatch(c.batch)
	c.batch = c.batch[:0]
}

// loop is a closed-loop client: it issues the next request when the previous
// one has finished, until the experiment ends or ctx is cancelled.
func (c *client) loop(ctx, execCtx context.Context, cfg *Config, b bounds) {
	defer c.flush()
	for c.step(ctx, execCtx, cfg, b) {
	}
}

// step issues one request, with its retries, and records it when it began
// in the measured window. It returns false when the loop should end: ctx is
// cancelled or the experiment is over.
func (c *client) step(ctx, execCtx context.Context, cfg *Config, b bounds) bool {
	if ctx.Err() != nil {
		return false
	}
	c.gen.Next(&c.req)
	begin := time.Now()
	if !begin.Before(b.end) {
		return false
	}
	if c.first.IsZero() {
		c.first = begin
	}
	s := &c.s
	*s = metrics.Sample{Class: c.req.Class, Kind: tao.NumKinds}
	if len(c.req.Ops) == 1 && (c.req.Class == tao.Read || c.req.Class == tao.Write) {
		s.Kind = c.req.Ops[0].Kind
	}
	cut := false // the user's cancel ended a backoff before its retry
	for {
		c.res.Reset(len(c.req.Ops))
		cfg.Store.Exec(execCtx, &c.req, &c.res)
		s.Attempts++
		switch c.res.Outcome {
		case tao.ConflictObject:
			s.ObjectConflicts++
		case tao.ConflictAssociation:
			s.AssocConflicts++
		}
		if !c.res.Outcome.IsConflict() || s.Attempts > cfg.Retries {
			break
		}
		if !c.sleep(ctx, backoff(cfg.BackoffMin, cfg.BackoffMax, s.Attempts, c.rng)) {
			cut = true
			break
		}
	}
	s.Latency = time.Since(begin)
	s.Outcome = c.res.Outcome

	// A request cut short by the user's Ctrl-C (in the database or while
	// waiting to retry) says nothing about the database; one cut by the
	// drain deadline is a real timeout.
	userCancelled := cut || (ctx.Err() != nil && c.res.Outcome == tao.Timeout)
	if !begin.Before(b.measure) && !userCancelled {
		c.describe(s)
		s.At = begin.Sub(b.measure)
		c.record(s)
		if c.loss != nil && c.res.Err != nil && (s.Outcome == tao.Error || s.Outcome == tao.Timeout) {
			c.loss.keep(s.Outcome, s.At, c.res.Err)
		}
	}
	c.gen.Observe(&c.req, &c.res)
	if cap(c.req.Ops) > keepOps {
		c.req.Ops, c.res.Ops = nil, nil
	}

	// A server that went away: back off before reconnecting so clients
	// do not spin, growing with consecutive errors.
	if c.res.Outcome == tao.Error {
		c.errStreak++
		if !c.sleep(ctx, backoff(10*time.Millisecond, time.Second, c.errStreak, c.rng)) {
			return false
		}
	} else {
		c.errStreak = 0
	}
	return true
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

// status prints a status line every cfg.StatusEvery until done is closed.
// Samples still in clients' batches show up in the next line.
func status(done <-chan struct{}, cfg *Config, recs []*metrics.Recorder, start time.Time, b bounds) {
	t := time.NewTicker(cfg.StatusEvery)
	defer t.Stop()
	var prev *metrics.Summary
	for {
		select {
		case <-done:
			return
		case now := <-t.C:
			if now.Before(b.measure) {
				fmt.Fprintf(cfg.Status, "[%6.1fs] warmup\n", now.Sub(start).Seconds())
				continue
			}
			cur := metrics.NewSummary()
			for _, r := range recs {
				cur.Merge(r.Snapshot())
			}
			fmt.Fprintln(cfg.Status, metrics.FormatStatus(now.Sub(start), cur, prev, cfg.StatusEvery))
			prev = cur
		}
	}
}
