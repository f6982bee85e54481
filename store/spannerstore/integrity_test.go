package spannerstore_test

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/taobench/taobench/bulkload"
	"github.com/taobench/taobench/fidelity/expect"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/store/spannerstore"
	_ "github.com/taobench/taobench/store/sqlstore"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// integrityEdges is the graph the integrity tests load: a few hundred
// bidirectional and unique edges, small for the emulator on a loaded
// machine.
const integrityEdges = 3000

// loadGraph sets up db and loads workload w's graph of edges edges at
// graph seed seed into it, as taobench load does, and returns the graph.
func loadGraph(t *testing.T, db store.Database, w *workload.Workload, edges int64, seed uint64) *graph.Graph {
	t.Helper()
	ctx := context.Background()
	g, err := graph.New(w, seed, edges)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Setup(ctx, false); err != nil {
		t.Fatal(err)
	}
	if _, err := bulkload.Load(ctx, db, g, g.Meta(w), bulkload.Options{Threads: 2}); err != nil {
		t.Fatal(err)
	}
	return g
}

func integrityOf(t *testing.T, db store.Database) store.Integrity {
	t.Helper()
	inv, err := db.(store.Inspector).Inspect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if inv.Integrity == nil {
		t.Fatal("the inventory has no integrity counts")
	}
	return *inv.Integrity
}

