package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// TestCLIRunsPrintTheirSeeds: two runs in a row draw different request
// seeds and print them, to repeat a run by (that experiments of one run
// draw streams of their own is session's TestExperimentsDrawTheirOwnStreams).
func TestCLIRunsPrintTheirSeeds(t *testing.T) {
	t.Parallel()
	db := "sqlite:" + filepath.Join(t.TempDir(), "s.db")
	if r := cliRun(t, "load", "--db", db, "--edges", "2000"); r.code != 0 {
		t.Fatalf("load: %v", r)
	}
	seeds := map[string]bool{}
	re := regexp.MustCompile(`give --seed (\d+) to repeat them`)
	for range 2 {
		r := cliRun(t, "run", "--db", db, "--threads", "1", "--warmup", "0", "--duration", "0.2")
		m := re.FindStringSubmatch(r.stderr)
		if r.code != 0 || m == nil {
			t.Fatalf("run: no request seed printed\n%v", r)
		}
		seeds[m[1]] = true
	}
	if len(seeds) != 2 {
		t.Errorf("two runs in a row drew the same request seed %v", seeds)
	}
}

// TestCLIInterruptedLoad: a load cut short is recorded as loading; run and
// validate refuse it and say how to resume; check reports it; the same
// load again resumes it, and then everything holds. The load reports at
// once when the graph is recorded as loading; 50,000 edges on one loader
// take a good part of a second, and the test interrupts at that first
// report (a load that ends first fails it: exit 0, not 130).
func TestCLIInterruptedLoad(t *testing.T) {
	cliHome(t)
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "l.db")
	args := []string{"load", "--db", db, "--edges", "50000", "--load-threads", "1"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout cliSyncBuffer
	stderr := newCLISyncBuffer("load: ")
	done := make(chan int, 1)
	go func() { done <- realMain(ctx, args, &stdout, stderr) }()
	select {
	case <-stderr.seen:
	case code := <-done:
		t.Fatalf("the load ended (exit %d) before it reported progress:\n%s", code, stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("no progress within 60 s:\n%s", stderr.String())
	}
	cancel()
	if code := <-done; code != 130 {
		t.Fatalf("interrupted load: exit %d, want 130\n%s", code, stderr.String())
	}

	r := cliRun(t, "run", "--db", db, "--warmup", "0", "--duration", "0.2")
	if r.code != 2 || strings.Contains(r.stderr, "experiment 1") || !strings.Contains(r.stderr, "interrupted load") ||
		!strings.Contains(r.stderr, "taobench load --workload o --edges 50000 --seed 1") || !strings.Contains(r.stderr, "--drop") {
		t.Errorf("run on an interrupted load: want exit 2 before any experiment, saying how to resume or start over\n%v", r)
	}
	if strings.Contains(r.stderr, "holds no graph yet") {
		t.Errorf("run topped up an interrupted load with another graph\n%v", r)
	}
	r = cliRun(t, "check", "--db", db)
	if r.code != 1 || !strings.Contains(r.stdout, "the load is complete") {
		t.Errorf("check of an interrupted load: want exit 1 and the violation named\n%v", r)
	}

	r = cliRun(t, args...)
	if r.code != 0 || !strings.Contains(r.stderr, "resuming it") {
		t.Fatalf("the same load again: want it resumed\n%v", r)
	}
	if r := cliRun(t, "check", "--db", db); r.code != 0 || !strings.Contains(r.stdout, "every invariant holds") {
		t.Errorf("check after the resumed load: %v", r)
	}
	if r := cliRun(t, "run", "--db", db, "--threads", "2", "--warmup", "0", "--duration", "0.3"); r.code != 0 {
		t.Errorf("run after the resumed load: %v", r)
	}
	r = cliRun(t, "info", "--db", db)
	for _, want := range []string{"graph of workload", "50000", "complete", "run numbers reserved  1"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("info lacks %q\n%v", want, r)
		}
	}
}

// TestCLICheckNoGraph: check and info of a database with no graph say so
// in one line, exit 2; of a path where there is no database, they say so
// and create nothing (issue 17).
func TestCLICheckNoGraph(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o644); err != nil { // an empty file is an empty SQLite database
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "sub", "missing.db")
	for _, cmd := range []string{"check", "info"} {
		r := cliRun(t, cmd, "--db", "sqlite:"+empty)
		if errs := cliErrorLines(r.stderr); r.code != 2 || len(errs) != 1 || !strings.Contains(errs[0], "holds no taobench graph") {
			t.Errorf("%s of an empty database: want exit 2 and one line\n%v", cmd, r)
		}
		r = cliRun(t, cmd, "--db", "sqlite:"+missing)
		if errs := cliErrorLines(r.stderr); r.code != 2 || len(errs) != 1 || !strings.Contains(errs[0], "does not exist") || !strings.Contains(errs[0], "taobench load") {
			t.Errorf("%s of a missing database: want exit 2 and one line naming the fix\n%v", cmd, r)
		}
		if _, err := os.Stat(filepath.Dir(missing)); !os.IsNotExist(err) {
			t.Errorf("%s of a missing database created %s (%v)", cmd, filepath.Dir(missing), err)
		}
	}
}
