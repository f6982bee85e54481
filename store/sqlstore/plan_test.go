package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// Every hot-path statement runs through the index it was written for, on
// each database, whatever the plan cache does: PostgreSQL with the generic
// plan forced (and the custom one, for the largest (id1, type) list),
// MariaDB and SQLite through EXPLAIN. The graph is skewed, as TAO's is: a
// few (id1, type) lists are long, so a point read through edges_time would
// scan hundreds of entries. Each case then adds an index that takes a
// statement's plan (or drops the one it needs) and checks that the check
// fails: the test can tell a wrong plan.

// planNodes is the graph's node count; every 100th node has a long list.
const (
	planNodes = 10000
	hotEdges  = 300
	hotID1    = 100 // a node with a long list
)

// planType is the type of id's list. As in TAO's graphs, the types are
// many (TypeN) and each node has few of them, so type depends on id1:
// estimated as independent, an (id1, type) list is far under one row.
func planType(id int64) tao.EdgeType { return tao.Other.TypeN(int(id % 500)) }

// planGraph returns a skewed graph: objects 0..planNodes-1; each node has
// 1 to 7 edges of its planType (hotEdges for every 100th) and one of a
// unique type.
func planGraph() ([]tao.Object, []tao.Edge) {
	objs := make([]tao.Object, planNodes)
	var edges []tao.Edge
	for id := range int64(planNodes) {
		objs[id] = tao.Object{ID: id, Time: id, Version: 1, Value: []byte("o")}
		k := 1 + id%7
		if id%100 == 0 {
			k = hotEdges
		}
		for j := range k {
			// 7919 is prime to planNodes: the id2 of one list are distinct.
			edges = append(edges, tao.Edge{ID1: id, ID2: (id + j*7919) % planNodes, Type: planType(id), Time: id*1000 + j, Version: 1, Value: []byte("e")})
		}
		edges = append(edges, tao.Edge{ID1: id, ID2: (id + 1) % planNodes, Type: tao.Unique.TypeN(int(id % 500)), Time: id, Version: 1, Value: []byte("u")})
	}
	return objs, edges
}

// planIndexes names, per statement, the indexes it may use. A count reads
// every entry of one (id1, type) whichever index holds them in key order.
func planIndexes(pkey, objPkey string) map[stmt][]string {
	return map[stmt][]string{
		sObjGet: {objPkey}, sObjCheck: {objPkey}, sObjUpdate: {objPkey}, sObjDelete: {objPkey},
		sEdgeGet: {pkey}, sEdgeCheck: {pkey}, sEdgeUpdate: {pkey}, sEdgeDelete: {pkey},
		sEdgeRange: {"edges_time"}, sEdgeTime: {"edges_time"},
		sEdgeCount: {pkey, "edges_time"},
	}
}

var stmtNames = [numStmts]string{"objGet", "objCheck", "edgeGet", "edgeCheck", "edgeRange", "edgeCount", "edgeTime",
	"objAdd", "objUpdate", "objDelete", "edgeAdd", "edgeUpdate", "edgeDelete"}

// planArgs are the statement's parameters: the long list's first edge.
func planArgs(s stmt) []any {
	id2 := int64(hotID1)
	planType := int64(planType(hotID1))
	switch s {
	case sObjGet, sObjCheck, sObjDelete:
		return []any{int64(hotID1)}
	case sObjUpdate:
		return []any{int64(1), "v", int64(hotID1)}
	case sEdgeGet, sEdgeCheck, sEdgeDelete:
		return []any{int64(hotID1), planType, id2}
	case sEdgeRange:
		return []any{int64(hotID1), planType, int64(10), int64(0)}
	case sEdgeCount:
		return []any{int64(hotID1), planType}
	case sEdgeTime:
		return []any{int64(hotID1), planType, int64(0), int64(1 << 40), int64(10)}
	case sEdgeUpdate:
		return []any{int64(1), "v", int64(hotID1), planType, id2}
	}
	return nil
}

