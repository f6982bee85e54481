package main

// End-to-end tests of the taobench command through realMain: what a user
// types, what they see, and what lands in the database and the result file.
// Runs are short (a second or less) on small graphs; no assertion depends
// on how fast this machine is, except generous bounds on Ctrl-C promptness.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taobench/taobench/gencheck"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/internal/sysmon"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// cliResult is what one invocation of the command gave. The tests of the
// command run it with cliRun (in process, as realMain) or, where a real
// process matters, the binary of opBinary; they read its JSON with
// readJSONFile.
type cliResult struct {
	args           []string
	code           int
	stdout, stderr string
}

func (r cliResult) String() string {
	return fmt.Sprintf("taobench %s\nexit %d\n--- stdout:\n%s--- stderr:\n%s", strings.Join(r.args, " "), r.code, r.stdout, r.stderr)
}

// cliSyncBuffer is a bytes.Buffer safe for the status goroutine and the
// command writing at once; it closes seen when want first appears.
type cliSyncBuffer struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
}

func newCLISyncBuffer(want string) *cliSyncBuffer {
	return &cliSyncBuffer{want: want, seen: make(chan struct{})}
}

func (b *cliSyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.buf.Write(p)
	if b.want != "" && strings.Contains(b.buf.String(), b.want) {
		select {
		case <-b.seen:
		default:
			close(b.seen)
		}
	}
	return n, err
}

func (b *cliSyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// cliRun runs the command with args, as a user would type them. A run
// that hangs is interrupted (as by Ctrl-C) after two minutes, so a broken
// test fails rather than stalls.
func cliRun(t *testing.T, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stdout, stderr cliSyncBuffer
	code := realMain(ctx, args, &stdout, &stderr)
	return cliResult{args, code, stdout.String(), stderr.String()}
}

// cliMust runs the command and fails the test unless it exits 0.
func cliMust(t *testing.T, args ...string) cliResult {
	t.Helper()
	r := cliRun(t, args...)
	if r.code != 0 {
		t.Fatalf("want exit 0:\n%s", r)
	}
	return r
}

// readJSONFile reads a results file the command wrote into a T, failing
// the test when it cannot; it returns the raw text too. The one way the
// command's tests read what it wrote (decodeJSONFile for a value of an
// unnamed type).
func readJSONFile[T any](t *testing.T, path string) (T, []byte) {
	t.Helper()
	var v T
	return v, decodeJSONFile(t, path, &v)
}

// decodeJSONFile reads the JSON file at path into v, failing the test when
// it cannot; it returns the raw text.
func decodeJSONFile(t *testing.T, path string, v any) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("results file: %v", err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("results file %s is not the JSON expected: %v\n%s", path, err, raw)
	}
	return raw
}

// userEnv is the environment the test binary started with: the go
// command buildBinary runs needs the user's build and module caches.
var userEnv = os.Environ()

// commandName is the name by which the test binary is the taobench
// command (opBinary's link to it).
const commandName = "taobench"

// TestMain runs the command when the test binary is called as taobench
// (opBinary). Otherwise it gives the test binary a home and cache
// directory of its own before any test runs (tests in parallel cannot
// call cliHome, whose t.Setenv is for serial tests), so a command that
// finds no --db never reaches the user's default database; starts the
// build of TestVersion's binary when the whole package runs; and removes
// the binaries.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == commandName {
		main() // exits
	}
	home, err := os.MkdirTemp("", "taobench-cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("HOME", filepath.Join(home, "home"))
	os.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	flag.Parse()
	if f := flag.Lookup("test.run"); !testing.Short() && f != nil && f.Value.String() == "" {
		go buildBinary()
	}
	code := m.Run()
	os.RemoveAll(home)
	builtOnce.Do(func() {}) // waits for a build under way
	for _, bin := range []string{opBin, builtBin} {
		if bin != "" {
			os.RemoveAll(filepath.Dir(bin))
		}
	}
	os.Exit(code)
}

// cliHome points the user's cache directory at a fresh temporary directory
// and returns where the default database must then live; for the tests of
// the default database (serial: it sets the environment).
func cliHome(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	t.Setenv("HOME", filepath.Join(dir, "home"))
	want := filepath.Join(dir, "cache", "taobench", "default.db")
	if got := defaultDBPath(); got != want {
		t.Fatalf("default database at %s, want %s (under XDG_CACHE_HOME)", got, want)
	}
	return want
}

func cliNoFile(t *testing.T, path, why string) {
	t.Helper()
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s: %s exists (stat: %v), but nothing should have been written", why, path, err)
	}
}

// cliErrorLines returns the lines of stderr that report an error.
func cliErrorLines(stderr string) []string {
	var ls []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "taobench:") {
			ls = append(ls, l)
		}
	}
	return ls
}

// --- The text summary -------------------------------------------------------

// cliSummary is one experiment's text output, parsed.
type cliSummary struct {
	threads           int
	warmup, duration  float64 // configured, s
	total, measured   float64 // s
	ops               int64
	throughput        float64
	failed            int64
	overtime          int64
	openLoop          bool // the experiment had a target rate
	bracketN          int64
	cats              map[string]int64 // bracket categories: Count
	outcomes          map[string]int64
	interrupted       bool
	attempts, retries int64
}

var (
	cliDescRe     = regexp.MustCompile(`^Experiment description: (\d+) threads, ([0-9.]+) seconds \(warmup\), ([0-9.]+) seconds \(experiment\)$`)
	cliBracketRe  = regexp.MustCompile(`^(\d+) operations;((?: \[[A-Z]+: Count=\d+ Max=[0-9.]+ Min=[0-9.]+ Avg=[0-9.]+\])+)$`)
	cliCategoryRe = regexp.MustCompile(`\[([A-Z]+): Count=(\d+) Max=([0-9.]+) Min=([0-9.]+) Avg=([0-9.]+)\]`)
	cliAttemptsRe = regexp.MustCompile(`^attempts: (\d+) \((\d+) retries\)$`)
)

