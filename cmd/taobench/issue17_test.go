//go:build unix

package main

// The cases of issue 17 ("nothing leaks, nothing lies, nothing flakes"), one
// test each, through the real binary as an operator would type them: the
// exit status and what the terminal shows.
//
// TAOBENCH_BIN=/path/to/taobench runs them against another build, e.g. the
// main of when the issue was filed, to see each fail there:
//
//	git worktree add --detach $D/old efc562d && (cd $D/old && go build -o $D/taobench ./cmd/taobench)
//	TAOBENCH_BIN=$D/taobench go test -count=1 -run TestIssue17 ./cmd/taobench
//
// Cases with an equivalent test already (in process, through realMain):
// --duration 1ns refused (TestCLIDurations); info and check of a missing
// SQLite path create nothing (TestCLICheckNoGraph).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// i17Bin is the binary under test: TAOBENCH_BIN, or this source built.
func i17Bin(t *testing.T) string {
	t.Helper()
	if b := os.Getenv("TAOBENCH_BIN"); b != "" {
		return b
	}
	return opBinary(t)
}

// i17Command is the binary with args, run in dir with a home and cache of
// its own there, so no default database of the user's is touched.
func i17Command(ctx context.Context, t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.CommandContext(ctx, i17Bin(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
	return cmd
}

// i17Run runs the binary to its end, at most limit (then it is killed and
// the exit status is -1, which no case wants).
func i17Run(t *testing.T, dir string, limit time.Duration, args ...string) cliResult {
	t.Helper()
	// The binary is built (once) before the clock starts: limit is the
	// run's, not the compiler's on a loaded machine.
	i17Bin(t)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := i17Command(ctx, t, dir, args...)
	var stdout, stderr cliSyncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("taobench %s: %v", strings.Join(args, " "), err)
	}
	code := cmd.ProcessState.ExitCode()
	if ctx.Err() != nil {
		t.Errorf("taobench %s: still running after %v, killed", strings.Join(args, " "), limit)
	}
	return cliResult{args, code, stdout.String(), stderr.String()}
}

// i17Proc is a running taobench: done gives its exit status once it ends.
type i17Proc struct {
	cmd            *exec.Cmd
	stdout, stderr *cliSyncBuffer
	done           chan int
}

// i17Start starts the binary and waits until its stderr says want.
func i17Start(t *testing.T, dir, want string, args ...string) *i17Proc {
	t.Helper()
	p := &i17Proc{cmd: i17Command(context.Background(), t, dir, args...), stdout: &cliSyncBuffer{}, stderr: newCLISyncBuffer(want), done: make(chan int, 1)}
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.cmd.Wait(); p.done <- p.cmd.ProcessState.ExitCode() }() //nolint:errcheck // the status is what counts
	t.Cleanup(func() { p.cmd.Process.Kill() })
	select {
	case <-p.stderr.seen:
	case code := <-p.done:
		t.Fatalf("taobench %s ended (exit %d) before saying %q:\n%s%s", strings.Join(args, " "), code, want, p.stdout, p.stderr)
	case <-time.After(time.Minute):
		t.Fatalf("taobench %s did not say %q within a minute:\n%s", strings.Join(args, " "), want, p.stderr)
	}
	return p
}

// signal sends sig and returns the exit status, or -1 when the process
// has not ended within limit.
func (p *i17Proc) signal(t *testing.T, sig syscall.Signal, limit time.Duration) int {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-p.done:
		return code
	case <-time.After(limit):
		return -1
	}
}

func (p *i17Proc) String() string {
	return fmt.Sprintf("--- stdout:\n%s--- stderr:\n%s", p.stdout, p.stderr)
}

// i17NoRaw fails when the output holds a byte a terminal acts on.
func i17NoRaw(t *testing.T, r cliResult) {
	t.Helper()
	if strings.ContainsAny(r.stdout+r.stderr, "\x1b\x07") {
		t.Errorf("raw ESC or BEL on the terminal:\n%q", r.stdout+r.stderr)
	}
}

