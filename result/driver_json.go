package result

import (
	"fmt"
	"math"
	"time"
)

// The keys of a run split across driver processes (docs/distributed.md,
// docs/results.md), embedded in the run and experiment objects. Every key
// is always present: a run in one process has drivers 1, driver_indexes
// [0], run_id "" unless given, shared_start "" without --start-at.
type jsonDriverRun struct {
	RunID         string `json:"run_id"`
	Drivers       int    `json:"drivers"`
	DriverIndexes []int  `json:"driver_indexes"`
}

type jsonDriverExperiment struct {
	SharedStart   string  `json:"shared_start"`
	LateS         float64 `json:"late_s"`
	FirstClient   int     `json:"first_client"`
	AllThreads    int     `json:"all_threads"`
	AllTargetRate float64 `json:"all_target_rate"`
}

func driverRunJSON(r *Run) jsonDriverRun {
	j := jsonDriverRun{RunID: r.RunID, Drivers: max(r.Drivers, 1), DriverIndexes: r.DriverIndexes}
	if j.DriverIndexes == nil {
		j.DriverIndexes = []int{0}
	}
	return j
}

func driverRunFromJSON(j jsonDriverRun, r *Run) error {
	if j.Drivers < 0 || len(j.DriverIndexes) > max(j.Drivers, 1) {
		return fmt.Errorf("run: drivers %d, driver_indexes %v: do not hang together", j.Drivers, j.DriverIndexes)
	}
	for _, i := range j.DriverIndexes {
		if i < 0 || i >= max(j.Drivers, 1) {
			return fmt.Errorf("run: driver index %d of %d drivers: want 0 to %d", i, j.Drivers, max(j.Drivers, 1)-1)
		}
	}
	r.RunID, r.Drivers, r.DriverIndexes = j.RunID, j.Drivers, j.DriverIndexes
	return nil
}

func driverExperimentJSON(e *Experiment) jsonDriverExperiment {
	j := jsonDriverExperiment{LateS: e.Late.Seconds(), FirstClient: e.FirstClient, AllThreads: e.AllThreads, AllTargetRate: e.AllRate}
	if !e.At.IsZero() {
		j.SharedStart = e.At.UTC().Format(time.RFC3339Nano)
	}
	return j
}

func driverExperimentFromJSON(j jsonDriverExperiment, e *Experiment) error {
	if j.SharedStart != "" {
		t, err := time.Parse(time.RFC3339Nano, j.SharedStart)
		if err != nil {
			return fmt.Errorf("shared_start %q: want an RFC 3339 instant or \"\"", j.SharedStart)
		}
		e.At = t
	}
	if j.LateS < 0 || j.FirstClient < 0 || j.AllThreads < 0 || j.AllTargetRate < 0 || math.IsNaN(j.AllTargetRate) || math.IsInf(j.AllTargetRate, 0) || math.IsNaN(j.LateS) {
		return fmt.Errorf("late_s %v, first_client %d, all_threads %d, all_target_rate %v: want none negative", j.LateS, j.FirstClient, j.AllThreads, j.AllTargetRate)
	}
	e.Late, e.FirstClient, e.AllThreads, e.AllRate = seconds(j.LateS), j.FirstClient, j.AllThreads, j.AllTargetRate
	return nil
}