// cliParse parses every experiment of a run's stdout, checking that the
// original TAOBench lines come first, in the original order and format.
func cliParse(t *testing.T, stdout string) []cliSummary {
	t.Helper()
	blocks := strings.Split(stdout, "Experiment description:")
	if strings.TrimSpace(blocks[0]) != "" {
		t.Fatalf("output before the first experiment: %q", blocks[0])
	}
	var sums []cliSummary
	for _, blk := range blocks[1:] {
		lines := strings.Split("Experiment description:"+blk, "\n")
		if len(lines) < 8 {
			t.Fatalf("experiment output too short:\n%s", blk)
		}
		s := cliSummary{cats: map[string]int64{}, outcomes: map[string]int64{}}
		m := cliDescRe.FindStringSubmatch(lines[0])
		if m == nil {
			t.Fatalf("line 1 %q is not the original's experiment description", lines[0])
		}
		s.threads, _ = strconv.Atoi(m[1])
		s.warmup = cliFloat(t, m[2])
		s.duration = cliFloat(t, m[3])
		// The original's six lines, in order; the number is the rest.
		prefixes := []string{
			"Total runtime (sec): ",
			"Runtime excluding warmup (sec): ",
			"Total completed operations excluding warmup: ",
			"Throughput excluding warmup: ",
			"Number of overtime operations: ",
			"Number of failed operations: ",
		}
		var vals [6]string
		for i, p := range prefixes {
			v, ok := strings.CutPrefix(lines[1+i], p)
			if !ok || !regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`).MatchString(v) {
				t.Fatalf("line %d is %q; want %q and a plain number", 2+i, lines[1+i], p)
			}
			vals[i] = v
		}
		s.total, s.measured = cliFloat(t, vals[0]), cliFloat(t, vals[1])
		s.ops = cliInt(t, vals[2])
		s.throughput = cliFloat(t, vals[3])
		s.overtime = cliInt(t, vals[4])
		s.openLoop = strings.Contains(blk, "\ntarget rate: ")
		if !s.openLoop && s.overtime != 0 {
			t.Errorf("Number of overtime operations: %d in closed loop, want 0 (docs/results.md)", s.overtime)
		}
		s.failed = cliInt(t, vals[5])
		bm := cliBracketRe.FindStringSubmatch(lines[7])
		if bm == nil {
			t.Fatalf("line 8 %q is not the original's bracket line", lines[7])
		}
		s.bracketN = cliInt(t, bm[1])
		for _, c := range cliCategoryRe.FindAllStringSubmatch(bm[2], -1) {
			if _, dup := s.cats[c[1]]; dup {
				t.Errorf("bracket category %s printed twice", c[1])
			}
			s.cats[c[1]] = cliInt(t, c[2])
			mx, mn, avg := cliFloat(t, c[3]), cliFloat(t, c[4]), cliFloat(t, c[5])
			if s.cats[c[1]] > 0 && !(mn <= avg+0.01 && avg <= mx+0.01) {
				t.Errorf("bracket %s: Min %v, Avg %v, Max %v out of order", c[1], mn, avg, mx)
			}
		}
		for _, l := range lines[8:] {
			switch {
			case strings.HasPrefix(l, "interrupted: measured "):
				s.interrupted = true
			case strings.HasPrefix(l, "outcomes:"):
				f := strings.Fields(strings.TrimPrefix(l, "outcomes:"))
				if len(f)%2 != 0 {
					t.Fatalf("outcomes line %q is not name/count pairs", l)
				}
				for i := 0; i < len(f); i += 2 {
					s.outcomes[f[i]] = cliInt(t, f[i+1])
				}
			case cliAttemptsRe.MatchString(l):
				am := cliAttemptsRe.FindStringSubmatch(l)
				s.attempts, s.retries = cliInt(t, am[1]), cliInt(t, am[2])
			}
		}
		if len(s.outcomes) != int(tao.NumOutcomes) {
			t.Errorf("outcomes line has %d outcomes %v, want all %d", len(s.outcomes), s.outcomes, tao.NumOutcomes)
		}
		sums = append(sums, s)
	}
	return sums
}

func cliFloat(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q is not a number: %v", s, err)
	}
	return f
}

func cliInt(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("%q is not a whole number: %v", s, err)
	}
	return n
}

// cliClose reports whether a and b agree to rel, relative to the larger.
func cliClose(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))
}

// cliCheckSummary checks a text summary against itself.
func cliCheckSummary(t *testing.T, s cliSummary) {
	t.Helper()
	if s.ops <= 0 {
		t.Errorf("completed operations %d: a run must complete some", s.ops)
	}
	if s.bracketN != s.ops {
		t.Errorf("bracket line says %d operations, completed operations %d", s.bracketN, s.ops)
	}
	// Numbers are printed to six significant digits.
	if s.measured <= 0 || !cliClose(s.throughput, float64(s.ops)/s.measured, 2e-5) {
		t.Errorf("throughput %v, but %d ops / %v s = %v", s.throughput, s.ops, s.measured, float64(s.ops)/s.measured)
	}
	if s.total < s.measured*(1-1e-5) {
		t.Errorf("total runtime %v s is less than the measured %v s", s.total, s.measured)
	}
	if !s.interrupted && !cliClose(s.measured, s.duration, 1e-5) {
		t.Errorf("measured %v s of a %v s experiment that was not interrupted", s.measured, s.duration)
	}
	if s.cats["READ"]+s.cats["READTRANSACTION"]+s.cats["WRITETRANSACTION"]+s.cats["WRITE"] != s.ops {
		t.Errorf("READ + READTRANSACTION + WRITETRANSACTION + WRITE = %v, want the %d operations", s.cats, s.ops)
	}
	if s.cats["INSERT"]+s.cats["UPDATE"]+s.cats["DELETE"] != s.cats["WRITE"] {
		t.Errorf("INSERT + UPDATE + DELETE != WRITE in %v", s.cats)
	}
	if _, ok := s.cats["WRITE"]; !ok {
		t.Errorf("no WRITE category; the original always prints it")
	}
	var sum int64
	for _, n := range s.outcomes {
		sum += n
	}
	if sum != s.ops {
		t.Errorf("outcomes %v sum to %d, want the %d operations", s.outcomes, sum, s.ops)
	}
	var failed int64
	for _, o := range cliFailedOutcomes {
		failed += s.outcomes[o]
	}
	if failed != s.failed {
		t.Errorf("failed operations %d, but the failed outcomes in %v add to %d", s.failed, s.outcomes, failed)
	}
	if s.attempts-s.retries != s.ops {
		t.Errorf("attempts %d minus retries %d != %d operations", s.attempts, s.retries, s.ops)
	}
}

// --- The JSON document ------------------------------------------------------

// The key sets of docs/results.md, section "JSON (--out FILE)".
var (
	cliRunKeys = []string{"database", "workload", "seed", "edges", "retries", "started", "version", "revision", "not_applied", "graph_workload", "graph_seed",
		"run_id", "drivers", "driver_indexes", "client"}
	cliClientKeys = []string{"writes", "reads", "exec_mode", "runtime_monitor", "pooler", "routines"}
	cliExpKeys    = []string{"threads", "warmup_s", "duration_s", "runtime_s", "measured_s", "interrupted", "ops",
		"throughput", "failed", "attempts", "latency_us", "outcomes", "contention", "lost", "fidelity",
		"service_us", "target_rate", "arrival", "scheduled", "not_issued", "rate_reached", "overtime", "no_service_s", "longest_no_service_s", "injected_us",
		"started", "processes", "histograms", "counters", "timeline", "service_histograms", "injected_histograms",
		"resources",
		"shared_start", "late_s", "first_client", "all_threads", "all_target_rate", "error_codes", "consistency", "endpoints", "latency_by_tier_us", "latency_by_tier_histograms",
		"concurrent_runs", "intervals", "repeat"}
	cliHistKeys    = []string{"count", "sum_ns", "min_ns", "max_ns", "hdr"}
	cliCounterKeys = []string{"attempts", "writes_objects", "object_conflicted", "writes_edges", "association_conflicted",
		"adds_unique", "with_checks", "write_requests", "lock_conflicted", "unique_rejected",
		"write_txns", "write_write_conflicted", "write_txns_conflicted", "racing_conflicted"}
	cliSecondKeys = []string{"second", "warmup", "requests", "errors", "timeouts", "p50_us", "p99_us",
		"write_requests", "lock_conflicted", "contention_pct", "hdr", "completed", "answered"}
	cliClasses    = []string{"read", "write", "read_txn", "write_txn"}
	cliReadKinds  = []string{"obj_read", "edge_point_read", "edge_range_read", "edge_count_read", "edge_time_read"}
	cliWriteKinds = []string{"obj_add", "obj_update", "obj_delete", "edge_add", "edge_update", "edge_delete"}
	cliStatKeys   = []string{"count", "mean", "min", "p50", "p90", "p99", "p999", "max"}
	cliOutcomes   = []string{"ok", "not_found", "precondition_failed", "unique_violation", "conflict_object",
		"conflict_association", "timeout", "error",
		"failed_after_reserve", "failed_after_primary_commit", "failed_after_primary_rollback"}
	cliFailedOutcomes = []string{"conflict_object", "conflict_association", "timeout", "error",
		"failed_after_reserve", "failed_after_primary_commit", "failed_after_primary_rollback"}
	cliContention = []string{"object_lock_conflict_pct", "association_lock_conflict_pct",
		"unique_association_exists_pct", "precondition_failed_pct", "overall_pct", "overall_with_unique_pct",
		"write_write_conflict_pct", "write_txn_conflict_pct", "racing_insert_conflict_pct", "racing_insert_share_pct",
		"server_signalled_conflict_pct", "write_txn_server_signalled_pct", "resolved_without_error_pct", "racing_copies_resolved_pct"}
	cliLostKeys     = []string{"count", "timeline"}
	cliLostSecKeys  = []string{"second", "errors", "timeouts"}
	cliTopKeys      = []string{"run", "experiments", "repeats"}
	cliLatencyNames = append(append(append([]string{}, cliClasses...), cliReadKinds...), cliWriteKinds...)
)

// TestCLIJSONKeysDocumented keeps this test's key sets, the code's and
// docs/results.md's the same: every key the tests demand is documented.
func TestCLIJSONKeysDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, jsonPart, ok := strings.Cut(string(doc), "## JSON (`--out FILE`)")
	if !ok {
		t.Fatal(`docs/results.md has no "## JSON (` + "`--out FILE`" + `)" section`)
	}
	for _, set := range [][]string{cliTopKeys, cliRunKeys, cliClientKeys, cliExpKeys, cliLatencyNames, cliStatKeys,
		cliOutcomes, cliContention, cliLostKeys, cliLostSecKeys, cliHistKeys, cliCounterKeys, cliSecondKeys} {
		for _, k := range set {
			if !strings.Contains(jsonPart, "`"+k+"`") && !strings.Contains(jsonPart, `"`+k+`"`) &&
				!regexp.MustCompile(`[{ ,]`+k+`[,}]`).MatchString(jsonPart) {
				t.Errorf("JSON key %q is not documented in docs/results.md", k)
			}
		}
	}
	if len(cliOutcomes) != int(tao.NumOutcomes) {
		t.Errorf("docs list %d outcomes, the code has %d", len(cliOutcomes), tao.NumOutcomes)
	}
	if len(cliClasses) != int(tao.NumClasses) || len(cliReadKinds)+len(cliWriteKinds) != int(tao.NumKinds) {
		t.Errorf("docs list %d classes and %d kinds, the code has %d and %d",
			len(cliClasses), len(cliReadKinds)+len(cliWriteKinds), tao.NumClasses, tao.NumKinds)
	}
}

type cliDoc struct {
	Run         map[string]any
	Experiments []map[string]any
}

// cliReadJSON reads an --out file, checking every key set exactly.
func cliReadJSON(t *testing.T, path string) cliDoc {
	t.Helper()
	top, _ := readJSONFile[map[string]any](t, path)
	cliKeys(t, "top level", top, cliTopKeys)
	var d cliDoc
	d.Run = cliObj(t, "run", top["run"])
	cliKeys(t, "run", d.Run, cliRunKeys)
	cliKeys(t, "run.client", cliObj(t, "run.client", d.Run["client"]), cliClientKeys)
	if s, _ := d.Run["started"].(string); s != "" {
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			t.Errorf("run.started %q is not RFC 3339: %v", s, err)
		}
	} else {
		t.Errorf("run.started is %v, want an RFC 3339 time", d.Run["started"])
	}
	if _, ok := d.Run["not_applied"].([]any); !ok {
		t.Errorf("run.not_applied is %v, want an array", d.Run["not_applied"])
	}
	exps, ok := top["experiments"].([]any)
	if !ok {
		t.Fatalf("experiments is %T, want an array", top["experiments"])
	}
	for i, x := range exps {
		where := fmt.Sprintf("experiments[%d]", i)
		e := cliObj(t, where, x)
		cliKeys(t, where, e, cliExpKeys)
		lat := cliObj(t, where+".latency_us", e["latency_us"])
		cliKeys(t, where+".latency_us", lat, cliLatencyNames)
		for _, n := range cliLatencyNames {
			cliKeys(t, where+".latency_us."+n, cliObj(t, n, lat[n]), cliStatKeys)
		}
		svc := cliObj(t, where+".service_us", e["service_us"])
		cliKeys(t, where+".service_us", svc, cliClasses)
		for _, n := range cliClasses {
			cliKeys(t, where+".service_us."+n, cliObj(t, n, svc[n]), cliStatKeys)
		}
		inj := cliObj(t, where+".injected_us", e["injected_us"])
		cliKeys(t, where+".injected_us", inj, cliClasses)
		for _, n := range cliClasses {
			cliKeys(t, where+".injected_us."+n, cliObj(t, n, inj[n]), cliStatKeys)
		}
		cliKeys(t, where+".outcomes", cliObj(t, "outcomes", e["outcomes"]), cliOutcomes)
		cliKeys(t, where+".contention", cliObj(t, "contention", e["contention"]), cliContention)
		lost := cliObj(t, where+".lost", e["lost"])
		cliKeys(t, where+".lost", lost, cliLostKeys)
		tl, ok := lost["timeline"].([]any)
		if !ok {
			t.Errorf("%s.lost.timeline is %v, want an array", where, lost["timeline"])
		}
		for j, s := range tl {
			cliKeys(t, fmt.Sprintf("%s.lost.timeline[%d]", where, j), cliObj(t, "timeline", s), cliLostSecKeys)
		}
		hist := cliObj(t, where+".histograms", e["histograms"])
		cliKeys(t, where+".histograms", hist, cliLatencyNames)
		for _, n := range cliLatencyNames {
			cliKeys(t, where+".histograms."+n, cliObj(t, n, hist[n]), cliHistKeys)
		}
		cliKeys(t, where+".counters", cliObj(t, "counters", e["counters"]), cliCounterKeys)
		secs, ok := e["timeline"].([]any)
		if !ok {
			t.Errorf("%s.timeline is %v, want an array", where, e["timeline"])
		}
		for j, s := range secs {
			sec := cliObj(t, "timeline", s)
			w := fmt.Sprintf("%s.timeline[%d]", where, j)
			cliKeys(t, w, sec, cliSecondKeys)
			for _, k := range []string{"requests", "p50_us", "p99_us", "hdr"} {
				cliKeys(t, w+"."+k, cliObj(t, k, sec[k]), cliClasses)
			}
		}
		d.Experiments = append(d.Experiments, e)
	}
	return d
}

func cliObj(t *testing.T, where string, v any) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s is %T, want an object", where, v)
	}
	return m
}

func cliKeys(t *testing.T, where string, m map[string]any, want []string) {
	t.Helper()
	got := make([]string, 0, len(m))
	for k := range m {
		got = append(got, k)
	}
	sort.Strings(got)
	w := append([]string{}, want...)
	sort.Strings(w)
	if strings.Join(got, " ") != strings.Join(w, " ") {
		t.Errorf("%s has keys %v, want exactly %v (docs/results.md)", where, got, w)
	}
}

// cliNum reads a number at a path of keys, such as "latency_us", "read", "count".
func cliNum(t *testing.T, m map[string]any, path ...string) float64 {
	t.Helper()
	var v any = m
	for _, k := range path {
		o, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%v: %T is not an object", path, v)
		}
		v = o[k]
	}
	f, ok := v.(float64)
	if !ok {
		t.Fatalf("%v is %v (%T), want a number", path, v, v)
	}
	return f
}

// cliCheckExperiment checks one JSON experiment against itself and, when s
// is not nil, against the text printed for it.
func cliCheckExperiment(t *testing.T, e map[string]any, s *cliSummary) {
	t.Helper()
	ops := cliNum(t, e, "ops")
	var sum float64
	for _, o := range cliOutcomes {
		sum += cliNum(t, e, "outcomes", o)
	}
	if sum != ops {
		t.Errorf("JSON outcomes sum to %v, ops is %v", sum, ops)
	}
	var failed float64
	for _, o := range cliFailedOutcomes {
		failed += cliNum(t, e, "outcomes", o)
	}
	if failed != cliNum(t, e, "failed") {
		t.Errorf("JSON failed %v, failed outcomes add to %v", cliNum(t, e, "failed"), failed)
	}
	if lost := cliNum(t, e, "outcomes", "error") + cliNum(t, e, "outcomes", "timeout"); lost != cliNum(t, e, "lost", "count") {
		t.Errorf("JSON lost.count %v, error + timeout = %v", cliNum(t, e, "lost", "count"), lost)
	}
	if cliNum(t, e, "attempts") < ops {
		t.Errorf("JSON attempts %v < ops %v", cliNum(t, e, "attempts"), ops)
	}
	var classes float64
	for _, c := range cliClasses {
		classes += cliNum(t, e, "latency_us", c, "count")
	}
	if classes != ops {
		t.Errorf("JSON class counts add to %v, ops is %v", classes, ops)
	}
	for class, kinds := range map[string][]string{"read": cliReadKinds, "write": cliWriteKinds} {
		var n float64
		for _, k := range kinds {
			n += cliNum(t, e, "latency_us", k, "count")
		}
		if n != cliNum(t, e, "latency_us", class, "count") {
			t.Errorf("JSON %s count %v, its kinds add to %v", class, cliNum(t, e, "latency_us", class, "count"), n)
		}
	}
	for _, n := range cliLatencyNames {
		st := func(k string) float64 { return cliNum(t, e, "latency_us", n, k) }
		if st("count") == 0 {
			continue
		}
		if !(st("min") <= st("mean") && st("mean") <= st("max") && st("p50") <= st("p90") &&
			st("p90") <= st("p99") && st("p99") <= st("p999")) {
			t.Errorf("JSON latency_us.%s out of order: min %v mean %v max %v p50 %v p90 %v p99 %v p999 %v",
				n, st("min"), st("mean"), st("max"), st("p50"), st("p90"), st("p99"), st("p999"))
		}
	}
	measured := cliNum(t, e, "measured_s")
	if measured <= 0 || !cliClose(cliNum(t, e, "throughput"), ops/measured, 1e-9) {
		t.Errorf("JSON throughput %v, ops / measured_s = %v / %v", cliNum(t, e, "throughput"), ops, measured)
	}
	if cliNum(t, e, "runtime_s") < measured {
		t.Errorf("JSON runtime_s %v < measured_s %v", cliNum(t, e, "runtime_s"), measured)
	}
	if s == nil {
		return
	}
	// The JSON and the text describe the same experiment.
	for _, c := range []struct {
		what       string
		json, text float64
	}{
		{"ops", ops, float64(s.ops)},
		{"failed", cliNum(t, e, "failed"), float64(s.failed)},
		{"threads", cliNum(t, e, "threads"), float64(s.threads)},
		{"attempts", cliNum(t, e, "attempts"), float64(s.attempts)},
		{"read count (READ)", cliNum(t, e, "latency_us", "read", "count"), float64(s.cats["READ"])},
		{"write count (WRITE)", cliNum(t, e, "latency_us", "write", "count"), float64(s.cats["WRITE"])},
		{"read_txn count (READTRANSACTION)", cliNum(t, e, "latency_us", "read_txn", "count"), float64(s.cats["READTRANSACTION"])},
		{"write_txn count (WRITETRANSACTION)", cliNum(t, e, "latency_us", "write_txn", "count"), float64(s.cats["WRITETRANSACTION"])},
		{"obj_add + edge_add (INSERT)", cliNum(t, e, "latency_us", "obj_add", "count") + cliNum(t, e, "latency_us", "edge_add", "count"), float64(s.cats["INSERT"])},
		{"obj_update + edge_update (UPDATE)", cliNum(t, e, "latency_us", "obj_update", "count") + cliNum(t, e, "latency_us", "edge_update", "count"), float64(s.cats["UPDATE"])},
		{"obj_delete + edge_delete (DELETE)", cliNum(t, e, "latency_us", "obj_delete", "count") + cliNum(t, e, "latency_us", "edge_delete", "count"), float64(s.cats["DELETE"])},
	} {
		if c.json != c.text {
			t.Errorf("%s: JSON %v, text %v", c.what, c.json, c.text)
		}
	}
	for _, o := range cliOutcomes {
		if j := cliNum(t, e, "outcomes", o); j != float64(s.outcomes[o]) {
			t.Errorf("outcome %s: JSON %v, text %d", o, j, s.outcomes[o])
		}
	}
	for _, c := range []struct {
		what       string
		json, text float64
	}{
		{"warmup", cliNum(t, e, "warmup_s"), s.warmup},
		{"duration", cliNum(t, e, "duration_s"), s.duration},
		{"measured", measured, s.measured},
		{"runtime", cliNum(t, e, "runtime_s"), s.total},
		{"throughput", cliNum(t, e, "throughput"), s.throughput},
	} {
		if !cliClose(c.json, c.text, 1e-5) {
			t.Errorf("%s: JSON %v, text %v", c.what, c.json, c.text)
		}
	}
	if interrupted, _ := e["interrupted"].(bool); interrupted != s.interrupted {
		t.Errorf("JSON interrupted %v, text says interrupted: %v", e["interrupted"], s.interrupted)
	}
}

// --- Commands -----------------------------------------------------------------

func TestCLIWorkloads(t *testing.T) {
	cliHome(t)
	r := cliRun(t, "workloads")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("taobench workloads: %v", r)
	}
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	if len(lines) != len(workload.Builtins()) {
		t.Errorf("%d lines for %d built-ins:\n%s", len(lines), len(workload.Builtins()), r.stdout)
	}
	seen := map[string]int{}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) < 2 {
			t.Errorf("line %q: want a name and a description", l)
			continue
		}
		seen[f[0]]++
	}
	for _, name := range []string{"a", "o"} {
		if seen[name] != 1 {
			t.Errorf("built-in %s listed %d times, want once:\n%s", name, seen[name], r.stdout)
		}
	}
}

// The minimal valid workload in the original TAOBench format; the bad
// variants below change line 4 or 5. Lines 5 and 6 are fields read but not
// applied yet.
var cliOriginalLines = []string{
	`{"name": "operations", "weights": [90, 10, 0, 0]}`,
	`{"name": "read_operation_types", "values": ["obj_read", "edge_point_read"], "weights": [1, 1]}`,
	`{"name": "write_operation_types", "values": ["obj_update", "edge_add"], "weights": [1, 1]}`,
	`{"name": "edge_types", "values": ["unique", "other"], "weights": [1, 3]}`,
	`{"name": "read_operation_latency", "weights": [0, 0.5, 0.5]}`,
	`{"name": "errors", "values": ["success", "fail_after_reserve"], "weights": [1, 0]}`,
}

func cliWriteOriginal(t *testing.T, path string, change int, line string) {
	t.Helper()
	lines := append([]string{}, cliOriginalLines...)
	if change > 0 {
		lines[change-1] = line
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCLIOriginalWorkloadFile(t *testing.T) {
	dbPath := cliHome(t)
	dir := t.TempDir()

	// The valid file runs, and its not-applied fields are listed once.
	good := filepath.Join(dir, "mini.json")
	cliWriteOriginal(t, good, 0, "")
	out := filepath.Join(dir, "mini-result.json")
	r := cliRun(t, "run", "--db", "null", "--workload", good, "--threads", "1", "--warmup", "0", "--duration", "0.3", "--out", out)
	if r.code != 0 {
		t.Fatalf("the valid original-format file: %v", r)
	}
	if n := strings.Count(r.stderr, "not applied"); n != 1 {
		t.Errorf(`"not applied" appears %d times on stderr, want once:\n%s`, n, r.stderr)
	}
	// errors is applied (an injected failure of weight 0 here).
	if !strings.Contains(r.stderr, "fields read but not applied yet: read_operation_latency\n") {
		t.Errorf("stderr does not list read_operation_latency alone as not applied:\n%s", r.stderr)
	}
	sums := cliParse(t, r.stdout)
	if len(sums) != 1 {
		t.Fatalf("%d experiments printed, want 1", len(sums))
	}
	cliCheckSummary(t, sums[0])
	doc := cliReadJSON(t, out)
	if got := fmt.Sprint(doc.Run["not_applied"]); got != "[read_operation_latency]" {
		t.Errorf("JSON run.not_applied = %s, want [read_operation_latency]", got)
	}
	if doc.Run["workload"] != "mini" {
		t.Errorf("JSON run.workload = %v, want the file's name mini", doc.Run["workload"])
	}
	if len(doc.Experiments) == 1 {
		cliCheckExperiment(t, doc.Experiments[0], &sums[0])
	}
	if cliNum(t, doc.Experiments[0], "latency_us", "edge_range_read", "count") != 0 {
		t.Errorf("edge_range_read ran, but the file gives it no weight")
	}

	// Each bad variant differs from the good file in one line; each is
	// refused before anything runs or touches the database.
	for _, c := range []struct {
		name   string
		line   int
		text   string
		field  string // "" when the line is not JSON
		reason string
	}{
		{"invalid JSON", 4, `{"name": "edge_types", "values": ["unique", "other"], "weights": [1 3]}`, "", "invalid JSON"},
		{"lengths differ", 4, `{"name": "edge_types", "values": ["unique", "other"], "weights": [1]}`, "edge_types", "2 values but 1 weights"},
		{"negative weight", 4, `{"name": "edge_types", "values": ["unique", "other"], "weights": [1, -3]}`, "edge_types", "weights must be finite and >= 0"},
		{"all weights zero", 4, `{"name": "edge_types", "values": ["unique", "other"], "weights": [0, 0]}`, "edge_types", "all weights are 0"},
		{"unknown field", 4, `{"name": "edge_typez", "values": ["unique", "other"], "weights": [1, 3]}`, "edge_typez", "unknown field"},
		{"unknown value", 4, `{"name": "edge_types", "values": ["unique", "othr"], "weights": [1, 3]}`, "edge_types", `"othr" is not an edge category`},
		{"unknown key", 4, `{"name": "edge_types", "values": ["unique", "other"], "weight": [1, 3]}`, "", `unknown field "weight"`},
		{"not-applied field, negative weight", 5, `{"name": "read_operation_latency", "weights": [0, -0.5, 0.5]}`, "read_operation_latency", "weights must be finite and >= 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".json")
			cliWriteOriginal(t, bad, c.line, c.text)
			for _, cmd := range []string{"run", "load", "validate"} {
				r := cliRun(t, cmd, "--workload", bad, "--edges", "2000")
				if r.code != 2 {
					t.Errorf("%s: exit %d, want 2\n%v", cmd, r.code, r)
				}
				if r.stdout != "" {
					t.Errorf("%s: printed results for a bad workload:\n%s", cmd, r.stdout)
				}
				errs := cliErrorLines(r.stderr)
				if len(errs) != 1 {
					t.Fatalf("%s: %d error lines, want 1:\n%s", cmd, len(errs), r.stderr)
				}
				msg := errs[0]
				where := fmt.Sprintf("%s:%d: ", bad, c.line)
				if c.field != "" {
					where += fmt.Sprintf("field %q: ", c.field)
				}
				if !strings.Contains(msg, where) || !strings.Contains(msg, c.reason) {
					t.Errorf("%s: error %q; want it to name %q and say %q", cmd, msg, where, c.reason)
				}
				for _, ran := range []string{"experiment", "loading", "not applied"} {
					if strings.Contains(r.stderr, ran) {
						t.Errorf("%s: stderr mentions %q: something ran for a bad workload:\n%s", cmd, ran, r.stderr)
					}
				}
			}
			cliNoFile(t, dbPath, "a bad workload")
		})
	}
}

func TestCLIValidate(t *testing.T) {
	cliHome(t)
	r := cliRun(t, "validate", "--workload", "o", "--requests", "20000")
	if r.code != 0 {
		t.Fatalf("validate o: %v", r)
	}
	rows := cliValidateRows(t, r.stdout)
	w, err := workload.Builtin("o")
	if err != nil {
		t.Fatal(err)
	}
	g, err := graph.New(w, defaultSeed, defaultEdges)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, row := range gencheck.Run(w, g, 100, defaultSeed) {
		want = append(want, row.Name)
	}
	var names []string
	passed := 0
	for _, row := range rows {
		names = append(names, row[0])
		switch row[len(row)-1] {
		case "pass":
			passed++
		case "skipped": // fewer than two categories with data: nothing to test
		default:
			t.Errorf("distribution %s: %s", row[0], strings.Join(row, " "))
		}
	}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("rows %v, want one per distribution: %v", names, want)
	}
	if passed < len(rows)/2 {
		t.Errorf("only %d of %d distributions tested and passed:\n%s", passed, len(rows), r.stdout)
	}

	// An honest failure: write transactions of 40 and 50 distinct objects
	// on a graph with fewer objects than that. The generator cannot find
	// enough distinct keys, leaves operations out (docs/graph.md), and the
	// sizes it generates differ from the configured ones.
	dir := t.TempDir()
	big := filepath.Join(dir, "bigtxn.json")
	if err := os.WriteFile(big, []byte(`{"name": "operations", "weights": [0, 0, 0, 1]}
{"name": "write_txn_sizes", "values": [40, 50], "weights": [1, 1]}
{"name": "write_txn_operation_types", "values": ["obj_update"], "weights": [1]}
{"name": "primary_shards", "weights": [1]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	bw, err := workload.Load(big)
	if err != nil {
		t.Fatal(err)
	}
	bg, err := graph.New(bw, defaultSeed, 10)
	if err != nil {
		t.Fatal(err)
	}
	if bg.Nodes() >= 40 {
		t.Fatalf("the graph of 10 edges has %d nodes; the test needs fewer than 40", bg.Nodes())
	}
	r = cliRun(t, "validate", "--workload", big, "--edges", "10", "--requests", "2000")
	if r.code != 1 {
		t.Errorf("validate of a workload its graph cannot serve: exit %d, want 1 (a failed check)\n%v", r.code, r)
	}
	failed := map[string]bool{}
	for _, row := range cliValidateRows(t, r.stdout) {
		if row[len(row)-1] == "FAIL" {
			failed[row[0]] = true
		}
	}
	if !failed["write_txn_sizes"] || len(failed) != 1 {
		t.Errorf("failed distributions %v, want just write_txn_sizes:\n%s", failed, r.stdout)
	}
	if !strings.Contains(r.stderr, "1 distribution(s) differ") {
		t.Errorf("stderr does not say how many distributions differ:\n%s", r.stderr)
	}
}

// cliValidateRows returns the fields of each row of validate's table.
func cliValidateRows(t *testing.T, stdout string) [][]string {
	t.Helper()
	lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
	if len(lines) < 3 || !strings.Contains(lines[0], "distribution") || !strings.Contains(lines[len(lines)-1], "requests of workload") {
		t.Fatalf("validate output has no table:\n%s", stdout)
	}
	var rows [][]string
	for _, l := range lines[1 : len(lines)-1] {
		f := strings.Fields(l)
		if len(f) != 9 {
			t.Fatalf("row %q has %d columns, want 9", l, len(f))
		}
		rows = append(rows, f)
	}
	return rows
}

// The newcomer's path: no --db, a fresh default database, a run that loads
// the graph first, then another run and a check on the same database.
func TestCLIRunDefaultDatabase(t *testing.T) {
	dbPath := cliHome(t)
	out := filepath.Join(t.TempDir(), "results.json")
	r := cliRun(t, "run", "--edges", "2000", "--warmup", "0", "--duration", "1s", "--out", out)
	if r.code != 0 {
		t.Fatalf("first run: %v", r)
	}
	if !strings.Contains(r.stderr, "holds no graph yet: loading workload o's (2000 edges") {
		t.Errorf("the first run did not say it loads a graph:\n%s", r.stderr)
	}
	if _, err := os.Stat(dbPath); err != nil {
		t.Errorf("no default database: %v", err)
	}
	sums := cliParse(t, r.stdout)
	if len(sums) != 1 {
		t.Fatalf("%d experiments printed, want 1:\n%s", len(sums), r.stdout)
	}
	s := sums[0]
	cliCheckSummary(t, s)
	if s.threads != 8 || s.warmup != 0 || s.duration != 1 {
		t.Errorf("experiment %d threads, %v s warmup, %v s: want the default 8 threads, 0 and 1 s", s.threads, s.warmup, s.duration)
	}
	doc := cliReadJSON(t, out)
	if len(doc.Experiments) != 1 {
		t.Fatalf("JSON has %d experiments, want 1", len(doc.Experiments))
	}
	cliCheckExperiment(t, doc.Experiments[0], &s)
	for k, want := range map[string]any{"database": "sqlite:" + dbPath, "workload": "o", "edges": 2000.0, "graph_seed": 1.0, "graph_workload": "o"} {
		if doc.Run[k] != want {
			t.Errorf("JSON run.%s = %v, want %v", k, doc.Run[k], want)
		}
	}
	client, _ := doc.Run["client"].(map[string]any)
	for k, want := range map[string]any{"writes": "statements", "reads": "statements", "exec_mode": "", "runtime_monitor": sysmon.State(), "pooler": "", "routines": ""} {
		if client[k] != want {
			t.Errorf("JSON run.client.%s = %v, want %v", k, client[k], want)
		}
	}
	if seed, _ := doc.Run["seed"].(float64); seed <= 0 || !strings.Contains(r.stderr, fmt.Sprintf("give --seed %.0f to repeat them", seed)) {
		t.Errorf("JSON run.seed = %v: want the printed request seed\n%s", doc.Run["seed"], r.stderr)
	}
	if s.outcomes["error"] != 0 {
		t.Errorf("%d requests ended in error", s.outcomes["error"])
	}

	// Again, with no size given: the database's graph is used as it is.
	r = cliRun(t, "run", "--warmup", "0", "--duration", "1s")
	if r.code != 0 {
		t.Fatalf("second run: %v", r)
	}
	if strings.Contains(r.stderr, "loading") {
		t.Errorf("the second run loaded again:\n%s", r.stderr)
	}
	for _, s := range cliParse(t, r.stdout) {
		cliCheckSummary(t, s)
		if s.outcomes["error"] != 0 {
			t.Errorf("second run: %d requests ended in error", s.outcomes["error"])
		}
	}
	r = cliRun(t, "check")
	if r.code != 0 || !strings.Contains(r.stdout, "every invariant holds") {
		t.Errorf("check after two runs: %v", r)
	}
}

// Runs alternate on one database, with writes and deletes. A database holds
// the graph of one workload (its graph-shaping fields), so the alternating
// workloads share workload a's graph: a itself, and a's graph with a write
// mix of every write kind, deletes included.
func TestCLIRepeatedRunsWithDeletes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "a.db")
	w, err := workload.Builtin("a")
	if err != nil {
		t.Fatal(err)
	}
	w.Name, w.Description = "a_deletes", "workload a's graph, every write kind"
	w.Requests = workload.Dist[tao.Class]{Values: []tao.Class{tao.Read, tao.Write, tao.WriteTxn}, Weights: []float64{2, 2, 1}}
	all := workload.Dist[tao.Kind]{Values: tao.WriteKinds, Weights: make([]float64, len(tao.WriteKinds))}
	for i := range all.Weights {
		all.Weights[i] = 1
	}
	w.WriteKinds, w.WriteTxnKinds = all, all
	wfile := filepath.Join(dir, "a_deletes.workload")
	var buf bytes.Buffer
	if err := workload.Write(&buf, w); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wfile, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	for i, wl := range []string{"a", wfile, "a"} {
		out := filepath.Join(dir, fmt.Sprintf("run%d.json", i+1))
		r := cliRun(t, "run", "--db", db, "--workload", wl, "--edges", "2000", "--threads", "4",
			"--warmup", "0", "--duration", "1s", "--out", out)
		if r.code != 0 {
			t.Fatalf("run %d (%s): %v", i+1, wl, r)
		}
		if loaded := strings.Contains(r.stderr, "loading"); loaded != (i == 0) {
			t.Errorf("run %d: loaded %v, want a load only before the first run:\n%s", i+1, loaded, r.stderr)
		}
		sums := cliParse(t, r.stdout)
		doc := cliReadJSON(t, out)
		if len(sums) != 1 || len(doc.Experiments) != 1 {
			t.Fatalf("run %d: %d experiments printed, %d in JSON; want 1", i+1, len(sums), len(doc.Experiments))
		}
		cliCheckSummary(t, sums[0])
		cliCheckExperiment(t, doc.Experiments[0], &sums[0])
		if n := sums[0].outcomes["error"]; n != 0 {
			t.Errorf("run %d (%s): %d requests ended in error", i+1, wl, n)
		}
		if wl == wfile {
			for _, k := range []string{"obj_delete", "edge_delete"} {
				if cliNum(t, doc.Experiments[0], "latency_us", k, "count") == 0 {
					t.Errorf("run %d: no single %s ran; the workload weighs it like every write kind", i+1, k)
				}
			}
		}
	}
	r := cliRun(t, "check", "--db", db)
	if r.code != 0 || !strings.Contains(r.stdout, "every invariant holds") {
		t.Errorf("check after three runs: %v", r)
	}

	// The graph is loaded once: workload o runs on a's graph, then a again.
	for _, w := range []string{"o", "a"} {
		r = cliRun(t, "run", "--db", db, "--workload", w, "--warmup", "0", "--duration", "1s")
		// The file is the built-in a with deletes, and keeps its name.
		if r.code != 0 || !strings.Contains(r.stderr, "graph: workload a's") || !strings.Contains(r.stderr, "requests: workload "+w) {
			t.Errorf("workload %s on the graph of %s: want it to run, naming both\n%v", w, wfile, r)
		}
	}
	if r := cliRun(t, "check", "--db", db); r.code != 0 || !strings.Contains(r.stdout, "every invariant holds") {
		t.Errorf("check after o and a on one graph: %v", r)
	}
}

func TestCLIExperimentsFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exps := filepath.Join(dir, "experiments.txt")
	if err := os.WriteFile(exps, []byte("# threads,warmup,duration\n1,0,0.5\n\n2,0,0.5   # two clients\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results.json")
	r := cliRun(t, "run", "--db", "null", "--experiments", exps, "--out", out)
	if r.code != 0 {
		t.Fatalf("%v", r)
	}
	sums := cliParse(t, r.stdout)
	doc := cliReadJSON(t, out)
	if len(sums) != 2 || len(doc.Experiments) != 2 {
		t.Fatalf("%d experiments printed and %d in JSON, want 2 and 2:\n%s", len(sums), len(doc.Experiments), r.stdout)
	}
	for i, threads := range []int{1, 2} {
		if sums[i].threads != threads || cliNum(t, doc.Experiments[i], "threads") != float64(threads) {
			t.Errorf("experiment %d: %d threads printed, %v in JSON; want %d", i+1, sums[i].threads, doc.Experiments[i]["threads"], threads)
		}
		if sums[i].warmup != 0 || sums[i].duration != 0.5 {
			t.Errorf("experiment %d: warmup %v s, duration %v s; want 0 and 0.5", i+1, sums[i].warmup, sums[i].duration)
		}
		cliCheckSummary(t, sums[i])
		cliCheckExperiment(t, doc.Experiments[i], &sums[i])
		if !strings.Contains(r.stderr, fmt.Sprintf("experiment %d of 2: %d threads", i+1, threads)) {
			t.Errorf("stderr does not announce experiment %d of 2:\n%s", i+1, r.stderr)
		}
	}
}

// Ctrl-C (ctx cancelled) ends a long run at once, and what was measured is
// printed and written.
func TestCLIInterrupt(t *testing.T) {
	cliHome(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "results.json")
	args := []string{"run", "--db", "sqlite:" + filepath.Join(dir, "i.db"), "--edges", "2000", "--threads", "2",
		"--warmup", "0", "--duration", "60s", "--out", out}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout cliSyncBuffer
	stderr := newCLISyncBuffer("experiment 1 of 1")
	done := make(chan int, 1)
	start := time.Now()
	go func() { done <- realMain(ctx, args, &stdout, stderr) }()
	select {
	case <-stderr.seen:
	case code := <-done:
		t.Fatalf("the run ended (exit %d) before it started its experiment:\n%s", code, stderr.String())
	case <-time.After(60 * time.Second):
		cancel()
		t.Fatalf("no experiment started within 60 s:\n%s", stderr.String())
	}
	time.Sleep(500 * time.Millisecond) // let it measure something
	cancel()
	var code int
	select {
	case code = <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("realMain still running 30 s after Ctrl-C:\n%s", stderr.String())
	}
	elapsed := time.Since(start)
	r := cliResult{nil, code, stdout.String(), stderr.String()}
	if code != 130 {
		t.Errorf("exit %d after Ctrl-C, want 130\n%v", code, r)
	}
	if elapsed >= 30*time.Second {
		t.Errorf("the 60 s run took %v to end after Ctrl-C", elapsed)
	}
	sums := cliParse(t, r.stdout)
	if len(sums) != 1 {
		t.Fatalf("%d experiments printed after Ctrl-C, want 1:\n%s", len(sums), r.stdout)
	}
	if !sums[0].interrupted || sums[0].measured >= sums[0].duration {
		t.Errorf("the summary does not say it was interrupted early: measured %v s of %v s", sums[0].measured, sums[0].duration)
	}
	doc := cliReadJSON(t, out)
	if len(doc.Experiments) != 1 {
		t.Fatalf("JSON has %d experiments after Ctrl-C, want 1", len(doc.Experiments))
	}
	cliCheckExperiment(t, doc.Experiments[0], &sums[0])
	if interrupted, _ := doc.Experiments[0]["interrupted"].(bool); !interrupted {
		t.Errorf("JSON interrupted = %v, want true", doc.Experiments[0]["interrupted"])
	}
	if !strings.Contains(r.stderr, "interrupted: results so far written to "+out) {
		t.Errorf("stderr does not say where the results went:\n%s", r.stderr)
	}
}

// A database holds one graph: a run or a load of another is refused, and
// load --drop replaces it.
func TestCLIGraphMismatch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "m.db")
	if r := cliRun(t, "load", "--db", db, "--edges", "2000", "--seed", "1"); r.code != 0 || !strings.Contains(r.stderr, "loaded") {
		t.Fatalf("load: %v", r)
	}
	if r := cliRun(t, "load", "--db", db, "--edges", "2000", "--seed", "1"); r.code != 0 || !strings.Contains(r.stderr, "already holds this graph") {
		t.Errorf("loading the same graph again: want exit 0 and nothing to do\n%v", r)
	}
	// A run's --seed is its request seed: it needs no other graph.
	if r := cliRun(t, "run", "--db", db, "--warmup", "0", "--duration", "0.3", "--seed", "2"); r.code != 0 || strings.Contains(r.stderr, "loading") {
		t.Errorf("run --seed 2 on a graph of seed 1: want it to run on the database's graph\n%v", r)
	}
	r := cliRun(t, "run", "--db", db, "--warmup", "0", "--duration", "1s", "--edges", "3000")
	if r.code != 2 || r.stdout != "" || strings.Contains(r.stderr, "experiment 1") {
		t.Errorf("run --edges 3000 on a graph of 2000: exit %d, want 2 before any experiment\n%v", r.code, r)
	}
	if errs := cliErrorLines(r.stderr); len(errs) != 1 || !strings.Contains(errs[0], "2000 edges, not 3000") || !strings.Contains(errs[0], "--drop") {
		t.Errorf("run --edges 3000: error %q; want it to say 2000 edges, not 3000, and suggest --drop", errs)
	}
	r = cliRun(t, "load", "--db", db, "--edges", "2000", "--seed", "2")
	if r.code != 2 || !strings.Contains(r.stderr, "already holds a different graph") || !strings.Contains(r.stderr, "add --drop") {
		t.Errorf("load of another graph without --drop: want exit 2 and a hint at --drop\n%v", r)
	}
	r = cliRun(t, "load", "--db", db, "--edges", "2000", "--seed", "2", "--drop")
	if r.code != 0 || !strings.Contains(r.stderr, "loaded") {
		t.Fatalf("load --drop: %v", r)
	}
	// The run takes the database's graph and reports its seed.
	out := filepath.Join(dir, "results.json")
	r = cliRun(t, "run", "--db", db, "--threads", "2", "--warmup", "0", "--duration", "0.3", "--out", out)
	if r.code != 0 {
		t.Fatalf("run on the replaced graph: %v", r)
	}
	doc := cliReadJSON(t, out)
	if doc.Run["graph_seed"] != 2.0 || doc.Run["edges"] != 2000.0 {
		t.Errorf("JSON run.graph_seed %v, run.edges %v; want the database's graph: seed 2, 2000 edges", doc.Run["graph_seed"], doc.Run["edges"])
	}
	if r := cliRun(t, "check", "--db", db); r.code != 0 {
		t.Errorf("check after load --drop and a run: %v", r)
	}
}