// i17Same fails unless path holds exactly want.
func i17Same(t *testing.T, path string, want []byte, why string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%s: %v", why, err)
	} else if string(got) != string(want) {
		t.Errorf("%s: %s was replaced (%d bytes, was %d): %.200s", why, path, len(got), len(want), got)
	}
}

// i17JSON decodes a results file loosely (any build's keys).
func i17JSON(t *testing.T, path string) map[string]any {
	t.Helper()
	m, _ := readJSONFile[map[string]any](t, path)
	return m
}

// A --db that is not a well-formed URL still has its password masked, in
// every command that takes --db: a URL without its scheme, a libpq
// key/value string, a go-sql-driver DSN.
func TestIssue17MalformedDBHidesPassword(t *testing.T) {
	t.Parallel()
	const secret = "SECRETPW"
	for _, db := range []string{
		"user:" + secret + "@127.0.0.1:1/db",
		"host=127.0.0.1 port=1 password=" + secret + " dbname=x",
		"user:" + secret + "@tcp(127.0.0.1:1)/db",
	} {
		for _, cmd := range []string{"run", "load", "check", "info"} {
			r := i17Run(t, t.TempDir(), 30*time.Second, cmd, "--db", db)
			if strings.Contains(r.stdout+r.stderr, secret) {
				t.Errorf("%s --db %q: the password shows:\n%v", cmd, db, r)
			}
			errs := cliErrorLines(r.stderr)
			if r.code != 2 || len(errs) != 1 || !strings.Contains(errs[0], "database URL") || !strings.Contains(errs[0], "xxxxx") {
				t.Errorf("%s --db %q: want exit 2 and one error naming the URL, its password masked as xxxxx\n%v", cmd, db, r)
			}
		}
	}
}

// i17Native is the smallest native workload file, with extra lines first.
func i17Native(extra string) string {
	return extra + "operations read:1\nread_operation_types obj_read:1\n"
}

// A workload name or description holding ESC or BEL is refused (exit 2)
// by the commands that read it, naming the field, with nothing raw shown.
func TestIssue17ControlCharsInWorkload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct{ name, line string }{
		{"name", "name evil\x1b]0;pwned\x07x\n"},
		{"description", "description clear\x1b[2J\x07 screen\n"},
	} {
		path := filepath.Join(dir, c.name+".workload")
		if err := os.WriteFile(path, []byte(i17Native(c.line)), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"validate", "--workload", path, "--requests", "1000"},
			{"run", "--db", "null", "--workload", path, "--threads", "1", "--warmup", "0", "--duration", "0.2"},
		} {
			r := i17Run(t, dir, 30*time.Second, args...)
			i17NoRaw(t, r)
			if r.code != 2 || !strings.Contains(r.stderr, `field "`+c.name+`"`) || !strings.Contains(r.stderr, "control character") {
				t.Errorf("ESC and BEL in the %s: want exit 2 naming the field and the control character\n%v", c.name, r)
			}
		}
	}
}

// i17Drivers writes two drivers' results of one run (run id m) with the
// binary under test, and returns their paths.
func i17Drivers(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	for i := range 2 {
		f := filepath.Join(dir, fmt.Sprintf("d%d.json", i))
		r := i17Run(t, dir, time.Minute, "run", "--db", "null", "--threads", "2", "--warmup", "0", "--duration", "0.2",
			"--driver", fmt.Sprintf("%d/2", i), "--run-id", "m", "--out", f)
		if r.code != 0 {
			t.Fatalf("driver %d: %v", i, r)
		}
		files = append(files, f)
	}
	return files
}

