package testenv

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
)

// UniqueName returns a fresh name for a database or user a test creates:
// "taobench_test_" and 12 random hex digits, safe unquoted in SQL.
func UniqueName() string {
	b := make([]byte, 6)
	rand.Read(b)
	return "taobench_test_" + hex.EncodeToString(b)
}

// redact masks the password of a URL for messages; testenv cannot import
// store (whose tests import testenv).
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable URL)"
	}
	return u.Redacted()
}

// FreshPostgres creates a uniquely named database on the PostgreSQL server
// of admin (a URL such as PostgresURL returns), returns the URL of the new
// database (admin's with the path replaced) and drops the database, with
// any connections still open to it, when the test ends.
func FreshPostgres(t testing.TB, admin string) string {
	t.Helper()
	return createPostgres(t, admin, "")
}

// ClonePostgres is FreshPostgres with the new database a copy of the
// database at from (a URL FreshPostgres returned, on admin's server): a
// loaded graph copied in the server, far faster than loading it again.
// Nothing may be connected to from meanwhile (PostgreSQL's rule for a
// template): close every pool on it first.
func ClonePostgres(t testing.TB, admin, from string) string {
	t.Helper()
	u, err := url.Parse(from)
	if err != nil {
		t.Fatalf("database URL %s: %v", redact(from), err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	if !strings.HasPrefix(name, "taobench_test_") || strings.ContainsAny(name, "/\"") {
		t.Fatalf("ClonePostgres copies a database FreshPostgres created, not %q", name)
	}
	return createPostgres(t, admin, name)
}

// createPostgres is FreshPostgres, the new database a copy of template
// unless it is "".
func createPostgres(t testing.TB, admin, template string) string {
	t.Helper()
	shareServers(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("connect %s: %v", redact(admin), err)
	}
	name := UniqueName()
	create := "CREATE DATABASE " + name
	if template != "" {
		create += " TEMPLATE " + template
	}
	if _, err := conn.Exec(ctx, create); err != nil {
		conn.Close(context.Background())
		t.Fatalf("create database %s on %s: %v", name, redact(admin), err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
		conn.Close(ctx)
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("admin URL %s: %v", redact(admin), err)
	}
	u.Path = "/" + name
	return u.String()
}

// FreshMySQL creates a uniquely named database on the MySQL-protocol server
// of admin (a URL such as MySQLURL returns), returns the URL of the new
// database (admin's with the path replaced) and drops the database when the
// test ends.
func FreshMySQL(t testing.TB, admin string) string {
	t.Helper()
	shareServers(t)
	db, u := MySQLAdmin(t, admin)
	name := UniqueName()
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create database %s on %s: %v", name, redact(admin), err)
	}
	t.Cleanup(func() {
		if _, err := db.Exec("DROP DATABASE IF EXISTS " + name); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	return u.String()
}

// MySQLAdmin opens a database/sql pool on the server of admin, with no
// default database, closed when the test ends; it also returns admin parsed.
func MySQLAdmin(t testing.TB, admin string) (*sql.DB, *url.URL) {
	t.Helper()
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("admin URL %s: %v", redact(admin), err)
	}
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr = "tcp", u.Host
	cfg.User = u.User.Username()
	cfg.Passwd, _ = u.User.Password()
	cfg.Timeout = 10 * time.Second
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatalf("open %s: %v", redact(admin), err)
	}
	db.SetMaxOpenConns(2)
	t.Cleanup(func() { db.Close() })
	return db, u
}
