package result

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// split reports whether d is (part of) a run split across driver processes.
func (d *Doc) split() bool { return d.Run != nil && d.Run.Drivers > 1 }

// checkDrivers refuses a set of driver results that is not one whole run:
// every file must be a driver of the same run id and driver count, each
// driver given once, none missing. Runs not split are left to compatible.
func checkDrivers(runs []Named) error {
	var first *Named
	for i := range runs {
		if runs[i].Doc != nil && runs[i].Doc.split() {
			first = &runs[i]
			break
		}
	}
	if first == nil {
		return nil
	}
	id, n := first.Doc.Run.RunID, first.Doc.Run.Drivers
	owner := map[int]string{}
	for _, r := range runs {
		if r.Doc == nil || r.Doc.Run == nil {
			return fmt.Errorf("%s: no run", r.Name)
		}
		x := r.Doc.Run
		if !r.Doc.split() || x.RunID != id || x.Drivers != n {
			return fmt.Errorf("%s holds driver results of run %s (%d drivers) but %s holds %s: merge the drivers of one run only",
				first.Name, id, n, r.Name, describe(x))
		}
		for _, i := range x.DriverIndexes {
			if prev, dup := owner[i]; dup {
				return fmt.Errorf("driver %d/%d of run %s is given twice, in %s and %s: give each driver's results once", i, n, id, prev, r.Name)
			}
			owner[i] = r.Name
		}
	}
	var missing []string
	for i := range n {
		if _, ok := owner[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	switch {
	case len(missing) == 1:
		return fmt.Errorf("driver %s of run %s is missing: give the results of all %d drivers (drivers count from 0)", missing[0], id, n)
	case len(missing) > 1:
		return fmt.Errorf("drivers %s of run %s are missing: give the results of all %d drivers (drivers count from 0)", strings.Join(missing, ", "), id, n)
	}
	return nil
}

func describe(r *Run) string {
	if r.Drivers <= 1 {
		if r.RunID != "" {
			return "run " + r.RunID + ", not split across drivers"
		}
		return "a run not split across drivers"
	}
	return fmt.Sprintf("driver %v of run %s (%d drivers)", r.DriverIndexes, r.RunID, r.Drivers)
}

// driversCompatible compares experiment i of two drivers of one run: they
// ran shares of the same experiment, so what must agree is the whole
// experiment's clients and rate, not each driver's share.
func driversCompatible(i int, e, f *Experiment, differ func(what string, u, v any, why string) error) error {
	at := fmt.Sprintf("experiment %d: ", i+1)
	switch {
	case e.AllThreads != f.AllThreads:
		return differ(at+"all_threads", e.AllThreads, f.AllThreads, "merge only drivers of the same experiments")
	case !closeTo(e.AllRate, f.AllRate):
		return differ(at+"all_target_rate", e.AllRate, f.AllRate, "merge only drivers of the same target rate")
	case e.At.IsZero() != f.At.IsZero() || e.At.Sub(f.At).Abs() > StartTolerance:
		return differ(at+"shared_start", e.At, f.At, fmt.Sprintf("merge only drivers started with the same --start-at (within %v)", StartTolerance))
	}
	return nil
}

// StartTolerance is how far apart drivers' shared starts may be and still
// merge: a relative --start-at (+5s) resolves on each process's own clock,
// and processes one shell starts together are a few milliseconds apart
// (docs/distributed.md). It is well inside a second of the per-second
// series, so the merged seconds still line up; the merged start is the
// earliest.
const StartTolerance = 250 * time.Millisecond

func closeTo(x, y float64) bool {
	return x == y || math.Abs(x-y) <= 1e-9*max(math.Abs(x), math.Abs(y))
}

// finishDrivers records which drivers the merged result holds and checks
// that their clients add up to the whole run's.
func finishDrivers(out *Doc, runs []Named) error {
	if !out.split() {
		return nil
	}
	var idx []int
	for _, r := range runs {
		idx = append(idx, r.Doc.Run.DriverIndexes...)
	}
	slices.Sort(idx)
	out.Run.DriverIndexes = idx
	for i, e := range out.Experiments {
		if e.AllThreads != 0 && e.Threads != e.AllThreads {
			return fmt.Errorf("experiment %d: the drivers ran %d clients, the run %d: merge the results of one run's drivers", i+1, e.Threads, e.AllThreads)
		}
		e.FirstClient = 0
	}
	return nil
}
