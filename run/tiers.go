package run

import (
	"context"
	"time"

	"github.com/taobench/taobench/graph"

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

// Prefiller is a Tiered store that can warm its tiers from the database
// in an experiment's warmup: Do calls it after BeginExperiment, and it
// must stop by until, the measured window's start.
type Prefiller interface {
	Prefill(ctx context.Context, g *graph.Graph, until time.Time)
}
