// Package bulkload writes a computed graph into a database with parallel
// loaders, reporting progress as it goes.
package bulkload

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// Progress is what a progress display is told, from one goroutine at a time.
type Progress struct {
	Nodes, TotalNodes int64 // nodes written so far, of all
	Rows              int64 // rows written so far (objects plus edges)
	Objects, Edges    int64 // of those, rows of each table
	Elapsed           time.Duration
	Done              bool
}

// Options tune a load.
type Options struct {
	Threads int // parallel loaders (default 1)
	// BatchRows is rows per Load call (default 20000): on PostgreSQL one
	// COPY statement per table and batch; 20,000 against 5,000 cut the
	// client's CPU of a 200,000-edge load by about 15% and the server's
	// by about 5%.
	BatchRows int
	Every     time.Duration    // how often Report is called (default 1s)
	Report    func(Progress)   // may be nil
	Now       func() time.Time // for tests; default time.Now
	Version   string           // taobench's version, recorded with the graph
	// Started is when the user's wait began (the load command's start,
	// before connecting and creating the schema): Elapsed and the
	// progress reports run from it, so that rows per Elapsed is the rate
	// by wall clock. Zero, or a time after Load's start: Load's start.
	Started time.Time
	// Part and Parts split the load across processes (load --driver
	// I/N, parts.go): this one writes part Part (0-based) of Parts, a
	// contiguous node range. Parts 0 or 1 loads the whole graph.
	Part, Parts int
	// Via, when given, holds one database per loader: loader t writes
	// its rows through Via[t], an endpoint of the same database (a node
	// of a multi-primary cluster); the graph's record and indexes go
	// through db.
	Via []store.Database
	// Ready, when set, is called once the graph's record is written
	// and before any row is: an error stops the load (Via's databases
	// must see the record first).
	Ready func(ctx context.Context) error
}

// Result sums up a finished load.
type Result struct {
	Nodes, Rows int64
	// Elapsed runs from Options.Started (else the start of Load) to a
	// usable graph: the rows written, then the indexes built and the
	// statistics gathered (Index) and the graph recorded complete. Rows
	// per Elapsed is the rate a user waits for; Elapsed - Index is the
	// writing and what came before it.
	Elapsed time.Duration
	Index   time.Duration
	// Complete is false when this was one part of a split load and other
	// parts are still missing; Missing lists them ("1/4, 3/4").
	Complete bool
	Missing  string
}

// Load writes every node of g, with its edges, into db: the node space is
// split into Threads contiguous ranges (contiguous keys suit B-tree primary
// keys), each written by its own loader in batches. meta (g.Meta of the
// graph's workload) is recorded with state "loading" before the first row
// and "complete" after the last, so an interrupted load is never taken for a
// complete one, and the same load run again resumes it.
func Load(ctx context.Context, db store.Database, g *graph.Graph, meta map[string]string, opt Options) (Result, error) {
	opt.defaults()
	now := opt.Now
	start := now()
	// since is the wait so far, from the user's start.
	from := start
	if !opt.Started.IsZero() && opt.Started.Before(start) {
		from = opt.Started
	}
	since := func() time.Duration { return now().Sub(from) }
	split := opt.Parts > 1
	if split && (opt.Part < 0 || opt.Part >= opt.Parts) {
		return Result{}, fmt.Errorf("load: part %d of %d: want 0 to %d", opt.Part, opt.Parts, opt.Parts-1)
	}
	first, end, loadID, err := loadPart(ctx, db, g, opt)
	if err != nil {
		return Result{}, err
	}
	total := end - first
	threads := int64(opt.Threads)
	if threads > total {
		threads = max(1, total)
	}

	if err := beginLoad(ctx, db, meta, opt, start, loadID); err != nil {
		return Result{}, err
	}

	if opt.Ready != nil {
		if err := opt.Ready(ctx); err != nil {
			return Result{}, err
		}
	}
	var nodes, rows atomic.Int64
	var tables tableRows
	parent := ctx // cancelled by the user; ctx also when a loader fails
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, threads)
	var wg sync.WaitGroup
	for t := int64(0); t < threads; t++ {
		lo, hi := first+total*t/threads, first+total*(t+1)/threads
		via := db
		if t < int64(len(opt.Via)) {
			via = opt.Via[t]
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := loadRange(ctx, via, g, lo, hi, opt.BatchRows, &nodes, &rows, &tables); err != nil {
				errs <- err
				cancel()
			}
		}()
	}

	stopReports := reportProgress(opt, func() Progress {
		return Progress{Nodes: nodes.Load(), TotalNodes: total, Rows: rows.Load(),
			Objects: tables.objects.Load(), Edges: tables.edges.Load(), Elapsed: since()}
	})
	wg.Wait()
	stopReports()
	close(errs)
	// The user's cancel first: the loaders' errors then only echo it.
	if err := parent.Err(); err != nil {
		return Result{}, fmt.Errorf("load interrupted after %d of %d nodes: %w", nodes.Load(), total, err)
	}
	if err := <-errs; err != nil {
		return Result{}, err
	}
	res := Result{Nodes: nodes.Load(), Rows: rows.Load(), Elapsed: since(), Complete: true}
	if split {
		var err error
		if res.Complete, err = finishPart(ctx, db, opt.Part, opt.Parts, now().UTC().Format(time.RFC3339)); err != nil {
			return Result{}, err
		}
		if !res.Complete {
			if meta, err := db.Meta(ctx); err == nil {
				res.Missing = missingParts(meta)
			}
		}
		if opt.Report != nil {
			opt.Report(Progress{Nodes: res.Nodes, TotalNodes: total, Rows: res.Rows, Elapsed: res.Elapsed, Done: true})
		}
		return res, nil
	}
	written := now()
	if err := endLoad(ctx, db, now); err != nil {
		return Result{}, err
	}
	res.Elapsed, res.Index = since(), now().Sub(written)
	if opt.Report != nil {
		opt.Report(Progress{Nodes: res.Nodes, TotalNodes: total, Rows: res.Rows,
			Objects: tables.objects.Load(), Edges: tables.edges.Load(), Elapsed: res.Elapsed, Done: true})
	}
	return res, nil
}

