package tier

import (
	"context"
	"testing"
	"time"

	"github.com/taobench/taobench/fidelity"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/store/storetest"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// The fidelity row "stale reads (self-check)" passes on the checker as it
// is and fails when the checker is damaged: a commit log holding an
// impossible write (begun after every read's answer, ended before every
// read began) makes it class reads the database answered stale.
func TestSelfCheckRowFailsOnDamagedChecker(t *testing.T) {
	w, err := workload.Resolve("o")
	if err != nil {
		t.Fatal(err)
	}
	db := storetest.Func{ExecFunc: func(_ context.Context, req *tao.Request, res *tao.Result) {
		res.Outcome = tao.OK
		for i := range res.Ops {
			res.Ops[i] = tao.OpResult{Found: true, Version: 1}
		}
	}}
	row := func(damage bool) result.FidelityRow {
		s, err := Open(context.Background(), db, Options{})
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		s.BeginExperiment(1, 1, now.Add(-time.Second), now.Add(time.Hour))
		if damage {
			s.log.add(key{kind: 'o', id1: 7}, now.Add(time.Hour).UnixNano(), 0)
		}
		for range 100 {
			req := tao.Request{Class: tao.Read, Tier: tao.TierDB, Ops: []tao.Op{{Kind: tao.ObjRead, ID1: 7}}}
			var res tao.Result
			res.Reset(1)
			s.Exec(context.Background(), &req, &res)
		}
		for _, r := range fidelity.TierRows(w, s.EndExperiment()) {
			if r.Figure == "stale reads (self-check)" {
				return r
			}
		}
		t.Fatal("no self-check row")
		return result.FidelityRow{}
	}
	if r := row(false); r.Verdict != result.Pass || r.N != 100 || r.Observed != 0 {
		t.Errorf("sound checker: %+v; want 100 reads, 0 stale, pass", r)
	}
	if r := row(true); r.Verdict != result.Fail || r.Observed != 1 {
		t.Errorf("damaged checker: %+v; want every read stale and the row failed", r)
	}
}
