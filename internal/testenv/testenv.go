// Package testenv tells tests where the things they depend on are: the
// shared reference data beside the repository and the database servers on
// loopback. Where one is absent a test skips with a clear message, unless
// TAOBENCH_REQUIRE=1 (set by .ci/run), which turns every such skip into a
// failure so CI never passes by skipping.
package testenv

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Required reports whether absent dependencies must fail tests.
func Required() bool { return os.Getenv("TAOBENCH_REQUIRE") == "1" }

func skipOrFail(t testing.TB, format string, args ...any) {
	t.Helper()
	if Required() {
		t.Fatalf("TAOBENCH_REQUIRE=1: "+format, args...)
	}
	t.Skipf(format, args...)
}

// SharedDir returns the path of ../shared (the reference data and papers
// beside the repository), skipping the test where it is absent.
func SharedDir(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	// internal/testenv/testenv.go → repository root → its parent.
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared")
	if d := os.Getenv("TAOBENCH_SHARED"); d != "" {
		dir = d
	}
	if _, err := os.Stat(filepath.Join(dir, "reference")); err != nil {
		skipOrFail(t, "shared reference data not found at %s (set TAOBENCH_SHARED): %v", dir, err)
	}
	return dir
}

// PostgresURL returns the URL of a reachable PostgreSQL server's admin
// database (TAOBENCH_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/postgres),
// skipping the test where nothing listens there.
func PostgresURL(t testing.TB) string {
	t.Helper()
	return server(t, "TAOBENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "127.0.0.1:5432", "PostgreSQL")
}

// MySQLURL returns the URL of a reachable MySQL-protocol server
// (TAOBENCH_MYSQL_URL, default mysql://root@127.0.0.1:3306/test), skipping
// the test where nothing listens there.
func MySQLURL(t testing.TB) string {
	t.Helper()
	return server(t, "TAOBENCH_MYSQL_URL", "mysql://root@127.0.0.1:3306/test", "127.0.0.1:3306", "MySQL/MariaDB")
}

func server(t testing.TB, env, def, addr, name string) string {
	t.Helper()
	u := def
	if v := os.Getenv(env); v != "" {
		u = v
		if h := hostPort(v); h != "" {
			addr = h
		}
	}
	d := net.Dialer{Timeout: 2 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		skipOrFail(t, "%s not reachable at %s (set %s): %v", name, addr, env, err)
		return ""
	}
	c.Close()
	return u
}

func hostPort(raw string) string {
	// Only used to probe reachability: scheme://[user[:pass]@]host:port/...
	s := raw
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	if i := strings.LastIndex(s, "@"); i >= 0 {
		s = s[i+1:]
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '/' || s[i] == '?' {
			s = s[:i]
			break
		}
	}
	return s
}
