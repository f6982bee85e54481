package session_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
)

// TestSplitSpecResolve: drivers given no seed derive the same one from
// what they share; a schedule already over is bad input naming the flag.
func TestSplitSpecResolve(t *testing.T) {
	t.Parallel()
	now := time.Now()
	exps := []run.Experiment{{Threads: 4, Duration: time.Second}}
	var seeds []uint64
	for _, d := range []string{"0/2", "1/2"} {
		sp, seed, err := session.SplitSpec{Driver: d, RunID: "r1"}.Resolve("run", "o", 99, false, exps, now)
		if err != nil || sp.RunID != "r1" || sp.Driver.N() != 2 {
			t.Fatalf("--driver %s --run-id r1: %+v, %v", d, sp, err)
		}
		seeds = append(seeds, seed)
	}
	if seeds[0] != seeds[1] || seeds[0] == 99 {
		t.Errorf("drivers of run r1 drew seeds %v: want one shared seed derived from the run id", seeds)
	}
	if _, seed, _ := (session.SplitSpec{Driver: "0/2", RunID: "r1"}).Resolve("run", "o", 99, true, exps, now); seed != 99 {
		t.Errorf("a given seed became %d", seed)
	}
	past := now.Add(-time.Hour).UTC().Format(time.RFC3339)
	_, _, err := session.SplitSpec{StartAt: past}.Resolve("run", "o", 1, true, exps, now)
	var ie *session.InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "run: --start-at "+past+" is in the past") {
		t.Errorf("--start-at an hour ago: %v", err)
	}
}

// TestWorkloadsNotes: a run injecting latency from a workload that gives
// none is bad input; one that gives some is told what it injects.
func TestWorkloadsNotes(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "adds.workload")
	if err := os.WriteFile(file, []byte("operations write:1\nwrite_operation_types obj_add:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := session.Workloads([]string{file}, true); err == nil || !strings.Contains(err.Error(), "--inject-latency: workload") || !strings.Contains(err.Error(), "gives none") {
		t.Errorf("a workload without latencies, injected: %v", err)
	}
	ws, notes, err := session.Workloads([]string{"o"}, true)
	if err != nil || len(ws) != 1 || !slices.ContainsFunc(notes, func(n string) bool { return strings.HasPrefix(n, "injecting client-side latency from workload o's") }) {
		t.Errorf("o injected: %v, notes %q", err, notes)
	}
	if _, _, err := session.Workloads([]string{"no-such-workload"}, false); !errors.As(err, new(*session.InputError)) {
		t.Errorf("an unknown workload: %v, want an InputError", err)
	}
}
