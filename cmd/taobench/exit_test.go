//go:build unix

package main

// Tests of the exit statuses: lost requests (3), SIGINT (130) and SIGTERM
// (143) through a real process, and a hung database that cannot hold the
// process.

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/taobench/taobench/internal/cpuwait"
	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/store/storetest"
	"github.com/taobench/taobench/tao"
)

// Test stores, reachable by URL like the real ones:
//
//	optest-lossy:N  every Nth request ends in an error, the rest are ok
//	optest-stuck    requests after the first 100 never return, whatever
//	                their context says, and Close never returns either: a hung
//	                server behind a driver that does not honour cancellation
func init() {
	store.Default.Register("optest-lossy", func(_ context.Context, u *url.URL, _ string, _ store.Options) (store.Store, error) {
		var every int64
		if _, err := fmt.Sscan(u.Opaque, &every); err != nil || every < 1 {
			return nil, fmt.Errorf("optest-lossy:N needs N >= 1, got %q", u.Opaque)
		}
		var n atomic.Int64
		return keepsNoData(storetest.Func{ExecFunc: func(_ context.Context, _ *tao.Request, res *tao.Result) {
			if n.Add(1)%every == 0 {
				res.Outcome, res.Err = tao.Error, errors.New("optest-lossy: connection reset by peer")
			}
		}}), nil
	})
	store.Default.Register("optest-stuck", func(context.Context, *url.URL, string, store.Options) (store.Store, error) {
		var n atomic.Int64
		return keepsNoData(storetest.Func{
			ExecFunc: func(context.Context, *tao.Request, *tao.Result) {
				if n.Add(1) > 100 {
					<-opHung
				}
			},
			CloseFunc: func() error {
				<-opHung
				return nil
			},
		}), nil
	})
}

// keepsNoData shows only f's store.Store methods: like null, a store the
// command computes the graph for and loads nothing into.
func keepsNoData(f storetest.Func) store.Store { return struct{ store.Store }{f} }

// opHung is closed never: stuck calls stay stuck for the test binary's life.
var opHung = make(chan struct{})

var opExitCodes = []string{"0", "1", "2", "3", "130", "143"}

