package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/run"
)

// TestSplitSpecResolve: drivers given no seed derive the same one from
// what they share; a schedule already over is bad input naming the flag.
func TestSplitSpecResolve(t *testing.T) {
	t.Parallel()
	now := time.Now()
	exps := []run.Experiment{{Threads: 4, Duration: time.Second}}
	var seeds []uint64
	for _, d := range []string{"0/2", "1/2"} {
		sp, seed, err := splitSpec{Driver: d, RunID: "r1"}.resolve("run", "o", 99, false, exps, now)
		if err != nil || sp.RunID != "r1" || sp.Driver.N() != 2 {
			t.Fatalf("--driver %s --run-id r1: %+v, %v", d, sp, err)
		}
		seeds = append(seeds, seed)
	}
	if seeds[0] != seeds[1] || seeds[0] == 99 {
		t.Errorf("drivers of run r1 drew seeds %v: want one shared seed derived from the run id", seeds)
	}
	if _, seed, _ := (splitSpec{Driver: "0/2", RunID: "r1"}).resolve("run", "o", 99, true, exps, now); seed != 99 {
		t.Errorf("a given seed became %d", seed)
	}
	past := now.Add(-time.Hour).UTC().Format(time.RFC3339)
	_, _, err := splitSpec{StartAt: past}.resolve("run", "o", 1, true, exps, now)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != exitBadInput || !strings.Contains(err.Error(), "run: --start-at "+past+" is in the past") {
		t.Errorf("--start-at an hour ago: %v", err)
	}
}
