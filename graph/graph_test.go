package graph_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/graph/graphtest"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/validate"
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
	for s := 0; s < g.Shards(); s++ {
		for i := int64(0); i < g.NodesPerShard(); i++ {
			objs, edges = g.AppendNode(s, i, objs, edges)
		}
	}
	return objs, edges
}

func TestSizeMatchesEdges(t *testing.T) {
	for _, want := range []int64{2000, 50000} {
		g := newGraph(t, 1, want)
		if g.Nodes() != g.NodesPerShard()*50 || g.Shards() != 50 {
			t.Fatalf("%d nodes, %d per shard, %d shards", g.Nodes(), g.NodesPerShard(), g.Shards())
		}
		_, edges := loadAll(g)
		fwd := 0
		for _, e := range edges {
			if e.Type.IsForward() {
				fwd++
			}
		}
		// The outdegree's heavy tail makes the count vary by a few percent.
		if d := float64(fwd)/float64(want) - 1; d < -0.15 || d > 0.15 {
			t.Errorf("asked for %d edges, the load writes %d forward edges (expected %.0f)", want, fwd, g.ExpectedEdges())
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
		if o.Version != 1 || o.Time < lo || o.Time >= hi || !valueOK(o.Value) || graph.IsNew(o.ID) {
			t.Fatalf("bad object %+v", o)
		}
	}
	valid := func(id int64) bool {
		return !graph.IsNew(id) && graph.ShardOf(id) < g.Shards() && graph.IndexOf(id) < g.NodesPerShard()
	}
	type key struct {
		id1 int64
		t   tao.EdgeType
		id2 int64
	}
	rows := map[key]tao.Edge{}
	uniq := map[key]int{}
	var types [tao.MaxEdgeType + 1]int
	for _, e := range edges {
		k := key{e.ID1, e.Type, e.ID2}
		if _, dup := rows[k]; dup {
			t.Fatalf("edge %+v written twice", k)
		}
		rows[k] = e
		types[e.Type]++
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
	for typ := tao.EdgeType(1); typ <= tao.MaxEdgeType; typ++ {
		if types[typ] == 0 {
			t.Errorf("no edge of type %d in a graph of %d edges", typ, len(edges))
		}
	}
}

// TestSlotsFollowWorkload checks the per-slot and per-node draws against
// the workload's weights.
func TestSlotsFollowWorkload(t *testing.T) {
	w := graphtest.WorkloadO()
	g := newGraph(t, 5, 1_000_000_000) // large: the outdegree cap is far away
	cats := make([]int64, len(w.EdgeTypes.Values))
	shards := make([]int64, g.Shards())
	pieces := make([]int64, len(w.Outdegree.Values))
	drawn := 0
	const n = 20000
	for u := int64(0); u < n; u++ {
		s, idx := int(u%50), u/50
		d := g.Outdegree(s, idx)
		p, _ := slices.BinarySearch(w.Outdegree.Values, d)
		pieces[p]++
		slot := g.Slot(s, idx, int(u%7))
		cats[slices.Index(w.EdgeTypes.Values, slot.Category)]++
		shards[graph.ShardOf(slot.ID2)]++
		if c, id2 := g.Target(s, idx, int(u%7)); c != slot.Category || id2 != slot.ID2 {
			t.Fatalf("Target and Slot disagree on node %d", u)
		}
		if slot.Drawn {
			drawn++
		}
	}
	for _, c := range []struct {
		name    string
		obs     []int64
		weights []float64
	}{
		{"edge_types", cats, w.EdgeTypes.Weights},
		{"remote_shards", shards, w.RemoteShards.Weights},
		{"outdegree", pieces, w.Outdegree.Weights},
	} {
		if chi2, df, p, _ := validate.ChiSquare(c.obs, c.weights); df < 1 || p < 1e-4 {
			t.Errorf("%s: chi2 %.1f df %d p %.3g", c.name, chi2, df, p)
		}
	}
	if f := float64(drawn) / n; f < 0.78 || f > 0.82 {
		t.Errorf("%.3f of slots drawn written, want 1-empty_slots = 0.8", f)
	}
}

func TestOutdegreeCap(t *testing.T) {
	g := newGraph(t, 1, 100)
	if g.MaxOutdegree() != 11 {
		t.Fatalf("cap %d for 100 edges, want 100/10+1", g.MaxOutdegree())
	}
	for i := int64(0); i < g.NodesPerShard(); i++ {
		if d := g.Outdegree(0, i); d > 11 {
			t.Fatalf("node %d has %d slots over the cap", i, d)
		}
	}
}

func TestNewID(t *testing.T) {
	seen := map[int64]bool{}
	for _, f := range [][4]int64{{0, 0, 0, 0}, {49, 0, 0, 0}, {3, 1, 0, 0}, {3, 0, 1, 0}, {3, 0, 0, 1}, {3, 1<<20 - 1, 4095, 1<<24 - 1}} {
		id, err := graph.NewID(int(f[0]), f[1], int(f[2]), uint64(f[3]))
		if err != nil {
			t.Fatal(err)
		}
		if id < 0 || !graph.IsNew(id) || graph.ShardOf(id) != int(f[0]) || seen[id] {
			t.Fatalf("NewID%v = %x: negative, not new, wrong shard or repeated", f, id)
		}
		seen[id] = true
	}
	if graph.IsNew(graph.ID(63, graph.MaxNodesPerShard-1)) || graph.ID(63, 5) < 0 {
		t.Error("loaded ids must be positive and not new")
	}
	for _, f := range [][4]int64{{64, 0, 0, 0}, {-1, 0, 0, 0}, {0, 1 << 20, 0, 0}, {0, -1, 0, 0}, {0, 0, 4096, 0}, {0, 0, 0, 1 << 24}} {
		if _, err := graph.NewID(int(f[0]), f[1], int(f[2]), uint64(f[3])); err == nil {
			t.Errorf("NewID%v accepted a field too large", f)
		}
	}
}

func TestMeta(t *testing.T) {
	g := newGraph(t, 1, 10000)
	m := g.Meta()
	for _, k := range []string{"seed", "edges", "nodes", "shards", "graph_hash", "format_version"} {
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
	w := graphtest.WorkloadO()
	w.EdgeTypes.Weights[0]++
	other, _ := graph.New(w, 1, 10000)
	if err := other.CheckMeta(m); err == nil || !strings.Contains(err.Error(), "graph_hash") {
		t.Errorf("another workload: %v", err)
	}
	if err := g.CheckMeta(nil); err == nil || !strings.Contains(err.Error(), "no graph") {
		t.Errorf("no meta: %v", err)
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
}

func BenchmarkAppendNode(b *testing.B) {
	g := newGraph(b, 1, 10_000_000)
	var objs []tao.Object
	var edges []tao.Edge
	rows := 0
	per := g.NodesPerShard()
	for i := int64(0); b.Loop(); i++ {
		objs, edges = g.AppendNode(int(i%50), (i/50)%per, objs[:0], edges[:0])
		rows += len(objs) + len(edges)
	}
	b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
}
