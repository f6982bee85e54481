package spannerstore_test

import (
	"context"
	"maps"
	"testing"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
)

// TestObjDeletes: the obj_delete count runs record is unknown until one
// records, 0 included; additions add up; the inventory reads it; Meta (the
// graph's record) leaves it out; a drop resets it. On spannertest, and on
// the emulator.
func TestObjDeletes(t *testing.T) {
	t.Run("spannertest", func(t *testing.T) { testObjDeletes(t, openFake(t)) })
	t.Run("emulator", func(t *testing.T) {
		t.Setenv("SPANNER_EMULATOR_HOST", testenv.SpannerEmulator(t))
		testObjDeletes(t, openReal(t, emulatorDatabase(t)))
	})
}

func testObjDeletes(t *testing.T, db store.Database) {
	defer db.Close()
	ctx := context.Background()
	if err := db.Setup(ctx, false); err != nil {
		t.Fatal(err)
	}
	graph := map[string]string{"workload": "a", "edges": "10", "seed": "1", "state": "loaded"}
	if err := db.SetMeta(ctx, graph); err != nil {
		t.Fatal(err)
	}
	dr := db.(store.DeleteRecorder)
	want := func(when string, n int64, known bool) {
		t.Helper()
		got, ok, err := dr.ObjDeletes(ctx)
		if err != nil || got != n || ok != known {
			t.Errorf("%s: ObjDeletes %d, known %v, %v; want %d, %v", when, got, ok, err, n, known)
		}
		inv, err := db.(store.Inspector).Inspect(ctx)
		if err != nil || inv.ObjDeletes != n || inv.ObjDeletesKnown != known {
			t.Errorf("%s: the inventory's ObjDeletes %d, known %v, %v; want %d, %v", when, inv.ObjDeletes, inv.ObjDeletesKnown, err, n, known)
		}
	}
	want("before any run recorded", 0, false)
	if err := dr.AddObjDeletes(ctx, 0); err != nil {
		t.Fatal(err)
	}
	want("after a run recorded none", 0, true)
	for _, n := range []int64{5, 7} {
		if err := dr.AddObjDeletes(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	want("after runs recorded 5 and 7", 12, true)
	if m, err := db.Meta(ctx); err != nil || !maps.Equal(m, graph) {
		t.Errorf("Meta %v, %v; want the graph's record %v", m, err, graph)
	}
	if err := db.Setup(ctx, true); err != nil {
		t.Fatal(err)
	}
	want("after a drop", 0, false)
}
