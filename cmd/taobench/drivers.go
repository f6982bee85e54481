package main

import (
	"flag"
	"time"

	"github.com/taobench/taobench/fleet"
	"github.com/taobench/taobench/session"
)

// distFlags are run's flags for splitting one run across driver processes
// (docs/distributed.md). Kept apart from cmd_run.go so the run command
// gains only a few calls.
type distFlags struct {
	driver, runID, startAt string
}

func (f *distFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.driver, "driver", "", "I/N: run as driver I (counting from 0, as Kubernetes' JOB_COMPLETION_INDEX) of N processes sharing one run: this one runs its share of --threads and --rate; merge their --out files with taobench merge")
	fs.StringVar(&f.runID, "run-id", "", "the id all drivers of one run share (letters, digits, . _ -); default with --driver: derived from --start-at, workload and seed")
	fs.StringVar(&f.startAt, "start-at", "", "begin the first experiment at this instant, RFC 3339 (2026-11-23T14:00:00Z: lines up hosts) or +DURATION from now (+30s: lines up only processes started together); later experiments follow on the same schedule")
}

// resolve checks the flags and fills in the shared seed: drivers given no
// --seed derive it from what they share, so client k draws the same stream
// whichever driver runs it.
func (f *distFlags) resolve(cmd string, workload string, seed *uint64, seedGiven bool, now time.Time) (session.Split, error) {
	r := session.Split{Driver: fleet.Single}
	var (
		err      error
		relative bool
	)
	if f.driver != "" {
		if r.Driver, err = fleet.Parse("--driver", f.driver); err != nil {
			return r, badInput("%s: %v", cmd, err)
		}
	}
	if f.runID != "" {
		if err := fleet.CheckRunID("--run-id", f.runID); err != nil {
			return r, badInput("%s: %v", cmd, err)
		}
		r.RunID = f.runID
	}
	if f.startAt != "" {
		if r.Start, relative, err = fleet.ParseStart("--start-at", f.startAt, now); err != nil {
			return r, badInput("%s: %v", cmd, err)
		}
	}
	if r.Driver.Many() && r.RunID == "" && (r.Start.IsZero() || relative) {
		return r, badInput("%s: --driver %s needs what all drivers share: --run-id ID, or --start-at as an RFC 3339 instant (a relative --start-at differs per process)", cmd, r.Driver)
	}
	if !seedGiven {
		switch {
		case r.RunID != "":
			*seed = fleet.Seed("run-id " + r.RunID)
		case r.Driver.Many():
			*seed = fleet.Seed("start " + workload + " " + r.Start.UTC().Format(time.RFC3339Nano))
		}
	}
	if r.Driver.Many() && r.RunID == "" {
		r.RunID = fleet.DeriveRunID(workload, r.Start, *seed)
	}
	return r, nil
}

// loadPart reads load's --driver: which part of the graph this loader
// writes.
func loadPart(s string) (fleet.Driver, error) {
	if s == "" {
		return fleet.Single, nil
	}
	d, err := fleet.Parse("--driver", s)
	if err != nil {
		return d, badInput("load: %v", err)
	}
	return d, nil
}
