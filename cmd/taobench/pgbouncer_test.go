package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/taobench/taobench/internal/testenv"
)

// TestCLIPgBouncer runs taobench through a real PgBouncer (Debian's,
// 1.18 here: no prepared statements in transaction mode) in transaction
// mode, in front of the shared PostgreSQL: load, workload a, check, with
// the URLs docs/databases.md gives ("Behind a connection pooler"): the
// one that says default_query_exec_mode=exec, and the plain one, on which
// the store sees the pooler itself. Nothing may be lost and every
// invariant must hold. Before the store set its session settings after
// connecting, PgBouncer refused every connection ("unsupported startup
// parameter: default_transaction_isolation").
func TestCLIPgBouncer(t *testing.T) {
	through := testenv.StartPgBouncer(t, testenv.FreshPostgres(t, testenv.PostgresURL(t)))
	exec := through + "&default_query_exec_mode=exec"
	if !strings.Contains(through, "?") {
		exec = through + "?default_query_exec_mode=exec"
	}
	if r := cliRun(t, "load", "--db", exec, "--edges", "2000"); r.code != 0 || !strings.Contains(r.stderr, "loaded") {
		t.Fatalf("load through PgBouncer: %v", r)
	}
	for _, db := range []string{exec, through} {
		out := filepath.Join(t.TempDir(), "a.json")
		r := cliRun(t, "run", "--db", db, "--workload", "a", "--edges", "2000", "--threads", "8",
			"--warmup", "0", "--duration", "2s", "--out", out)
		if r.code != 0 {
			t.Fatalf("workload a through PgBouncer (%s): %v", db, r)
		}
		if !strings.Contains(r.stderr, "connection pooler") {
			t.Errorf("workload a through PgBouncer: no note of the pooler on stderr:\n%s", r.stderr)
		}
		doc := cliReadJSON(t, out)
		if c, _ := doc.Run["client"].(map[string]any); c["pooler"] != "detected" {
			t.Errorf("workload a through PgBouncer (%s): run.client %v, want pooler \"detected\"", db, c)
		}
		e := doc.Experiments[0]
		if n := cliNum(t, e, "ops"); n < 100 {
			t.Errorf("workload a through PgBouncer (%s): %v requests, want at least 100", db, n)
		}
		if n := cliNum(t, e, "lost", "count"); n != 0 {
			t.Errorf("workload a through PgBouncer (%s): %v requests lost to errors and timeouts:\n%s", db, n, r.stderr)
		}
	}
	if r := cliRun(t, "check", "--db", exec); r.code != 0 || !strings.Contains(r.stdout, "every invariant holds") {
		t.Errorf("check through PgBouncer: %v", r)
	}
}
