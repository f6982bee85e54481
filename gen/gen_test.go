package gen_test

import (
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/taobench/taobench/chisquare"
	"github.com/taobench/taobench/gen"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/graph/graphtest"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

func setup(t testing.TB, edit func(w *workload.Workload)) (*workload.Workload, *graph.Graph) {
	t.Helper()
	w := graphtest.WorkloadO()
	if edit != nil {
		edit(w)
	}
	g, err := graph.New(w, 1, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	return w, g
}

// more write transactions, so tests see many of them.
func writeHeavy(w *workload.Workload) { w.Requests.Weights = []float64{40, 20, 20, 20} }

func cloneReq(r *tao.Request) tao.Request {
	return tao.Request{Class: r.Class, Tier: r.Tier, Ops: slices.Clone(r.Ops), Checks: slices.Clone(r.Checks), Predicates: slices.Clone(r.Predicates)}
}

func TestSameSeedSameRequests(t *testing.T) {
	w, g := setup(t, writeHeavy)
	a, b := gen.New(w, g, 3, 1, 9), gen.New(w, g, 3, 1, 9)
	c := gen.New(w, g, 4, 1, 9)
	var ra, rb, rc tao.Request
	same := 0
	for i := 0; i < 2000; i++ {
		a.Next(&ra)
		b.Next(&rb)
		c.Next(&rc)
		if !reflect.DeepEqual(cloneReq(&ra), cloneReq(&rb)) {
			t.Fatalf("request %d differs for the same seed and client:\n%+v\n%+v", i, ra, rb)
		}
		if reflect.DeepEqual(cloneReq(&ra), cloneReq(&rc)) {
			same++
		}
		// Observing the same results keeps them in step.
		var res tao.Result
		res.Reset(len(ra.Ops))
		for j := range res.Ops {
			res.Ops[j] = tao.OpResult{Found: j%2 == 0, Version: int64(i)}
		}
		a.Observe(&ra, &res)
		b.Observe(&rb, &res)
	}
	if same > 200 {
		t.Errorf("clients 3 and 4 made %d of 2000 identical requests", same)
	}
}

func TestRequestsWellFormed(t *testing.T) {
	w, g := setup(t, writeHeavy)
	gn := gen.New(w, g, 0, 5, 1)
	_, thi := g.TimeRange()
	tlo, _ := g.TimeRange()
	var req tao.Request
	var res tao.Result
	checks := 0
	created := map[int64]bool{}
	for i := 0; i < 20000; i++ {
		gn.Next(&req)
		switch req.Class {
		case tao.Read, tao.Write:
			if len(req.Ops) != 1 {
				t.Fatalf("%v with %d ops", req.Class, len(req.Ops))
			}
		}
		if req.Class == tao.Write && len(req.Predicates) != 1 {
			t.Fatalf("a single write drew %d predicates", len(req.Predicates))
		}
		if req.Class == tao.Read || req.Class == tao.ReadTxn {
			if len(req.Predicates)+len(req.Checks) != 0 {
				t.Fatalf("a read carries predicates %v", req.Predicates)
			}
		}
		if len(req.Checks) > len(req.Predicates) {
			t.Fatalf("%d checks from %d predicates", len(req.Checks), len(req.Predicates))
		}
		write := req.Class == tao.Write || req.Class == tao.WriteTxn
		keys := map[tao.Key]bool{}
		for _, op := range req.Ops {
			if op.Kind.IsRead() == write {
				t.Fatalf("%v request holds a %v", req.Class, op.Kind)
			}
			if req.Class == tao.WriteTxn {
				if keys[op.Key()] {
					t.Fatalf("write transaction writes %+v twice", op.Key())
				}
				keys[op.Key()] = true
			}
			if tao.ShardOf(op.ID1) >= g.Shards() {
				t.Fatalf("op %+v: shard out of range", op)
			}
			switch {
			case op.Kind == tao.ObjAdd:
				if !tao.IsNew(op.ID1) || created[op.ID1] {
					t.Fatalf("obj_add of existing id %x", op.ID1)
				}
				created[op.ID1] = true
			case tao.IsNew(op.ID1):
				if op.Kind.IsEdge() || !created[op.ID1] {
					t.Fatalf("op %+v: id1 is new but not an object this client created", op)
				}
			case tao.IndexOf(op.ID1) >= g.ShardNodes(tao.ShardOf(op.ID1)):
				t.Fatalf("op %+v: id1 is not a loaded node", op)
			}
			if op.Kind.IsEdge() && !op.Type.IsForward() {
				t.Fatalf("op %+v: type is not a forward type", op)
			}
			switch op.Kind {
			case tao.EdgeRangeRead:
				if op.Limit != w.RangeLimit || op.Offset != 0 || op.ID2 != 0 {
					t.Fatalf("range read %+v", op)
				}
			case tao.EdgeTimeRead:
				// A window in the graph's year, or wholly before it (empty).
				if op.Low > op.High || (op.Low < tlo && op.High >= tlo) || op.High >= thi || op.Limit != w.RangeLimit {
					t.Fatalf("time read %+v", op)
				}
			case tao.ObjAdd, tao.ObjUpdate, tao.EdgeAdd, tao.EdgeUpdate:
				if op.Time < thi || !slices.Contains(w.PayloadSizes.Values, len(op.Payload)) {
					t.Fatalf("write %+v: time before the graph's or payload size not drawn", op)
				}
			}
		}
		checks += len(req.Checks)
		res.Reset(len(req.Ops))
		for j := range res.Ops {
			res.Ops[j] = tao.OpResult{Found: true, Version: 1}
		}
		gn.Observe(&req, &res)
	}
	if checks == 0 {
		t.Error("no checks in 20000 requests")
	}
}

// TestChecksFollowPredicates drives every predicate kind alone and checks
// the checks it turns into.
func TestChecksFollowPredicates(t *testing.T) {
	for p := tao.PredNone; p < tao.NumPredicates; p++ {
		w, g := setup(t, func(w *workload.Workload) {
			w.Requests.Weights = []float64{1, 1, 0, 1}
			w.ReadKinds.Weights = []float64{1, 1, 0, 0, 0}
			w.OpPredicates = workload.Dist[tao.Predicate]{Values: []tao.Predicate{p}, Weights: []float64{1}}
			w.TxnPredicates = w.OpPredicates
			w.TxnPredicateCounts = workload.Dist[int]{Values: []int{1}, Weights: []float64{1}}
			w.KeySkew.Theta = 1.5 // repeat keys, so reads and writes meet
		})
		gn := gen.New(w, g, 0, 0, 2)
		read := map[tao.Key]int64{}
		var req tao.Request
		var res tao.Result
		checks := 0
		for i := 0; i < 20000; i++ {
			gn.Next(&req)
			if req.Class != tao.Read {
				if len(req.Predicates) != 1 || req.Predicates[0] != p {
					t.Fatalf("%v: drew %v", p, req.Predicates)
				}
			}
			for _, ck := range req.Checks {
				checks++
				inSet := false
				for _, op := range req.Ops {
					if op.Key() == ck.Key || (p == tao.PredWriteVisibility && ck.Key == (tao.Key{ID1: op.ID1})) {
						inSet = true
					}
				}
				v, wasRead := read[ck.Key]
				wantKind := tao.CheckExists
				if p == tao.PredWriteVersion || p == tao.PredReadVersion {
					wantKind = tao.CheckVersion
					if !wasRead || v != ck.Version {
						t.Fatalf("%v: check %+v: version %d was read (%v)", p, ck, v, wasRead)
					}
				}
				if ck.Kind != wantKind {
					t.Fatalf("%v: check kind %v", p, ck.Kind)
				}
				switch p {
				case tao.PredReadVisibility, tao.PredReadVersion:
					if inSet || !wasRead {
						t.Fatalf("%v: check %+v in the write set (%v) or never read (%v)", p, ck, inSet, !wasRead)
					}
				default:
					if !inSet {
						t.Fatalf("%v: check %+v outside the write set %+v", p, ck, req.Ops)
					}
				}
			}
			res.Reset(len(req.Ops))
			for j, op := range req.Ops {
				// Reads find their key at version i; writes find nothing, so
				// the client bumps no version it remembers.
				res.Ops[j] = tao.OpResult{Found: op.Kind.IsRead(), Version: int64(i)}
				if op.Kind == tao.ObjRead || op.Kind == tao.EdgePointRead {
					read[op.Key()] = int64(i)
				}
			}
			gn.Observe(&req, &res)
		}
		if (p == tao.PredNone) != (checks == 0) {
			t.Errorf("%v gave %d checks", p, checks)
		}
	}
}

func TestNewIDsDistinctAcrossClientsAndRuns(t *testing.T) {
	w, g := setup(t, func(w *workload.Workload) {
		w.Requests.Weights = []float64{0, 1, 0, 0}
		w.WriteKinds.Weights = []float64{1, 0, 0, 0, 0, 0}
	})
	seen := map[int64]bool{}
	for _, cr := range [][2]int{{0, 0}, {1, 0}, {0, 1}} {
		gn := gen.New(w, g, cr[0], int64(cr[1]), 1) // same seed: same draws, other ids
		var req tao.Request
		for range 1000 {
			gn.Next(&req)
			id := req.Ops[0].ID1
			if seen[id] {
				t.Fatalf("client %d run %d repeats id %x", cr[0], cr[1], id)
			}
			seen[id] = true
		}
	}
}

func TestKeySkew(t *testing.T) {
	count := func(skew workload.Skew) (map[int64]int64, int64) {
		w, g := setup(t, func(w *workload.Workload) {
			w.Requests.Weights = []float64{1, 0, 0, 0}
			w.ReadKinds.Weights = []float64{1, 0, 0, 0, 0}
			w.PrimaryShards.Weights = make([]float64, 50)
			w.PrimaryShards.Weights[7] = 1
			w.KeySkew = skew
		})
		gn := gen.New(w, g, 0, 0, 1)
		hits := map[int64]int64{}
		var req tao.Request
		for range 50000 {
			gn.Next(&req)
			if tao.ShardOf(req.Ops[0].ID1) != 7 {
				t.Fatalf("key %x not on the only shard with weight", req.Ops[0].ID1)
			}
			hits[tao.IndexOf(req.Ops[0].ID1)]++
		}
		return hits, g.ShardNodes(7)
	}
	hits, n := count(workload.Skew{Kind: workload.Uniform})
	obs := make([]int64, n)
	w := make([]float64, n)
	for i := range obs {
		obs[i], w[i] = hits[int64(i)], 1
	}
	if chi2, df, p, _ := chisquare.Test(obs, w); p < 1e-4 {
		t.Errorf("uniform keys: chi2 %.1f df %d p %.3g", chi2, df, p)
	}
	hits, n = count(workload.Skew{Kind: workload.Zipf, Theta: 0.99})
	var top, topIdx int64
	for i, c := range hits {
		if c > top {
			top, topIdx = c, i
		}
	}
	h := 0.0
	for k := 1; k <= int(n); k++ {
		h += math.Pow(float64(k), -0.99)
	}
	if want := 50000 / h; math.Abs(float64(top)-want) > 5*math.Sqrt(want) {
		t.Errorf("hottest key drawn %d times, zipf says %.0f", top, want)
	}
	if topIdx == 0 {
		t.Log("hottest key is index 0: possible, but the permutation should rarely leave it there")
	}
}

func TestZeroAllocs(t *testing.T) {
	w, g := setup(t, writeHeavy)
	gn := gen.New(w, g, 0, 0, 1)
	var req tao.Request
	var res tao.Result
	step := func() {
		gn.Next(&req)
		res.Reset(len(req.Ops))
		gn.Observe(&req, &res)
	}
	for range 20000 {
		step()
	}
	if a := testing.AllocsPerRun(5000, step); a != 0 {
		t.Errorf("%.3f allocations per request in steady state", a)
	}
}

func TestNewCheckedRejects(t *testing.T) {
	w, g := setup(t, nil)
	bad := graphtest.WorkloadO()
	bad.PrimaryShards.Values = bad.PrimaryShards.Values[:10]
	bad.PrimaryShards.Weights = bad.PrimaryShards.Weights[:10]
	bad.RemoteShards = bad.PrimaryShards
	if _, err := gen.NewChecked(bad, g, 0, 0, 1); err == nil {
		t.Error("accepted a workload of 10 shards over a graph of 50")
	}
	if _, err := gen.NewChecked(w, g, 0, 0, 1); err != nil {
		t.Error(err)
	}
}

func BenchmarkNext(b *testing.B) {
	w, g := setup(b, nil)
	gn := gen.New(w, g, 0, 0, 1)
	var req tao.Request
	var res tao.Result
	b.ReportAllocs()
	for b.Loop() {
		gn.Next(&req)
		res.Reset(len(req.Ops))
		gn.Observe(&req, &res)
	}
}