// loadPlanGraph sets up db and bulk-loads planGraph through the load path:
// into empty tables, indexes dropped and rebuilt in the load's order, or
// with intoIndexes, into the indexes Setup created (a load into a
// non-empty database); then ANALYZE.
func loadPlanGraph(t *testing.T, db *DB, intoIndexes bool) {
	t.Helper()
	ctx := context.Background()
	if err := db.Setup(ctx, false); err != nil {
		t.Fatal(err)
	}
	if !intoIndexes {
		if err := db.BeginLoad(ctx); err != nil {
			t.Fatal(err)
		}
	}
	l, err := db.NewLoader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	objs, edges := planGraph()
	if err := l.Load(ctx, objs, edges); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.EndLoad(ctx); err != nil {
		t.Fatal(err)
	}
}

func openPlanDB(t *testing.T, raw string) *DB {
	t.Helper()
	s, err := store.Default.Open(context.Background(), raw, store.Options{Clients: 4})
	if err != nil {
		t.Fatalf("open %s: %v", store.Redact(raw), err)
	}
	t.Cleanup(func() { s.Close() })
	db, ok := s.(*DB)
	if !ok {
		t.Fatalf("%s: %T is not a *DB", store.Redact(raw), s)
	}
	return db
}

// checkPlans returns a line for each statement whose plan uses an index
// other than the ones planIndexes allows; plan returns the indexes a
// statement's plan uses ("" for a sequential scan).
func checkPlans(t *testing.T, want map[stmt][]string, plan func(stmt) []string) []string {
	t.Helper()
	var bad []string
	for s := range numStmts {
		ok, checked := want[s]
		if !checked {
			continue
		}
		used := plan(s)
		if len(used) == 0 {
			bad = append(bad, fmt.Sprintf("%s: no plan read", stmtNames[s]))
		}
		for _, u := range used {
			if !slices.Contains(ok, u) {
				bad = append(bad, fmt.Sprintf("%s uses %q, want one of %q", stmtNames[s], u, ok))
			}
		}
	}
	return bad
}

func TestPlansPostgres(t *testing.T) {
	admin := testenv.PostgresURL(t)
	want := planIndexes("edges_pkey", "objects_pkey")
	{
		// Setup's indexes: edges_pkey is the oldest.
		db := openPlanDB(t, testenv.FreshPostgres(t, admin))
		loadPlanGraph(t, db, true)
		for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
			if bad := checkPlans(t, want, pgPlans(t, db.b.(*pgBackend).pool, db.d, mode)); len(bad) > 0 {
				t.Errorf("loaded into existing indexes, %s:\n%s", mode, strings.Join(bad, "\n"))
			}
		}
	}
	db := openPlanDB(t, testenv.FreshPostgres(t, admin))
	loadPlanGraph(t, db, false)
	ctx := context.Background()
	pool := db.b.(*pgBackend).pool
	for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
		plans := pgPlans(t, pool, db.d, mode)
		if bad := checkPlans(t, want, plans); len(bad) > 0 {
			t.Errorf("%s:\n%s", mode, strings.Join(bad, "\n"))
		}
	}
	for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
		if bad := checkReadTxnPlan(pgExplain(t, pool, pgReadTxn, readTxnArgs, mode, false)); len(bad) > 0 {
			t.Errorf("read transaction, %s:\n%s", mode, strings.Join(bad, "\n"))
		}
	}
	for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
		if bad := checkBidirPlans(pool, t, mode); len(bad) > 0 {
			t.Errorf("bidirectional writes, %s:\n%s", mode, strings.Join(bad, "\n"))
		}
	}
	// Every key of the read transaction is read, once per read: the
	// duplicate object twice, the absent keys too.
	analyzed := pgExplain(t, pool, pgReadTxn, readTxnArgs, "force_generic_plan", true)
	if got := analyzed.loops(nil); got["objects_pkey"] != 4 || got["edges_pkey"] != 3 {
		t.Errorf("read transaction of 4 object and 3 association reads probed %v", got)
	}
	// Inserts read no index; they must name the primary key as the one
	// whose conflict they skip or overwrite.
	for s, pk := range map[stmt]string{sObjAdd: "objects_pkey", sEdgeAdd: "edges_pkey"} {
		if got := pgArbiters(t, pool, db.d.stmts[s]); !slices.Equal(got, []string{pk}) {
			t.Errorf("%s: conflict arbiters %q, want [%s]", stmtNames[s], got, pk)
		}
	}

	// An index on the point read's key created after edges_pkey, with
	// nothing to tell it apart by cost, takes the point read's generic plan.
	if _, err := pool.Exec(ctx, "CREATE INDEX edges_steal ON edges (id1, type, id2, version)"); err != nil {
		t.Fatal(err)
	}
	bad := checkPlans(t, want, pgPlans(t, pool, db.d, "force_generic_plan"))
	if !slices.ContainsFunc(bad, func(s string) bool { return strings.HasPrefix(s, "edgeGet uses \"edges_steal\"") }) {
		t.Errorf("with edges_steal created last, the check found %q, want edgeGet on edges_steal", bad)
	}
	bad = checkReadTxnPlan(pgExplain(t, pool, pgReadTxn, readTxnArgs, "force_generic_plan", false))
	if !slices.Contains(bad, "readTxn uses \"edges_steal\"") {
		t.Errorf("with edges_steal created last, the read transaction's check found %q, want edges_steal", bad)
	}
	bad = checkBidirPlans(pool, t, "force_generic_plan")
	for _, name := range []string{"edgeUpdateBidir", "edgeDeleteBidir"} {
		if !slices.ContainsFunc(bad, func(s string) bool { return strings.HasPrefix(s, name+" uses \"edges_steal\"") }) {
			t.Errorf("with edges_steal created last, the bidirectional writes' check found %q, want %s on edges_steal", bad, name)
		}
	}
}

