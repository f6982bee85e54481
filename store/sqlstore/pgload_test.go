package sqlstore

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

// openPG opens a fresh PostgreSQL database with a pool of one connection,
// so that what a loader leaves on its connection is what the next user of
// the pool gets.
func openPG(t *testing.T) (*DB, *pgxpool.Pool) {
	t.Helper()
	raw := testenv.FreshPostgres(t, testenv.PostgresURL(t))
	sep := "?"
	if strings.Contains(raw, "?") {
		sep = "&"
	}
	s, err := store.Default.Open(context.Background(), raw+sep+"pool_max_conns=1", store.Options{Clients: 1})
	if err != nil {
		t.Fatalf("open %s: %v", store.Redact(raw), err)
	}
	t.Cleanup(func() { s.Close() })
	db := s.(*DB)
	return db, db.b.(*pgBackend).pool
}

func show(t *testing.T, pool *pgxpool.Pool, setting string) string {
	t.Helper()
	var v string
	if err := pool.QueryRow(context.Background(), "SHOW "+setting).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// A loader's commits do not wait for the WAL flush, and the connection it
// gives back to the pool waits again: a request's commit must be durable.
func TestPGLoaderSynchronousCommit(t *testing.T) {
	db, pool := openPG(t)
	ctx := context.Background()
	if err := db.Setup(ctx, false); err != nil {
		t.Fatal(err)
	}
	if v := show(t, pool, "synchronous_commit"); v != "on" {
		t.Fatalf("synchronous_commit %q before the load; want on (the server's default)", v)
	}
	l, err := db.NewLoader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var v string
	if err := l.(*pgLoader).conn.QueryRow(ctx, "SHOW synchronous_commit").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if v != "off" {
		t.Errorf("the loader's synchronous_commit is %q; want off", v)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if v := show(t, pool, "synchronous_commit"); v != "on" {
		t.Errorf("synchronous_commit %q on the pool's connection after the loader closed; want on", v)
	}
}

// Setup's one transaction creates the whole schema, again harmlessly, and
// with drop empties the tables; when a statement fails it changes nothing
// and reports false, and Setup's statement-by-statement path words the error.
func TestPGSetupAtOnce(t *testing.T) {
	db, pool := openPG(t)
	ctx := context.Background()
	for i := range 2 {
		if !db.setupAtOnce(ctx, nil) {
			t.Fatalf("setup %d in one transaction failed", i+1)
		}
	}
	if vs, err := db.missingIndexes(ctx); err != nil || len(vs) > 0 {
		t.Fatalf("after setup: %+v, %v", vs, err)
	}
	var stats int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM pg_statistic_ext WHERE stxname = 'edges_id1_type'").Scan(&stats); err != nil || stats != 1 {
		t.Fatalf("extended statistics objects: %d, %v; want 1", stats, err)
	}
	if _, err := pool.Exec(ctx, "INSERT INTO objects (id, timestamp, value, version) VALUES (1, 1, 'v', 1)"); err != nil {
		t.Fatal(err)
	}
	if !db.setupAtOnce(ctx, []string{"edges", "objects", "taobench_counter", "taobench_meta"}) {
		t.Fatal("setup with drop in one transaction failed")
	}
	var n int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM objects").Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d objects after setup with drop, %v; want 0", n, err)
	}

	// A counter table of another shape: the schema's insert into it fails.
	if _, err := pool.Exec(ctx, "DROP TABLE edges, objects, taobench_meta, taobench_counter; CREATE TABLE taobench_counter (x INT)"); err != nil {
		t.Fatal(err)
	}
	if db.setupAtOnce(ctx, nil) {
		t.Fatal("setup in one transaction succeeded over a counter table of another shape")
	}
	var tables int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE tablename IN ('objects', 'edges', 'taobench_meta')").Scan(&tables); err != nil || tables != 0 {
		t.Errorf("%d of the schema's tables left by the failed transaction, %v; want none", tables, err)
	}
	if err := db.Setup(ctx, false); err == nil {
		t.Error("Setup succeeded over a counter table of another shape")
	}
}