// A results file whose strings hold ESC and BEL (the workload's name, the
// graph's) is merged without a raw control byte reaching the terminal.
func TestIssue17ControlCharsInMerge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := i17Drivers(t, dir)
	for _, f := range files {
		doc := i17JSON(t, f)
		run := doc["run"].(map[string]any)
		run["workload"], run["graph_workload"] = "evil\x1b]0;pwned\x07x", "g\x1b[2Jx"
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := i17Run(t, dir, 30*time.Second, append(append([]string{"merge"}, files...), "-o", filepath.Join(dir, "m.json"))...)
	i17NoRaw(t, r)
	if r.code != 0 || !strings.Contains(r.stderr, `evil\x1b]0;pwned\ax`) {
		t.Errorf("merge of files naming an ESC/BEL workload: want exit 0 and the name shown escaped\n%v", r)
	}
}

// i17Outward is an address of this host other than loopback, if it has one.
func i17Outward(t *testing.T) net.IP {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			return n.IP
		}
	}
	return nil
}

// --metrics-addr :PORT (the form the docs once showed) serves loopback
// only; 0.0.0.0:PORT serves every interface and says so.
func TestIssue17MetricsAddr(t *testing.T) {
	t.Parallel()
	serving := regexp.MustCompile(`serving Prometheus metrics at http://(\S+):(\d+)/metrics`)
	t.Run("no host", func(t *testing.T) {
		t.Parallel()
		p := i17Start(t, t.TempDir(), "serving Prometheus metrics", "run", "--db", "null", "--threads", "1", "--warmup", "0", "--duration", "30", "--metrics-addr", ":0")
		m := serving.FindStringSubmatch(p.stderr.String())
		if m == nil {
			t.Fatalf("no address said:\n%v", p)
		}
		if m[1] != "127.0.0.1" {
			t.Errorf("--metrics-addr :0 serves at %s, want 127.0.0.1\n%v", m[1], p)
		}
		resp, err := http.Get("http://127.0.0.1:" + m[2] + "/metrics")
		if err != nil {
			t.Errorf("loopback: %v", err)
		} else {
			resp.Body.Close()
		}
		if ip := i17Outward(t); ip != nil {
			if c, err := net.DialTimeout("tcp", net.JoinHostPort(ip.String(), m[2]), 5*time.Second); err == nil {
				c.Close()
				t.Errorf("--metrics-addr :0 accepts connections at %s, this host's outward address", c.RemoteAddr())
			}
		} else {
			t.Log("no address but loopback here: only the address said is checked")
		}
		if code := p.signal(t, syscall.SIGINT, 20*time.Second); code != 130 {
			t.Errorf("Ctrl-C: exit %d, want 130\n%v", code, p)
		}
	})
	t.Run("every interface", func(t *testing.T) {
		t.Parallel()
		r := i17Run(t, t.TempDir(), 30*time.Second, "run", "--db", "null", "--threads", "1", "--warmup", "0", "--duration", "0.2", "--metrics-addr", "0.0.0.0:0")
		if r.code != 0 || !strings.Contains(r.stderr, "listens on every network interface") {
			t.Errorf("--metrics-addr 0.0.0.0:0: want exit 0 and a warning that it listens on every interface\n%v", r)
		}
	})
}

// An outage of the null store: it stalls 3 s in every 3.05 s (requests
// arriving in a stall end with it), so however late after the store opened
// the measured window begins, a 7 s window holds one whole 3 s gap, two or
// three whole seconds without service, and never two gaps: exit 3 saying
// "no service"; --max-stall 5s accepts it, still saying it.
func TestIssue17Outage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		extra []string
		code  int
	}{
		{"default --max-stall", nil, 3},
		{"--max-stall 5s", []string{"--max-stall", "5s"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out := filepath.Join(dir, "r.json")
			r := i17Run(t, dir, time.Minute, append([]string{"run", "--db", "null?stall=3s&every=3050ms", "--threads", "2",
				"--warmup", "0", "--duration", "7", "--out", out}, c.extra...)...)
			if r.code != c.code || !strings.Contains(r.stdout+r.stderr, "no service") {
				t.Errorf("3 s stalls in a 7 s window: exit %d, want %d and \"no service\"\n%v", r.code, c.code, r)
			}
			doc := i17JSON(t, out)
			exps, _ := doc["experiments"].([]any)
			if len(exps) != 1 {
				t.Fatalf("%d experiments written", len(exps))
			}
			e := exps[0].(map[string]any)
			// Target: the longest gap 2 or 3 whole seconds; more seconds in
			// all where the window begins or ends inside another stall.
			if n, longest := cliNum(t, e, "no_service_s"), cliNum(t, e, "longest_no_service_s"); longest < 2 || longest > 3 || n < longest {
				t.Errorf("no_service_s %v, longest_no_service_s %v; want the longest 2 or 3, and no fewer in all", n, longest)
			}
		})
	}
}