func TestCLINullStoreHugeGraph(t *testing.T) {
	dbPath := cliHome(t)
	out := filepath.Join(t.TempDir(), "results.json")
	r := cliRun(t, "run", "--db", "null", "--edges", "165000000", "--threads", "8", "--warmup", "0", "--duration", "1s", "--out", out)
	if r.code != 0 {
		t.Fatalf("%v", r)
	}
	if strings.Contains(r.stderr, "loading") {
		t.Errorf("the null store loaded something:\n%s", r.stderr)
	}
	sums := cliParse(t, r.stdout)
	doc := cliReadJSON(t, out)
	if len(sums) != 1 || len(doc.Experiments) != 1 {
		t.Fatalf("%d experiments printed, %d in JSON; want 1", len(sums), len(doc.Experiments))
	}
	cliCheckSummary(t, sums[0])
	cliCheckExperiment(t, doc.Experiments[0], &sums[0])
	if doc.Run["edges"] != 165000000.0 || doc.Run["database"] != "null" {
		t.Errorf("JSON run: edges %v on %v; want 165000000 on null", doc.Run["edges"], doc.Run["database"])
	}
	cliNoFile(t, dbPath, "a run on the null store")
}

func TestCLIDurations(t *testing.T) {
	dbPath := cliHome(t)
	for _, c := range []struct {
		warmup, duration string
		w, d             float64
	}{
		{"0.5", "1s", 0.5, 1},
		{"1s", "1", 1, 1},
		{"1", "0.5", 1, 0.5},
	} {
		r := cliRun(t, "run", "--db", "null", "--threads", "1", "--warmup", c.warmup, "--duration", c.duration)
		if r.code != 0 {
			t.Errorf("--warmup %s --duration %s: %v", c.warmup, c.duration, r)
			continue
		}
		sums := cliParse(t, r.stdout)
		if len(sums) != 1 || sums[0].warmup != c.w || sums[0].duration != c.d {
			t.Errorf("--warmup %s --duration %s ran %+v; want %v s and %v s", c.warmup, c.duration, sums, c.w, c.d)
			continue
		}
		cliCheckSummary(t, sums[0])
	}
	for _, flag := range []string{"warmup", "duration"} {
		for _, v := range []string{"-1s", "abc", "-1", "NaN", "1e300"} {
			r := cliRun(t, "run", "--"+flag, v)
			errs := cliErrorLines(r.stderr)
			if r.code != 2 || r.stdout != "" || len(errs) != 1 {
				t.Errorf("--%s %s: want exit 2 and one error line, no results\n%v", flag, v, r)
				continue
			}
			if !strings.Contains(errs[0], "-"+flag) || !strings.Contains(errs[0], strconv.Quote(v)) {
				t.Errorf("--%s %s: error %q does not name the flag and the value", flag, v, errs[0])
			}
		}
	}
	for _, d := range []string{"0", "1ns", "0.05"} {
		r := cliRun(t, "run", "--duration", d)
		if r.code != 2 || !strings.Contains(r.stderr, "--duration") || !strings.Contains(r.stderr, "give at least 100ms") {
			t.Errorf("--duration %s: want exit 2 and the minimum\n%v", d, r)
		}
	}
	cliNoFile(t, dbPath, "runs with bad durations")
}