// checkBidirPlans returns a line for each scan of pgEdgeUpdateBidir's and
// pgEdgeDeleteBidir's plans under plan_cache_mode mode through an index
// other than edges_pkey, and for each plan that does not find its two
// rows (forward and inverse) through it. The keys are on the long list.
func checkBidirPlans(pool *pgxpool.Pool, t *testing.T, mode string) []string {
	t.Helper()
	pt := planType(hotID1)
	var bad []string
	for _, s := range []struct{ name, text, args string }{
		{"edgeUpdateBidir", pgEdgeUpdateBidir, fmt.Sprintf("%d, %d, %d, 1, 'v', %d, %d", hotID1, hotID1, pt, pt, hotID1)},
		{"edgeDeleteBidir", pgEdgeDeleteBidir, fmt.Sprintf("%d, %d, %d, %d", hotID1, pt, hotID1, pt)},
	} {
		plan := pgExplain(t, pool, s.text, s.args, mode, false)
		used := plan.scans(nil)
		for _, u := range used {
			if u != "edges_pkey" {
				bad = append(bad, fmt.Sprintf("%s uses %q", s.name, u))
			}
		}
		if len(used) != 2 {
			bad = append(bad, fmt.Sprintf("%s scans %q, want edges_pkey twice", s.name, used))
		}
	}
	return bad
}

// pgPlans returns a function that EXPLAINs a prepared statement under
// plan_cache_mode mode and returns the indexes its plan scans ("" for a
// sequential scan).
func pgPlans(t *testing.T, pool *pgxpool.Pool, d *dialect, mode string) func(stmt) []string {
	return func(s stmt) []string {
		t.Helper()
		ctx := context.Background()
		c, err := pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Release()
		// A transaction, so the statement's writes are planned, not done.
		tx, err := c.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		// A prepared statement outlives its transaction.
		defer c.Exec(ctx, "DEALLOCATE plan_test")
		if _, err := tx.Exec(ctx, "SET LOCAL plan_cache_mode = "+mode); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "PREPARE plan_test AS "+d.stmts[s]); err != nil {
			t.Fatalf("%s: prepare: %v", stmtNames[s], err)
		}
		var vals []string
		for _, a := range planArgs(s) {
			switch a := a.(type) {
			case string:
				vals = append(vals, "'"+a+"'")
			default:
				vals = append(vals, fmt.Sprint(a))
			}
		}
		var out []byte
		if err := tx.QueryRow(ctx, "EXPLAIN (FORMAT JSON) EXECUTE plan_test("+strings.Join(vals, ", ")+")").Scan(&out); err != nil {
			t.Fatalf("%s: explain: %v", stmtNames[s], err)
		}
		var plans []struct{ Plan pgNode }
		if err := json.Unmarshal(out, &plans); err != nil || len(plans) != 1 {
			t.Fatalf("%s: plan %s: %v", stmtNames[s], out, err)
		}
		return plans[0].Plan.scans(nil)
	}
}

