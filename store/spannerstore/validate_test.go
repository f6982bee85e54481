package spannerstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/fidelity/expect"
	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/store/spannerstore"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// integrityRows are validate --db's rows of what no run may break, and
// the missing-objects row the obj_delete count bounds, with check's
// invariant of each, in the order of the damages that fail them.
var integrityRows = []struct{ row, invariant string }{
	{"bidirectional edges without their inverse", "bidirectional edge has its inverse"},
	{"edges beyond one per key", "unique type has at most one edge per (id1, type)"},
	{"ids off the graph's placement", "loaded ids sit where the graph places them"},
	{"missing objects edges point at", "association points at an object the graph says exists"},
}

// TestValidateIntegrityEmulator: on the Cloud Spanner emulator, validate
// --db (Session.Validate) of a fresh load of workload a has the integrity
// rows and the missing-objects row passing, with data, and check finds
// nothing; the run records its obj_delete operations. Then each damage
// fails its row (the rows validate --db sets of the inventory) and
// check's invariant: an inverse deleted, a second edge of a unique (id1,
// type), an edge from an id past its shard's nodes, objects edges point
// at deleted beyond what the run recorded deleting (a count the run
// recorded: without it every missing object is credited to the run). A
// last validate --db fails all four.
func TestValidateIntegrityEmulator(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a graph and validates it on the emulator")
	}
	t.Setenv("SPANNER_EMULATOR_HOST", testenv.SpannerEmulator(t))
	url := emulatorDatabase(t)
	ctx := context.Background()
	s, err := session.Open(ctx, url, session.Options{Name: "validate", Clients: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db, _ := s.Database()
	if err := db.Setup(ctx, false); err != nil {
		t.Fatal(err)
	}
	w, err := workload.Resolve("a")
	if err != nil {
		t.Fatal(err)
	}
	spec := session.GraphSpec{Edges: integrityEdges}
	g, _, err := s.Graph(ctx, w, spec)
	if err != nil {
		t.Fatal(err)
	}
	validate := func() *session.Validation {
		t.Helper()
		v, err := s.Validate(ctx, spec, run.Config{Workload: w, Seed: 7, Retries: 10, Drain: 5 * time.Second}, run.Experiment{Threads: 2, Duration: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	find := func(rows []result.FidelityRow, figure string) result.FidelityRow {
		t.Helper()
		for _, r := range rows {
			if r.Figure == figure {
				return r
			}
		}
		t.Fatalf("no row %q", figure)
		return result.FidelityRow{}
	}
	v := validate()
	for _, x := range integrityRows {
		r := find(v.Rows, x.row)
		t.Logf("undamaged: %s %s n %d (%s)", r.Figure, r.Verdict, r.N, r.Note)
		if r.Verdict != result.Pass {
			t.Errorf("undamaged load: %q is %q, want pass (%s)", r.Figure, r.Verdict, r.Note)
		}
	}
	meta, err := s.Recorded(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checked := func() string {
		t.Helper()
		vs, err := s.Check(ctx, meta)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, v := range vs {
			fmt.Fprintf(&b, "VIOLATION %s: %d row(s), e.g. %s\n", v.Invariant, v.Count, v.Example)
		}
		return b.String()
	}
	if out := checked(); out != "" {
		t.Fatalf("check of the undamaged load after a run:\n%s", out)
	}
	inv, err := db.(store.Inspector).Inspect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !inv.ObjDeletesKnown || inv.ObjDeletes != v.Result.ObjDeletes {
		t.Errorf("after validate's run: obj_deletes %d, known %v; the run sent %d", inv.ObjDeletes, inv.ObjDeletesKnown, v.Result.ObjDeletes)
	}
	runs, err := db.(store.Inspector).Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}

	row := func(sql string) []int64 {
		t.Helper()
		r, ok, err := spannerstore.Row(ctx, db, sql)
		if err != nil || !ok {
			t.Fatalf("%s: %v (a row: %v)", sql, err, ok)
		}
		return r
	}
	edgeCols := []string{"Id1", "Type", "Id2", "Time", "Version", "Value"}
	damages := []func() error{
		func() error { // an inverse deleted
			e := row(fmt.Sprintf("SELECT Id1, Type, Id2 FROM Edges WHERE MOD(Type, %d) = %d ORDER BY Id1, Type, Id2 LIMIT 1", tao.TypeStride, tao.TypeBidirectional))
			inv, _ := tao.EdgeType(e[1]).Inverse()
			return spannerstore.Delete(ctx, db, "Edges", e[2], int64(inv), e[0])
		},
		func() error { // a second edge of a unique type's (id1, type)
			u := row(fmt.Sprintf("SELECT Id1, Type, Id2 FROM Edges WHERE MOD(Type, %d) = %d ORDER BY Id1, Type, Id2 LIMIT 1", tao.TypeStride, tao.TypeUnique))
			return spannerstore.Insert(ctx, db, "Edges", edgeCols, []any{u[0], u[1], u[2] + 1, tao.LoadTimeBase, int64(1), []byte{}})
		},
		func() error { // an edge from an id past its shard's nodes, to an object: no object more or less
			o := row("SELECT Id FROM Objects ORDER BY Id DESC LIMIT 1")
			s := tao.ShardOf(o[0])
			return spannerstore.Insert(ctx, db, "Edges", edgeCols, []any{tao.ID(s, g.ShardNodes(s)), int64(tao.TypeOther), o[0], tao.LoadTimeBase, int64(1), []byte{}})
		},
		func() error { // objects edges point at, beyond the run's obj_delete operations
			for range inv.ObjDeletes + 1 {
				id := row("SELECT o.Id FROM Objects AS o JOIN Edges AS e ON e.Id2 = o.Id ORDER BY o.Id LIMIT 1")
				if err := spannerstore.Delete(ctx, db, "Objects", id[0]); err != nil {
					return err
				}
			}
			return nil
		},
	}
	for i, x := range integrityRows {
		if err := damages[i](); err != nil {
			t.Fatal(err)
		}
		inv, err := db.(store.Inspector).Inspect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		r := find(expect.GraphRows(w, g, inv, runs), x.row)
		t.Logf("damaged: %s %s (%s)", r.Figure, r.Verdict, r.Note)
		if r.Verdict != result.Fail {
			t.Errorf("after its damage: %q is %q, want fail (%s)", r.Figure, r.Verdict, r.Note)
		}
		if out := checked(); !strings.Contains(out, "VIOLATION "+x.invariant+":") {
			t.Errorf("check after the damage of %q: no %q\n%s", x.row, x.invariant, out)
		}
	}
	v = validate()
	for _, x := range integrityRows {
		if r := find(v.Rows, x.row); r.Verdict != result.Fail {
			t.Errorf("validate --db of the damaged load: %q is %q, want fail (%s)", r.Figure, r.Verdict, r.Note)
		}
	}
}
