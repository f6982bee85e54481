package fidelity

import (
	"fmt"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/workload"
)

// TimeProbe is what the time-range reads a plan draws find in the
// database before a run, read as drawn: a short run has too few of them
// (2.8% of TAO's reads) for the run's own row to tell 1.9% from 0, a probe
// of 10,000 has enough, whatever the workload.
type TimeProbe struct {
	Reads, NonEmpty int64
}

// TimeProbeRows is the probe's row: the share of the time-range reads
// the workload aims (whether or not its mix draws any) that return an
// edge against time_range_nonempty (the plan's target), for a workload
// that targets it; none when the probe read nothing. Runs since the load (runs) add edges at later times,
// outside the windows drawn over the load's time range, and delete few.
func TimeProbeRows(t *result.Targets, p TimeProbe, runs int64) []result.FidelityRow {
	if p.Reads == 0 || t.TimeRangeNonEmpty == workload.Natural {
		return nil
	}
	note := "time-range reads of the plan read in the database before the run, against time_range_nonempty (TAO §7, Fig. 3: 1.9%)"
	if runs > 0 {
		note += fmt.Sprintf("; %d run(s) since the load", runs)
	}
	return []result.FidelityRow{share("time ranges the plan draws with edges (probed)", t.TimeRangeNonEmpty, ModelTargeted, p.NonEmpty, p.Reads, note)}
}
