package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRepeatBadValues: --repeat takes a whole number of runs, 1 or more;
// anything else, and --reload without repeats, exit 2 naming the flag.
func TestRepeatBadValues(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--db", "null", "--repeat", "0"}, "--repeat 0: give 1 or more runs"},
		{[]string{"run", "--db", "null", "--repeat", "-3"}, "--repeat -3: give 1 or more runs"},
		{[]string{"run", "--db", "null", "--repeat", "three"}, `"three" is not a whole number`},
		{[]string{"run", "--db", "null", "--repeat", "1.5"}, `"1.5" is not a whole number`},
		{[]string{"run", "--db", "null", "--reload"}, "give --repeat 2 or more"},
		{[]string{"run", "--db", "null", "--repeat", "2", "--start-at", "+5s"}, "--repeat with --run-id, --driver or --start-at"},
		{[]string{"experiment", "compare", "--db", "null", "--workload", "t1", "--workload", "t3", "--repeat", "0"}, "--repeat 0: give 1 or more runs"},
		{[]string{"experiment", "lock-hold", "--db", "null", "--repeat", "x"}, `"x" is not a whole number`},
	} {
		r := cliRun(t, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("want exit 2 saying %q:\n%v", c.want, r)
		}
	}
}

// repeatDoc is what the repeat tests read of a results file.
type repeatDoc struct {
	Steps       []string
	Experiments []struct {
		Threads    int
		Repeat     int
		Throughput float64
	}
	Repeats *struct {
		Method  string
		Configs []struct {
			Config      int
			Experiments []int
			Throughput  struct {
				Values   []float64
				Mean     float64
				Interval *struct{ Lo, Hi float64 }
			}
		}
	}
}

// TestRepeatRun: run --repeat 2 over an experiments file of two runs them
// interleaved (2 threads, 3 threads, 2, 3), each with a run number of its
// own, tags each with its repeat and sums each configuration's repeats
// in the file and the text; --reload reloads the graph between repeats.
func TestRepeatRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exps := filepath.Join(dir, "exps.txt")
	if err := os.WriteFile(exps, []byte("2,0,0.5\n3,0,0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := "sqlite:" + filepath.Join(dir, "r.db")
	out := filepath.Join(dir, "r.json")
	r := cliMust(t, "run", "--db", db, "--edges", "2000", "--experiments", exps, "--repeat", "2", "--out", out)
	doc, _ := readJSONFile[repeatDoc](t, out)
	var got []string
	for _, e := range doc.Experiments {
		got = append(got, fmt.Sprintf("%d/%d", e.Threads, e.Repeat))
	}
	if strings.Join(got, " ") != "2/1 3/1 2/2 3/2" {
		t.Fatalf("experiments (threads/repeat) %v; want 2/1 3/1 2/2 3/2, the configurations interleaved", got)
	}
	if doc.Repeats == nil || doc.Repeats.Method != "across_runs" || len(doc.Repeats.Configs) != 2 {
		t.Fatalf("repeats %+v; want 2 configurations", doc.Repeats)
	}
	for k, c := range doc.Repeats.Configs {
		a, b := doc.Experiments[k].Throughput, doc.Experiments[k+2].Throughput
		tp := c.Throughput
		if fmt.Sprint(c.Experiments) != fmt.Sprint([]int{k + 1, k + 3}) || math.Abs(tp.Mean-(a+b)/2) > 1e-6*tp.Mean ||
			tp.Interval == nil || tp.Interval.Lo > min(a, b) || tp.Interval.Hi < max(a, b) {
			t.Errorf("configuration %d: %+v; want experiments %d, %d, the mean of %g and %g and an interval around both", k+1, c, k+1, k+3, a, b)
		}
	}
	if !strings.Contains(r.stdout, "repeats: each figure per repeat") || !strings.Contains(r.stdout, "experiment 2: 3 threads, closed loop (experiments 2, 4):") {
		t.Errorf("no repeats summary in the text:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "experiment 2 of 2 (repeat 2 of 2)") {
		t.Errorf("the status lines do not say the repeat:\n%s", r.stderr)
	}
	// diff of two repeated runs compares configurations across repeats.
	if d := cliMust(t, "diff", out, out); !strings.Contains(d.stdout, "both runs repeated (2 and 2 repeats)") ||
		!strings.Contains(d.stdout, "overall: no difference detectable") || !regexp.MustCompile(`(?m)^2 +throughput `).MatchString(d.stdout) {
		t.Errorf("diff of a repeated run with itself:\n%s", d.stdout)
	}
	if info := cliMust(t, "info", "--db", db); !strings.Contains(info.stdout, "run numbers reserved  4") {
		t.Errorf("want 4 run numbers reserved, one per experiment of every repeat:\n%s", info.stdout)
	}

	r = cliMust(t, "run", "--db", db, "--experiments", exps, "--repeat", "2", "--reload")
	if n := strings.Count(r.stderr, "--reload: dropping the graph"); n != 1 {
		t.Errorf("%d reloads for 2 repeats; want 1:\n%s", n, r.stderr)
	}
	cliMust(t, "check", "--db", db)
}

// TestRepeatExperiment: experiment compare --repeat 2 runs both workloads
// in each repeat, prints each repeat's table, and sums the repeats.
func TestRepeatExperiment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "c.json")
	r := cliMust(t, "experiment", "compare", "--db", "sqlite:"+filepath.Join(dir, "c.db"), "--workload", "t1", "--workload", "t3",
		"--threads", "2", "--warmup", "0", "--duration", "0.4", "--edges", "3000", "--repeat", "2", "--out", out)
	if n := strings.Count(r.stdout, "t1 vs t3"); n != 2 {
		t.Errorf("%d comparison tables; want one per repeat:\n%s", n, r.stdout)
	}
	if !strings.Contains(r.stdout, "repeat 2 of 2: request seed") || !strings.Contains(r.stdout, "t3 (experiments 2, 4):") {
		t.Errorf("no repeat headings or summary:\n%s", r.stdout)
	}
	doc, _ := readJSONFile[repeatDoc](t, out)
	if strings.Join(doc.Steps, " ") != "t1 t3 t1 t3" || len(doc.Experiments) != 4 || doc.Experiments[3].Repeat != 2 || doc.Repeats == nil || len(doc.Repeats.Configs) != 2 {
		t.Errorf("steps %v, %d experiments, repeats %+v; want t1 t3 t1 t3 over 2 repeats", doc.Steps, len(doc.Experiments), doc.Repeats)
	}
}