// TestIntegrityEmulator: on the Cloud Spanner emulator, a load of workload
// a's graph has the integrity counts SQLite's store gives for the same
// graph (the same workload and seed), every count with rows to count; each
// count moves by the damage done to the rows (an inverse deleted, a forward
// edge deleted, a second edge of a unique (id1, type), an object and an
// edge moved past their shard's nodes), CountOffPlacement counts the moved
// rows and no others, and ids created at run time are left out. A
// duplicate (id1, type, id2) is refused by Edges' primary key.
func TestIntegrityEmulator(t *testing.T) {
	addr := testenv.SpannerEmulator(t)
	t.Setenv("SPANNER_EMULATOR_HOST", addr)
	db := openReal(t, emulatorDatabase(t))
	defer db.Close()
	ctx := context.Background()
	w, err := workload.Resolve("a")
	if err != nil {
		t.Fatal(err)
	}
	const seed = 3
	g := loadGraph(t, db, w, integrityEdges, seed)
	st, err := store.Default.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "i.db"), store.Options{Clients: 2})
	if err != nil {
		t.Fatal(err)
	}
	lite := st.(store.Database)
	defer lite.Close()
	loadGraph(t, lite, w, integrityEdges, seed)

	got, want := integrityOf(t, db), integrityOf(t, lite)
	t.Logf("spanner %+v", got)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("integrity on the emulator differs from SQLite's (emulator, SQLite): %s", differ(got, want))
	}
	if got.Bidirectional == 0 || got.Unique == 0 || len(got.ObjectMaxIndex) == 0 || len(got.EdgeMaxIndex) == 0 {
		t.Fatalf("integrity %+v: the graph has nothing to count", got)
	}
	if off := expect.OffPlacement(g, &got); len(off) != 0 {
		t.Fatalf("a fresh load off its placement: %v", off)
	}
	row := func(sql string) []int64 {
		t.Helper()
		r, ok, err := spannerstore.Row(ctx, db, sql)
		if err != nil || !ok {
			t.Fatalf("%s: %v (a row: %v)", sql, err, ok)
		}
		return r
	}
	check := func(what string, want store.Integrity) {
		t.Helper()
		if got := integrityOf(t, db); !reflect.DeepEqual(got, want) {
			t.Errorf("after %s: integrity differs from what the damage makes (got, want): %s", what, differ(got, want))
		}
	}
	clone := func(in store.Integrity) store.Integrity {
		in.ObjectMaxIndex, in.EdgeMaxIndex = maps.Clone(in.ObjectMaxIndex), maps.Clone(in.EdgeMaxIndex)
		return in
	}

	// An inverse deleted: its forward edge has none.
	e := row(fmt.Sprintf("SELECT Id1, Type, Id2 FROM Edges WHERE MOD(Type, %d) = %d ORDER BY Id1, Type, Id2 LIMIT 1", tao.TypeStride, tao.TypeBidirectional))
	inv, _ := tao.EdgeType(e[1]).Inverse()
	if err := spannerstore.Delete(ctx, db, "Edges", e[2], int64(inv), e[0]); err != nil {
		t.Fatal(err)
	}
	want = clone(got)
	want.MissingInverse++
	want.Bidirectional--
	check("deleting an inverse", want)

	// A forward edge deleted: its inverse has none.
	f := row(fmt.Sprintf("SELECT Id1, Type, Id2 FROM Edges WHERE MOD(Type, %d) = %d ORDER BY Id1, Type, Id2 LIMIT 1 OFFSET 1", tao.TypeStride, tao.TypeBidirectional))
	if err := spannerstore.Delete(ctx, db, "Edges", f[0], f[1], f[2]); err != nil {
		t.Fatal(err)
	}
	want.MissingForward++
	want.Bidirectional--
	check("deleting a forward edge", want)

	// A second edge of a unique type's (id1, type).
	u := row(fmt.Sprintf("SELECT Id1, Type, Id2 FROM Edges WHERE MOD(Type, %d) = %d ORDER BY Id1, Type, Id2 LIMIT 1", tao.TypeStride, tao.TypeUnique))
	edgeCols := []string{"Id1", "Type", "Id2", "Time", "Version", "Value"}
	if err := spannerstore.Insert(ctx, db, "Edges", edgeCols, []any{u[0], u[1], u[2] + 1, tao.LoadTimeBase, int64(1), []byte{}}); err != nil {
		t.Fatal(err)
	}
	want.UniqueExtra++
	want.Unique++
	check("adding a second edge of a unique type", want)

	// A duplicate (id1, type, id2): the primary key refuses it.
	err = spannerstore.Insert(ctx, db, "Edges", edgeCols, []any{u[0], u[1], u[2], tao.LoadTimeBase, int64(1), []byte{}})
	if status.Code(err) != codes.AlreadyExists {
		t.Errorf("inserting a second edge (%d, %d, %d): %v, want AlreadyExists", u[0], u[1], u[2], err)
	}

	// Nothing is off the placement yet.
	pc := db.(store.PlacementCounter)
	objects, edges, err := pc.CountOffPlacement(ctx, expect.OffBounds(g, &want))
	if err != nil || objects != 0 || edges != 0 {
		t.Fatalf("off placement before any moved: %d objects, %d edges, %v", objects, edges, err)
	}

	// An object moved to its shard's first index past the graph's nodes,
	// and a forward edge's id1 with it: both off their placement.
	o := row("SELECT Id, Time FROM Objects ORDER BY Id LIMIT 1")
	s := tao.ShardOf(o[0])
	moved := tao.ID(s, g.ShardNodes(s))
	if err := spannerstore.Delete(ctx, db, "Objects", o[0]); err != nil {
		t.Fatal(err)
	}
	if err := spannerstore.Insert(ctx, db, "Objects", []string{"Id", "Time", "Version", "Value"}, []any{moved, o[1], int64(1), []byte("x")}); err != nil {
		t.Fatal(err)
	}
	want.ObjectMaxIndex[s] = g.ShardNodes(s)
	check("moving an object off its placement", want)
	m := row(fmt.Sprintf("SELECT Id1, Type, Id2 FROM Edges WHERE MOD(Type, %d) = %d ORDER BY Id1, Type, Id2 LIMIT 1", tao.TypeStride, tao.TypeOther))
	if err := spannerstore.Delete(ctx, db, "Edges", m[0], m[1], m[2]); err != nil {
		t.Fatal(err)
	}
	if err := spannerstore.Insert(ctx, db, "Edges", edgeCols, []any{moved, m[1], m[2], tao.LoadTimeBase, int64(1), []byte{}}); err != nil {
		t.Fatal(err)
	}
	want.EdgeMaxIndex[tao.ShardOf(moved)] = g.ShardNodes(s)
	check("moving an edge's id1 off its placement", want)

	// Ids created at run time on a shard the graph lacks are none of it.
	newID, err := tao.NewID(g.Shards(), 1, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := spannerstore.Insert(ctx, db, "Objects", []string{"Id", "Time", "Version", "Value"}, []any{newID, tao.LoadTimeBase, int64(1), []byte("x")}); err != nil {
		t.Fatal(err)
	}
	if err := spannerstore.Insert(ctx, db, "Edges", edgeCols, []any{newID, int64(tao.TypeOther), o[0], tao.LoadTimeBase, int64(1), []byte{}}); err != nil {
		t.Fatal(err)
	}
	check("adding an object and an edge created at run time", want)

	bounds := expect.OffBounds(g, &want)
	objects, edges, err = pc.CountOffPlacement(ctx, bounds)
	t.Logf("off placement (bounds %v): %d objects, %d edges", bounds, objects, edges)
	if err != nil || objects != 1 || edges != 1 {
		t.Errorf("off placement (bounds %v): %d objects, %d edges, %v; want the one object and the one edge moved", bounds, objects, edges, err)
	}
}

// differ lists the fields of a and b that differ, as a, b.
func differ(a, b store.Integrity) string {
	var d []string
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := range va.NumField() {
		if x, y := va.Field(i).Interface(), vb.Field(i).Interface(); !reflect.DeepEqual(x, y) {
			d = append(d, fmt.Sprintf("%s %v, %v", va.Type().Field(i).Name, x, y))
		}
	}
	return strings.Join(d, "; ")
}
