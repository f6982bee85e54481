package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDiffCLI: two 2 s runs on the null store print their intervals, and
// diff sets them side by side figure by figure, naming what makes them
// not comparable (the workload); bad input exits 2 naming the fix.
func TestDiffCLI(t *testing.T) {
	cliHome(t)
	dir := t.TempDir()
	run := func(name, wl string) string {
		out := filepath.Join(dir, name)
		r := cliRun(t, "run", "--db", "null?delay=exp:1ms", "--workload", wl, "--edges", "1000", "--threads", "2", "--warmup", "0.2s", "--duration", "2s", "--out", out)
		if r.code != 0 || !strings.Contains(r.stdout, "95% confidence intervals (batch means over 2 batches of 1 s") || !strings.Contains(r.stdout, "\nthroughput ") {
			t.Fatalf("run printed no intervals: %v", r)
		}
		return out
	}
	a, b := run("a.json", "o"), run("b.json", "a")
	r := cliRun(t, "diff", a, b)
	if r.code != 0 || !strings.Contains(r.stdout, "NOT COMPARABLE: workload: o in base, a in new") ||
		!strings.Contains(r.stdout, "throughput") || !strings.Contains(r.stdout, "all p50") || !strings.Contains(r.stdout, "\noverall: ") {
		t.Errorf("diff of workloads o and a: %v", r)
	}
	r = cliRun(t, "diff", a, a, "--confidence", "0.9")
	if r.code != 0 || !strings.Contains(r.stdout, "comparable: same workload") || !strings.Contains(r.stdout, "90% intervals") || !strings.Contains(r.stdout, "overall: no difference detectable") {
		t.Errorf("diff of a file with itself: %v", r)
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"diff", a}, "diff: 1 results files given; give two"},
		{[]string{"diff", a, b, b}, "diff: 3 results files given; give two"},
		{[]string{"diff", "--confidence", "1.5", a, b}, "--confidence 1.5: give a level between 0 and 1"},
		{[]string{"diff", "--confidence", "x", a, b}, "a level between 0 and 1, such as 0.95"},
		{[]string{"diff", a, filepath.Join(dir, "missing.json")}, "missing.json does not exist"},
	} {
		if r := cliRun(t, bad.args...); r.code != 2 || !strings.Contains(r.stderr, bad.want) {
			t.Errorf("taobench %s: want exit 2 saying %q, got %v", strings.Join(bad.args, " "), bad.want, r)
		}
	}
}