// defaults fills what opt leaves unset.
func (opt *Options) defaults() {
	if opt.Threads < 1 {
		opt.Threads = 1
	}
	if opt.BatchRows < 1 {
		opt.BatchRows = 20000
	}
	if opt.Every <= 0 {
		opt.Every = time.Second
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
}

// loadPart returns the nodes [first, end) this load writes and its load
// id: a token of this load's own naming the data in keys shared outside
// the database (store.Scope); the parts of a split load keep the first
// one's.
func loadPart(ctx context.Context, db store.Database, g *graph.Graph, opt Options) (first, end int64, loadID string, err error) {
	first, end = 0, g.Nodes()
	loadID = store.NewLoadID()
	if opt.Parts <= 1 {
		return first, end, loadID, nil
	}
	first, end = partRange(end, opt.Part, opt.Parts)
	old, err := db.Meta(ctx)
	if err != nil {
		return 0, 0, "", err
	}
	if err := CheckParts(old, opt.Parts); err != nil {
		return 0, 0, "", err
	}
	if v := old[store.MetaLoadID]; v != "" && old[graph.MetaState] == graph.StateLoading {
		loadID = v
	}
	return first, end, loadID, nil
}

// beginLoad records the graph as loading (with meta) and, for a whole
// load, prepares the database for it.
func beginLoad(ctx context.Context, db store.Database, meta map[string]string, opt Options, start time.Time, loadID string) error {
	split := opt.Parts > 1
	rec := maps.Clone(meta)
	rec[graph.MetaState] = graph.StateLoading
	rec["load_started"] = start.UTC().Format(time.RFC3339)
	rec["taobench_version"] = opt.Version
	rec[store.MetaLoadID] = loadID
	if split {
		rec[metaParts] = strconv.Itoa(opt.Parts)
		rec[metaPart(opt.Part)] = graph.StateLoading
	}
	if err := db.SetMeta(ctx, rec); err != nil {
		return fmt.Errorf("load: recording the graph: %w", err)
	}
	// A part loads into the indexes: BeginLoad may drop them on empty
	// tables, which the other parts, loading at the same time, need.
	if !split {
		if err := db.BeginLoad(ctx); err != nil {
			return fmt.Errorf("load: preparing the database: %w", err)
		}
	}
	return nil
}

// endLoad finishes a whole load (the database builds its indexes) and
// records the graph as complete.
func endLoad(ctx context.Context, db store.Database, now func() time.Time) error {
	if err := db.EndLoad(ctx); err != nil {
		return fmt.Errorf("load: finishing (building indexes): %w", err)
	}
	if err := db.SetMeta(ctx, map[string]string{
		graph.MetaState: graph.StateComplete,
		"load_finished": now().UTC().Format(time.RFC3339),
	}); err != nil {
		return fmt.Errorf("load: recording the graph: %w", err)
	}
	return nil
}

// reportProgress calls opt.Report with now's progress every opt.Every
// until the function it returns is called (which waits for the last
// report to return). The first report goes out at once: the graph is
// recorded as loading and rows go out, which a slow server's first tick
// would leave unsaid.
func reportProgress(opt Options, now func() Progress) (stop func()) {
	if opt.Report == nil {
		return func() {}
	}
	finished := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(opt.Every)
		defer t.Stop()
		opt.Report(Progress{TotalNodes: now().TotalNodes})
		for {
			select {
			case <-finished:
				return
			case <-t.C:
				opt.Report(now())
			}
		}
	}()
	return func() {
		close(finished)
		wg.Wait()
	}
}

// tableRows counts the rows written to each table, for live metrics.
type tableRows struct{ objects, edges atomic.Int64 }

// loadRange writes global nodes [lo, hi) (numbered shard-major).
func loadRange(ctx context.Context, db store.Database, g *graph.Graph, lo, hi int64, batch int, nodes, rows *atomic.Int64, tables *tableRows) (err error) {
	ld, err := db.NewLoader(ctx)
	if err != nil {
		return fmt.Errorf("load: opening a loader: %w", err)
	}
	defer func() {
		if cerr := ld.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("load: closing a loader: %w", cerr)
		}
	}()
	// Room for a batch from the start (a node has about five rows): grown
	// by append, the slices were copied over and over as they filled.
	room := int(min(int64(batch), 8*(hi-lo)))
	objs := make([]tao.Object, 0, room/4)
	edges := make([]tao.Edge, 0, room)
	pending := int64(0)
	flush := func() error {
		if len(objs)+len(edges) == 0 {
			return nil
		}
		if err := ld.Load(ctx, objs, edges); err != nil {
			return fmt.Errorf("load: writing %d rows: %w", len(objs)+len(edges), err)
		}
		rows.Add(int64(len(objs) + len(edges)))
		tables.objects.Add(int64(len(objs)))
		tables.edges.Add(int64(len(edges)))
		nodes.Add(pending)
		objs, edges, pending = objs[:0], edges[:0], 0
		return nil
	}
	for n := lo; n < hi; n++ {
		shard, index := g.Locate(n)
		objs, edges = g.AppendNode(shard, index, objs, edges)
		pending++
		if len(objs)+len(edges) >= batch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}
