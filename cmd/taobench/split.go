package main

import (
	"time"

	"github.com/taobench/taobench/fleet"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
)

// splitSpec is a split run as the command line gives it: --driver I/N,
// --run-id and --start-at, as written ("" for each not given).
type splitSpec struct{ Driver, RunID, StartAt string }

// resolve checks the spec against the run's experiments and returns the
// split and the run's request seed: drivers given no seed (seedGiven
// false) derive it from what they share, so client k draws the same
// stream whichever driver runs it. cmd starts its messages, all
// InputErrors.
func (f splitSpec) resolve(cmd, workload string, seed uint64, seedGiven bool, exps []run.Experiment, now time.Time) (session.Split, uint64, error) {
	r := session.Split{Driver: fleet.Single}
	var (
		err      error
		relative bool
	)
	if f.Driver != "" {
		if r.Driver, err = fleet.Parse("--driver", f.Driver); err != nil {
			return r, seed, badInput("%s: %v", cmd, err)
		}
	}
	if f.RunID != "" {
		if err := fleet.CheckRunID("--run-id", f.RunID); err != nil {
			return r, seed, badInput("%s: %v", cmd, err)
		}
		r.RunID = f.RunID
	}
	if f.StartAt != "" {
		if r.Start, relative, err = fleet.ParseStart("--start-at", f.StartAt, now); err != nil {
			return r, seed, badInput("%s: %v", cmd, err)
		}
		r.Relative = relative
	}
	if r.Driver.Many() && r.RunID == "" && (r.Start.IsZero() || relative) {
		return r, seed, badInput("%s: --driver %s needs what all drivers share: --run-id ID, or --start-at as an RFC 3339 instant (a relative --start-at differs per process)", cmd, r.Driver)
	}
	if !seedGiven {
		switch {
		case r.RunID != "":
			seed = fleet.Seed("run-id " + r.RunID)
		case r.Driver.Many():
			seed = fleet.Seed("start " + workload + " " + r.Start.UTC().Format(time.RFC3339Nano))
		}
	}
	if r.Driver.Many() && r.RunID == "" {
		r.RunID = fleet.DeriveRunID(workload, r.Start, seed)
	}
	if !r.Start.IsZero() {
		// A schedule already over would run nothing, each experiment late.
		end := r.Start
		for _, x := range exps {
			end = end.Add(x.Warmup + x.Duration)
		}
		if now := time.Now(); end.Before(now) {
			return r, seed, badInput("%s: --start-at %s is in the past: its schedule ended at %s, before now (%s); give a later instant, or +DURATION from now",
				cmd, f.StartAt, end.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
		}
	}
	return r, seed, nil
}
