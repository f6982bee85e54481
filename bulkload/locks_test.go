package bulkload_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taobench/taobench/bulkload"
	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
)

// vacuumAtEnd starts a VACUUM (FREEZE) of edges on its own connection just
// before the load's EndLoad, as autovacuum does after a bulk insert, and
// returns once the vacuum holds the table: the index builds and primary
// key ALTERs then wait behind it for seconds. A manual VACUUM, unlike
// autovacuum, is never cancelled for a waiting lock, so the wait is
// certain and longer than a request's 1 s lock_timeout.
type vacuumAtEnd struct {
	store.Database
	t    *testing.T
	raw  string
	done chan error
}

func (v *vacuumAtEnd) EndLoad(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, v.raw)
	if err != nil {
		v.t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var pid int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		v.t.Fatal(err)
	}
	v.done = make(chan error, 1)
	go func() {
		_, err := conn.Exec(context.Background(), "VACUUM (FREEZE) edges")
		v.done <- err
	}()
	watch, err := pgx.Connect(ctx, v.raw)
	if err != nil {
		v.t.Fatal(err)
	}
	defer watch.Close(context.Background())
	for deadline := time.Now().Add(10 * time.Second); ; {
		var held bool
		if err := watch.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE pid = $1 AND relation = 'edges'::regclass AND granted)", pid).Scan(&held); err != nil {
			v.t.Fatal(err)
		}
		if held {
			break
		}
		if time.Now().After(deadline) {
			v.t.Fatal("the vacuum took no lock on edges in 10 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	err = v.Database.EndLoad(ctx)
	if verr := <-v.done; verr != nil {
		v.t.Errorf("VACUUM: %v", verr)
	}
	return err
}

// TestLoadPostgresLocks loads 1 M edges into PostgreSQL, autovacuum on and
// made eager on taobench's tables, a VACUUM holding edges as the index
// builds begin: every load must succeed, its DDL waiting for its locks
// (sqlstore's ddlLockWait) rather than giving up after a request's
// lock_timeout. About 15 s a load on 2 cores: once in the unit tests (the
// VACUUM is provoked, not waited for), five times in a row in the
// integration suite (TAOBENCH_INTEGRATION=1), for autovacuum's own timing.
func TestLoadPostgresLocks(t *testing.T) {
	if testing.Short() {
		t.Skip("1 M-edge loads; skipped with -short")
	}
	admin := testenv.PostgresURL(t)
	ctx := context.Background()
	g := testGraph(t, "o", 1_000_000)
	loads := 1
	if testenv.IntegrationOn() {
		loads = 5
	}
	for i := range loads {
		raw := testenv.FreshPostgres(t, admin)
		s, err := store.Default.Open(ctx, raw, store.Options{Clients: 4})
		if err != nil {
			t.Fatal(err)
		}
		db := s.(store.Database)
		if err := db.Setup(ctx, true); err != nil {
			t.Fatal(err)
		}
		ac, err := pgx.Connect(ctx, raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, tbl := range []string{"objects", "edges"} {
			if _, err := ac.Exec(ctx, "ALTER TABLE "+tbl+" SET (autovacuum_enabled = on, autovacuum_vacuum_threshold = 0, autovacuum_vacuum_scale_factor = 0, "+
				"autovacuum_vacuum_insert_threshold = 1000, autovacuum_vacuum_insert_scale_factor = 0, autovacuum_analyze_threshold = 1000, autovacuum_analyze_scale_factor = 0)"); err != nil {
				t.Fatal(err)
			}
		}
		ac.Close(ctx)
		start := time.Now()
		res, err := bulkload.Load(ctx, &vacuumAtEnd{Database: db, t: t, raw: raw}, g, meta(g), bulkload.Options{Threads: 2})
		if err != nil {
			t.Fatalf("load %d of %d: %v", i+1, loads, err)
		}
		vs, err := db.Check(ctx)
		if err != nil {
			t.Fatalf("load %d of %d: check: %v", i+1, loads, err)
		}
		for _, v := range vs {
			t.Errorf("load %d of %d: %s: %d (%s)", i+1, loads, v.Invariant, v.Count, v.Example)
		}
		t.Logf("load %d of %d: %d rows in %v", i+1, loads, res.Rows, time.Since(start).Round(time.Millisecond))
		db.Close()
	}
}

// mdlAtEnd holds a metadata lock on edges (an open transaction that read
// it) for hold from just before EndLoad: the load's ALTER TABLE waits for it.
type mdlAtEnd struct {
	store.Database
	t     *testing.T
	admin string
	name  string
	hold  time.Duration
}

func (m *mdlAtEnd) EndLoad(ctx context.Context) error {
	db, _ := testenv.MySQLAdmin(m.t, m.admin)
	c, err := db.Conn(ctx)
	if err != nil {
		m.t.Fatal(err)
	}
	defer c.Close()
	for _, s := range []string{"USE " + m.name, "START TRANSACTION", "SELECT COUNT(*) FROM edges WHERE id1 = 0"} {
		if _, err := c.ExecContext(ctx, s); err != nil {
			m.t.Fatalf("%s: %v", s, err)
		}
	}
	released := make(chan error, 1)
	go func() {
		time.Sleep(m.hold)
		_, err := c.ExecContext(context.Background(), "COMMIT")
		released <- err
	}()
	err = m.Database.EndLoad(ctx)
	if rerr := <-released; rerr != nil {
		m.t.Errorf("COMMIT: %v", rerr)
	}
	return err
}

// TestLoadMySQLLocks: the load's DDL on MariaDB/MySQL waits for its
// metadata and InnoDB locks with its own limit, not the session's: here
// the URL sets lock_wait_timeout to 1 s and another transaction holds
// edges for 3 s as the index build begins.
func TestLoadMySQLLocks(t *testing.T) {
	admin := testenv.MySQLURL(t)
	raw := testenv.FreshMySQL(t, admin)
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	q := u.Query()
	q.Set("lock_wait_timeout", "1")
	u.RawQuery = q.Encode()
	ctx := context.Background()
	s, err := store.Default.Open(ctx, u.String(), store.Options{Clients: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db := s.(store.Database)
	if err := db.Setup(ctx, true); err != nil {
		t.Fatal(err)
	}
	g := testGraph(t, "o", 5000)
	if _, err := bulkload.Load(ctx, &mdlAtEnd{Database: db, t: t, admin: admin, name: name, hold: 3 * time.Second}, g, meta(g), bulkload.Options{Threads: 2}); err != nil {
		t.Fatal(err)
	}
	vs, err := db.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		t.Errorf("%s: %d (%s)", v.Invariant, v.Count, v.Example)
	}
}
