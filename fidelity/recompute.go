package fidelity

import (
	"fmt"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/workload"
)

// Recompute recomputes the fidelity rows of merged experiments from their
// merged counters and the targets each run recorded (result.Targets), so
// merge needs no generator, graph or store. The workload, whose figures
// some rows' notes and the races' rows use, is resolved by name, which
// works for the built-in workloads.
func Recompute(d *result.Doc) error {
	w, err := workload.Resolve(d.Run.Workload)
	if err != nil {
		return fmt.Errorf("workload %s: %v", d.Run.Workload, err)
	}
	for _, x := range d.Experiments {
		if x.Targets == nil {
			return fmt.Errorf("the results hold no targets (written by a taobench before they were recorded); rerun to merge fidelity rows")
		}
	}
	for _, x := range d.Experiments {
		x.Fidelity = append(Rows(w, x.Targets, x.Counters), TierRows(w, x.Consistency)...)
	}
	return nil
}
