package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMergeCLI runs two null-store processes of the same schedule, merges
// their files, and finds the counts added, the key sets complete, the
// fidelity rows recomputed; results of another schedule are refused.
func TestMergeCLI(t *testing.T) {
	cliHome(t)
	dir := t.TempDir()
	run := func(name, duration string) string {
		out := filepath.Join(dir, name)
		r := cliRun(t, "run", "--db", "null", "--edges", "10000", "--threads", "2", "--warmup", "0.2s", "--duration", duration, "--out", out)
		if r.code != 0 {
			t.Fatalf("%v", r)
		}
		return out
	}
	a, b := run("a.json", "0.5s"), run("b.json", "0.5s")
	all := filepath.Join(dir, "all.json")
	r := cliRun(t, "merge", a, b, "-o", all)
	if r.code != 0 {
		t.Fatalf("%v", r)
	}
	da, db, dm := cliReadJSON(t, a), cliReadJSON(t, b), cliReadJSON(t, all)
	ea, eb, em := da.Experiments[0], db.Experiments[0], dm.Experiments[0]
	for _, k := range []string{"ops", "attempts", "failed", "threads"} {
		if em[k].(float64) != ea[k].(float64)+eb[k].(float64) {
			t.Errorf("merged %s = %v, want %v + %v", k, em[k], ea[k], eb[k])
		}
	}
	if em["processes"] != 2.0 {
		t.Errorf("merged processes = %v, want 2", em["processes"])
	}
	if rows := em["fidelity"].(map[string]any)["rows"].([]any); len(rows) == 0 {
		t.Errorf("the merged result has no fidelity rows:\n%s", r.stderr)
	}
	if sums := cliParse(t, r.stdout); len(sums) != 1 || float64(sums[0].ops) != em["ops"].(float64) {
		t.Errorf("merge printed %d summaries, want 1 of %v requests:\n%s", len(sums), em["ops"], r.stdout)
	}

	c := run("c.json", "0.4s")
	r = cliRun(t, "merge", a, c, "-o", filepath.Join(dir, "bad.json"))
	if r.code != 2 || !strings.Contains(r.stderr, "do not belong together: experiment 1: duration_s 0.5 in "+a+", 0.4 in "+c) {
		t.Errorf("merging runs of 0.5 s and 0.4 s: want exit 2 saying why, got %v", r)
	}
	cliNoFile(t, filepath.Join(dir, "bad.json"), "a refused merge")

	r = cliRun(t, "merge", a, filepath.Join(dir, "missing.json"))
	if r.code != 2 || !strings.Contains(r.stderr, "missing.json does not exist") {
		t.Errorf("merging a missing file: want exit 2 naming it, got %v", r)
	}
}
