package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/taobench/taobench/workload"
)

// knownFailing are rows a built-in may fail for a reason an open item of
// issue 18 owns, not this test. None now: linkbench's range rows are set
// against the lists its reads draw, counted in the database before and
// after the run (item 7).
var knownFailing = map[string][]string{}

// known reports whether every failed row is a known failure of workload.
func known(workload string, failed []string) bool {
	for _, l := range failed {
		ok := false
		for _, k := range knownFailing[workload] {
			ok = ok || strings.HasPrefix(l, k)
		}
		if !ok {
			return false
		}
	}
	return len(failed) > 0
}

// TestValidateEveryBuiltin: for every built-in workload, the generator's
// check (validate --workload, 1 M requests) and the database's (validate
// --db on a fresh SQLite load: inventory, placement, missing objects and a
// short run's fidelity rows) pass.
func TestValidateEveryBuiltin(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 1 M requests and loads a graph per built-in")
	}
	cliHome(t)
	dir := t.TempDir()
	infos := workload.Builtins()
	if len(infos) < 9 {
		t.Fatalf("%d built-ins: %v", len(infos), infos)
	}
	for _, in := range infos {
		t.Run(in.Name, func(t *testing.T) {
			r := cliRun(t, "validate", "--workload", in.Name, "--edges", "200000", "--requests", "1000000")
			if r.code != 0 || !strings.Contains(r.stdout, "1000000 requests of workload "+in.Name) {
				t.Errorf("validate --workload %s: want exit 0 over 1 M requests\n%v", in.Name, r)
			}
			db := "sqlite:" + filepath.Join(dir, in.Name+".db")
			r = cliRun(t, "validate", "--db", db, "--workload", in.Name, "--edges", "50000",
				"--threads", "2", "--warmup", "300ms", "--duration", "3s", "--seed", "3")
			var failed []string
			for _, l := range strings.Split(r.stdout, "\n") {
				if strings.Contains(l, " FAIL ") {
					failed = append(failed, l)
				}
			}
			switch {
			case known(in.Name, failed):
				t.Logf("known failure (issue 18, item 7): %s", strings.Join(failed, "\n"))
			case r.code != 0 || len(failed) > 0 || !strings.Contains(r.stdout, "forward edges per id1 shard vs placement"):
				t.Errorf("validate --db, workload %s: want exit 0, every row passing or skipped\n%v", in.Name, r)
			}
		})
	}
}
