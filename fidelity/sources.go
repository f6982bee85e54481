package fidelity

import (
	"fmt"
	"math"
)

// A paper figure a targeted share may carry: the workload field that sets
// it, the value, and where the figure is published.
type source struct {
	field  string
	value  float64
	source string
}

// sourceNote names the source of a target the workload's field set: the
// published figure it equals, or, when it equals none, the field itself,
// so a row never credits a paper with a figure it does not carry.
func sourceNote(field string, target float64) string {
	// The published figures the built-in workloads take their targets
	// from (docs/workloads.md, "Fidelity targets").
	sources := [...]source{
		{"edge_hit_rate", 0.196, "TAO §7, Fig. 3: 19.6%"},
		{"range_nonempty", 0.31, "TAO §7, Fig. 3: 31.0%"},
		{"range_nonempty", 0.734, "LinkBench Table 4b: 26.6% of range scans return no row"},
		{"time_range_nonempty", 0.019, "TAO §7, Fig. 3: 1.9%"},
		{"count_nonzero", 0.55, "TAO §7, Fig. 4: 55% (45% return 0)"},
		{"multi_shard_write_txns", 0.287, "TAOBench §3.3, Fig. 7: 28.7%"},
	}
	for _, s := range sources {
		if s.field == field && math.Abs(s.value-target) < 5e-7 {
			return s.source
		}
	}
	return fmt.Sprintf("the workload's %s %.4g (no published figure)", field, target)
}
