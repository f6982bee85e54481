package graph_test

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/taobench/taobench/chisquare"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/graph/graphtest"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

func newGraph(t testing.TB, seed uint64, edges int64) *graph.Graph {
	t.Helper()
	g, err := graph.New(graphtest.WorkloadO(), seed, edges)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// loadAll returns every row the load writes.
func loadAll(g *graph.Graph) ([]tao.Object, []tao.Edge) {
	var objs []tao.Object
	var edges []tao.Edge
	for n := range g.Nodes() {
		s, i := g.Locate(n)
		objs, edges = g.AppendNode(s, i, objs, edges)
	}
	return objs, edges
}

func builtin(t testing.TB, name string) *workload.Workload {
	t.Helper()
	w, err := workload.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestSizeMatchesEdges: every built-in workload's graph writes --edges
// forward edges within 1%: its expected edges (the degree sum) and the
// written slots of every node, at sizes where a few tail nodes would each
// be percents of the graph; and at 200,000 edges the rows the load writes.
func TestSizeMatchesEdges(t *testing.T) {
	var names []string
	for _, info := range workload.Builtins() {
		names = append(names, info.Name)
	}
	if len(names) < 8 {
		t.Fatalf("only %d built-in workloads: %v", len(names), names)
	}
	within := func(what string, got float64, edges int64) {
		t.Helper()
		if d := got/float64(edges) - 1; math.Abs(d) > 0.01 {
			t.Errorf("%s: asked for %d edges, got %.0f (%+.2f%%)", what, edges, got, 100*d)
		}
	}
	for _, name := range names {
		w := builtin(t, name)
		for _, edges := range []int64{50_000, 150_000, 200_000, 300_000, 500_000, 1_000_000} {
			g, err := graph.New(w, 1, edges)
			if err != nil {
				t.Fatalf("%s at %d edges: %v", name, edges, err)
			}
			what := fmt.Sprintf("%s at %d edges", name, edges)
			within(what+", expected", g.ExpectedEdges(), edges)
			written := 0
			for s := range g.Shards() {
				for i := range g.ShardNodes(s) {
					n := g.Node(s, i)
					for c := range tao.NumEdgeCategories {
						written += n.Written[c]
					}
				}
			}
			within(what+", written slots", float64(written), edges)
		}
	}
	for _, c := range []struct {
		w     *workload.Workload
		edges int64
	}{
		{builtin(t, "a"), 20_000}, {graphtest.WorkloadO(), 50_000},
		{builtin(t, "a"), 200_000}, {builtin(t, "o"), 200_000}, {builtin(t, "linkbench"), 200_000}, {builtin(t, "t1"), 200_000},
	} {
		g, err := graph.New(c.w, 1, c.edges)
		if err != nil {
			t.Fatal(err)
		}
		_, edges := loadAll(g)
		fwd := 0
		for _, e := range edges {
			if e.Type.IsForward() {
				fwd++
			}
		}
		within(fmt.Sprintf("%s at %d edges, the load", c.w.Name, c.edges), float64(fwd), c.edges)
	}
}

// TestSizeTooSmall: a size no graph of the workload comes near is refused,
// saying why; a tiny one that fits is not.
func TestSizeTooSmall(t *testing.T) {
	_, err := graph.New(builtin(t, "a"), 1, 10)
	if err == nil || !strings.Contains(err.Error(), "50 shards") || !strings.Contains(err.Error(), "--edges") {
		t.Errorf("10 edges over 50 shards: %v", err)
	}
	g, err := graph.New(builtin(t, "a"), 1, 100)
	if err != nil {
		t.Fatalf("100 edges: %v", err)
	}
	if math.Abs(g.ExpectedEdges()-100) > 2 {
		t.Errorf("100 edges: expected %.1f", g.ExpectedEdges())
	}
}

// TestStoredRowsFollowWorkload tests the loaded rows, not the draws: the
// forward edges' categories against edge_types, their id2 shards against
// remote_shards, the objects per shard against primary_shards.
func TestStoredRowsFollowWorkload(t *testing.T) {
	for _, name := range []string{"a", "o"} {
		w := builtin(t, name)
		g, err := graph.New(w, 2, 200_000)
		if err != nil {
			t.Fatal(err)
		}
		objs, edges := loadAll(g)
		cats := make([]int64, len(w.EdgeTypes.Values))
		id2 := make([]int64, g.Shards())
		for _, e := range edges {
			if !e.Type.IsForward() {
				continue
			}
			ec, _ := e.Type.Category()
			cats[slices.Index(w.EdgeTypes.Values, ec)]++
			id2[tao.ShardOf(e.ID2)]++
		}
		placed := make([]int64, g.Shards())
		for _, o := range objs {
			placed[tao.ShardOf(o.ID)]++
		}
		for _, c := range []struct {
			name    string
			obs     []int64
			weights []float64
		}{
			{"edge_types", cats, w.EdgeTypes.Weights},
			{"remote_shards", id2, w.RemoteShards.Weights},
			{"primary_shards (objects)", placed, w.PrimaryShards.Weights},
		} {
			if chi2, df, p, _ := chisquare.Test(c.obs, c.weights); df < 1 || p < chisquare.Alpha {
				t.Errorf("%s: stored %s: chi2 %.1f df %d p %.3g (%v)", name, c.name, chi2, df, p, c.obs)
			}
		}
	}
}

// TestLists checks Node against what the load writes: each list's written
// edges, at most one per unique list, and AtRank/NodeAtRank agreeing.
func TestLists(t *testing.T) {
	g, err := graph.New(builtin(t, "a"), 3, 50_000)
	if err != nil {
		t.Fatal(err)
	}
	for s := range g.Shards() {
		prev := -1
		for r := range g.ShardNodes(s) {
			n := g.NodeAtRank(s, r)
			if n.Degree < prev {
				t.Fatalf("shard %d: rank %d has outdegree %d below rank %d's %d", s, r, n.Degree, r-1, prev)
			}
			prev = n.Degree
			idx := g.AtRank(s, r)
			if m := g.Node(s, idx); m != n {
				t.Fatalf("NodeAtRank(%d, %d) = %+v, Node(%d, %d) = %+v", s, r, n, s, idx, m)
			}
			if n.Degree > g.MaxOutdegree() {
				t.Fatalf("outdegree %d over the cap %d", n.Degree, g.MaxOutdegree())
			}
			var written [tao.NumEdgeCategories]int
			_, edges := g.AppendNode(s, idx, nil, nil)
			unique := map[tao.EdgeType]int{}
			for _, e := range edges {
				if e.ID1 != n.ID || !e.Type.IsForward() {
					continue
				}
				c, _ := e.Type.Category()
				written[c]++
				if e.Type.IsUnique() {
					unique[e.Type]++
					if unique[e.Type] > 1 || e.Type.N() >= n.Written[c] {
						t.Fatalf("node %x: unique type %d: edge %d of %d written lists", n.ID, e.Type, unique[e.Type], n.Written[c])
					}
				}
			}
			sum := 0
			for c := range tao.NumEdgeCategories {
				sum += n.Slots[c]
				if n.Written[c] > n.Slots[c] || written[c] != n.Written[c] {
					t.Fatalf("node %x category %v: Node says %d of %d slots written, the load writes %d", n.ID, c, n.Written[c], n.Slots[c], written[c])
				}
				for k := range n.Written[c] {
					if e := g.Edge(&n, c, int64(k)); e.ID2 == g.Absent(&n, c, int64(k), uint64(k)*7919+1) {
						t.Fatalf("Absent gave a loaded target %x", e.ID2)
					}
				}
			}
			if sum != n.Degree {
				t.Fatalf("node %x: slots %v add up to %d, not its outdegree %d", n.ID, n.Slots, sum, n.Degree)
			}
		}
	}
}

// TestListOdds compares the odds the generator plans with over many nodes.
func TestListOdds(t *testing.T) {
	g, err := graph.New(builtin(t, "o"), 4, 400_000)
	if err != nil {
		t.Fatal(err)
	}
	type acc struct{ n, one, ne float64 }
	obs := map[[2]int]*acc{}
	for s := range g.Shards() {
		for i := range g.ShardNodes(s) {
			n := g.Node(s, i)
			if n.Degree > 3 {
				continue
			}
			for c := range tao.NumEdgeCategories {
				a := obs[[2]int{int(c), n.Degree}]
				if a == nil {
					a = &acc{}
					obs[[2]int{int(c), n.Degree}] = a
				}
				a.n++
				if w := n.Written[c]; w >= 1 {
					a.ne++
					if w == 1 {
						a.one++
					}
				}
			}
		}
	}
	for k, a := range obs {
		if a.n < 2000 {
			continue
		}
		one, ne, _ := g.ListOdds(tao.EdgeCategory(k[0]), k[1], 6000)
		if tao.EdgeCategory(k[0]).Type().IsUnique() {
			a.one = a.ne // each unique list holds one edge
		}
		if math.Abs(a.one/a.n-one) > 0.02 || math.Abs(a.ne/a.n-ne) > 0.02 {
			t.Errorf("category %v degree %d: observed one %.3f nonempty %.3f over %.0f nodes, ListOdds %.3f %.3f",
				tao.EdgeCategory(k[0]), k[1], a.one/a.n, a.ne/a.n, a.n, one, ne)
		}
	}
}

func TestDeterministic(t *testing.T) {
	a, b, c := newGraph(t, 7, 5000), newGraph(t, 7, 5000), newGraph(t, 8, 5000)
	oa, ea := loadAll(a)
	ob, eb := loadAll(b)
	oc, ec := loadAll(c)
	if !reflect.DeepEqual(oa, ob) || !reflect.DeepEqual(ea, eb) {
		t.Error("the same seed gave different graphs")
	}
	if reflect.DeepEqual(oa, oc) && reflect.DeepEqual(ea, ec) {
		t.Error("seeds 7 and 8 gave the same graph")
	}
}

func TestInvariants(t *testing.T) {
	w := graphtest.WorkloadO()
	g := newGraph(t, 3, 20000)
	objs, edges := loadAll(g)
	if int64(len(objs)) != g.Nodes() {
		t.Fatalf("%d objects for %d nodes", len(objs), g.Nodes())
	}
	lo, hi := g.TimeRange()
	valueOK := func(v []byte) bool {
		if !slices.Contains(w.PayloadSizes.Values, len(v)) {
			return false
		}
		for _, c := range v {
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
				return false
			}
		}
		return true
	}
	for _, o := range objs {
		if o.Version != 1 || o.Time < lo || o.Time >= hi || !valueOK(o.Value) || tao.IsNew(o.ID) {
			t.Fatalf("bad object %+v", o)
		}
	}
	valid := func(id int64) bool {
		return !tao.IsNew(id) && tao.ShardOf(id) < g.Shards() && tao.IndexOf(id) < g.ShardNodes(tao.ShardOf(id))
	}
	type key struct {
		id1 int64
		t   tao.EdgeType
		id2 int64
	}
	rows := map[key]tao.Edge{}
	uniq := map[key]int{}
	var types [tao.MaxBaseType + 1]int
	for _, e := range edges {
		k := key{e.ID1, e.Type, e.ID2}
		if _, dup := rows[k]; dup {
			t.Fatalf("edge %+v written twice", k)
		}
		rows[k] = e
		types[e.Type.Base()]++
		if e.Version != 1 || e.Time < lo || e.Time >= hi || !valueOK(e.Value) || !valid(e.ID1) || !valid(e.ID2) {
			t.Fatalf("bad edge %+v", e)
		}
		if e.Type.IsUnique() {
			uniq[key{e.ID1, e.Type, 0}]++
		}
	}
	for k, n := range uniq {
		if n > 1 {
			t.Fatalf("unique type %d: %d edges leave %d", k.t, n, k.id1)
		}
	}
	for k, e := range rows {
		if inv, ok := k.t.Inverse(); ok {
			r, found := rows[key{k.id2, inv, k.id1}]
			if !found || r.Time != e.Time {
				t.Fatalf("edge %+v has no inverse with its time", k)
			}
		}
	}
	for typ := tao.EdgeType(1); typ <= tao.MaxBaseType; typ++ {
		if types[typ] == 0 {
			t.Errorf("no edge of base type %d in a graph of %d edges", typ, len(edges))
		}
	}
}

// TestOutdegreeCap: the cap is max_outdegree, or a tenth of the edges, or
// the largest list the smallest shards can hold with distinct targets.
func TestOutdegreeCap(t *testing.T) {
	if g := newGraph(t, 1, 10_000_000); g.MaxOutdegree() != 10000 {
		t.Errorf("cap %d for 10 M edges, want max_outdegree 10000", g.MaxOutdegree())
	}
	g := newGraph(t, 1, 1000)
	if g.MaxOutdegree() > 101 || g.MaxOutdegree() < 1 {
		t.Fatalf("cap %d for 1000 edges, want at most 1000/10+1", g.MaxOutdegree())
	}
	for s := range g.Shards() {
		for i := range g.ShardNodes(s) {
			if d := g.Node(s, i).Degree; d > g.MaxOutdegree() {
				t.Fatalf("node %d has %d slots over the cap", i, d)
			}
		}
	}
}

// TestLargestOutdegree pins the largest outdegrees docs/graph.md quotes
// (the same for every seed): a change to the graph's sizes must update them.
func TestLargestOutdegree(t *testing.T) {
	for _, c := range []struct {
		name    string
		edges   int64
		largest int
	}{
		{"a", 50_000, 2_734}, {"a", 200_000, 8_934}, {"a", 1_000_000, 39_100}, {"a", 10_000_000, 100_000},
		{"o", 50_000, 3_707}, {"o", 200_000, 12_067}, {"o", 1_000_000, 40_694}, {"o", 10_000_000, 100_000},
		{"linkbench", 50_000, 5_001}, {"linkbench", 200_000, 20_001}, {"linkbench", 1_000_000, 50_001}, {"linkbench", 10_000_000, 100_000},
	} {
		g, err := graph.New(builtin(t, c.name), 3, c.edges)
		if err != nil {
			t.Fatal(err)
		}
		largest := 0
		for s := range g.Shards() {
			// Ranks ascend with outdegree: a shard's last is its largest.
			largest = max(largest, g.NodeAtRank(s, g.ShardNodes(s)-1).Degree)
		}
		if largest != c.largest || largest > g.MaxOutdegree() {
			t.Errorf("%s at %d edges: largest outdegree %d (cap %d), docs/graph.md says %d", c.name, c.edges, largest, g.MaxOutdegree(), c.largest)
		}
	}
}

func TestMeta(t *testing.T) {
	w := graphtest.WorkloadO()
	g := newGraph(t, 1, 10000)
	m := g.Meta(w)
	for _, k := range []string{"seed", "edges", "nodes", "shards", "graph_hash", "format_version", "workload", "graph_workload"} {
		if m[k] == "" {
			t.Errorf("meta lacks %s", k)
		}
	}
	if err := newGraph(t, 1, 10000).CheckMeta(m); err != nil {
		t.Errorf("the same graph: %v", err)
	}
	err := newGraph(t, 2, 20000).CheckMeta(m)
	if err == nil || !strings.Contains(err.Error(), "10000 edges, seed 1") || !strings.Contains(err.Error(), "--drop") {
		t.Errorf("another graph: %v", err)
	}
	w2 := graphtest.WorkloadO()
	w2.EdgeTypes.Weights[0]++
	other, _ := graph.New(w2, 1, 10000)
	if err := other.CheckMeta(m); err == nil || !strings.Contains(err.Error(), "graph_hash") {
		t.Errorf("another workload: %v", err)
	}
	if err := g.CheckMeta(nil); err == nil || !strings.Contains(err.Error(), "no graph") {
		t.Errorf("no meta: %v", err)
	}

	// FromMeta rebuilds the same graph, refuses an interrupted load.
	h, loaded, err := graph.FromMeta(m)
	if err != nil || loaded.Name != w.Name || h.Nodes() != g.Nodes() || h.ExpectedEdges() != g.ExpectedEdges() {
		t.Fatalf("FromMeta: %v, %v", err, loaded)
	}
	m[graph.MetaState] = graph.StateLoading
	if _, _, err := graph.FromMeta(m); err == nil || !strings.Contains(err.Error(), "interrupted load") || !strings.Contains(err.Error(), "--edges 10000 --seed 1") {
		t.Errorf("interrupted load: %v", err)
	}
	m[graph.MetaState], m["format_version"] = graph.StateComplete, "1"
	if _, _, err := graph.FromMeta(m); err == nil || !strings.Contains(err.Error(), "load it again with taobench load --drop") {
		t.Errorf("old format: %v", err)
	}
	// Any workload with the same shard count runs on the graph.
	if err := g.Compatible(builtin(t, "a"), w.Name); err != nil {
		t.Errorf("a on O's graph: %v", err)
	}
	w3 := graphtest.WorkloadO()
	w3.PrimaryShards.Values, w3.PrimaryShards.Weights = w3.PrimaryShards.Values[:3], w3.PrimaryShards.Weights[:3]
	if err := g.Compatible(w3, w.Name); err == nil || !strings.Contains(err.Error(), "3 shards") {
		t.Errorf("3 shards on a 50-shard graph: %v", err)
	}
}

func TestCheckWorkload(t *testing.T) {
	for _, tc := range []struct {
		field string
		spoil func(w *workload.Workload)
	}{
		{"remote_shards", func(w *workload.Workload) { w.RemoteShards.Values[3] = 50 }},
		{"edge_types", func(w *workload.Workload) { w.EdgeTypes.Weights = w.EdgeTypes.Weights[:2] }},
		{"outdegree", func(w *workload.Workload) { w.Outdegree.Values[2] = 1 }},
		{"empty_slots", func(w *workload.Workload) { w.EmptySlots = 1 }},
		{"key_skew", func(w *workload.Workload) { w.KeySkew.Theta = 0 }},
		{"write_operation_types", func(w *workload.Workload) {
			w.WriteKinds.Values = tao.ReadKinds[:len(w.WriteKinds.Values)-1]
			w.WriteKinds.Weights = w.WriteKinds.Weights[:5]
		}},
		{"operations", func(w *workload.Workload) { w.Requests.Weights = []float64{0, 0, 0, 0} }},
		{"payload_sizes", func(w *workload.Workload) { w.PayloadSizes.Values[0] = -1 }},
	} {
		w := graphtest.WorkloadO()
		tc.spoil(w)
		if _, err := graph.New(w, 1, 1000); err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("spoiled %s: %v", tc.field, err)
		}
	}
	if _, err := graph.New(graphtest.WorkloadO(), 1, 0); err == nil {
		t.Error("accepted 0 edges")
	}
	if _, err := graph.New(graphtest.WorkloadO(), 1, math.MaxInt64); err == nil || !strings.Contains(err.Error(), "fewer --edges") {
		t.Errorf("2^63-1 edges: %v", err)
	}
}

func BenchmarkAppendNode(b *testing.B) {
	g := newGraph(b, 1, 10_000_000)
	var objs []tao.Object
	var edges []tao.Edge
	rows := 0
	for i := int64(0); b.Loop(); i++ {
		s, idx := g.Locate(i % g.Nodes())
		objs, edges = g.AppendNode(s, idx, objs[:0], edges[:0])
		rows += len(objs) + len(edges)
	}
	b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
}
