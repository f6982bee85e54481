package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taobench/taobench/store"
)

// TestCLIDriverBadInput: each mistake in --driver, --run-id or --start-at
// exits 2 with the flag named and the fix, before anything runs.
func TestCLIDriverBadInput(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--driver", "5/4", "--run-id", "r"}, "--driver \"5/4\": I counts from 0 and must be below N: give --driver 0/4 to --driver 3/4"},
		{[]string{"--driver", "4/4", "--run-id", "r"}, "give --driver 0/4 to --driver 3/4"},
		{[]string{"--driver", "x", "--run-id", "r"}, "--driver \"x\": give I/N"},
		{[]string{"--driver", "1/0", "--run-id", "r"}, "N must be 1 to 4096"},
		{[]string{"--start-at", "garbage"}, "--start-at \"garbage\": give an RFC 3339 instant"},
		{[]string{"--start-at", "+soon"}, "after '+' give a duration"},
		{[]string{"--run-id", "a b"}, "--run-id \"a b\": give 1 to 63 letters"},
		{[]string{"--driver", "1/4"}, "--driver 1/4 needs what all drivers share: --run-id ID, or --start-at as an RFC 3339 instant"},
		{[]string{"--driver", "1/4", "--start-at", "+10s"}, "a relative --start-at differs per process"},
		{[]string{"--driver", "3/4", "--run-id", "r", "--threads", "2"}, "experiment 1 has 2 threads, fewer than the 4 drivers"},
		{[]string{"load", "--driver", "9/2"}, "load: --driver \"9/2\": I counts from 0"},
		{[]string{"load", "--driver", "0/2", "--drop"}, "--drop with --driver 0/2 would drop the rows the other loaders are writing"},
	} {
		args := append([]string{"run", "--db", "null", "--duration", "1"}, c.args...)
		if c.args[0] == "load" {
			args = append([]string{"load", "--db", "sqlite:" + filepath.Join(t.TempDir(), "x.db")}, c.args[1:]...)
		}
		r := cliRun(t, args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "panic") {
			t.Errorf("%v: want exit 2 and %q\n%v", c.args, c.want, r)
		}
	}
}

// TestCLIStartAt: a process waits for --start-at and says so; one that
// reaches it late keeps the shared windows, says how late on stderr and
// records it (late_s, a shorter measured window).
func TestCLIStartAt(t *testing.T) {
	cliHome(t)
	out := filepath.Join(t.TempDir(), "r.json")
	r := cliRun(t, "run", "--db", "null", "--threads", "2", "--warmup", "0.2", "--duration", "0.5", "--start-at", "+1s", "--out", out)
	if r.code != 0 || !strings.Contains(r.stderr, "taobench: waiting until ") || !strings.Contains(r.stderr, "for the shared start; Ctrl-C stops") {
		t.Fatalf("want a wait for the shared start, said on stderr\n%v", r)
	}
	d := cliReadJSON(t, out)
	if late := cliNum(t, d.Experiments[0], "late_s"); late > 0.5 || d.Experiments[0]["shared_start"] == "" {
		t.Errorf("on time: late_s %v, shared_start %v", late, d.Experiments[0]["shared_start"])
	}

	// The shared start passed 1.2 s ago, with a 1 s warmup and 2 s
	// measured: no warmup, about 1.8 s measured.
	start := time.Now().Add(-1200 * time.Millisecond).UTC().Format(time.RFC3339Nano)
	r = cliRun(t, "run", "--db", "null", "--threads", "2", "--warmup", "1", "--duration", "2", "--start-at", start, "--out", out)
	if r.code != 0 || !strings.Contains(r.stderr, "experiment 1 began ") || !strings.Contains(r.stderr, "after its shared start "+start+": it ran no warmup and measured") {
		t.Fatalf("want the late start said on stderr\n%v", r)
	}
	d = cliReadJSON(t, out)
	e := d.Experiments[0]
	late, measured := cliNum(t, e, "late_s"), cliNum(t, e, "measured_s")
	if late < 1.2 || late > 2 || measured > 1.8 || measured < 1 || cliNum(t, e, "duration_s") != 2 {
		t.Errorf("late start: late_s %v (want 1.2 to 2), measured_s %v (want about 1.8)", late, measured)
	}
}

