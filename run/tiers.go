package run

import (
	"time"

	"github.com/taobench/taobench/result"
)

// Tiered is a store with read tiers in front of its database (package
// tier): Do tells it each experiment's graph, run number and measured
// window before the clients start, and takes what the tiers served when
// they have ended.
type Tiered interface {
	BeginExperiment(graphSeed uint64, run int64, measure, end time.Time)
	EndExperiment() *result.Consistency
}
