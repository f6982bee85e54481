package run

import (
	"time"

	"github.com/taobench/taobench/metrics"
)

// Live watches experiments while they run, for live metrics. Do calls Begin
// when an experiment's clock starts, Observe with every batch of samples a
// client hands to its recorder (warmup samples marked Warmup), from the
// client's own goroutine, and End once every batch was observed. Batches
// reach Observe as they reach the recorders, so a watcher adds no work per
// request to the clients, only per batch, and lags the recorders by nothing.
type Live interface {
	Begin(x LiveExperiment)
	Observe(client int, batch []metrics.Sample)
	End()
}

// LiveExperiment describes the experiment that begins.
type LiveExperiment struct {
	Threads int
	Rate    float64 // target, requests per second; 0: closed loop
	// Start, Measure and End are the experiment's clock: warmup runs from
	// Start to Measure, the measured window from Measure to End.
	Start, Measure, End time.Time
	// InFlight counts the clients inside Store.Exec now; safe to call from
	// any goroutine while the experiment runs.
	InFlight func() int
}

// inFlight counts the clients inside Store.Exec.
func inFlight(clients []*client) int {
	n := 0
	for _, c := range clients {
		if c.state.Load() == clientInExec {
			n++
		}
	}
	return n
}
