package main

// Issue 37, ownership: taobench touches only the tables it created. Each
// test runs on SQLite and on the live PostgreSQL and MariaDB servers (a
// database of its own, dropped afterwards; an absent server skips unless
// TAOBENCH_REQUIRE=1).

import (
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql's "pgx"

	"github.com/taobench/taobench/internal/testenv"
)

// ownEngine is a database of one engine, fresh for the test.
type ownEngine struct {
	kind string // sqlite, postgres, mysql
	url  string // --db
	db   *sql.DB
}

// ownEach runs f per engine on a fresh database, the engines in parallel:
// each is a server (or file) of its own, and f's work waits on it.
func ownEach(t *testing.T, f func(t *testing.T, e ownEngine)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "user.db")
		f(t, ownOpen(t, "sqlite", "sqlite:"+path, "sqlite", path))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		raw := testenv.FreshPostgres(t, testenv.PostgresURL(t))
		f(t, ownOpen(t, "postgres", raw, "pgx", raw))
	})
	t.Run("mysql", func(t *testing.T) {
		t.Parallel()
		raw := testenv.FreshMySQL(t, testenv.MySQLURL(t))
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		cfg := mysql.NewConfig()
		cfg.Net, cfg.Addr, cfg.User = "tcp", u.Host, u.User.Username()
		cfg.Passwd, _ = u.User.Password()
		cfg.DBName = strings.TrimPrefix(u.Path, "/")
		f(t, ownOpen(t, "mysql", raw, "mysql", cfg.FormatDSN()))
	})
}

func ownOpen(t *testing.T, kind, raw, driver, dsn string) ownEngine {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return ownEngine{kind, raw, db}
}

// exec runs statements directly, as the user's own program would.
func (e ownEngine) exec(t *testing.T, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := e.db.Exec(s); err != nil {
			t.Fatalf("%s: %s: %v", e.kind, s, err)
		}
	}
}

// tables lists the tables of the database (PostgreSQL: of its schema
// public), sorted.
func (e ownEngine) tables(t *testing.T) []string {
	t.Helper()
	q := map[string]string{
		"sqlite":   "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
		"postgres": "SELECT tablename FROM pg_tables WHERE schemaname = 'public'",
		"mysql":    "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()",
	}[e.kind]
	return e.strings(t, q)
}

