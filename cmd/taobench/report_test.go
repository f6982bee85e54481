package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestReportCLIErrors: report refuses, with exit 2 and the file and fix
// named, files that are missing or not results; it writes no page then.
func TestReportCLIErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "r.html")
	notResult := filepath.Join(dir, "other.json")
	if err := os.WriteFile(notResult, []byte(`{"name": "not a result"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	notJSON := filepath.Join(dir, "page.html")
	if err := os.WriteFile(notJSON, []byte("<html></html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "-o", out}, "no results files; give one or more"},
		{[]string{"report", filepath.Join(dir, "missing.json"), "-o", out}, "missing.json does not exist; give the JSON files"},
		{[]string{"report", notResult, "--out", out}, notResult + ": not a taobench results document: no run.workload; give a JSON file that taobench run"},
		{[]string{"report", notJSON, "-o", out}, notJSON + ": not a taobench results document"},
		{[]string{"report", notResult, "-o", dir}, "is a directory"},
		{[]string{"report", dir, "-o", out}, "cannot read " + dir + ": is a directory; give the JSON files"},
	} {
		r := cliRun(t, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: want exit 2 saying %q, got %v", c.args, c.want, r)
		}
		cliNoFile(t, out, "a refused report")
	}
}

// reportInputs writes the results the browser test reports on: a run with
// a warmup (a.json) and a two-step sweep (s.json), run at once and at a
// modest rate to keep the test short.
func reportInputs(t *testing.T, dir string) (a, s string) {
	cliHome(t)
	a, s = filepath.Join(dir, "a.json"), filepath.Join(dir, "s.json")
	var wg sync.WaitGroup
	var ra, rs cliResult
	wg.Go(func() {
		ra = cliRun(t, "run", "--db", "null", "--edges", "10000", "--threads", "2", "--rate", "3000",
			"--warmup", "0.5s", "--duration", "1.5s", "--out", a)
	})
	wg.Go(func() {
		rs = cliRun(t, "sweep", "--db", "null", "--edges", "10000", "--rates", "1000,3000", "--threads", "2",
			"--warmup", "0.2s", "--duration", "0.6s", "--out", s)
	})
	wg.Wait()
	if ra.code != 0 || rs.code != 0 {
		t.Fatalf("run: %v\nsweep: %v", ra, rs)
	}
	return a, s
}

// timelineSeconds counts, per class, the seconds of experiment i's
// timeline in which the class had requests: the points the throughput
// chart must draw.
func timelineSeconds(t *testing.T, path string, i int) map[string]int {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Experiments []struct {
			Timeline []struct {
				Requests map[string][]int64 `json:"requests"`
			} `json:"timeline"`
		} `json:"experiments"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, sec := range doc.Experiments[i].Timeline {
		for class, counts := range sec.Requests {
			var sum int64
			for _, c := range counts {
				sum += c
			}
			if sum > 0 {
				n[class]++
			}
		}
	}
	return n
}