// Ctrl-C before the measured window begins (in the warmup, or waiting for
// --start-at) leaves an existing results file as it was.
func TestIssue17InterruptKeepsOut(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, want string
		args       []string
	}{
		{"warmup", "experiment 1 of 1", []string{"--warmup", "30", "--duration", "1"}},
		{"start-at wait", "for the shared start", []string{"--warmup", "0", "--duration", "1", "--start-at", "+1m"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out := filepath.Join(dir, "r.json")
			old := []byte(`{"kept": "an earlier run's results"}` + "\n")
			if err := os.WriteFile(out, old, 0o644); err != nil {
				t.Fatal(err)
			}
			p := i17Start(t, dir, c.want, append([]string{"run", "--db", "null", "--threads", "2", "--out", out}, c.args...)...)
			if code := p.signal(t, syscall.SIGINT, 20*time.Second); code != 130 {
				t.Errorf("Ctrl-C in the %s: exit %d, want 130\n%v", c.name, code, p)
			}
			i17Same(t, out, old, "Ctrl-C in the "+c.name)
		})
	}
}

// A --start-at whose schedule is over is refused before anything runs.
func TestIssue17StartAtPast(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	r := i17Run(t, dir, 30*time.Second, "run", "--db", "null", "--start-at", "2020-01-01T00:00:00Z", "--warmup", "0", "--duration", "0.2", "--out", out)
	if errs := cliErrorLines(r.stderr); r.code != 2 || len(errs) != 1 || !strings.Contains(errs[0], "--start-at 2020-01-01T00:00:00Z is in the past") || r.stdout != "" {
		t.Errorf("--start-at in the past: want exit 2 and one line saying so, no results\n%v", r)
	}
	cliNoFile(t, out, "--start-at in the past")
}

// A run whose measured window saw no request end (each takes 30 s, all
// issued in the warmup) exits 3 saying so and leaves --out as it was.
func TestIssue17NoRequestMeasured(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	old := []byte(`{"kept": "an earlier run's results"}` + "\n")
	if err := os.WriteFile(out, old, 0o644); err != nil {
		t.Fatal(err)
	}
	r := i17Run(t, dir, time.Minute, "run", "--db", "null?delay=30s", "--threads", "2", "--warmup", "1", "--duration", "0.2", "--drain", "0.1", "--out", out)
	if r.code != 3 || !strings.Contains(r.stderr, "measured no request") {
		t.Errorf("no request measured: want exit 3 saying so\n%v", r)
	}
	i17Same(t, out, old, "a run that measured no request")
}