func (e ownEngine) strings(t *testing.T, q string) []string {
	t.Helper()
	rows, err := e.db.Query(q)
	if err != nil {
		t.Fatalf("%s: %s: %v", e.kind, q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// rows returns every row of table, each as its columns' text, in order.
func (e ownEngine) rows(t *testing.T, table string) []string {
	t.Helper()
	rows, err := e.db.Query("SELECT * FROM " + table + " ORDER BY 1")
	if err != nil {
		t.Fatalf("%s: reading %s: %v", e.kind, table, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for i, v := range vals {
			if bs, ok := v.([]byte); ok {
				v = string(bs)
			}
			fmt.Fprintf(&b, "%s=%v;", cols[i], v)
		}
		out = append(out, b.String())
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// ownUserTables are the user's own tables: three named as taobench names
// its own, one not.
var ownUserTables = []string{
	"CREATE TABLE objects (id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(40) NOT NULL)",
	"INSERT INTO objects (id, name) VALUES (1, 'alice'), (2, 'bob')",
	"CREATE TABLE edges (src BIGINT NOT NULL, dst BIGINT NOT NULL, label VARCHAR(20) NOT NULL)",
	"INSERT INTO edges (src, dst, label) VALUES (1, 2, 'follows'), (2, 1, 'blocks')",
	"CREATE TABLE taobench_counter (who VARCHAR(20) NOT NULL, n INT NOT NULL)",
	"INSERT INTO taobench_counter (who, n) VALUES ('run', 41)",
	"CREATE TABLE users (id INT NOT NULL, email VARCHAR(60) NOT NULL)",
	"INSERT INTO users (id, email) VALUES (1, 'alice@example.com'), (2, 'bob@example.com')",
}

// snapshot is every table of the database with its rows (and, on
// MariaDB, its stored procedures).
func (e ownEngine) snapshot(t *testing.T) map[string][]string {
	t.Helper()
	s := map[string][]string{}
	for _, tb := range e.tables(t) {
		s[tb] = e.rows(t, tb)
	}
	if e.kind == "mysql" {
		// MariaDB's store creates its write procedures at open.
		s["(routines)"] = e.strings(t, "SELECT ROUTINE_NAME FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE()")
	}
	return s
}

// TestOwnershipUserTables: a database holding the user's own tables named
// objects, edges and taobench_counter (and users) is refused by load, load
// --drop, run, validate --db, check and info with exit 2, a message naming
// the tables and the fix, and nothing created or changed: no taobench_meta,
// every user row as it was. (Before: load created taobench_meta and
// taobench_counter beside them and failed with a raw SQL error, and load
// --drop dropped the user's tables.)
func TestOwnershipUserTables(t *testing.T) {
	ownEach(t, func(t *testing.T, e ownEngine) {
		e.exec(t, ownUserTables...)
		before := e.snapshot(t)
		if len(before["objects"]) != 2 || len(before["users"]) != 2 {
			t.Fatalf("the user's tables: %v", before)
		}
		for _, args := range [][]string{
			{"load", "--db", e.url, "--edges", "500"},
			{"load", "--drop", "--db", e.url, "--edges", "500"},
			{"run", "--db", e.url, "--edges", "500", "--warmup", "0", "--duration", "0.5s"},
			{"validate", "--db", e.url, "--edges", "500", "--warmup", "0", "--duration", "0.5s"},
			{"check", "--db", e.url},
			{"info", "--db", e.url},
		} {
			r := cliRun(t, args...)
			if r.code != 2 {
				t.Errorf("want exit 2:\n%s", r)
			}
			msg := strings.Join(srvErrorLines(r.stderr), "\n")
			for _, want := range []string{"objects (table)", "edges (table)", "taobench_counter (table)", "taobench did not create", "of its own"} {
				if !strings.Contains(msg, want) {
					t.Errorf("%s: the message lacks %q:\n%s", args[0], want, r)
				}
			}
			for _, bad := range []string{"users", "interrupted", "no such column", "does not exist", "Unknown column", "Error 1"} {
				if strings.Contains(msg, bad) {
					t.Errorf("%s: the message says %q:\n%s", args[0], bad, r)
				}
			}
			if after := e.snapshot(t); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Fatalf("%s changed the user's database:\nbefore %v\nafter  %v", args[0], before, after)
			}
		}
		if e.kind != "postgres" {
			return
		}
		// The fix the message gives: a schema of taobench's own, beside
		// the user's.
		e.exec(t, "CREATE SCHEMA tb")
		sep := "?"
		if strings.Contains(e.url, "?") {
			sep = "&"
		}
		own := e.url + sep + "search_path=tb"
		cliMust(t, "load", "--db", own, "--edges", "500")
		cliMust(t, "load", "--drop", "--db", own, "--edges", "500")
		cliMust(t, "check", "--db", own)
		if after := e.snapshot(t); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Fatalf("loading into schema tb changed schema public:\nbefore %v\nafter  %v", before, after)
		}
		if got := e.strings(t, "SELECT tablename FROM pg_tables WHERE schemaname = 'tb'"); fmt.Sprint(got) != "[edges objects taobench_counter taobench_meta]" {
			t.Errorf("schema tb holds %v, want taobench's four tables", got)
		}
	})
}

// TestOwnershipOwnSchema: taobench's own schema, beside a user's table,
// loads, drops and loads again, runs and checks; --drop leaves the user's
// table; a schema set up before the ownership record (no record in
// taobench_meta) is still taobench's; and a setup cut short (tables
// missing) is completed by load --drop.
func TestOwnershipOwnSchema(t *testing.T) {
	ownEach(t, func(t *testing.T, e ownEngine) {
		e.exec(t, ownUserTables[6:]...) // users only
		users := e.rows(t, "users")
		cliMust(t, "load", "--db", e.url, "--edges", "500")
		record := e.strings(t, "SELECT v FROM taobench_meta WHERE k = 'schema_tables'")
		if len(record) != 1 || record[0] != "taobench_meta,taobench_counter,objects,edges" {
			t.Fatalf("taobench_meta's record of taobench's tables: %q", record)
		}
		cliMust(t, "load", "--drop", "--db", e.url, "--edges", "500")
		if r := cliMust(t, "load", "--db", e.url, "--edges", "500"); !strings.Contains(r.stderr, "already holds this graph") {
			t.Errorf("a load again did not find its graph:\n%s", r)
		}
		cliMust(t, "run", "--db", e.url, "--warmup", "0", "--duration", "0.5s")
		cliMust(t, "check", "--db", e.url)

		// Before the record: a database an older taobench loaded.
		e.exec(t, "DELETE FROM taobench_meta WHERE k LIKE 'schema%'")
		cliMust(t, "run", "--db", e.url, "--warmup", "0", "--duration", "0.5s")
		cliMust(t, "load", "--drop", "--db", e.url, "--edges", "500")
		if got := e.strings(t, "SELECT k FROM taobench_meta WHERE k LIKE 'schema%'"); len(got) != 2 {
			t.Errorf("the drop and load did not record the schema as taobench's: %q", got)
		}

		// A setup cut short: the record, and some of the tables.
		e.exec(t, "DROP TABLE edges", "DROP TABLE taobench_counter")
		cliMust(t, "load", "--drop", "--db", e.url, "--edges", "500")
		cliMust(t, "check", "--db", e.url)

		want := "[edges objects taobench_counter taobench_meta users]"
		if got := e.tables(t); fmt.Sprint(got) != want {
			t.Errorf("tables %v, want %s", got, want)
		}
		if got := e.rows(t, "users"); fmt.Sprint(got) != fmt.Sprint(users) {
			t.Errorf("the user's table users changed: %v, was %v", got, users)
		}

		// The user drops taobench's objects and makes a table of that
		// name: the record names objects, but this one is not taobench's.
		e.exec(t, "DROP TABLE objects", ownUserTables[0], ownUserTables[1])
		before := e.snapshot(t)
		r := cliRun(t, "load", "--drop", "--db", e.url, "--edges", "500")
		if msg := strings.Join(srvErrorLines(r.stderr), "\n"); r.code != 2 || !strings.Contains(msg, "holds objects (table)") || strings.Contains(msg, "edges (table)") {
			t.Errorf("want exit 2 naming objects as not taobench's:\n%s", r)
		}
		if after := e.snapshot(t); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Errorf("load --drop changed the database:\nbefore %v\nafter  %v", before, after)
		}
	})
}

// TestOwnershipLeftovers: what the old load left beside a user's objects
// and edges (taobench_meta with an interrupted load's record, and
// taobench_counter) does not make the user's tables taobench's: load
// --drop, the old advice, is refused and drops nothing.
func TestOwnershipLeftovers(t *testing.T) {
	ownEach(t, func(t *testing.T, e ownEngine) {
		e.exec(t, ownUserTables[:4]...)
		e.exec(t, "CREATE TABLE taobench_meta (k VARCHAR(191) NOT NULL PRIMARY KEY, v TEXT NOT NULL)",
			"CREATE TABLE taobench_counter (name VARCHAR(64) NOT NULL PRIMARY KEY, n BIGINT NOT NULL)",
			"INSERT INTO taobench_counter (name, n) VALUES ('run', 0)",
			"INSERT INTO taobench_meta (k, v) VALUES ('state', 'loading'), ('edges', '500'), ('seed', '1'), ('workload', 'o')")
		before := e.snapshot(t)
		for _, args := range [][]string{
			{"load", "--drop", "--db", e.url, "--edges", "500"},
			{"run", "--db", e.url, "--warmup", "0", "--duration", "0.5s"},
			{"check", "--db", e.url},
		} {
			r := cliRun(t, args...)
			msg := strings.Join(srvErrorLines(r.stderr), "\n")
			if r.code != 2 || !strings.Contains(msg, "holds objects (table), edges (table)") || strings.Contains(msg, "interrupted") {
				t.Errorf("want exit 2 naming objects and edges as not taobench's:\n%s", r)
			}
			if after := e.snapshot(t); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Fatalf("%s changed the database:\nbefore %v\nafter  %v", args[0], before, after)
			}
		}
	})
}
