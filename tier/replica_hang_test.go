package tier_test

import (
	"context"
	"testing"
	"time"

	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/store/storetest"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/tier"
)

// A replica that hangs (it neither answers nor fails a read) cannot hold
// a client: the read is cut at the replica's bound (the replica timeout
// without a request deadline, half the time left with one) and goes on to
// the primary, which answers; the hang is the replica's error. Its
// heartbeat polls answer, so only the clients' reads meet the hang.
func TestHungReplicaReadGoesToPrimary(t *testing.T) {
	const hb = int64(42)
	primary := storetest.Func{ExecFunc: func(_ context.Context, req *tao.Request, res *tao.Result) {
		for i := range res.Ops {
			res.Ops[i].Found, res.Ops[i].Version = true, 1
		}
	}}
	hung := storetest.Func{ExecFunc: func(ctx context.Context, req *tao.Request, res *tao.Result) {
		if req.Ops[0].ID1 == hb {
			res.Ops[0].Found, res.Ops[0].Version = true, 1
			return
		}
		<-ctx.Done()
		res.Outcome, res.Err = tao.Timeout, ctx.Err()
	}}
	for _, c := range []struct {
		name    string
		timeout time.Duration // the replica timeout
		request time.Duration // the request's deadline; 0: none
	}{
		{"no request deadline", 200 * time.Millisecond, 0},
		{"a request deadline", time.Hour, 2 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			var said warnings
			ts, err := tier.Open(context.Background(), primary, tier.Options{Replicas: []store.Store{hung}, ReplicaNames: []string{"the hung one"},
				ReplicaTimeout: c.timeout, HeartbeatID: hb, Warn: said.add})
			if err != nil {
				t.Fatal(err)
			}
			defer ts.Close()
			now := time.Now()
			ts.BeginExperiment(1, 1, now.Add(-time.Second), now.Add(time.Hour))
			ctx := context.Background()
			if c.request > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, c.request)
				defer cancel()
			}
			req := tao.Request{Class: tao.Read, Tier: tao.TierDB, Ops: []tao.Op{{Kind: tao.ObjRead, ID1: 7}}}
			var res tao.Result
			res.Reset(1)
			ts.Exec(ctx, &req, &res)
			if res.Outcome != tao.OK || !res.Ops[0].Found || ctx.Err() != nil {
				t.Errorf("a read the hung replica got: %v (%v), request context %v; want the primary's answer within the request's time", res.Outcome, res.Err, ctx.Err())
			}
			x := ts.EndExperiment()
			if len(x.Replicas) != 1 || x.Replicas[0].Errors != 1 || x.Replicas[0].Name != "the hung one" || x.Tiers[tao.TierDB].Served != 1 {
				t.Errorf("consistency %+v, replicas %+v: want the hung replica's 1 error and the primary's 1 read", x.Tiers, x.Replicas)
			}
			if _, ok := said.find("the hung one", "stopped answering (no answer to a read within"); !ok {
				t.Errorf("nothing said of the hung replica; said:\n%s", &said)
			}
		})
	}
}
