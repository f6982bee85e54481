// Package result holds what a run measured, as data of its own: run produces
// it, WriteJSON and ReadJSON carry it through a file with fixed keys, Merge
// adds up the files of several processes, and the reporters (text, HTML)
// consume it, so run → result ← report. docs/results.md defines every figure
// and key.
//
// It is a leaf: it imports only metrics and tao, never the workload, graph,
// generator or store, so reading, merging and reporting results link none of
// them (deps_test.go checks, for report and htmlreport too).
package result

import (
	"time"

	"github.com/taobench/taobench/metrics"
)

// Experiment is the result of one experiment.
type Experiment struct {
	Threads          int
	Warmup, Duration time.Duration // configured
	TotalRuntime     time.Duration // wall time including warmup
	Measured         time.Duration // measured window actually run (shorter if interrupted)
	Interrupted      bool          // Ctrl-C ended it early
	Started          time.Time     // when the experiment began
	FirstRequest     time.Duration // from Started to the first request issued
	// Processes is the number of driver processes whose results were
	// merged into this one; 0 and 1 both mean a single run.
	Processes int
	Summary   *metrics.Summary
	// Fidelity sets what the database returned beside the workload's
	// targets; Counters are the raw counts behind it.
	Fidelity []FidelityRow
	Counters *Counters
	// Targets are what the rows compare against, for merge to recompute
	// them (nil in results of taobench before they were recorded).
	Targets *Targets
	// OpenLoop describes the target rate; zero in closed loop.
	OpenLoop OpenLoop
	// Drivers of one run (docs/distributed.md): At is the experiment's
	// shared start (zero without --start-at), Late how long after it this
	// process began (its warmup, or measured window, that much shorter).
	// FirstClient is the run-wide number of the first client this result
	// holds; AllThreads and AllRate are the whole run's clients and target
	// rate, over all drivers (0 when the run was not split).
	At          time.Time
	Late        time.Duration
	FirstClient int
	AllThreads  int
	AllRate     float64
	// Overtime counts measured requests that started later than intended
	// by more than the runner's tolerance; always 0 in closed loop.
	Overtime int64
	// Resources is what the experiment cost the driver and what the
	// server counted over it (resources.go); nil in results read from
	// files written before it existed.
	Resources *Resources
	// ErrorCodes counts the attempts that ended in a conflict, timeout or
	// error by the code the database gave (codes.go).
	ErrorCodes ErrorCodes
	// Endpoints are each endpoint's part of a run spread over several
	// endpoints of one database (endpoints.go), in the order given; nil
	// for a run on one.
	Endpoints []Endpoint
	// Consistency is what the read tiers served and how much was stale
	// (consistency.go); nil for a run without tiers.
	Consistency *Consistency
	// Concurrent are the other taobench runs active on the database
	// during the measured window (concurrent.go); nil for none, or when
	// the database records no runs.
	Concurrent []ConcurrentRun
	// Repeat is which repeat of a run given --repeat this experiment is,
	// from 1; 0 for a run not repeated (repeats.go).
	Repeat int
}

// OpenLoop is the target rate of an open-loop experiment and how much of
// its schedule the clients issued.
type OpenLoop struct {
	Rate      float64 // target, requests per second; 0: closed loop
	Arrival   string  // "poisson" or "uniform"
	Scheduled int64   // intended starts in the measured window
	NotIssued int64   // of those, never issued: every client was busy until the end
}

// Reached reports whether the clients issued the schedule: at most 1% of
// the requests scheduled in the measured window were left unissued.
// Closed loop has no target and always reaches it.
func (o OpenLoop) Reached() bool {
	return o.Rate == 0 || float64(o.NotIssued) <= 0.01*float64(o.Scheduled)
}

// Arrivals is "closed" in closed loop, else the arrival process.
func (o OpenLoop) Arrivals() string {
	if o.Rate == 0 {
		return "closed"
	}
	return o.Arrival
}

// Run is what all experiments of a run share.
type Run struct {
	Database      string // already redacted by the caller
	Workload      string // of the requests
	GraphWorkload string // the graph was loaded with
	GraphSeed     uint64
	Seed          uint64 // of the requests
	Edges         int64
	Retries       int
	Started       time.Time
	Version       string // taobench's module version
	Revision      string // the commit taobench was built from; "unknown" without VCS data
	NotApplied    []string
	// RunID names the run all its drivers share ("" for a run in one
	// process without --run-id); Drivers is how many processes the run
	// was split across (0 or 1: one) and DriverIndexes which of them
	// (0-based) these results hold: one for a driver's own file, all of
	// them after taobench merge.
	RunID         string
	Drivers       int
	DriverIndexes []int
	// Client is how the driver talked to the database (client.go).
	Client Client
}

// Doc is a whole run: what its experiments share, and each experiment's
// result, in order.
type Doc struct {
	Run         *Run
	Experiments []*Experiment
}

// Sum returns the experiment's summary; never nil.
func (e *Experiment) Sum() *metrics.Summary {
	if e.Summary == nil {
		return metrics.NewSummary()
	}
	return e.Summary
}

// Throughput is requests per second of the measured window.
func (e *Experiment) Throughput() float64 {
	if e.Measured <= 0 {
		return 0
	}
	return float64(e.Sum().Requests()) / e.Measured.Seconds()
}

// Procs is the number of driver processes the result holds (at least 1).
func (e *Experiment) Procs() int { return max(e.Processes, 1) }

// NoService is the whole seconds of the measured window in which requests
// were due and the database answered none, and the longest run of them
// (metrics.Summary.NoService): an outage, or a server that stopped. known
// is false for results written before taobench recorded when requests
// ended.
func (e *Experiment) NoService() (seconds, longest int, known bool) {
	return e.Sum().NoService(e.Measured)
}
