package session

import (
	"context"
	"fmt"
	"time"

	"github.com/taobench/taobench/fidelity"
	"github.com/taobench/taobench/gen"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

const (
	// probeLists is how many lists a probe counts: at 10,000 before and
	// after a run a share's standard error is under 0.004.
	probeLists = 10_000
	// probeBatch is the count reads of one read transaction of a probe.
	probeBatch = 100
	// probeClient is the generator client of probes, which no run has.
	probeClient = 1<<30 + 1
	// probeTries bounds the requests drawn in search of range reads.
	probeTries = 100 * probeLists
)

// probeRanges counts, in st, the lists of up to probeLists range reads of
// plan (its client probeClient), probeBatch count reads a read transaction
// (fidelity.RangeProbe says why), for at most budget: a slow store counts
// fewer, and the rows' tolerances grow with it. It finds nothing when plan
// draws no range read.
func probeRanges(ctx context.Context, st store.Store, plan *gen.Plan, budget time.Duration) (fidelity.RangeProbe, error) {
	var p fidelity.RangeProbe
	end := time.Now().Add(budget)
	g := plan.Client(probeClient, 0)
	var req tao.Request
	batch := tao.Request{Class: tao.ReadTxn, Tier: tao.TierDB}
	var limits []int
	var res tao.Result
	flush := func() error {
		if len(batch.Ops) == 0 {
			return nil
		}
		res.Reset(len(batch.Ops))
		st.Exec(ctx, &batch, &res)
		if res.Outcome != tao.OK {
			return fmt.Errorf("counting the lists range reads draw: %v (%v)", res.Outcome, res.Err)
		}
		for i := range batch.Ops {
			p.Add(res.Ops[i].Rows, limits[i])
		}
		batch.Ops, limits = batch.Ops[:0], limits[:0]
		return nil
	}
	drawn := 0
	for tries := 0; drawn < probeLists && tries < probeTries && time.Now().Before(end); tries++ {
		g.Next(&req)
		for _, op := range req.Ops {
			if op.Kind != tao.EdgeRangeRead || drawn == probeLists {
				continue
			}
			drawn++
			batch.Ops = append(batch.Ops, tao.Op{Kind: tao.EdgeCountRead, ID1: op.ID1, Type: op.Type})
			limits = append(limits, op.Limit)
			if len(batch.Ops) == probeBatch {
				if err := flush(); err != nil {
					return p, err
				}
			}
		}
	}
	return p, flush()
}