// docs/distributed.md's one-host recipe, four drivers started by one
// script with --start-at +5s, runs as written and merges. Only what would
// make a test long is changed: the null store for URL, and 4 clients, a
// 0.5 s warmup and 1 s measured per driver.
func TestIssue17DistributedRecipe(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "distributed.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)\\*\\*One host, four drivers\\*\\*[^`]*```sh\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/distributed.md: no sh block after **One host, four drivers**")
	}
	script := string(m[1])
	for _, s := range [][2]string{{"--db URL", "--db null"}, {"--threads 64 --warmup 10 --duration 60", "--threads 4 --warmup 0.5 --duration 1"}} {
		if !strings.Contains(script, s[0]) {
			t.Fatalf("the recipe no longer says %q; update this test:\n%s", s[0], script)
		}
		script = strings.ReplaceAll(script, s[0], s[1])
	}
	if !strings.Contains(script, "--start-at +5s") || !strings.Contains(script, "-o local-1.json") {
		t.Fatalf("the recipe no longer starts at +5s and merges into local-1.json; update this test:\n%s", script)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(i17Bin(t), filepath.Join(bin, "taobench")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-e", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+dir, "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the recipe: %v\n%s\n%s", err, script, out)
	}
	merged := i17JSON(t, filepath.Join(dir, "local-1.json"))
	run, _ := merged["run"].(map[string]any)
	if got := fmt.Sprint(run["driver_indexes"]); got != "[0 1 2 3]" || run["drivers"] != 4.0 {
		t.Errorf("merged run: drivers %v, driver_indexes %s; want 4 and [0 1 2 3]", run["drivers"], got)
	}
}

// A workload file with CR-only line endings reads as with \n (both
// formats: validate prints the same table), or is refused naming the line
// endings; never `"operations": missing`.
func TestIssue17LineEndings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct{ name, text string }{
		{"native.workload", i17Native("")},
		{"original.json", `{"name": "operations", "weights": [1, 0, 0, 0]}` + "\n" +
			`{"name": "read_operation_types", "values": ["obj_read"], "weights": [1]}` + "\n"},
	} {
		lf, cr := filepath.Join(dir, "lf-"+c.name), filepath.Join(dir, "cr-"+c.name)
		if err := os.WriteFile(lf, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cr, []byte(strings.ReplaceAll(c.text, "\n", "\r")), 0o644); err != nil {
			t.Fatal(err)
		}
		want := i17Run(t, dir, 30*time.Second, "validate", "--workload", lf, "--requests", "1000")
		if want.code != 0 {
			t.Fatalf("the same file with \\n: %v", want)
		}
		got := i17Run(t, dir, 30*time.Second, "validate", "--workload", cr, "--requests", "1000")
		switch {
		case strings.Contains(got.stderr, `"operations": missing`):
			t.Errorf("%s with CR line endings: says the operations are missing\n%v", c.name, got)
		case got.code == 2 && strings.Contains(got.stderr, "line ending"):
		case got.code != 0:
			t.Errorf("%s with CR line endings: exit %d, want 0 (or 2 naming the line endings)\n%v", c.name, got.code, got)
		case got.stdout != strings.ReplaceAll(want.stdout, "lf-", "cr-"):
			t.Errorf("%s with CR line endings validates otherwise than with \\n:\n%s\nwant\n%s", c.name, got.stdout, want.stdout)
		}
	}
}

// A key given twice in an original-format line is refused naming the key
// and the line; encoding/json alone keeps the last silently.
func TestIssue17DuplicateKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "dup.json")
	text := `{"name": "operations", "weights": [1, 0, 0, 0]}` + "\n" +
		`{"name": "read_operation_types", "values": ["obj_read"], "weights": [1], "weights": [2]}` + "\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	r := i17Run(t, dir, 30*time.Second, "validate", "--workload", path, "--requests", "1000")
	if errs := cliErrorLines(r.stderr); r.code != 2 || len(errs) != 1 || !strings.Contains(errs[0], path+`:2: key "weights" given twice`) {
		t.Errorf("a key given twice: want exit 2 naming the key and the line\n%v", r)
	}
}