// readTxnArgs are pgReadTxn's parameters: objects 100 (twice) and 1 and
// one absent; the long list's first edge, another edge and an absent one.
var readTxnArgs = func() string {
	pt := planType(hotID1)
	return fmt.Sprintf("'{%d, 1, %d, %d}', '{0, 2, 4, 6}', '{%d, 1, %d}', '{%d, %d, %d}', '{%d, %d, 5}', '{1, 3, 5}'",
		hotID1, hotID1, 10*planNodes, hotID1, hotID1, pt, planType(1), pt, hotID1, 1+7919)
}()

// checkReadTxnPlan returns a line for each index pgReadTxn's plan uses
// other than the two primary keys, and for each it does not use.
func checkReadTxnPlan(plan pgNode) []string {
	var bad []string
	used := plan.scans(nil)
	for _, u := range used {
		if u != "objects_pkey" && u != "edges_pkey" {
			bad = append(bad, fmt.Sprintf("readTxn uses %q", u))
		}
	}
	for _, want := range []string{"objects_pkey", "edges_pkey"} {
		if !slices.Contains(used, want) {
			bad = append(bad, fmt.Sprintf("readTxn does not use %s (plan uses %q)", want, used))
		}
	}
	return bad
}

// pgExplain prepares text and EXPLAINs its execution with args (SQL
// literals) under plan_cache_mode mode; with analyze it runs it too.
func pgExplain(t *testing.T, pool *pgxpool.Pool, text, args, mode string, analyze bool) pgNode {
	t.Helper()
	ctx := context.Background()
	c, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	defer c.Exec(ctx, "DEALLOCATE plan_text")
	if _, err := tx.Exec(ctx, "SET LOCAL plan_cache_mode = "+mode); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "PREPARE plan_text AS "+text); err != nil {
		t.Fatalf("prepare %s: %v", text, err)
	}
	opts := "FORMAT JSON"
	if analyze {
		opts += ", ANALYZE"
	}
	var out []byte
	if err := tx.QueryRow(ctx, "EXPLAIN ("+opts+") EXECUTE plan_text("+args+")").Scan(&out); err != nil {
		t.Fatalf("explain %s: %v", text, err)
	}
	var plans []struct{ Plan pgNode }
	if err := json.Unmarshal(out, &plans); err != nil || len(plans) != 1 {
		t.Fatalf("plan %s: %v", out, err)
	}
	return plans[0].Plan
}

// loops adds up, per index, how many times the plan's scans of it ran.
func (n *pgNode) loops(out map[string]int) map[string]int {
	if out == nil {
		out = map[string]int{}
	}
	if n.Index != "" {
		out[n.Index] += n.Loops
	}
	for i := range n.Children {
		n.Children[i].loops(out)
	}
	return out
}

type pgNode struct {
	Type      string   `json:"Node Type"`
	Index     string   `json:"Index Name"`
	Relation  string   `json:"Relation Name"`
	Arbiters  []string `json:"Conflict Arbiter Indexes"`
	Children  []pgNode `json:"Plans"`
	Operation string   `json:"Operation"`
	Loops     int      `json:"Actual Loops"`
}

// scans appends the indexes the plan's scans of a table use, "" for a
// sequential scan.
func (n *pgNode) scans(out []string) []string {
	switch {
	case n.Index != "":
		out = append(out, n.Index)
	case strings.HasSuffix(n.Type, "Scan") && n.Relation != "":
		out = append(out, "") // Seq Scan, or a bitmap heap scan whose index is below
	}
	for i := range n.Children {
		out = n.Children[i].scans(out)
	}
	return out
}

func pgArbiters(t *testing.T, pool *pgxpool.Pool, text string) []string {
	t.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	defer tx.Exec(ctx, "DEALLOCATE arb")
	if _, err := tx.Exec(ctx, "PREPARE arb AS "+text); err != nil {
		t.Fatal(err)
	}
	n := strings.Count(text, "$")
	args := strings.TrimSuffix(strings.Repeat("1, ", n), ", ")
	// The value parameters are text; 1 is read as one.
	args = strings.Replace(args, "1, 1, 1", "1, 1, '1'", 1)
	var out []byte
	if err := tx.QueryRow(ctx, "EXPLAIN (FORMAT JSON) EXECUTE arb("+args+")").Scan(&out); err != nil {
		t.Fatalf("explain %s: %v", text, err)
	}
	var plans []struct{ Plan pgNode }
	if err := json.Unmarshal(out, &plans); err != nil || len(plans) != 1 {
		t.Fatalf("plan %s: %v", out, err)
	}
	return plans[0].Plan.Arbiters
}

