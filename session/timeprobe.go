package session

import (
	"context"
	"fmt"
	"time"

	"github.com/taobench/taobench/fidelity"
	"github.com/taobench/taobench/gen"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// timeProbeClient is the generator client of the time-range probe, which
// no run (nor the range probe) has.
const timeProbeClient = probeClient + 1

// timeProbePlan is the plan of w on g, seed seed, with single reads alone,
// all edge_time_read: the probe reads time ranges as w aims them
// (time_range_nonempty), whether or not w's mix draws any.
func timeProbePlan(w *workload.Workload, g *graph.Graph, seed uint64) (*gen.Plan, error) {
	tw := *w
	tw.Requests = workload.Dist[tao.Class]{Values: []tao.Class{tao.Read}, Weights: []float64{1}}
	tw.ReadKinds = workload.Dist[tao.Kind]{Values: []tao.Kind{tao.EdgeTimeRead}, Weights: []float64{1}}
	return gen.NewPlan(&tw, g, seed)
}

// probeTimes reads, in st, up to probeLists time-range reads of plan (its
// client timeProbeClient: timeProbePlan) as drawn, probeBatch a read
// transaction, for at most budget, and counts those that return an edge.
func probeTimes(ctx context.Context, st store.Store, plan *gen.Plan, budget time.Duration) (fidelity.TimeProbe, error) {
	var p fidelity.TimeProbe
	end := time.Now().Add(budget)
	g := plan.Client(timeProbeClient, 0)
	var req tao.Request
	batch := tao.Request{Class: tao.ReadTxn, Tier: tao.TierDB}
	var res tao.Result
	flush := func() error {
		if len(batch.Ops) == 0 {
			return nil
		}
		res.Reset(len(batch.Ops))
		st.Exec(ctx, &batch, &res)
		if res.Outcome != tao.OK {
			return fmt.Errorf("reading the time ranges the plan draws: %v (%v)", res.Outcome, res.Err)
		}
		for i := range batch.Ops {
			p.Reads++
			if res.Ops[i].Rows > 0 {
				p.NonEmpty++
			}
		}
		batch.Ops = batch.Ops[:0]
		return nil
	}
	drawn := 0
	for tries := 0; drawn < probeLists && tries < probeTries && time.Now().Before(end); tries++ {
		g.Next(&req)
		for _, op := range req.Ops {
			if op.Kind != tao.EdgeTimeRead || drawn == probeLists {
				continue
			}
			drawn++
			op.Payload = nil
			batch.Ops = append(batch.Ops, op)
			if len(batch.Ops) == probeBatch {
				if err := flush(); err != nil {
					return p, err
				}
			}
		}
	}
	return p, flush()
}
