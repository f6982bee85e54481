package fidelity

import (
	"fmt"

	"github.com/taobench/taobench/gen"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/workload"
)

// Recompute recomputes the fidelity rows of merged experiments from their
// merged counters: the targets come from the workload and graph, rebuilt
// from their names and seed, which works for the built-in workloads.
func Recompute(d *result.Doc) error {
	w, err := workload.Resolve(d.Run.Workload)
	if err != nil {
		return fmt.Errorf("workload %s: %v", d.Run.Workload, err)
	}
	gw := w
	if d.Run.GraphWorkload != "" && d.Run.GraphWorkload != w.Name {
		if gw, err = workload.Resolve(d.Run.GraphWorkload); err != nil {
			return fmt.Errorf("graph workload %s: %v", d.Run.GraphWorkload, err)
		}
	}
	g, err := graph.New(gw, d.Run.GraphSeed, d.Run.Edges)
	if err != nil {
		return err
	}
	plan, err := gen.NewPlan(w, g, d.Run.Seed)
	if err != nil {
		return err
	}
	for _, x := range d.Experiments {
		x.Fidelity = append(Rows(w, plan, g.Nodes(), x.Counters), TierRows(w, x.Consistency)...)
	}
	return nil
}
