package main

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/workload"
)

// The tests of this file each pin a drift issue 16 found between copies
// of one behaviour in the command; each failed before the copies became
// one (package session).

// TestLoadPartServesMetrics: load --driver I/N gives --metrics-addr to
// its session as a whole load does; session's TestLiveLoad checks that a
// part's load serves its rows.
func TestLoadPartServesMetrics(t *testing.T) {
	t.Parallel()
	for _, part := range [][]string{nil, {"--driver", "0/2"}} {
		db := "sqlite:" + filepath.Join(t.TempDir(), "t.db")
		r := cliRun(t, append([]string{"load", "--db", db, "--edges", "3000", "--metrics-addr", "127.0.0.1:0"}, part...)...)
		if r.code != 0 || !liveAddrRE.MatchString(r.stderr) {
			t.Errorf("load %q --metrics-addr: want exit 0 and where the metrics are served\n%v", part, r)
		}
	}
}

// TestValidateDBLikeRun: validate --db takes --retries (recorded in its
// results) and sizes GOMAXPROCS as run does (--procs).
func TestValidateDBLikeRun(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "v.json")
	var stdout, stderr cliSyncBuffer
	var set []int
	code := mainWith(context.Background(), []string{"validate", "--db", "sqlite:" + filepath.Join(dir, "v.db"), "--edges", "2000",
		"--threads", "2", "--warmup", "0", "--duration", "0.3", "--retries", "3", "--procs", "3", "--out", out},
		&stdout, &stderr, func(n int) { set = append(set, n) })
	if code != exitOK && code != exitFailed { // a short run may miss a figure
		t.Fatalf("validate --db: exit %d\n%s", code, stderr.String())
	}
	var doc struct {
		Run struct {
			Retries int `json:"retries"`
		} `json:"run"`
	}
	decodeJSONFile(t, out, &doc)
	if doc.Run.Retries != 3 {
		t.Errorf("validate --retries 3 recorded retries %d", doc.Run.Retries)
	}
	if !slices.Equal(set, []int{3}) {
		t.Errorf("validate --procs 3 set GOMAXPROCS to %v, want [3]", set)
	}
}

// TestRealMainKeepsGOMAXPROCS: a command run in process (a test) leaves
// the Go runtime as it found it; only main sizes it.
func TestRealMainKeepsGOMAXPROCS(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	if r := cliRun(t, "run", "--db", "null", "--threads", "1", "--warmup", "0", "--duration", "0.1", "--procs", "7"); r.code != 0 {
		t.Fatalf("run: %v", r)
	}
	if after := runtime.GOMAXPROCS(0); after != before {
		t.Errorf("GOMAXPROCS %d before realMain, %d after", before, after)
	}
}

// TestExperimentNotApplied: an experiment's results list the workload
// fields it does not apply, as run's do.
func TestExperimentNotApplied(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "x.json")
	r := cliRun(t, "experiment", "lock-hold", "--db", "sqlite:"+filepath.Join(t.TempDir(), "x.db"), "--workload", "o", "--holds", "0",
		"--threads", "2", "--warmup", "0", "--duration", "0.2", "--edges", "2000", "--out", out)
	if r.code != 0 {
		t.Fatalf("experiment: %v", r)
	}
	w, err := workload.Resolve("o")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Run struct {
			NotApplied []string `json:"not_applied"`
		} `json:"run"`
	}
	decodeJSONFile(t, out, &doc)
	if want := session.NotApplied(w, false); len(want) == 0 || !slices.Equal(doc.Run.NotApplied, want) {
		t.Errorf("experiment on workload o: not_applied %q, want %q", doc.Run.NotApplied, want)
	}
}

// TestExperimentOutLikeRun: experiment --out keeps a symlink and writes
// its target, and sends the document to the command's own stdout for
// /dev/stdout, as run --out does.
func TestExperimentOutLikeRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "x.db")
	target, link := filepath.Join(dir, "target.json"), filepath.Join(dir, "link.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	args := []string{"experiment", "lock-hold", "--db", db, "--holds", "0", "--threads", "2", "--warmup", "0", "--duration", "0.2", "--edges", "2000"}
	if r := cliRun(t, append(args, "--out", link)...); r.code != 0 {
		t.Fatalf("--out symlink: %v", r)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("--out %s: the symlink was replaced (%v, %v)", link, fi, err)
	}
	if raw, err := os.ReadFile(target); err != nil || !strings.Contains(string(raw), `"experiment": "lock-hold"`) {
		t.Errorf("--out symlink: the target holds %q (%v)", raw, err)
	}
	r := cliRun(t, append(args, "--out", "/dev/stdout")...)
	if r.code != 0 || !strings.Contains(r.stdout, `"experiment": "lock-hold"`) {
		t.Errorf("--out /dev/stdout: the document is not on the command's stdout: %v", r)
	}
}

// TestOutProtectedSymlink: --out does not follow a symlink another user
// owns in a sticky world-writable directory (/tmp's kind), whatever the
// kernel's protected_symlinks setting.
func TestOutProtectedSymlink(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a symlink to another user")
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	target, link := filepath.Join(t.TempDir(), "precious"), filepath.Join(dir, "out.json")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(link, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	r := cliRun(t, "run", "--db", "null", "--threads", "1", "--warmup", "0", "--duration", "0.1", "--out", link)
	if r.code != exitBadInput || !strings.Contains(r.stderr, "protected_symlinks") {
		t.Errorf("--out to another user's symlink in a sticky directory: %v", r)
	}
	if raw, _ := os.ReadFile(target); string(raw) != "keep" {
		t.Errorf("the symlink's target was written: %.40q...", raw)
	}
	// The directory's owner's links are followed.
	if err := os.Lchown(link, os.Geteuid(), os.Getegid()); err != nil {
		t.Fatal(err)
	}
	if r := cliRun(t, "run", "--db", "null", "--threads", "1", "--warmup", "0", "--duration", "0.1", "--out", link); r.code != 0 {
		t.Errorf("--out to our own symlink: %v", r)
	}
}