func TestPlansMySQL(t *testing.T) {
	db := openPlanDB(t, testenv.FreshMySQL(t, testenv.MySQLURL(t)))
	loadPlanGraph(t, db, false)
	b := db.b.(*myBackend)
	want := planIndexes("PRIMARY", "PRIMARY")
	want[sEdgeCount] = append(want[sEdgeCount], "edges_ukey") // MySQL's edges_ukey is the full (id1, type, ukey)
	plans := func(s stmt) []string { return mysqlPlan(t, b.write, db.d.stmts[s], planArgs(s)) }
	if bad := checkPlans(t, want, plans); len(bad) > 0 {
		t.Errorf("%s", strings.Join(bad, "\n"))
	}
	// Without edges_time the range reads take another index (or sort):
	// the check must say so.
	if _, err := b.write.Exec("ALTER TABLE edges DROP INDEX edges_time"); err != nil {
		t.Fatal(err)
	}
	bad := checkPlans(t, want, plans)
	if !slices.ContainsFunc(bad, func(s string) bool { return strings.HasPrefix(s, "edgeRange uses") }) {
		t.Errorf("without edges_time the check found %q, want edgeRange on another index", bad)
	}
}

// mysqlPlan EXPLAINs text with args inlined and returns the key of each
// row that reads a table ("" for a full scan).
func mysqlPlan(t *testing.T, db *sql.DB, text string, args []any) []string {
	t.Helper()
	for _, a := range args {
		v := fmt.Sprint(a)
		if s, ok := a.(string); ok {
			v = "'" + s + "'"
		}
		text = strings.Replace(text, "?", v, 1)
	}
	rows, err := db.Query("EXPLAIN " + text)
	if err != nil {
		t.Fatalf("explain %s: %v", text, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var keys []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, c := range cols {
			if c == "key" {
				keys = append(keys, vals[i].String)
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return keys
}

func TestPlansSQLite(t *testing.T) {
	db := openPlanDB(t, "sqlite:"+filepath.Join(t.TempDir(), "plan.db"))
	loadPlanGraph(t, db, false)
	b := db.b.(*sqlBackend)
	// SQLite names a rowid or WITHOUT ROWID key "PRIMARY KEY".
	want := planIndexes("PRIMARY KEY", "PRIMARY KEY")
	plans := func(s stmt) []string { return sqlitePlan(t, b.write, db.d.stmts[s], planArgs(s)) }
	if bad := checkPlans(t, want, plans); len(bad) > 0 {
		t.Errorf("%s", strings.Join(bad, "\n"))
	}
	if _, err := b.write.Exec("CREATE INDEX edges_steal ON edges (id1, type, timestamp, value)"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.write.Exec("DROP INDEX edges_time"); err != nil {
		t.Fatal(err)
	}
	bad := checkPlans(t, want, plans)
	if !slices.ContainsFunc(bad, func(s string) bool { return strings.HasPrefix(s, "edgeRange uses \"edges_steal\"") }) {
		t.Errorf("with edges_steal in place of edges_time the check found %q, want edgeRange on edges_steal", bad)
	}
}

// sqliteScan matches EXPLAIN QUERY PLAN's detail of a table access.
var sqliteScan = regexp.MustCompile(`^(SEARCH|SCAN) (objects|edges)(?: USING (?:COVERING )?(INDEX (\w+)|INTEGER PRIMARY KEY|PRIMARY KEY))?`)

// sqlitePlan returns the index of each table access in text's query plan
// ("" for a full scan).
func sqlitePlan(t *testing.T, db *sql.DB, text string, args []any) []string {
	t.Helper()
	rows, err := db.Query("EXPLAIN QUERY PLAN "+text, args...)
	if err != nil {
		t.Fatalf("explain %s: %v", text, err)
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		m := sqliteScan.FindStringSubmatch(detail)
		switch {
		case m == nil:
		case m[4] != "":
			keys = append(keys, m[4])
		case m[3] != "":
			keys = append(keys, "PRIMARY KEY")
		default:
			keys = append(keys, "")
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return keys
}
