package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/store"
)

// TestCLIStandby: on a primary with streaming standbys of the test's own
// (bench/cluster/postgres, made as an operator makes them: initdb,
// pg_basebackup -R), a graph loaded on the primary can be inspected on a
// standby (info, check: they write nothing), and a run pointed at the
// standby is told it is read-only (exit 2) instead of failing. With
// --replica the standby serves the run's reads and the primary its writes;
// with --replica and no --db a read-only workload runs on the standby
// alone, and one that writes is refused (exit 2).
func TestCLIStandby(t *testing.T) {
	testenv.Integration(t)
	t.Parallel()
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

	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	cliMust(t, "run", "--db", primary, "--replica", standby, "--replica", urls[2], "--workload", "o", "--threads", "4", "--warmup", "0", "--duration", "2s", "--out", out)
	tiers := consistencyTiers(t, out)
	if rep, db := tiers["db_replica"], tiers["db"]; rep.Served == 0 || db.Served != 0 || db.Stale != 0 {
		t.Errorf("with --replica: the replicas served %d reads, the primary %d (%d stale); want the replicas all", rep.Served, db.Served, db.Stale)
	}
	// A row per replica under db_replica, named by its redacted URL.
	var rows struct {
		Experiments []struct {
			Consistency struct {
				Tiers map[string]struct {
					Replicas []struct {
						URL      string
						Served   int64
						Errors   int64
						Promoted bool
					}
				}
			}
		}
	}
	if b, err := os.ReadFile(out); err != nil || json.Unmarshal(b, &rows) != nil || len(rows.Experiments) == 0 {
		t.Fatalf("%s: %v", out, err)
	}
	got := rows.Experiments[0].Consistency.Tiers["db_replica"].Replicas
	if len(got) != 2 || got[0].URL != store.Redact(standby) || got[1].URL != store.Redact(urls[2]) || got[0].Served == 0 || got[1].Served == 0 || got[0].Promoted {
		t.Errorf("with two --replica: rows %+v; want one per replica, named by its redacted URL, each with reads", got)
	}

	// sweep, rate and experiment send the database tier's reads to the
	// replica too: every probe and step reads from it, and its figures
	// are in each experiment's consistency.
	for _, c := range [][]string{
		{"sweep", "--rates", "100,200"},
		{"rate", "--sla", "p99<=2s", "--start", "100", "--precision", "50"},
		{"experiment", "lock-hold", "--holds", "0,5ms"},
	} {
		out := filepath.Join(dir, c[0]+".json")
		r := cliRun(t, append(c, "--db", primary, "--replica", standby, "--workload", "o", "--threads", "2", "--warmup", "0", "--duration", "0.5", "--out", out)...)
		if r.code != 0 && r.code != exitFailed { // a rating may fail its SLA on a loaded machine
			t.Errorf("%s with --replica:\n%s", c[0], r)
			continue
		}
		for i, tiers := range allConsistencyTiers(t, out) {
			if rep, db := tiers["db_replica"], tiers["db"]; rep.Served == 0 || db.Served != 0 || db.Stale != 0 {
				t.Errorf("%s with --replica, experiment %d: the replica served %d reads, the primary %d (%d stale); want the replica all", c[0], i, rep.Served, db.Served, db.Stale)
			}
		}
	}

	// A "replica" that is none (an SQLite file of another graph) is
	// refused before the run; so is the primary given as its own replica.
	other := "sqlite:" + filepath.Join(dir, "other.db")
	cliMust(t, "load", "--db", other, "--workload", "o", "--edges", "1000")
	r = cliRun(t, "run", "--db", primary, "--replica", other, "--workload", "o", "--duration", "1s")
	if r.code != 2 || !strings.Contains(r.stderr, "is not a replica") || !strings.Contains(r.stderr, "give a replica (standby) of --db") {
		t.Errorf("an SQLite file as --replica: want exit 2 naming the fix:\n%s", r)
	}
	r = cliRun(t, "run", "--db", primary, "--replica", primary, "--workload", "o", "--duration", "1s")
	if r.code != 2 || !strings.Contains(r.stderr, "is the primary itself") {
		t.Errorf("the primary as --replica: want exit 2 naming it:\n%s", r)
	}

	r = cliRun(t, "run", "--replica", standby, "--workload", "o", "--duration", "1s")
	if r.code != 2 || !strings.Contains(r.stderr, "--replica without a primary") || !strings.Contains(r.stderr, "give the primary database, or a workload of reads only (the primary: --db)") {
		t.Errorf("a writing workload on a replica alone: want exit 2 naming the fix:\n%s", r)
	}
	src, err := os.ReadFile("../../workload/builtin/o.workload")
	if err != nil {
		t.Fatal(err)
	}
	ro := strings.Replace(strings.Replace(string(src), "operations read:8387 write:19 read_txn:242 write_txn:1", "operations read:8387 read_txn:242", 1), "name o", "name o_reads", 1)
	roFile := filepath.Join(dir, "o_reads.workload")
	if err := os.WriteFile(roFile, []byte(ro), 0o644); err != nil {
		t.Fatal(err)
	}
	cliMust(t, "run", "--replica", standby, "--workload", roFile, "--threads", "4", "--warmup", "0", "--duration", "1s", "--out", out)
	if rep := consistencyTiers(t, out)["db_replica"]; rep.Served == 0 || rep.Stale != 0 {
		t.Errorf("a read-only workload on the standby alone: %d reads, %d stale; want reads, none stale", rep.Served, rep.Stale)
	}
}

// consistencyTiers returns the first experiment's consistency tiers of a
// results file.
func consistencyTiers(t *testing.T, path string) map[string]struct{ Served, Stale int64 } {
	t.Helper()
	return allConsistencyTiers(t, path)[0]
}

// allConsistencyTiers returns every experiment's consistency tiers of a
// results file.
func allConsistencyTiers(t *testing.T, path string) []map[string]struct{ Served, Stale int64 } {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Experiments []struct {
			Consistency struct {
				Tiers map[string]struct{ Served, Stale int64 }
			}
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Experiments) == 0 {
		t.Fatalf("%s: %v", path, err)
	}
	var all []map[string]struct{ Served, Stale int64 }
	for _, x := range doc.Experiments {
		all = append(all, x.Consistency.Tiers)
	}
	return all
}
