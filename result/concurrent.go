package result

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// ConcurrentRun is another taobench run that was active on the database
// during an experiment's measured window (docs/tiers.md, "Concurrent
// runs"): its writes are among those the stale-read verdicts and the
// contention figures saw. Drivers of the experiment's own run are not
// others.
type ConcurrentRun struct {
	// RunID is the other run's --run-id ("" for none); Run its run number
	// (of the experiment it was running).
	RunID string
	Run   int64
	// Hosts are its processes' hosts, PID its process id when it was one
	// process (0 for several); Processes how many of its processes were
	// active.
	Hosts     []string
	PID       int
	Processes int
	// Started is when it began; Ended when it ended (zero: still active
	// when the experiment ended).
	Started, Ended time.Time
	// Overlap is how much of the measured window it was active.
	Overlap time.Duration
}

// Describe names the other run in messages: "run 12, run id x, started
// ..., host h, pid 7".
func (c ConcurrentRun) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "run %d", c.Run)
	if c.RunID != "" {
		fmt.Fprintf(&b, ", run id %s", c.RunID)
	}
	fmt.Fprintf(&b, ", started %s", c.Started.UTC().Format(time.RFC3339Nano))
	if len(c.Hosts) > 0 {
		fmt.Fprintf(&b, ", host %s", strings.Join(c.Hosts, ", "))
	}
	if c.PID != 0 {
		fmt.Fprintf(&b, ", pid %d", c.PID)
	}
	if c.Processes > 1 {
		fmt.Fprintf(&b, ", %d processes", c.Processes)
	}
	return b.String()
}

// same reports whether c and d are one run seen by two drivers.
func (c ConcurrentRun) same(d ConcurrentRun) bool {
	if c.RunID != "" || d.RunID != "" {
		return c.RunID == d.RunID && c.Run == d.Run
	}
	return c.Run == d.Run && c.PID == d.PID && c.Started.Equal(d.Started)
}

// mergeConcurrent adds the other runs drivers saw: one run seen by several
// drivers once, with the longest overlap.
func mergeConcurrent(m, e []ConcurrentRun) []ConcurrentRun {
	out := slices.Clone(m)
	for _, c := range e {
		i := slices.IndexFunc(out, c.same)
		if i < 0 {
			c.Hosts = slices.Clone(c.Hosts)
			out = append(out, c)
			continue
		}
		o := &out[i]
		o.Overlap = max(o.Overlap, c.Overlap)
		o.Processes = max(o.Processes, c.Processes)
		if c.Started.Before(o.Started) {
			o.Started = c.Started
		}
		if o.Ended.IsZero() || c.Ended.IsZero() {
			o.Ended = time.Time{}
		} else if c.Ended.After(o.Ended) {
			o.Ended = c.Ended
		}
		for _, h := range c.Hosts {
			if !slices.Contains(o.Hosts, h) {
				o.Hosts = append(o.Hosts, h)
			}
		}
	}
	return out
}

// jsonConcurrent is one entry of an experiment's concurrent_runs
// (docs/results.md).
type jsonConcurrent struct {
	RunID     string   `json:"run_id"`
	Run       int64    `json:"run"`
	Hosts     []string `json:"hosts"`
	PID       int      `json:"pid"`
	Processes int      `json:"processes"`
	Started   string   `json:"started"`
	Ended     string   `json:"ended"`
	OverlapS  float64  `json:"overlap_s"`
}

type jsonConcurrentExperiment struct {
	ConcurrentRuns []jsonConcurrent `json:"concurrent_runs"`
}

func concurrentJSON(cs []ConcurrentRun) jsonConcurrentExperiment {
	j := jsonConcurrentExperiment{ConcurrentRuns: []jsonConcurrent{}}
	for _, c := range cs {
		x := jsonConcurrent{RunID: c.RunID, Run: c.Run, Hosts: c.Hosts, PID: c.PID, Processes: c.Processes,
			Started: c.Started.UTC().Format(time.RFC3339Nano), OverlapS: c.Overlap.Seconds()}
		if x.Hosts == nil {
			x.Hosts = []string{}
		}
		if !c.Ended.IsZero() {
			x.Ended = c.Ended.UTC().Format(time.RFC3339Nano)
		}
		j.ConcurrentRuns = append(j.ConcurrentRuns, x)
	}
	return j
}

// concurrentFromJSON reads concurrent_runs; absent (files written before
// taobench recorded its runs) is none.
func concurrentFromJSON(j jsonConcurrentExperiment, e *Experiment) error {
	for i, x := range j.ConcurrentRuns {
		bad := func(what string, v any) error {
			return fmt.Errorf("concurrent_runs[%d]: %s %v: want %s", i, what, v, map[string]string{
				"started": "an RFC 3339 instant", "ended": "an RFC 3339 instant or \"\"", "overlap_s": "seconds, not negative"}[what])
		}
		c := ConcurrentRun{RunID: x.RunID, Run: x.Run, Hosts: x.Hosts, PID: x.PID, Processes: x.Processes}
		var err error
		if c.Started, err = time.Parse(time.RFC3339Nano, x.Started); err != nil {
			return bad("started", x.Started)
		}
		if x.Ended != "" {
			if c.Ended, err = time.Parse(time.RFC3339Nano, x.Ended); err != nil {
				return bad("ended", x.Ended)
			}
		}
		if x.OverlapS < 0 || math.IsNaN(x.OverlapS) || math.IsInf(x.OverlapS, 0) {
			return bad("overlap_s", x.OverlapS)
		}
		c.Overlap = seconds(x.OverlapS)
		e.Concurrent = append(e.Concurrent, c)
	}
	return nil
}
