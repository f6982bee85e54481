package main

import (
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/internal/testenv"
)

// TestCLIStandby: on a primary with streaming standbys of the test's own
// (bench/cluster/postgres, made as an operator makes them: initdb,
// pg_basebackup -R), a graph loaded on the primary can be inspected on a
// standby (info, check: they write nothing), and a run pointed at the
// standby is told it is read-only (exit 2) instead of failing.
func TestCLIStandby(t *testing.T) {
	urls := testenv.PostgresStandbys(t)
	primary, standby := urls[0], urls[1]
	cliMust(t, "load", "--db", primary, "--workload", "o", "--edges", "2000")

	// The standby replays the load within moments; check until it has.
	var r cliResult
	for deadline := time.Now().Add(30 * time.Second); ; {
		if r = cliRun(t, "check", "--db", standby); r.code == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if r.code != 0 || !strings.Contains(r.stdout, "every invariant holds") {
		t.Fatalf("check on the standby:\n%s", r)
	}
	if r = cliRun(t, "info", "--db", standby); r.code != 0 || !strings.Contains(r.stdout, "graph hash") {
		t.Errorf("info on the standby:\n%s", r)
	}
	r = cliRun(t, "run", "--db", standby, "--duration", "1s")
	if r.code != 2 || !strings.Contains(r.stderr, "hot standby") || !strings.Contains(r.stderr, "point --db at the primary") {
		t.Errorf("run on the standby: want exit 2 naming the standby and the fix:\n%s", r)
	}
}
