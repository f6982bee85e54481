package session

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"time"

	"github.com/taobench/taobench/fleet"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// Split is this process's part of a run split across driver processes
// (docs/distributed.md). The zero value, or Driver fleet.Single, is the
// whole run.
type Split struct {
	Driver fleet.Driver
	// RunID is the id all drivers of the run share; "" for none.
	RunID string
	// Start is when the first experiment begins (zero: when ready); later
	// experiments follow on the same schedule.
	Start time.Time
	// Relative: Start is this process's +DURATION from its own start, to
	// be replaced by the one the first driver of RunID recorded in the
	// database (Session.Run, agreeStart).
	Relative bool
}

func (sp Split) driver() fleet.Driver {
	if sp.Driver.N() == 0 {
		return fleet.Single
	}
	return sp.Driver
}

// Share turns the run's experiments into this driver's: its slice of the
// clients, its share of the rate, and the shared schedule. It returns the
// first client of each experiment's slice.
func (sp Split) Share(name string, exps []run.Experiment) ([]run.Experiment, []int, error) {
	d := sp.driver()
	out := make([]run.Experiment, len(exps))
	firsts := make([]int, len(exps))
	spans := make([]time.Duration, len(exps))
	for i, x := range exps {
		spans[i] = x.Warmup + x.Duration
	}
	var at []time.Time
	if !sp.Start.IsZero() {
		at = fleet.Schedule(sp.Start, spans)
	}
	for i, x := range exps {
		first, n := d.Slice(x.Threads)
		if x.Threads < d.N() { // every driver, not only this one, needs a client
			return nil, nil, badInput("%s: Options.Split.Driver %s: experiment %d has %d threads, fewer than the %d drivers: give at least %d threads, or fewer drivers",
				name, d, i+1, x.Threads, d.N(), d.N())
		}
		y := x
		y.Threads, y.Rate = n, d.Rate(x.Rate, x.Threads)
		if at != nil {
			y.At = at[i]
		}
		out[i], firsts[i] = y, first
	}
	return out, firsts, nil
}

// tag records the run id and driver in the run's results.
func (sp Split) tag(info *result.Run) {
	d := sp.driver()
	info.RunID, info.Drivers, info.DriverIndexes = sp.RunID, d.N(), []int{d.Index}
}

// tagExperiment records what share of the whole experiment the result
// holds.
func (sp Split) tagExperiment(res *result.Experiment, all run.Experiment) {
	if sp.driver().Many() {
		res.AllThreads, res.AllRate = all.Threads, all.Rate
	}
}

// ReserveRun returns the run number of experiment k, the number its new
// ids are made of: shared by every driver of a run with an id, so the
// database records one run, not one per driver; 0 on a store that keeps no
// data.
func (s *Session) ReserveRun(ctx context.Context, k int) (int64, error) {
	db, ok := s.Database()
	if !ok {
		return 0, nil
	}
	sp := s.opts.Split
	if s.opts.ReadOnly {
		return readOnlyRun(sp.RunID, k), nil
	}
	var (
		n   int64
		err error
	)
	switch rk, keyed := db.(store.RunKeyer); {
	case keyed && sp.RunID != "":
		n, err = rk.ReserveRunKey(ctx, fleet.RunKey(sp.RunID, k))
	case sp.driver().Many():
		err = fmt.Errorf("the database cannot share a run number between drivers")
	default:
		n, err = db.ReserveRun(ctx)
	}
	if err != nil {
		return 0, fmt.Errorf("%s: reserving a run number: %w", s.opts.Name, err)
	}
	return n, nil
}

// Describe is the opening line of a run with an id or drivers; "" for
// neither.
func (sp Split) Describe(all, mine []run.Experiment, firsts []int) string {
	d := sp.driver()
	switch {
	case d.Many():
		return fmt.Sprintf("driver %s of run %s: clients %d to %d of experiment 1's %d", d, sp.RunID, firsts[0], firsts[0]+mine[0].Threads-1, all[0].Threads)
	case sp.RunID != "":
		return "run " + sp.RunID
	}
	return ""
}

func (sp Split) who() string {
	if d := sp.driver(); d.Many() {
		return "driver " + d.String()
	}
	return "taobench"
}

// waitNote says that the driver waits for the shared start, before it does.
func (sp Split) waitNote(now time.Time, at time.Time) string {
	if at.IsZero() || !at.After(now) {
		return ""
	}
	return fmt.Sprintf("%s: waiting until %s (in %.1f s) for the shared start; Ctrl-C stops",
		sp.who(), at.UTC().Format(time.RFC3339Nano), at.Sub(now).Seconds())
}

// lateNote says that an experiment began after its shared start, and what
// that cut from its windows; "" when it was on time (within 50 ms, about
// what building the next experiment's clients takes).
func (sp Split) lateNote(k int, res *result.Experiment) string {
	if res.At.IsZero() || res.Late <= 50*time.Millisecond {
		return ""
	}
	cut := fmt.Sprintf("its warmup was %.3f s shorter", res.Late.Seconds())
	if res.Late > res.Warmup {
		cut = fmt.Sprintf("it ran no warmup and measured %.3f s of %.3f s", res.Measured.Seconds(), res.Duration.Seconds())
	}
	return fmt.Sprintf("%s: experiment %d began %.3f s after its shared start %s: %s (recorded as late_s)",
		sp.who(), k+1, res.Late.Seconds(), res.At.UTC().Format(time.RFC3339Nano), cut)
}

// readOnlyRun is the run number of experiment k on a replica, where none
// can be reserved: the run's reads create no ids, so it only names the
// experiment's keys in the tao tier, shared by the drivers of a run with
// an id and random otherwise.
func readOnlyRun(id string, k int) int64 {
	if id == "" {
		return 1 + rand.Int64N(1<<tao.RunBits-1)
	}
	h := fnv.New64a()
	h.Write([]byte(fleet.RunKey(id, k)))
	return 1 + int64(h.Sum64()%(1<<tao.RunBits-1))
}