// --procs, --threads and --edges too large are refused at once with the
// reason, before any work (no database file, no load).
func TestIssue17Bounds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "x.db")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--db", "sqlite:" + db, "--procs", "100000"}, "--procs 100000: give 0 (sized to the clients) to 1024: "},
		{[]string{"run", "--db", "sqlite:" + db, "--threads", "100000"}, "--threads 100000: give 1 to 4096: the ids a run creates hold 12 bits of client number"},
		{[]string{"load", "--db", "sqlite:" + db, "--edges", "1000000000000000"}, "--edges 1000000000000000: give at most 1000000000000: "},
	} {
		began := time.Now()
		r := i17Run(t, dir, 20*time.Second, c.args...)
		took := time.Since(began)
		if errs := cliErrorLines(r.stderr); r.code != 2 || len(errs) != 1 || !strings.Contains(errs[0], c.want) || strings.Contains(r.stderr, "loading") {
			t.Errorf("want exit 2 and one line saying %q, nothing loaded\n%v", c.want, r)
		}
		// Refusing takes milliseconds; 10 s is far beyond any machine's
		// load and far below a load's or a runtime crash's time.
		if took > 10*time.Second {
			t.Errorf("taobench %s took %v to refuse", strings.Join(c.args, " "), took)
		}
		cliNoFile(t, db, strings.Join(c.args, " "))
	}
}

// An empty --out is refused; -o and --out together are one flag given twice.
func TestIssue17OutFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := i17Run(t, dir, 30*time.Second, "run", "--db", "null", "--threads", "1", "--warmup", "0", "--duration", "0.2", "--out", "")
	if errs := cliErrorLines(r.stderr); r.code != 2 || len(errs) != 1 || !strings.Contains(errs[0], "--out '': give a file name") || r.stdout != "" {
		t.Errorf("--out '': want exit 2 and one line asking for a file name, nothing run\n%v", r)
	}
	files := i17Drivers(t, dir)
	a, b := filepath.Join(dir, "a.html"), filepath.Join(dir, "b.html")
	for _, args := range [][]string{
		{"report", "-o", a, "--out", b, files[0]},
		{"merge", "-o", a, "--out", b, files[0], files[1]},
	} {
		r := i17Run(t, dir, 30*time.Second, args...)
		if errs := cliErrorLines(r.stderr); r.code != 2 || len(errs) != 1 || !strings.Contains(errs[0], "flag --out given twice (-o "+a+", then --out "+b+")") {
			t.Errorf("%s -o a --out b: want exit 2 and the flag named as given twice\n%v", args[0], r)
		}
		cliNoFile(t, a, args[0]+" -o a --out b")
		cliNoFile(t, b, args[0]+" -o a --out b")
	}
}

// --help lists the four experiments.
func TestIssue17HelpListsExperiments(t *testing.T) {
	t.Parallel()
	r := i17Run(t, t.TempDir(), 30*time.Second, "--help")
	line := regexp.MustCompile(`(?m)^\s*taobench experiment (\S+)`).FindStringSubmatch(r.stdout)
	if r.code != 0 || line == nil {
		t.Fatalf("--help: want exit 0 and a line for taobench experiment\n%v", r)
	}
	for _, e := range []string{"lock-hold", "precondition-wait", "compare", "fanout"} {
		if !strings.Contains(line[1]+"|", e+"|") {
			t.Errorf("--help lists experiments %s, without %s", line[1], e)
		}
	}
}

// The README's second command passes: every distribution of workload a
// passes its chi-square test at 10^6 requests (seed 1 by default, so the
// same draws every time; about 2 s).
func TestIssue17ValidateReadmeCommand(t *testing.T) {
	t.Parallel()
	const cmd = "taobench validate --workload a --requests 1000000"
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), cmd) {
		t.Fatalf("README.md no longer shows %q; update this test", cmd)
	}
	r := i17Run(t, t.TempDir(), 2*time.Minute, strings.Fields(cmd)[1:]...)
	if r.code != 0 || strings.Contains(r.stdout, "FAIL") || strings.Count(r.stdout, "pass\n") < 10 {
		t.Errorf("%s: want exit 0 and every row passing\n%v", cmd, r)
	}
}
