package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/tao"
)

// TestVitess: taobench through vtgate's MySQL protocol on a keyspace of 2
// shards (bench/cluster/vitess; runs where TAOBENCH_VITESS names the
// binaries' DIR). load, run of workload a at 16 clients, check and
// validate --db each exit 0, the results name Vitess and lose no request;
// then an inverse edge deleted through vtgate makes check fail, naming the
// invariant: the check reads both shards, not one.
func TestVitess(t *testing.T) {
	u := testenv.Vitess(t)
	cliMust(t, "load", "--db", u, "--workload", "a", "--edges", "20000")
	out := filepath.Join(t.TempDir(), "run.json")
	cliMust(t, "run", "--db", u, "--workload", "a", "--threads", "16", "--duration", "10s", "--out", out)
	var doc struct {
		Experiments []struct {
			Attempts  int64            `json:"attempts"`
			Outcomes  map[string]int64 `json:"outcomes"`
			Resources struct {
				Server struct {
					Product string `json:"product"`
				} `json:"server"`
			} `json:"resources"`
		} `json:"experiments"`
	}
	decodeJSONFile(t, out, &doc)
	if len(doc.Experiments) != 1 {
		t.Fatalf("%d experiments in the results, want 1", len(doc.Experiments))
	}
	e := doc.Experiments[0]
	if !strings.HasPrefix(e.Resources.Server.Product, "Vitess ") {
		t.Errorf("product %q, want Vitess and its version", e.Resources.Server.Product)
	}
	if e.Outcomes["ok"] < 1000 {
		t.Errorf("%d requests ok in 10 s at 16 clients (outcomes %v)", e.Outcomes["ok"], e.Outcomes)
	}
	// Conflicts (lock waits over 1 s) are the database's answer on a busy
	// machine; an error or a timeout is not.
	for _, k := range []string{"error", "timeout"} {
		if e.Outcomes[k] != 0 {
			t.Errorf("%d requests ended %s (outcomes %v): want none lost", e.Outcomes[k], k, e.Outcomes)
		}
	}
	t.Logf("outcomes %v", e.Outcomes)
	cliMust(t, "check", "--db", u)
	cliMust(t, "validate", "--db", u, "--workload", "a", "--threads", "16", "--duration", "10s")

	// Damage: one inverse edge deleted (it lives on its own id1's shard,
	// usually not its forward edge's).
	db, _ := testenv.MySQLAdmin(t, u)
	var inv []string
	for ty := tao.EdgeType(1); ty <= tao.MaxBaseType; ty++ {
		if _, ok := ty.Inverse(); ok && !ty.IsForward() {
			inv = append(inv, strconv.Itoa(int(ty)))
		}
	}
	if len(inv) == 0 {
		t.Fatal("no inverse edge types")
	}
	var id1, ty, id2 int64
	q := "SELECT id1, type, id2 FROM taobench.edges WHERE type % " + strconv.Itoa(int(tao.TypeStride)) + " IN (" + strings.Join(inv, ", ") + ") LIMIT 1"
	if err := db.QueryRow(q).Scan(&id1, &ty, &id2); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if _, err := db.Exec("DELETE FROM taobench.edges WHERE id1 = ? AND type = ? AND id2 = ?", id1, ty, id2); err != nil {
		t.Fatal(err)
	}
	r := cliRun(t, "check", "--db", u)
	if r.code != 1 || !strings.Contains(r.stdout+r.stderr, "bidirectional edge has its inverse") {
		t.Errorf("check after deleting the inverse edge (%d, %d, %d): want exit 1 naming the missing inverse\n%v", id1, ty, id2, r)
	}
}