// distInventory is what a database holds, counted by shard and type.
func distInventory(t *testing.T, dbURL string) store.Inventory {
	t.Helper()
	ctx := context.Background()
	st, err := store.Default.Open(ctx, dbURL, store.Options{Clients: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	inv, err := st.(store.Inspector).Inspect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

// TestCLILoadParts: three loads of parts of one graph, one after another
// on SQLite, give the rows one load gives; a run refuses the graph while a
// part is missing, naming it.
func TestCLILoadParts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	split, whole := "sqlite:"+filepath.Join(dir, "split.db"), "sqlite:"+filepath.Join(dir, "whole.db")
	load := func(db string, extra ...string) cliResult {
		r := cliRun(t, append([]string{"load", "--db", db, "--workload", "a", "--edges", "3000", "--seed", "5"}, extra...)...)
		if r.code != 0 {
			t.Fatalf("load: %v", r)
		}
		return r
	}
	load(whole)
	r := load(split, "--driver", "0/3")
	if !strings.Contains(r.stderr, "loading part 0/3") || !strings.Contains(r.stderr, "the graph is complete when part(s) 1/3, 2/3 are loaded too") {
		t.Errorf("part 0/3 did not say what is left:\n%v", r)
	}
	load(split, "--driver", "2/3")
	r = cliRun(t, "run", "--db", split, "--duration", "0.2")
	if r.code != 2 || !strings.Contains(r.stderr, "loaded in 3 parts, and part(s) 1/3 are not loaded yet: run taobench load --driver I/3") {
		t.Errorf("run on a graph missing part 1/3: want exit 2 naming it\n%v", r)
	}
	r = cliRun(t, "load", "--db", split, "--workload", "a", "--edges", "3000", "--seed", "5", "--driver", "1/2")
	if r.code != 2 || !strings.Contains(r.stderr, "split into 3 parts, not 2") {
		t.Errorf("joining with another N: want exit 2\n%v", r)
	}
	r = load(split, "--driver", "1/3")
	if !strings.Contains(r.stderr, "every part of the graph is loaded: the graph is complete") {
		t.Errorf("the last part did not complete the graph:\n%v", r)
	}
	if a, b := distInventory(t, split), distInventory(t, whole); !reflect.DeepEqual(a, b) {
		t.Errorf("three parts hold %+v, one load %+v", a, b)
	}
	if r := cliRun(t, "check", "--db", split); r.code != 0 {
		t.Errorf("check after the parts: %v", r)
	}
	if r := cliRun(t, "run", "--db", split, "--duration", "0.2", "--warmup", "0"); r.code != 0 {
		t.Errorf("run on the complete graph: %v", r)
	}
}

// TestCLIDBFromEnv: --db env:NAME takes the URL from the environment, as
// the Kubernetes example passes its Secret, and an unset one is bad input.
func TestCLIDBFromEnv(t *testing.T) {
	cliHome(t)
	t.Setenv("TAOBENCH_TEST_DB", "null?delay=1ms")
	r := cliRun(t, "run", "--db", "env:TAOBENCH_TEST_DB", "--duration", "0.2", "--warmup", "0")
	if r.code != 0 || !strings.Contains(r.stderr, "on null?delay=1ms") {
		t.Errorf("--db env:: want a run on the URL from the environment\n%v", r)
	}
	r = cliRun(t, "run", "--db", "env:TAOBENCH_TEST_UNSET", "--duration", "0.2")
	if r.code != 2 || !strings.Contains(r.stderr, `--db env:TAOBENCH_TEST_UNSET: the environment variable "TAOBENCH_TEST_UNSET" is unset or empty`) {
		t.Errorf("unset variable: want exit 2 naming it\n%v", r)
	}
}

// TestCLIDriverNeedsGraph: drivers never load a graph themselves.
func TestCLIDriverNeedsGraph(t *testing.T) {
	t.Parallel()
	db := "sqlite:" + filepath.Join(t.TempDir(), "empty.db")
	r := cliRun(t, "run", "--db", db, "--driver", "0/2", "--run-id", "r", "--duration", "0.2")
	if r.code != 2 || !strings.Contains(r.stderr, "holds no graph, and drivers do not load one") || strings.Contains(r.stderr, "loading") {
		t.Errorf("drivers on an empty database: want exit 2 and no load\n%v", r)
	}
}

// TestCLIStartAtInterrupt: Ctrl-C while waiting for the shared start ends
// the run at once, status 130.
func TestCLIStartAtInterrupt(t *testing.T) {
	cliHome(t)
	ctx, cancel := context.WithCancel(context.Background())
	stderr := newCLISyncBuffer("for the shared start")
	done := make(chan int)
	began := time.Now()
	go func() {
		var stdout cliSyncBuffer
		done <- realMain(ctx, []string{"run", "--db", "null", "--duration", "1", "--start-at", "+1m"}, &stdout, stderr)
	}()
	select {
	case <-stderr.seen:
	case <-time.After(30 * time.Second):
		t.Fatalf("no wait announced:\n%s", stderr.String())
	}
	cancel()
	select {
	case code := <-done:
		if code != 130 || time.Since(began) > 20*time.Second {
			t.Errorf("interrupted while waiting: exit %d after %v; want 130 at once\n%s", code, time.Since(began), stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Ctrl-C did not end the wait")
	}
}

// TestCLIRelativeStartRecipe: docs/distributed.md's one-host recipe, four
// driver processes of one --run-id with --start-at +3s started 400 ms
// apart (a shell loop on a busy machine), on one SQLite database: they
// take the first one's start from the database, say so, and merge; none
// calls the others another run.
// Before, each counted +3s from its own start and merge refused them.
func TestCLIRelativeStartRecipe(t *testing.T) {
	cliHome(t)
	bin := opBinary(t)
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "t.db")
	cliMust(t, "load", "--db", db, "--workload", "a", "--edges", "2000")
	var (
		files   []string
		stderrs = make([]string, 4)
		errs    = make([]error, 4)
		wg      sync.WaitGroup
	)
	for i := range 4 {
		files = append(files, filepath.Join(dir, fmt.Sprintf("local-1-%d.json", i)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * 400 * time.Millisecond)
			var errb bytes.Buffer
			cmd := exec.Command(bin, "run", "--db", db, "--workload", "a", "--threads", "4", "--warmup", "0", "--duration", "0.5",
				"--driver", fmt.Sprintf("%d/4", i), "--run-id", "local-1", "--start-at", "+3s", "--out", files[i])
			cmd.Stderr = &errb
			errs[i] = cmd.Run()
			stderrs[i] = errb.String()
		}()
	}
	wg.Wait()
	said := 0
	for i, err := range errs {
		if err != nil {
			t.Fatalf("driver %d: %v\n%s", i, err, stderrs[i])
		}
		if strings.Contains(stderrs[i], "shared start of run local-1: ") && strings.Contains(stderrs[i], "as its first driver recorded it in the database") {
			said++
		}
		if strings.Contains(stderrs[i], "another taobench run") {
			t.Errorf("driver %d took the other drivers of its run for another run:\n%s", i, stderrs[i])
		}
	}
	if said != 3 {
		t.Errorf("%d drivers said they took the first one's start; want 3:\n%s", said, strings.Join(stderrs, "\n---\n"))
	}
	merged := filepath.Join(dir, "local-1.json")
	if r := cliRun(t, append(append([]string{"merge"}, files...), "-o", merged)...); r.code != 0 {
		t.Errorf("merging the recipe's four drivers:\n%v", r)
	}
}
