package result

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/taobench/taobench/metrics"
)

// Named is a run's results with where they came from, for messages.
type Named struct {
	Name string // a file name
	Doc  *Doc
}

// Merge adds up runs that ran the same schedule of the same workload on
// the same graph, such as driver processes sharing a database: counts add,
// histograms merge (so percentiles are those of all requests), min and max
// are exact. It refuses runs that do not belong together, saying which
// field differs in which file.
//
// Experiment i of the result is the sum of experiment i of every run:
// Threads and Processes add up, and so do the target rates, schedules and
// overtime of open-loop runs (which must share the rate per process and the
// arrival process); the measured window, runtime and start are
// the longest and the earliest; the time series adds second by second,
// counting seconds from each process's own start of measurement. The
// fidelity rows are left empty: they need the workload's targets, which the
// caller recomputes from the merged counters. What runs do not share (the
// database URL, request seed, start, version) is the first run's. The
// client (client.go) must be the same in every run that records one. The
// same run given twice (same seed and start) is refused.
func Merge(runs []Named) (*Doc, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("merge: no results to merge")
	}
	first := runs[0]
	if first.Doc == nil || first.Doc.Run == nil {
		return nil, fmt.Errorf("%s: no run", first.Name)
	}
	if err := checkDrivers(runs); err != nil {
		return nil, err
	}
	for _, r := range runs[1:] {
		if err := compatible(first, r); err != nil {
			return nil, err
		}
	}
	client, err := mergeClient(runs)
	if err != nil {
		return nil, err
	}
	run := *first.Doc.Run
	run.Client = client
	out := &Doc{Run: &run}
	for i := range first.Doc.Experiments {
		var m *Experiment
		for _, r := range runs {
			m = add(m, r.Doc.Experiments[i])
		}
		out.Experiments = append(out.Experiments, m)
	}
	if err := finishDrivers(out, runs); err != nil {
		return nil, err
	}
	return out, nil
}

func compatible(a, b Named) error {
	if b.Doc == nil || b.Doc.Run == nil {
		return fmt.Errorf("%s: no run", b.Name)
	}
	x, y := a.Doc.Run, b.Doc.Run
	differ := func(what string, u, v any, why string) error {
		return fmt.Errorf("%s and %s do not belong together: %s %v in %s, %v in %s; %s",
			a.Name, b.Name, what, u, a.Name, v, b.Name, why)
	}
	split := a.Doc.split() // checkDrivers has matched b
	switch {
	case !split && x.Seed == y.Seed && x.Started.Equal(y.Started):
		return fmt.Errorf("%s and %s hold the same run (seed %d, started %s): merging it twice would count its requests twice; give each run once",
			a.Name, b.Name, x.Seed, x.Started.UTC().Format(time.RFC3339Nano))
	case scheme(x.Database) != scheme(y.Database):
		return differ("database", x.Database, y.Database, "merge only runs against the same database (compare databases side by side instead)")
	case x.Workload != y.Workload:
		return differ("workload", x.Workload, y.Workload, "merge only runs of the same workload")
	case x.GraphWorkload != y.GraphWorkload:
		return differ("graph_workload", x.GraphWorkload, y.GraphWorkload, "merge only runs on the same graph")
	case x.GraphSeed != y.GraphSeed:
		return differ("graph_seed", x.GraphSeed, y.GraphSeed, "merge only runs on the same graph")
	case x.Edges != y.Edges:
		return differ("edges", x.Edges, y.Edges, "merge only runs on the same graph")
	case x.Retries != y.Retries:
		return differ("retries", x.Retries, y.Retries, "merge only runs that retried conflicts alike")
	case len(a.Doc.Experiments) != len(b.Doc.Experiments):
		return differ("the number of experiments", len(a.Doc.Experiments), len(b.Doc.Experiments), "merge only runs of the same experiments file")
	}
	for i, e := range a.Doc.Experiments {
		f := b.Doc.Experiments[i]
		if e == nil || f == nil {
			return fmt.Errorf("%s or %s: experiment %d is missing", a.Name, b.Name, i+1)
		}
		at := fmt.Sprintf("experiment %d: ", i+1)
		if split {
			if err := driversCompatible(i, e, f, differ); err != nil {
				return err
			}
		}
		switch {
		case e.Warmup != f.Warmup:
			return differ(at+"warmup_s", e.Warmup.Seconds(), f.Warmup.Seconds(), "merge only runs of the same schedule")
		case e.Duration != f.Duration:
			return differ(at+"duration_s", e.Duration.Seconds(), f.Duration.Seconds(), "merge only runs of the same schedule")
		case !split && e.Threads*f.Procs() != f.Threads*e.Procs():
			return differ(at+"threads per process", perProc(e), perProc(f), "merge only runs of the same schedule")
		case !split && !sameRate(e, f):
			return differ(at+"target_rate per process", rateOf(e), rateOf(f), "merge only runs of the same target rate (closed loop: 0), one per process")
		case e.OpenLoop.Arrivals() != f.OpenLoop.Arrivals():
			return differ(at+"arrival", e.OpenLoop.Arrivals(), f.OpenLoop.Arrivals(), "merge only runs of the same arrival process")
		case e.Repeat != f.Repeat:
			return differ(at+"repeat", e.Repeat, f.Repeat, "merge only drivers of the same --repeat")
		}
	}
	return nil
}