// The exit statuses are documented in the usage text and in the README.
func TestCLIExitCodesDocumented(t *testing.T) {
	cliHome(t)
	r := cliRun(t, "help")
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## Exit status")
	if !ok {
		t.Fatal(`README.md has no "## Exit status" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, usage, ok := strings.Cut(r.stdout, "Exit status:")
	if !ok {
		t.Fatalf("the usage text has no exit statuses:\n%s", r.stdout)
	}
	for _, c := range opExitCodes {
		re := regexp.MustCompile(`(?m)(^|[^0-9.])` + c + `([^0-9.%]|$)`)
		if !re.MatchString(usage) {
			t.Errorf("the usage text does not document exit status %s:\n%s", c, usage)
		}
		if !re.MatchString(section) {
			t.Errorf("README.md's exit status section does not document %s:\n%s", c, section)
		}
	}
}

// TestCLIDamageExits1: check and validate --db of a database whose edges
// point at objects that do not exist exit 1, naming what failed
// (session's TestDamageCaught checks what they find, before and after).
func TestCLIDamageExits1(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "damage.db")
	db := "sqlite:" + path
	cliMust(t, "load", "--db", db, "--workload", "a", "--edges", "5000")
	conn, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	// Type 6, the first list type of category other: id2 moved past every
	// node index, the key unique still, the object gone.
	if _, err := conn.Exec("UPDATE edges SET id2 = id2 + (1 << 40), ukey = ukey + (1 << 40) WHERE type = 6"); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	r := cliRun(t, "check", "--db", db)
	if r.code != 1 || !strings.Contains(r.stdout, "VIOLATION association points at an object the graph says exists") {
		t.Errorf("check of a damaged database: want exit 1 naming the violation\n%v", r)
	}
	r = cliRun(t, "validate", "--db", db, "--workload", "a", "--threads", "1", "--warmup", "0", "--duration", "0.2s")
	failed := false
	for _, l := range strings.Split(r.stdout, "\n") {
		failed = failed || strings.HasPrefix(l, "missing objects edges point at") && strings.Contains(l, " FAIL ")
	}
	if r.code != 1 || !failed || !strings.Contains(r.stderr, "figure(s) differ from their targets") {
		t.Errorf("validate --db of a damaged database: want exit 1 and the failed row of missing objects\n%v", r)
	}
}

// TestCLIDamagedTimestampsExit1: a fresh load whose type-6 edges all have
// timestamp 0 (issue 39: it passed both commands) makes check and validate
// --db exit 1, naming the invariant and the row.
func TestCLIDamagedTimestampsExit1(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "damage.db")
	db := "sqlite:" + path
	cliMust(t, "load", "--db", db, "--workload", "a", "--edges", "5000")
	conn, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec("UPDATE edges SET timestamp = 0 WHERE type = 6"); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	r := cliRun(t, "check", "--db", db)
	if r.code != 1 || !strings.Contains(r.stdout, "VIOLATION edge timestamped within the load's time range or after it") {
		t.Errorf("check of zeroed timestamps: want exit 1 naming the violation\n%v", r)
	}
	r = cliRun(t, "validate", "--db", db, "--workload", "a", "--threads", "1", "--warmup", "0", "--duration", "0.2s")
	failed := false
	for _, l := range strings.Split(r.stdout, "\n") {
		failed = failed || strings.HasPrefix(l, "edges timestamped before the load's time range") && strings.Contains(l, " FAIL ")
	}
	if r.code != 1 || !failed {
		t.Errorf("validate --db of zeroed timestamps: want exit 1 and the failed timestamp row\n%v", r)
	}
}

// A run that lost more than --max-error-rate of its requests exits 3, after
// printing and writing its results, and says why; below the threshold it
// exits 0. Conflicts are not losses.
func TestCLIMaxErrorRate(t *testing.T) {
	cliHome(t)
	out := filepath.Join(t.TempDir(), "r.json")
	args := []string{"run", "--db", "optest-lossy:10", "--threads", "2", "--warmup", "0", "--duration", "0.3", "--out", out}
	r := cliRun(t, args...)
	if r.code != 3 {
		t.Fatalf("10%% of requests lost with the default --max-error-rate: exit %d, want 3\n%v", r.code, r)
	}
	sums := cliParse(t, r.stdout)
	doc := cliReadJSON(t, out)
	if len(sums) != 1 || len(doc.Experiments) != 1 {
		t.Fatalf("want the results printed and written: %d printed, %d in %s", len(sums), len(doc.Experiments), out)
	}
	cliCheckExperiment(t, doc.Experiments[0], &sums[0])
	errs := cliErrorLines(r.stderr)
	if len(errs) != 1 || !regexp.MustCompile(`experiment 1 lost (9\.[5-9]|10\.[0-4])\d*% of its requests \(\d+ of \d+: errors \d+, timeouts 0\), more than --max-error-rate 1%`).MatchString(errs[0]) {
		t.Errorf("want one error line saying how many were lost, of how many, and the threshold:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, "results written to "+out) {
		t.Errorf("stderr does not say where the results went:\n%s", r.stderr)
	}
	for _, c := range []struct {
		rate string
		code int
	}{{"20", 0}, {"20%", 0}, {"5", 3}, {"0", 3}, {"100", 0}} {
		r := cliRun(t, append(args, "--max-error-rate", c.rate)...)
		if r.code != c.code {
			t.Errorf("--max-error-rate %s with 10%% lost: exit %d, want %d\n%v", c.rate, r.code, c.code, r)
		}
	}
	for _, bad := range []string{"-1", "101", "abc", "NaN"} {
		r := cliRun(t, append(args, "--max-error-rate", bad)...)
		if r.code != 2 || !strings.Contains(r.stderr, "max-error-rate") || !strings.Contains(r.stderr, "0 to 100") {
			t.Errorf("--max-error-rate %s: want exit 2 and the range\n%v", bad, r)
		}
	}
	// No loss: exit 0 even with a zero threshold.
	if r := cliRun(t, "run", "--db", "null", "--threads", "1", "--warmup", "0", "--duration", "0.2", "--max-error-rate", "0"); r.code != 0 {
		t.Errorf("a run with no lost request and --max-error-rate 0: %v", r)
	}
}

// A database that stops answering, behind a driver that ignores
// cancellation, cannot hold the process: the command returns within the
// drain plus a second after the experiment ends, counting the stuck
// requests as timeouts, with its results written, and does not wait for
// the store's Close.
func TestCLIHungStore(t *testing.T) {
	cliHome(t)
	out := filepath.Join(t.TempDir(), "r.json")
	const duration, drain = 500 * time.Millisecond, 500 * time.Millisecond
	stderr := newCLISyncBuffer("experiment 1 of 1")
	var stdout cliSyncBuffer
	done := make(chan int, 1)
	go func() {
		done <- realMain(context.Background(), []string{"run", "--db", "optest-stuck", "--threads", "4", "--warmup", "0",
			"--duration", duration.String(), "--drain", drain.String(), "--out", out}, &stdout, stderr)
	}()
	<-stderr.seen
	started := time.Now()
	waitedBefore, _ := cpuwait.Total()
	var code int
	select {
	case code = <-done:
	case <-time.After(time.Minute):
		t.Fatalf("the command is still running a minute after a %v experiment with a %v drain:\n%s", duration, drain, stderr)
	}
	took := time.Since(started)
	waited := cpuwait.Since(waitedBefore)
	r := cliResult{nil, code, stdout.String(), stderr.String()}
	// On a loaded machine the process also waits for a CPU: that much
	// more is allowed, no more (none where the kernel does not say).
	if limit := duration + drain + time.Second + waited; took > limit {
		t.Errorf("the command returned %v after the experiment began; want at most %v (the experiment, the drain, a second, and the %v its threads waited for a CPU)", took, limit, waited)
	}
	if code != 3 {
		t.Errorf("4 of 104 requests lost: exit %d, want 3\n%v", code, r)
	}
	doc := cliReadJSON(t, out)
	if len(doc.Experiments) != 1 {
		t.Fatalf("%d experiments written", len(doc.Experiments))
	}
	outcomes := cliObj(t, "outcomes", doc.Experiments[0]["outcomes"])
	if outcomes["timeout"] != 4.0 || outcomes["ok"] != 100.0 {
		t.Errorf("outcomes %v; want the 100 answered ok and the 4 stuck (one per client) as timeouts", outcomes)
	}
	for _, want := range []string{"4 request(s) still waiting on the database", "first lost request (timeout", "took more than", "results written to"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, r.stderr)
		}
	}
}

var (
	opBinOnce sync.Once
	opBin     string
	opBinErr  error
)

// opBinary returns the taobench command as a program, for the tests that
// need a real process: a link named taobench to this test binary, which
// TestMain runs as the command when it is called by that name. Nothing is
// compiled or linked for it (a go build of the command is tens of seconds
// on a loaded machine); the command's code is the same, its build
// information is the test binary's (builtBinary for a real build).
func opBinary(t *testing.T) string {
	t.Helper()
	opBinOnce.Do(func() {
		exe, err := os.Executable()
		if err != nil {
			opBinErr = err
			return
		}
		dir, err := os.MkdirTemp("", "taobench-bin-")
		if err != nil {
			opBinErr = err
			return
		}
		opBin = filepath.Join(dir, commandName)
		opBinErr = os.Symlink(exe, opBin)
	})
	if opBinErr != nil {
		t.Fatal(opBinErr)
	}
	return opBin
}

var (
	builtOnce sync.Once
	builtBin  string
	builtErr  error
)

// buildBinary builds the taobench binary, once, with VCS information when
// the source is a git checkout: for the test of what a real build records
// (TestVersion). TestMain starts it early when the whole package runs, so
// that the link overlaps the tests before it.
func buildBinary() {
	builtOnce.Do(func() {
		dir, err := os.MkdirTemp("", "taobench-bin-")
		if err != nil {
			builtErr = err
			return
		}
		builtBin = filepath.Join(dir, "taobench")
		cmd := exec.Command("go", "build", "-buildvcs=auto", "-o", builtBin, ".")
		// The user's environment, not TestMain's home: its go caches.
		cmd.Env = append(slices.Clip(userEnv), "GOFLAGS=")
		if out, err := cmd.CombinedOutput(); err != nil {
			builtErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
}

// builtBinary returns the binary buildBinary built.
func builtBinary(t *testing.T) string {
	t.Helper()
	buildBinary()
	if builtErr != nil {
		t.Fatal(builtErr)
	}
	return builtBin
}

// SIGTERM and SIGINT end a real process's run early: the results so far are
// printed, and the exit status says which signal it was, 143 or 130.
func TestSignals(t *testing.T) {
	bin := opBinary(t)
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGTERM, 143}, {syscall.SIGINT, 130}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "r.json")
			cmd := exec.Command(bin, "run", "--db", "null", "--threads", "2", "--warmup", "0", "--duration", "30s", "--out", out)
			cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "HOME="+dir)
			var stdout cliSyncBuffer
			cmd.Stdout = &stdout
			errPipe, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			started := make(chan struct{})
			copied := make(chan struct{})
			go func() {
				defer close(copied)
				sc := bufio.NewScanner(errPipe)
				once := sync.Once{}
				for sc.Scan() {
					stderr.WriteString(sc.Text() + "\n")
					if strings.HasPrefix(sc.Text(), "experiment 1 of 1") {
						once.Do(func() { close(started) })
					}
				}
			}()
			select {
			case <-started:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Fatal("no experiment started within 30 s")
			}
			time.Sleep(300 * time.Millisecond)
			sent := time.Now()
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			waited := make(chan error, 1)
			go func() { <-copied; waited <- cmd.Wait() }()
			select {
			case <-waited:
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("still running 20 s after %v", c.sig)
			}
			code := cmd.ProcessState.ExitCode()
			r := cliResult{nil, code, stdout.String(), stderr.String()}
			if code != c.code {
				t.Errorf("exit %d after %v, want %d\n%v", code, c.sig, c.code, r)
			}
			if d := time.Since(sent); d > 5*time.Second {
				t.Errorf("the process took %v to end after %v", d, c.sig)
			}
			sums := cliParse(t, r.stdout)
			if len(sums) != 1 || !sums[0].interrupted {
				t.Errorf("want the interrupted experiment's results printed:\n%v", r)
			}
			if doc := cliReadJSON(t, out); len(doc.Experiments) != 1 {
				t.Errorf("%d experiments written to %s, want 1", len(doc.Experiments), out)
			}
		})
	}
}
