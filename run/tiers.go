package run

import (
	"context"
	"io"
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

// Warmer is a Tiered store that can warm its tiers before an
// experiment's clock starts: Do calls it first, and the experiment (its
// warmup, then its measured window) waits until it returns; it shows its
// progress on status (none when nil).
type Warmer interface {
	Warm(ctx context.Context, g *graph.Graph, graphSeed uint64, run int64, status io.Writer)
}

// Rereader is a store with a client cache whose locality the clients'
// generators draw (gen's Reread): a read drawn to the client cache reads
// again, with this probability, one of the client's recent reads.
type Rereader interface {
	Reread() float64
}
