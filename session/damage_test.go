package session_test

import (
	"bytes"
	"context"
	"database/sql"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taobench/taobench/bulkload"
	"github.com/taobench/taobench/fidelity"
	"github.com/taobench/taobench/fidelity/expect"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/workload"
)

// damageEdges is the graph the damage tests load: small enough for a
// loaded 2-core machine, large enough for the distribution rows (some
// tens of thousands of objects).
const damageEdges = 50_000

// loadSQLite loads workload w's graph of edges edges at graph seed seed
// into a new SQLite file, as taobench load --seed does, and returns its
// path.
func loadSQLite(t *testing.T, w *workload.Workload, edges int64, seed uint64) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "load.db")
	s, err := session.Open(ctx, "sqlite:"+path, session.Options{Name: "load", Sink: &recorder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db, _ := s.Database()
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
	return path
}

// copySQLite copies the closed SQLite database at path (with any
// journal beside it) to a new file, returning its path.
func copySQLite(t *testing.T, path string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), "copy.db")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		in, err := os.Open(path + suffix)
		if os.IsNotExist(err) && suffix != "" {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(to + suffix)
		if err == nil {
			_, err = io.Copy(out, in)
			err = errorsJoin(err, out.Close())
		}
		in.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return to
}

func errorsJoin(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// checkDB is what taobench check prints of the database at url and
// whether it fails.
func checkDB(t *testing.T, url string) (string, error) {
	t.Helper()
	ctx := context.Background()
	s, meta, err := session.OpenRecorded(ctx, url, session.Options{Name: "check", Sink: &recorder{}, Clients: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	vs, err := s.Check(ctx, meta)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	err = s.WriteCheck(&b, meta, vs)
	return b.String(), err
}

// graphRowsOf are the rows validate --db sets of what the database at url
// holds (its inventory beside the graph its load recorded), before its
// short run.
func graphRowsOf(t *testing.T, url string) []result.FidelityRow {
	t.Helper()
	ctx := context.Background()
	s, _, err := session.OpenRecorded(ctx, url, session.Options{Name: "validate", Sink: &recorder{}, Clients: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db, _ := s.Database()
	g, w, err := bulkload.Loaded(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	ins := db.(store.Inspector)
	inv, err := ins.Inspect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := ins.Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return expect.GraphRows(w, g, inv, runs)
}

// TestUndamagedLoadsPass: fresh loads of workloads a and tao at graph
// seeds 1 to 5 pass check and every row validate --db sets of what the database holds
// (the rows the damage tests below fail are among them, with data).
func TestUndamagedLoadsPass(t *testing.T) {
	if testing.Short() {
		t.Skip("loads five graphs")
	}
	for _, name := range []string{"a", "tao"} {
		t.Run(name, func(t *testing.T) { undamaged(t, builtin(t, name)) })
	}
}

// undamaged is TestUndamagedLoadsPass of workload w.
func undamaged(t *testing.T, w *workload.Workload) {
	for seed := uint64(1); seed <= 5; seed++ {
		url := "sqlite:" + loadSQLite(t, w, damageEdges, seed)
		if out, err := checkDB(t, url); err != nil {
			t.Errorf("seed %d: check of a fresh load: %v\n%s", seed, err, out)
		}
		rows := graphRowsOf(t, url)
		if failed := fidelity.Failed(rows); len(failed) > 0 {
			t.Errorf("seed %d: a fresh load fails %+v", seed, failed)
		}
		for _, fig := range damageRows {
			if v := verdict(rows, fig); v != result.Pass {
				t.Errorf("seed %d: row %q is %q on a fresh load, want pass", seed, fig, v)
			}
		}
	}
}

// damageRows are the rows the damages below are each named for.
var damageRows = []string{
	"edges timestamped before the load's time range",
	"out-degree distribution vs outdegree",
	"missing objects edges point at",
	"associations with no data",
	"edge types stored vs defined",
}

// TestDamageFailsItsRow: each damage of the issue (39), done by SQL on a
// copy of one fresh load of workload a, and of tao, fails validate --db (its error,
// as the command exits 1) with the row named for it failing, and check
// where an invariant covers it.
func TestDamageFailsItsRow(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a graph and validates five copies")
	}
	for _, name := range []string{"a", "tao"} {
		t.Run(name, func(t *testing.T) { damageSQLite(t, builtin(t, name)) })
	}
}

// damageSQLite is TestDamageFailsItsRow of workload w.
func damageSQLite(t *testing.T, w *workload.Workload) {
	fresh := loadSQLite(t, w, damageEdges, 1)
	// Forward types are those whose base (type % 8) is forward; the
	// damages touch forward edges only, bar the type deleted whole.
	const fwd = "type % 8 IN (1, 2, 3, 4, 5, 6)"
	cases := []struct {
		name, row string
		sql       []string
		check     bool // an invariant of check covers it
	}{
		{"timestamps zeroed for one type", damageRows[0],
			[]string{"UPDATE edges SET timestamp = 0 WHERE type % 8 = (SELECT type % 8 FROM edges WHERE " + fwd + " GROUP BY 1 ORDER BY COUNT(*) DESC LIMIT 1)"}, true},
		// Onto objects of shard 0 (ids 0 to n-1), as hashed; the inverses
		// of moved bidirectional edges stay where they were.
		{"5 percent of edges moved to other sources", damageRows[1],
			[]string{"UPDATE OR IGNORE edges SET id1 = ((id1 * 7919 + id2) % 1000003) % (SELECT COUNT(*) FROM objects WHERE id >> 57 = 0) WHERE " + fwd + " AND (id1 * 31 + id2) % 100 < 5"}, true},
		{"10 percent of pointed-at objects deleted", damageRows[2],
			[]string{"DELETE FROM objects WHERE id IN (SELECT DISTINCT id2 FROM edges) AND (id * 13) % 10 = 0"}, true},
		{"30 percent of values emptied", damageRows[3],
			[]string{"UPDATE edges SET value = '' WHERE " + fwd + " AND (id1 * 17 + id2) % 10 < 3"}, false},
		{"30 percent of one type's values emptied", "associations with no data, type 6",
			[]string{"UPDATE edges SET value = '' WHERE type % 8 = 6 AND (id1 * 17 + id2) % 10 < 3"}, false},
		{"one type deleted", damageRows[4],
			[]string{"DELETE FROM edges WHERE type % 8 = 6"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := copySQLite(t, fresh)
			url := "sqlite:" + path
			conn, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			var changed int64
			for _, q := range c.sql {
				res, err := conn.Exec(q)
				if err != nil {
					t.Fatal(err)
				}
				n, _ := res.RowsAffected()
				changed += n
			}
			conn.Close()
			if changed == 0 {
				t.Fatalf("the damage changed no row")
			}
			out, cerr := checkDB(t, url)
			if c.check && cerr == nil {
				t.Errorf("check passes the damage (%d rows changed), want it failed\n%s", changed, out)
			}
			v := validate(t, url, w, damageEdges, 7)
			var table bytes.Buffer
			werr := v.Write(&table, "validate")
			if werr == nil || verdict(v.Rows, c.row) != result.Fail {
				t.Errorf("validate --db of the damage (%d rows changed): %v, row %q %q; want it failed\n%s", changed, werr, c.row, verdict(v.Rows, c.row), table.String())
			}
			if t.Failed() || testing.Verbose() {
				t.Logf("%s: check %v; failed rows: %v", c.name, cerr, figures(fidelity.Failed(v.Rows)))
			}
		})
	}
}

func figures(rows []result.FidelityRow) string {
	var s []string
	for _, r := range rows {
		s = append(s, r.Figure)
	}
	return strings.Join(s, "; ")
}