func TestCLIBadDatabaseURLs(t *testing.T) {
	dbPath := cliHome(t)
	const secret = "s3cret"
	dir := t.TempDir()
	for _, u := range []string{
		"bogus://x",
		"bogus://u:" + secret + "@x",
		"postgres://u:" + secret + "@127.0.0.1:1/db", // port 1: connection refused
		"postgres://u:" + secret + "@127.0.0.1:1/db?sslmode=bogus",
		"mysql://u:" + secret + "@127.0.0.1:1/db",
		"postgres://u:" + secret + "%zz@127.0.0.1:1/db", // not a URL
		"sqlite:",
		"sqlite:" + filepath.Join(dir, "x.db") + "?password=" + secret,
	} {
		for _, cmd := range []string{"run", "load", "check", "schema"} {
			r := cliRun(t, cmd, "--db", u)
			if r.code != 2 {
				t.Errorf("%s --db %s: exit %d, want 2\n%v", cmd, u, r.code, r)
			}
			if strings.Contains(r.stdout+r.stderr, secret) {
				t.Errorf("%s --db %s: the password shows:\n%v", cmd, u, r)
			}
			if r.stdout != "" {
				t.Errorf("%s --db %s: results printed:\n%s", cmd, u, r.stdout)
			}
			var other []string
			for _, l := range strings.Split(strings.TrimRight(r.stderr, "\n"), "\n") {
				if !strings.Contains(l, "not applied") {
					other = append(other, l)
				}
			}
			if len(other) != 1 || !strings.HasPrefix(other[0], "taobench: ") {
				t.Errorf("%s --db %s: want a one-line error, got:\n%s", cmd, u, r.stderr)
			}
		}
	}
	// --db=URL is the same flag.
	r := cliRun(t, "check", "--db=postgres://u:"+secret+"@127.0.0.1:1/db")
	if r.code != 2 || strings.Contains(r.stderr, secret) {
		t.Errorf("--db=URL: want exit 2 and no password\n%v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.db")); err == nil {
		t.Errorf("a refused sqlite URL created its file")
	}
	cliNoFile(t, dbPath, "commands with bad URLs")
}

