package gen_test

import (
	"testing"

	"github.com/taobench/taobench/fidelity"
	"github.com/taobench/taobench/fidelity/expect"
	"github.com/taobench/taobench/gen"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// truth is a loaded graph held in memory: what a database would answer.
type truth struct {
	edges map[tao.Key]bool
	lists map[[2]int64][]int64 // (id1, type) -> times
}

func loadTruth(g *graph.Graph) *truth {
	tr := &truth{edges: map[tao.Key]bool{}, lists: map[[2]int64][]int64{}}
	var objs []tao.Object
	var edges []tao.Edge
	for n := range g.Nodes() {
		s, i := g.Locate(n)
		objs, edges = g.AppendNode(s, i, objs[:0], edges[:0])
		for _, e := range edges {
			tr.edges[tao.Key{Edge: true, ID1: e.ID1, Type: e.Type, ID2: e.ID2}] = true
			k := [2]int64{e.ID1, int64(e.Type)}
			tr.lists[k] = append(tr.lists[k], e.Time)
		}
	}
	return tr
}

// answer fills res as the database would, and applies successful adds.
func (tr *truth) answer(req *tao.Request, res *tao.Result) {
	res.Reset(len(req.Ops))
	for i := range req.Ops {
		op, r := &req.Ops[i], &res.Ops[i]
		k := tao.Key{Edge: true, ID1: op.ID1, Type: op.Type, ID2: op.ID2}
		switch op.Kind {
		case tao.ObjRead:
			r.Found, r.Version = true, 1
		case tao.EdgePointRead, tao.EdgeUpdate, tao.EdgeDelete:
			r.Found, r.Version = tr.edges[k], 1
		case tao.EdgeRangeRead, tao.EdgeCountRead:
			r.Rows = min(len(tr.lists[[2]int64{op.ID1, int64(op.Type)}]), max(op.Limit, 1<<30*btoi(op.Kind == tao.EdgeCountRead)))
		case tao.EdgeTimeRead:
			for _, t := range tr.lists[[2]int64{op.ID1, int64(op.Type)}] {
				if t >= op.Low && t <= op.High {
					r.Rows++
				}
			}
		case tao.EdgeAdd:
			r.Found = tr.edges[k]
			if !r.Found {
				tr.edges[k] = true
			}
		case tao.ObjUpdate:
			r.Found = !tao.IsNew(op.ID1)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestTargetsOnTheGraph drives the generator against the graph it computes
// and checks every fidelity target, as validate --db does on a database.
func TestTargetsOnTheGraph(t *testing.T) {
	withTime := func() *workload.Workload {
		w, _ := workload.Builtin("a")
		w.Name = "a+time"
		w.ReadKinds.Weights = []float64{475, 68, 376, 39, 60}
		return w
	}
	for _, w := range []*workload.Workload{builtinW(t, "a"), builtinW(t, "o"), withTime()} {
		g, err := graph.New(w, 1, 100_000)
		if err != nil {
			t.Fatal(err)
		}
		tr := loadTruth(g)
		p, err := gen.NewPlan(w, g, 7)
		if err != nil {
			t.Fatal(err)
		}
		var c result.Counters
		var req tao.Request
		var res tao.Result
		for client := range 4 {
			gn := p.Client(client, 1)
			for range 60_000 {
				gn.Next(&req)
				tr.answer(&req, &res)
				c.Observe(&req, &res)
				gn.Observe(&req, &res)
			}
		}
		rows := fidelity.Compare(w, expect.Targets(w, p, g.Nodes(), 0, 1), &c)
		for _, r := range rows {
			t.Logf("%s: %-42s target %.4f observed %.4f n %d %s", w.Name, r.Figure, r.Target, r.Observed, r.N, r.Verdict)
			if r.Verdict == result.Fail {
				t.Errorf("%s: %s: target %.4f, observed %.4f (tolerance %.4f, n %d)", w.Name, r.Figure, r.Target, r.Observed, r.Tolerance, r.N)
			}
		}
		if len(rows) < 5 {
			t.Errorf("%s: only %d fidelity rows", w.Name, len(rows))
		}
	}
}

func builtinW(t *testing.T, name string) *workload.Workload {
	t.Helper()
	w, err := workload.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestContestedAddsRace: the j-th contested unique add of every client of
// a run aims at the same (id1, type), with targets of their own.
func TestContestedAddsRace(t *testing.T) {
	w := builtinW(t, "a")
	w.Requests.Weights = []float64{0, 1, 0, 0}
	w.WriteKinds.Weights = []float64{0, 0, 0, 1, 0, 0}
	w.EdgeTypes.Weights = []float64{1, 0, 0, 0}
	w.UniqueAddRace, w.EdgeAddNew = 1, 1
	w.PrimaryShards.Weights = make([]float64, 50)
	w.PrimaryShards.Weights[0] = 1
	g, err := graph.New(w, 1, 20_000)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := gen.NewPlan(w, g, 3)
	a, b := p.Client(0, 1), p.Client(1, 1)
	var ra, rb tao.Request
	for range 100 {
		a.Next(&ra)
		b.Next(&rb)
		x, y := ra.Ops[0], rb.Ops[0]
		if x.ID1 != y.ID1 || x.Type != y.Type || !x.Type.IsUnique() {
			t.Fatalf("contested adds differ: %+v and %+v", x, y)
		}
	}
	other, _ := gen.NewPlan(w, g, 4)
	c := other.Client(0, 2)
	var rc tao.Request
	c.Next(&rc)
	a2, _ := gen.NewPlan(w, g, 3)
	var r0 tao.Request
	a2.Client(0, 1).Next(&r0)
	if rc.Ops[0].ID1 == r0.Ops[0].ID1 && rc.Ops[0].Type == r0.Ops[0].Type {
		t.Error("another run's first contested key is the same")
	}
}

// TestLinkBenchProfileRangeRows: with LinkBench's own p_corr (0.005) and
// range limit, one list per node and 26.6% of range reads aimed at empty
// lists (Table 4b), the mean rows of a range read is near LinkBench's
// measured 21.9 (§4.7: "20-30 rows").
func TestLinkBenchProfileRangeRows(t *testing.T) {
	w := builtinW(t, "linkbench")
	g, err := graph.New(w, 1, 10_000_000)
	if err != nil {
		t.Fatal(err)
	}
	p, err := gen.NewPlan(w, g, 1)
	if err != nil {
		t.Fatal(err)
	}
	if m := p.Targets().MeanRangeRows; m < 15 || m > 30 {
		t.Errorf("mean rows per range read %.1f, LinkBench measured 21.9", m)
	}
	t.Logf("linkbench at 10 M edges: %.2f rows per range read", p.Targets().MeanRangeRows)
}
