package gen_test

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/taobench/taobench/gen"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// Lock holds and injected failures are drawn for writes only, at their
// weights, and leave the rest of the request stream as it was.
func TestInjectedHoldsAndFailures(t *testing.T) {
	w, g := setup(t, writeHeavy)
	plain := gen.New(w, g, 2, 1, 7)
	w2 := *w
	w2.LockHold = workload.Dist[time.Duration]{Values: []time.Duration{0, 5 * time.Millisecond, 50 * time.Millisecond}, Weights: []float64{2, 1, 1}}
	w2.Errors = workload.Dist[tao.FailPoint]{Values: []tao.FailPoint{tao.Success, tao.FailAfterReserve}, Weights: []float64{3, 1}}
	w2.TxnErrors = workload.Dist[tao.FailPoint]{Values: []tao.FailPoint{tao.FailAfterPrimaryCommit, tao.FailAfterPrimaryRollback}, Weights: []float64{1, 1}}
	inj := gen.New(&w2, g, 2, 1, 7)
	var a, b tao.Request
	holds := map[time.Duration]int{}
	fails := map[tao.Class]map[tao.FailPoint]int{tao.Write: {}, tao.WriteTxn: {}}
	writes := 0
	const n = 20000
	for i := 0; i < n; i++ {
		plain.Next(&a)
		inj.Next(&b)
		if a.Hold != 0 || a.Fail != tao.Success {
			t.Fatalf("request %d of a workload without lock_hold or errors: hold %v, fail %v", i, a.Hold, a.Fail)
		}
		hb, fb := b.Hold, b.Fail
		b.Hold, b.Fail = 0, tao.Success
		if !reflect.DeepEqual(cloneReq(&a), cloneReq(&b)) {
			t.Fatalf("request %d differs beyond its hold and failure:\n%+v\n%+v", i, a, b)
		}
		if b.Class != tao.Write && b.Class != tao.WriteTxn {
			if hb != 0 || fb != tao.Success {
				t.Fatalf("a %v request holds %v and fails at %v; reads do neither", b.Class, hb, fb)
			}
			continue
		}
		writes++
		holds[hb]++
		fails[b.Class][fb]++
		var res tao.Result
		res.Reset(len(a.Ops))
		plain.Observe(&a, &res)
		inj.Observe(&b, &res)
	}
	if writes < n/4 {
		t.Fatalf("only %d writes of %d requests", writes, n)
	}
	near := func(what string, got int, total int, want float64) {
		if p := float64(got) / float64(total); math.Abs(p-want) > 0.03 {
			t.Errorf("%s: %.3f of draws, want %.3f", what, p, want)
		}
	}
	near("hold 0", holds[0], writes, 0.5)
	near("hold 5ms", holds[5*time.Millisecond], writes, 0.25)
	near("hold 50ms", holds[50*time.Millisecond], writes, 0.25)
	sw, tw := fails[tao.Write], fails[tao.WriteTxn]
	near("write fail_after_reserve", sw[tao.FailAfterReserve], sw[tao.Success]+sw[tao.FailAfterReserve], 0.25)
	if sw[tao.FailAfterPrimaryCommit]+sw[tao.FailAfterPrimaryRollback] != 0 || tw[tao.Success]+tw[tao.FailAfterReserve] != 0 {
		t.Errorf("single writes drew %v and transactions %v: each draws from its own field", sw, tw)
	}
	near("txn fail_after_primary_commit", tw[tao.FailAfterPrimaryCommit], tw[tao.FailAfterPrimaryCommit]+tw[tao.FailAfterPrimaryRollback], 0.5)
}

// TestPreconditionWait: a write with a version check on a key the client
// read waits precondition_wait before it is sent; no other request does.
func TestPreconditionWait(t *testing.T) {
	_, g := setup(t, writeHeavy)
	w, _ := setup(t, writeHeavy)
	w.OpPredicates = workload.Dist[tao.Predicate]{Values: []tao.Predicate{tao.PredWriteVersion, tao.PredNone}, Weights: []float64{1, 1}}
	w.PreconditionWait = workload.Dist[time.Duration]{Values: []time.Duration{30 * time.Millisecond}, Weights: []float64{1}}
	gn := gen.New(w, g, 1, 1, 3)
	var req tao.Request
	waited, checked := 0, 0
	for i := 0; i < 20000; i++ {
		gn.Next(&req)
		version := false
		for _, c := range req.Checks {
			version = version || c.Kind == tao.CheckVersion
		}
		switch {
		case version:
			checked++
			if req.Wait != 30*time.Millisecond {
				t.Fatalf("a %v with a version check waits %v, want 30ms", req.Class, req.Wait)
			}
			waited++
		case req.Wait != 0:
			t.Fatalf("a %v without a version check waits %v", req.Class, req.Wait)
		}
		var res tao.Result
		res.Reset(len(req.Ops))
		for j := range res.Ops {
			res.Ops[j] = tao.OpResult{Found: true, Version: int64(1 + i%3)}
		}
		gn.Observe(&req, &res)
	}
	if checked < 500 {
		t.Errorf("only %d requests of 20000 had a version check; the test needs many", checked)
	}
}