func TestCLISchema(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.db")
	r := cliRun(t, "schema", "--db", "sqlite:"+path)
	if r.code != 0 {
		t.Fatalf("%v", r)
	}
	for _, table := range []string{"objects", "edges"} {
		if !regexp.MustCompile(`(?m)^CREATE TABLE (IF NOT EXISTS )?` + table + ` \(.*;$`).MatchString(r.stdout) {
			t.Errorf("no CREATE TABLE statement for %s:\n%s", table, r.stdout)
		}
	}
	for _, l := range strings.Split(strings.TrimRight(r.stdout, "\n"), "\n") {
		if !strings.HasSuffix(l, ";") {
			t.Errorf("statement %q does not end with ;", l)
		}
	}
}

func TestCLIUsageErrors(t *testing.T) {
	cliHome(t)
	r := cliRun(t, "frob")
	if r.code != 2 || !strings.Contains(r.stderr, `unknown command "frob"`) || !strings.Contains(r.stderr, "Usage:") ||
		!strings.Contains(r.stderr, "taobench run ") {
		t.Errorf("unknown command: want exit 2, the command named and the usage\n%v", r)
	}
	r = cliRun(t, "run", "--frob")
	if r.code != 2 || !strings.Contains(r.stderr, "-frob") || !strings.Contains(r.stderr, "Usage of taobench run:") ||
		!strings.Contains(r.stderr, "-duration") || r.stdout != "" {
		t.Errorf("unknown flag: want exit 2, the flag named and run's flags on stderr\n%v", r)
	}
	r = cliRun(t, "workloads", "extra")
	if r.code != 2 || !strings.Contains(r.stderr, `unexpected argument "extra"`) {
		t.Errorf("stray argument: want exit 2 and the argument named\n%v", r)
	}
	r = cliRun(t, "run", "-h")
	if r.code != 0 || !strings.Contains(r.stdout, "Usage of taobench run:") || !strings.Contains(r.stdout, "-experiments") {
		t.Errorf("run -h: want exit 0 and run's flags on stdout\n%v", r)
	}
	r = cliRun(t, "help")
	if r.code != 0 || !strings.Contains(r.stdout, "Usage:") || r.stderr != "" {
		t.Errorf("help: want exit 0 and the usage on stdout\n%v", r)
	}
}

