package session_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/fidelity"
	"github.com/taobench/taobench/gencheck"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// knownFailing are rows a built-in may fail for a reason an open item of
// issue 18 owns, not this test. None now: linkbench's range rows are set
// against the lists its reads draw, counted in the database before and
// after the run (item 7).
var knownFailing = map[string][]string{}

// known reports whether every failed row is a known failure of workload.
func known(workload string, failed []result.FidelityRow) bool {
	for _, r := range failed {
		ok := false
		for _, k := range knownFailing[workload] {
			ok = ok || strings.HasPrefix(r.Figure, k)
		}
		if !ok {
			return false
		}
	}
	return len(failed) > 0
}

// validate runs Validate as validate --db does: a short run of 2 clients
// on url, loading the workload's graph of edges edges into an empty
// database.
func validate(t *testing.T, url string, w *workload.Workload, edges int64, seed uint64) *session.Validation {
	t.Helper()
	s := open(t, url, session.Options{Name: "validate", Sink: &recorder{}, Clients: 2})
	v, err := s.Validate(context.Background(), session.GraphSpec{Edges: edges}, run.Config{Workload: w, Seed: seed, Retries: 10, Drain: 10 * time.Second},
		run.Experiment{Threads: 2, Warmup: 300 * time.Millisecond, Duration: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestValidateEveryBuiltin: for every built-in workload, the generator's
// check (validate --workload) and the database's (validate --db on a fresh
// SQLite load: inventory, placement, missing objects and a short run's
// fidelity rows) pass, and the rows the built-in is there to show
// (mustPass) pass rather than skip. The generator's check runs 100,000
// requests: the same check at 1 M requests for every built-in is
// gencheck's TestEveryWorkloadPasses; here it is the session's call of it.
// The load is a copy of the one the package's tests share (loadedCopy).
// Not in parallel: the rows of a short run need the requests a core gives
// it (a mean row's tolerance does not widen with fewer).
func TestValidateEveryBuiltin(t *testing.T) {
	if testing.Short() {
		t.Skip("generates requests and validates a graph per built-in")
	}
	infos := workload.Builtins()
	if len(infos) < 9 {
		t.Fatalf("%d built-ins: %v", len(infos), infos)
	}
	for _, in := range infos {
		t.Run(in.Name, func(t *testing.T) {
			w := builtin(t, in.Name)
			rows, err := session.CheckGenerator(w, 50_000, 100_000, 1)
			var differ []gencheck.Row
			for _, r := range rows {
				if !r.Skipped && !r.Pass {
					differ = append(differ, r)
				}
			}
			if err != nil || gencheck.Tested(rows) == 0 || len(differ) > 0 {
				t.Errorf("CheckGenerator %s: %v, %d distributions tested, differing: %+v; want none over 100,000 requests", in.Name, err, gencheck.Tested(rows), differ)
			}
			v := validate(t, "sqlite:"+loadedCopy(t, in.Name, 50_000, session.GraphSeed), w, 50_000, 3)
			failed := fidelity.Failed(v.Rows)
			switch {
			case known(in.Name, failed):
				t.Logf("known failure (issue 18, item 7): %+v", failed)
			case len(failed) > 0 || verdict(v.Rows, "forward edges per id1 shard vs placement") == "":
				t.Errorf("Validate, workload %s: failed %+v; want every row passing or skipped, the placement row among them", in.Name, failed)
			}
			for _, fig := range mustPass[in.Name] {
				if r := verdict(v.Rows, fig); r != result.Pass {
					t.Errorf("Validate, workload %s: row %q %q, want a pass", in.Name, fig, r)
				}
			}
			if extra := validated[in.Name]; extra != nil {
				extra(t, v.Rows)
			}
		})
	}
}

// mustPass are rows a built-in's validate --db on a fresh load must pass,
// not skip: linkbench's range rows at the database (the first fails a
// damaged load: TestValidateRangeDamage).
var mustPass = map[string][]string{
	"linkbench": {"lists range reads draw with edges", "lists range reads draw of 1 edge", "edge_range_read returns edges",
		"non-empty ranges of 1 edge", "edge_range_read sizes vs lists counted",
		"edge_range_read returns 1 row", "lists range reads draw: rows (mean)", "rows per edge_range_read (mean)"},
}

// colocRow is the row validate --db sets of the hot keys' placement.
const colocRow = "hot write_txn key pairs sharing a shard, at the database"

// validated are further checks of a built-in's validate --db rows on a
// fresh load: a and tao have the colocation row at the database with
// enough hot keys (a: the plan's write transactions drawn alone, where the
// short run's give 6 or 7; tao, which has no write transactions: its
// writes drawn alone), every one found where the graph places it, passing:
// primary_shards concentrates them far past uniform placement over the
// workload's shards (fidelity's TestPlacedColocation); damaged placement
// fails them (TestValidateSkewColocationRows).
var validated = map[string]func(t *testing.T, rows []result.FidelityRow){
	"a":   colocPasses("write-transaction keys"),
	"tao": colocPasses("writes of any kind"),
}

// colocPasses checks that the colocation row at the database passes on
// 40 hot keys or more, of the kind keys, all found at their ids.
func colocPasses(keys string) func(t *testing.T, rows []result.FidelityRow) {
	return func(t *testing.T, rows []result.FidelityRow) {
		r, ok := row(rows, colocRow)
		t.Logf("%+v", r)
		if !ok || r.N < 40 || r.Observed != r.Target || r.Verdict != result.Pass || !strings.Contains(r.Note, "(0 not found)") || !strings.Contains(r.Note, keys) {
			t.Errorf("%+v (present %v); want 40 %s or more, all found at their ids, passing", r, ok, keys)
		}
	}
}

// row is the row of figure fig in rows.
func row(rows []result.FidelityRow, fig string) (result.FidelityRow, bool) {
	for _, r := range rows {
		if r.Figure == fig {
			return r, true
		}
	}
	return result.FidelityRow{}, false
}

// TestDamageCaught: a database where 12% of one association type's rows
// point at objects that do not exist (the damage: the hit rate
// fell from 0.196 to 0.177 and a fixed tolerance let it pass) fails Check
// and Validate, naming the rows; the same database before the damage
// passes both. The database is a copy of the load TestValidateEveryBuiltin
// validates for workload a.
func TestDamageCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a graph and runs twice")
	}
	ctx := context.Background()
	path := loadedCopy(t, "a", 50_000, session.GraphSeed) // the graph validate --db loads
	url := "sqlite:" + path
	w := builtin(t, "a")
	// check is what taobench check prints and whether it fails.
	check := func() (string, error) {
		t.Helper()
		s, meta, err := session.OpenRecorded(ctx, url, session.Options{Name: "check", Sink: &recorder{}, Clients: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		vs, err := s.Check(ctx, meta)
		if err != nil {
			t.Fatal(err)
		}
		return violations(vs)
	}
	// Before the damage the graph's rows pass, and so does the short run's
	// hit rate the damage moves (its other rows need more requests than a
	// loaded machine may give 3 s: a mean of heavy-tailed list sizes).
	v := validate(t, url, w, 50_000, 7)
	graphRows := v.Rows[:len(v.Rows)-len(v.Result.Fidelity)]
	if failed := fidelity.Failed(graphRows); len(failed) > 0 || verdict(v.Result.Fidelity, "edge_point_read finds an edge") != result.Pass {
		t.Fatalf("the undamaged database fails: %+v; hit rate %s", failed, verdict(v.Result.Fidelity, "edge_point_read finds an edge"))
	}
	if out, err := check(); err != nil {
		t.Fatalf("the undamaged database fails its check: %v\n%s", err, out)
	}

	conn, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	// Type 6 is the first list type of category other (docs/graph.md). Move
	// its id2 past every node index: the key stays unique, the object is gone.
	res, err := conn.Exec("UPDATE edges SET id2 = id2 + (1 << 40), ukey = ukey + (1 << 40) WHERE type = 6 AND (id1 + id2) % 100 < 12")
	if err != nil {
		t.Fatal(err)
	}
	var all int64
	if err := conn.QueryRow("SELECT COUNT(*) FROM edges WHERE type = 6").Scan(&all); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	n, _ := res.RowsAffected()
	if n == 0 || float64(n)/float64(all) < 0.10 || float64(n)/float64(all) > 0.14 {
		t.Fatalf("damaged %d of %d rows of type 6, want about 12%%", n, all)
	}

	if out, err := check(); err == nil || !strings.Contains(out, "VIOLATION association points at an object the graph says exists") || !strings.Contains(out, "e.g. edge (") {
		t.Errorf("check of the damaged database: %v; want it failed, the missing objects named with an example row\n%s", err, out)
	}
	// Validate sets the rows of what the database holds first, from its
	// inventory, as graphRowsOf does; its short run and probes add
	// nothing to them (and are spared: the suite's time).
	if rows := graphRowsOf(t, url); verdict(rows, "missing objects edges point at") != result.Fail {
		t.Errorf("Validate of the damaged database: want a failed row of missing objects, got %+v", fidelity.Failed(rows))
	}
}

// verdict is the verdict of the row of figure in rows ("" when none).
func verdict(rows []result.FidelityRow, figure string) string {
	for _, r := range rows {
		if r.Figure == figure {
			return r.Verdict
		}
	}
	return ""
}

// TestValidateSkewColocationRows: validate --db of a fresh load of tao,
// with TAO's key access (TAO §5.3), has its reads' skew row passing (at
// 20,000 edges: the short run's reads are on fewer keys than at
// TestValidateEveryBuiltin's 50,000, enough for the row on a loaded
// machine), and the colocation row at the database passing, as a's does
// in TestValidateEveryBuiltin. Moving half the objects to random shards
// (off their ids, where the row looks for them) fails the row of each. A
// workload of uniform access and uniform placement claims no skew: it has
// no skew or colocation row to pass (fidelity's TestColocationRowOfModels
// and TestPlacedColocation fail its keys against a's and tao's models).
func TestValidateSkewColocationRows(t *testing.T) {
	if testing.Short() {
		t.Skip("validates three graphs, two of them damaged")
	}
	for _, c := range []struct {
		name  string
		edges int64
	}{{"a", 50_000}, {"tao", 20_000}} {
		path := loadedCopy(t, c.name, c.edges, session.GraphSeed)
		url := "sqlite:" + path
		if c.name == "tao" {
			v := validate(t, url, builtin(t, c.name), c.edges, 1)
			if r, ok := row(v.Rows, "reads on the top 1% of keys"); !ok || r.Verdict != result.Pass {
				t.Errorf("tao: reads on the top 1%% of keys %+v (present %v), want pass", r, ok)
			}
			colocPasses("writes of any kind")(t, v.Rows)
		}
		// Half the objects moved to random shards: a new id on a shard
		// drawn at random, its index past every node's (the old shard and
		// index in it, so no two meet).
		conn, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		res, err := conn.Exec(fmt.Sprintf("UPDATE objects SET id = ((abs(random()) %% %d) << %d) | (((id >> %[2]d) + 1) << 40) | (id & ((1 << 40) - 1)) WHERE id %% 2 = 0",
			builtin(t, c.name).Shards(), tao.ShardShift))
		conn.Close()
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			t.Fatalf("%s: no object moved", c.name)
		}
		v := validate(t, url, builtin(t, c.name), c.edges, 1)
		r, ok := row(v.Rows, colocRow)
		t.Logf("%s, objects moved: %+v", c.name, r)
		if !ok || r.Verdict != result.Fail || strings.Contains(r.Note, "(0 not found)") {
			t.Errorf("%s with half its objects moved to random shards: %+v (present %v); want the colocation row failing, keys not found", c.name, r, ok)
		}
	}
	u := builtin(t, "a")
	uni := workload.Skew{Kind: workload.Uniform}
	u.ReadKeySkew, u.WriteKeySkew, u.WriteTxnKeySkew, u.HotspotOverlap = &uni, &uni, &uni, 1
	for i := range u.PrimaryShards.Weights {
		u.PrimaryShards.Weights[i] = 1
	}
	v := validate(t, sqlite(t), u, 20_000, 1)
	for _, fig := range []string{colocRow, "reads on the top 1% of keys", "write transactions on the top 1% of keys"} {
		if r, ok := row(v.Rows, fig); ok && !r.Failed() && r.Verdict != result.Skipped {
			t.Errorf("uniform access and placement: %q %+v, want no passing row", fig, r)
		}
	}
}