// scheme is the kind of database a URL names: "sqlite", "postgres", "null".
// Hosts may differ between processes of one run (a name and an address),
// the kind of database may not.
func scheme(url string) string {
	if i := strings.Index(url, ":"); i >= 0 {
		url = url[:i]
	}
	switch url {
	case "postgresql":
		return "postgres"
	}
	return url
}

func perProc(e *Experiment) string {
	if e.Procs() == 1 {
		return fmt.Sprint(e.Threads)
	}
	return fmt.Sprintf("%d (%d in %d processes)", e.Threads/e.Procs(), e.Threads, e.Procs())
}

// sameRate reports whether e and f ran at the same target rate per process
// (both closed loop, or both open loop at the same rate).
func sameRate(e, f *Experiment) bool {
	x, y := e.OpenLoop.Rate/float64(e.Procs()), f.OpenLoop.Rate/float64(f.Procs())
	return x == y || math.Abs(x-y) <= 1e-9*max(math.Abs(x), math.Abs(y))
}

func rateOf(e *Experiment) string {
	r := strconv.FormatFloat(e.OpenLoop.Rate/float64(e.Procs()), 'f', -1, 64)
	if e.Procs() == 1 {
		return r
	}
	return fmt.Sprintf("%s (%s in %d processes)", r, strconv.FormatFloat(e.OpenLoop.Rate, 'f', -1, 64), e.Procs())
}

// add returns m plus e; m may be nil.
func add(m, e *Experiment) *Experiment {
	if m == nil {
		c := *e
		c.Processes = e.Procs()
		c.Summary = metrics.NewSummary()
		c.Summary.Merge(e.Summary)
		c.Counters = &Counters{}
		c.Counters.Merge(e.Counters)
		c.ErrorCodes = nil
		c.ErrorCodes.Merge(e.ErrorCodes)
		c.Fidelity = nil
		c.Endpoints = mergeEndpoints(nil, e.Endpoints)
		c.Targets = mergeTargets(nil, e.Targets)
		c.Consistency = mergeConsistency(nil, e.Consistency)
		c.Concurrent = mergeConcurrent(nil, e.Concurrent)
		return &c
	}
	firstReq := m.Started.Add(m.FirstRequest)
	if other := e.Started.Add(e.FirstRequest); other.Before(firstReq) {
		firstReq = other
	}
	if e.Started.Before(m.Started) {
		m.Started = e.Started
	}
	m.FirstRequest = firstReq.Sub(m.Started)
	m.Threads += e.Threads
	m.Processes += e.Procs()
	m.TotalRuntime = max(m.TotalRuntime, e.TotalRuntime)
	m.Measured = max(m.Measured, e.Measured)
	m.Interrupted = m.Interrupted || e.Interrupted
	// Open loop: the processes' target rates and schedules add up, as
	// their threads do.
	m.OpenLoop.Rate += e.OpenLoop.Rate
	m.OpenLoop.Scheduled += e.OpenLoop.Scheduled
	m.OpenLoop.NotIssued += e.OpenLoop.NotIssued
	m.Overtime += e.Overtime
	m.Late = max(m.Late, e.Late)
	if !e.At.IsZero() && e.At.Before(m.At) {
		m.At = e.At
	}
	m.Summary.Merge(e.Summary)
	m.Counters.Merge(e.Counters)
	m.Targets = mergeTargets(m.Targets, e.Targets)
	m.ErrorCodes.Merge(e.ErrorCodes)
	m.Endpoints = mergeEndpoints(m.Endpoints, e.Endpoints)
	m.Consistency = mergeConsistency(m.Consistency, e.Consistency)
	m.Concurrent = mergeConcurrent(m.Concurrent, e.Concurrent)
	return m
}