// The loader's hand-encoded binary COPY writes each value as it was given,
// an empty value as empty (not NULL), versions below 1 as 1 and ukey as
// the statements bind it, whatever size of reads pgconn makes.
func TestPGCopyRows(t *testing.T) {
	objs := []tao.Object{{ID: 1, Time: -5, Value: []byte("héllo"), Version: 3}, {ID: 1 << 40, Time: 7, Version: 0}}
	edges := []tao.Edge{
		{ID1: 1, ID2: 2, Type: tao.Other.TypeN(3), Time: 9, Value: []byte("x"), Version: 2},
		{ID1: 2, ID2: -1, Type: tao.Unique.TypeN(1), Time: 1 << 50},
	}
	var whole []byte
	var r copyReader
	for _, size := range []int{1 << 16, 1, 3, 19} {
		r.reset(len(edges), func(b []byte, i int) []byte { return appendEdge(b, &edges[i]) })
		var got []byte
		p := make([]byte, size)
		for {
			n, err := r.Read(p)
			got = append(got, p[:n]...)
			if err == io.EOF {
				break
			}
			if err != nil || n == 0 {
				t.Fatalf("read of %d: %d, %v", size, n, err)
			}
		}
		if whole == nil {
			whole = got
		} else if !bytes.Equal(got, whole) {
			t.Errorf("reads of %d bytes gave %x, reads of 64 KiB %x", size, got, whole)
		}
	}

	db, pool := openPG(t)
	ctx := context.Background()
	if err := db.Setup(ctx, false); err != nil {
		t.Fatal(err)
	}
	if err := db.BeginLoad(ctx); err != nil {
		t.Fatal(err)
	}
	l, err := db.NewLoader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !l.(*pgLoader).fast {
		t.Fatal("the loader of an empty database does not COPY")
	}
	if err := l.Load(ctx, objs, edges); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, q := range []string{
		"SELECT format('%s %s %s %s', id, timestamp, value, version) FROM objects ORDER BY id",
		"SELECT format('%s %s %s %s %s %s %s', id1, id2, type, timestamp, value, version, ukey) FROM edges ORDER BY id1",
	} {
		rows, err := pool.Query(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, lines...)
	}
	want := []string{
		"1 -5 héllo 3", "1099511627776 7  1",
		fmt.Sprintf("1 2 %d 9 x 2 2", tao.Other.TypeN(3)),
		fmt.Sprintf("2 -1 %d 1125899906842624  1 0", tao.Unique.TypeN(1)),
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows\n%q\nwant\n%q", got, want)
	}
}

// The end of a load into empty tables builds the three edges indexes at
// once, and still creates edges_pkey last (planOrder: its OID is the
// highest), with a pool of one connection too (the statements then run
// one after another); ANALYZE leaves the statistics the plans read,
// the extended statistics on (id1, type) included. Its six loads, each on
// a database of its own, run as parallel subtests, and the test beside the
// package's other parallel ones: they wait on the server (the test's own
// CPU is 3 s of 19 s wall alone).
func TestPGLoadIndexOrder(t *testing.T) {
	t.Parallel()
	for _, pool := range []string{"", "pool_max_conns=1"} {
		for run := range 3 {
			name := map[string]string{"": "pool_default", "pool_max_conns=1": "pool_one"}[pool]
			t.Run(fmt.Sprintf("%s_run%d", name, run), func(t *testing.T) {
				t.Parallel()
				pgLoadIndexOrder(t, pool, run)
			})
		}
	}
}

// pgLoadIndexOrder is one load of TestPGLoadIndexOrder.
func pgLoadIndexOrder(t *testing.T, pool string, run int) {
	raw := testenv.FreshPostgres(t, testenv.PostgresURL(t))
	if pool != "" {
		if strings.Contains(raw, "?") {
			raw += "&" + pool
		} else {
			raw += "?" + pool
		}
	}
	db := openPlanDB(t, raw)
	loadPlanGraph(t, db, false)
	p := db.b.(*pgBackend).pool
	var later, deps bool
	var cols string
	err := p.QueryRow(context.Background(), `SELECT
		'edges_pkey'::regclass::oid::bigint > 'edges_time'::regclass::oid::bigint AND 'edges_pkey'::regclass::oid::bigint > 'edges_ukey'::regclass::oid::bigint,
		(SELECT d.stxddependencies IS NOT NULL FROM pg_statistic_ext s JOIN pg_statistic_ext_data d ON d.stxoid = s.oid WHERE s.stxname = 'edges_id1_type'),
		(SELECT string_agg(tablename || '.' || attname, ' ' ORDER BY tablename, attname) FROM pg_stats WHERE schemaname = current_schema() AND tablename IN ('objects', 'edges'))`).Scan(&later, &deps, &cols)
	if err != nil {
		t.Fatal(err)
	}
	if !later {
		t.Errorf("%s run %d: edges_pkey was not created after edges_time and edges_ukey", pool, run)
	}
	if !deps {
		t.Errorf("%s run %d: no functional dependencies in edges_id1_type", pool, run)
	}
	if want := "edges.id1 edges.id2 edges.timestamp edges.type objects.id"; cols != want {
		t.Errorf("%s run %d: statistics of %q, want %q", pool, run, cols, want)
	}
	if vs, err := db.missingIndexes(context.Background()); err != nil || len(vs) > 0 {
		t.Errorf("%s run %d: %v %v", pool, run, vs, err)
	}
}