// A run over two endpoints (--db twice, one SQLite file) measures each
// one's stale reads: the text names each endpoint in its own line, the
// JSON has a consistency row per endpoint with its reads, and the
// experiment exits 0 (one file: none stale).
func TestCLIStaleReadsPerEndpoint(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "e.db")
	out := filepath.Join(dir, "e.json")
	r := cliRun(t, "run", "--db", db, "--db", db, "--edges", "2000", "--threads", "2", "--warmup", "0", "--duration", "0.5", "--out", out)
	if r.code != 0 {
		t.Fatalf("run over two endpoints: %v", r)
	}
	if n := strings.Count(r.stdout, "  endpoint "+db+": "); !strings.Contains(r.stdout, "stale reads per endpoint") || n != 2 {
		t.Errorf("text: %d stale-read lines naming %s; want a line per endpoint\n%s", n, db, r.stdout)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Experiments []struct {
			Consistency struct {
				Endpoints []struct {
					URL    string `json:"url"`
					Served int64  `json:"served"`
					Stale  int64  `json:"stale"`
				} `json:"endpoints"`
			} `json:"consistency"`
		} `json:"experiments"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Experiments) != 1 || len(doc.Experiments[0].Consistency.Endpoints) != 2 {
		t.Fatalf("JSON: %+v; want one experiment with a consistency row per endpoint", doc)
	}
	for i, row := range doc.Experiments[0].Consistency.Endpoints {
		if row.URL != db || row.Served == 0 || row.Stale != 0 {
			t.Errorf("endpoint %d: %+v; want %s with reads, none stale", i+1, row, db)
		}
	}
}
