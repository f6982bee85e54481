package textreport

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
)

// synthetic is an experiment whose every figure is known (see the comments).
func synthetic() *result.Experiment {
	r := metrics.NewRecorder()
	us := func(x float64) time.Duration { return time.Duration(x * 1000) }
	for _, s := range []metrics.Sample{
		{Class: tao.Read, Kind: tao.ObjRead, Outcome: tao.OK, Latency: us(1000.004)},
		{Class: tao.Read, Kind: tao.ObjRead, Outcome: tao.NotFound, Latency: us(3000.016)},
		{Class: tao.Read, Kind: tao.EdgeRangeRead, Outcome: tao.Error, Latency: us(5000), At: 14200 * time.Millisecond},
		{Class: tao.Write, Kind: tao.ObjAdd, Outcome: tao.OK, Latency: us(500), WritesObjects: true},
		{Class: tao.Write, Kind: tao.EdgeAdd, Outcome: tao.UniqueViolation, Latency: us(700), WritesEdges: true, AddsUniqueEdge: true},
		{Class: tao.Write, Kind: tao.ObjUpdate, Outcome: tao.ConflictObject, Latency: us(900), Attempts: 3, ObjectConflicts: 3, WritesObjects: true, HasChecks: true},
		{Class: tao.ReadTxn, Kind: tao.NumKinds, Outcome: tao.Timeout, Latency: us(10000), At: 12300 * time.Millisecond},
		{Class: tao.WriteTxn, Kind: tao.NumKinds, Outcome: tao.PreconditionFailed, Latency: us(20000), WritesObjects: true, WritesEdges: true, HasChecks: true},
	} {
		if s.Attempts == 0 {
			s.Attempts = 1
		}
		r.Record(&s)
	}
	return &result.Experiment{
		Threads: 4, Warmup: 10 * time.Second, Duration: 60 * time.Second,
		TotalRuntime: 70500 * time.Millisecond, Measured: 60 * time.Second,
		Summary: r.Snapshot(),
	}
}

// The patterns a script parsing the original's output would use.
var (
	reRuntime   = regexp.MustCompile(`(?m)^Total runtime \(sec\): ([\d.]+)$`)
	reMeasured  = regexp.MustCompile(`(?m)^Runtime excluding warmup \(sec\): ([\d.]+)$`)
	reOps       = regexp.MustCompile(`(?m)^Total completed operations excluding warmup: (\d+)$`)
	reTput      = regexp.MustCompile(`(?m)^Throughput excluding warmup: ([\d.]+)$`)
	reOvertime  = regexp.MustCompile(`(?m)^Number of overtime operations: (\d+)$`)
	reFailed    = regexp.MustCompile(`(?m)^Number of failed operations: (\d+)$`)
	reOpsLine   = regexp.MustCompile(`(?m)^(\d+) operations;((?: \[\w+: Count=\d+ Max=[\d.]+ Min=[\d.]+ Avg=[\d.]+\])+)$`)
	reBracket   = regexp.MustCompile(`\[(\w+): Count=(\d+) Max=([\d.]+) Min=([\d.]+) Avg=([\d.]+)\]`)
	reDescribed = regexp.MustCompile(`(?m)^Experiment description: (\d+) threads, ([\d.]+) seconds \(warmup\), ([\d.]+) seconds \(experiment\)$`)
)

func TestTextOriginalLines(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := WriteText(&buf, synthetic()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	first := func(re *regexp.Regexp) string {
		m := re.FindStringSubmatch(out)
		if m == nil {
			t.Errorf("no line matches %s in:\n%s", re, out)
			return ""
		}
		return m[1]
	}
	for _, c := range []struct {
		re   *regexp.Regexp
		want string
	}{
		{reDescribed, "4"}, {reRuntime, "70.5"}, {reMeasured, "60"}, {reOps, "8"},
		{reTput, "0.133333"}, {reOvertime, "0"}, {reFailed, "3"}, {reOpsLine, "8"},
	} {
		if got := first(c.re); got != c.want {
			t.Errorf("%s: got %q, want %q", c.re, got, c.want)
		}
	}
	// The original's lines come first, in its order.
	lines := strings.Split(out, "\n")
	for i, re := range []*regexp.Regexp{reDescribed, reRuntime, reMeasured, reOps, reTput, reOvertime, reFailed, reOpsLine} {
		if i >= len(lines) || !re.MatchString(lines[i]) {
			t.Errorf("line %d does not match %s", i+1, re)
		}
	}

	m := reOpsLine.FindStringSubmatch(out)
	if m == nil {
		return
	}
	var got []string
	for _, b := range reBracket.FindAllStringSubmatch(m[2], -1) {
		got = append(got, strings.Join(b[1:], " "))
	}
	want := []string{
		"INSERT 2 700.00 500.00 600.00",
		"READ 3 5000.00 1000.00 3000.01",
		"UPDATE 1 900.00 900.00 900.00",
		// no DELETE: none was issued
		"READTRANSACTION 1 10000.00 10000.00 10000.00",
		"WRITETRANSACTION 1 20000.00 20000.00 20000.00",
		"WRITE 3 900.00 500.00 700.00",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("brackets:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestTextDetails(t *testing.T) {
	t.Parallel()
	e := synthetic()
	e.Interrupted = true
	e.Measured = 30 * time.Second
	e.Counters = &result.Counters{NoopWrites: 4}
	e.Counters.Txns[tao.WriteTxn] = 9
	e.Counters.Outcomes[tao.WriteTxn] = [tao.NumOutcomes]int64{tao.OK: 5, tao.PreconditionFailed: 1, tao.UniqueViolation: 2, tao.ConflictAssociation: 1}
	var buf bytes.Buffer
	if err := WriteText(&buf, e); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"interrupted: measured 30 s of 60 s",
		"lost requests: 2 (errors 1, timeouts 1) between 12s and 15s of the measured window",
		"outcomes: ok 2 not_found 1 precondition_failed 1 unique_violation 1 conflict_object 1 conflict_association 0 timeout 1 error 1",
		"attempts: 10 (2 retries)",
		"write transactions: 5 committed, aborted by precondition_failed 1, unique_violation 2, conflict 1, timeout 0, error 0; no-op writes (committed, found no row) 4",
		"contention: object lock conflict 33.333%, association lock conflict 0.000%, overall 25.000%; unique association exists 100.000%, overall with unique 50.000%; precondition failed 50.000%",
		"Throughput excluding warmup: 0.266667",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	rows := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) == 8 {
			rows[f[0]] = true
		}
	}
	for _, name := range []string{"read", "write", "read_txn", "write_txn", "obj_read", "edge_range_read", "obj_add", "edge_add", "obj_update"} {
		if !rows[name] {
			t.Errorf("latency table lacks a row for %s", name)
		}
	}
	for _, name := range []string{"obj_delete", "edge_delete", "edge_count_read"} {
		if rows[name] {
			t.Errorf("latency table has a row for %s, which had no requests", name)
		}
	}
	if !strings.Contains(out, "obj_read                  2      2.000      1.000      3.000      3.000      3.000      3.000") {
		t.Errorf("obj_read row wrong:\n%s", out)
	}
}

// TestTextInjectedFailures: each injected failure is named apart, since
// each leaves the database in a different state.
func TestTextInjectedFailures(t *testing.T) {
	t.Parallel()
	e := synthetic()
	e.Counters = &result.Counters{}
	e.Counters.Txns[tao.WriteTxn] = 10
	e.Counters.Outcomes[tao.WriteTxn] = [tao.NumOutcomes]int64{tao.OK: 6, tao.FailedAfterReserve: 1, tao.FailedAfterPrimaryCommit: 3}
	var buf bytes.Buffer
	if err := WriteText(&buf, e); err != nil {
		t.Fatal(err)
	}
	want := "write transactions: 6 committed, aborted by precondition_failed 0, unique_violation 0, conflict 0, timeout 0, error 0, failed_after_reserve 1, failed_after_primary_commit 3; no-op writes"
	if !strings.Contains(buf.String(), want) {
		t.Errorf("text lacks %q:\n%s", want, buf.String())
	}
}

func TestTextEmpty(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := WriteText(&buf, &result.Experiment{Threads: 1, Duration: time.Second}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "\n0 operations; [WRITE: Count=0 Max=0.00 Min=0.00 Avg=0.00]\n") {
		t.Errorf("empty experiment:\n%s", out)
	}
	if strings.Contains(out, "lost requests") {
		t.Errorf("empty experiment reports lost requests:\n%s", out)
	}
}

func TestNum(t *testing.T) {
	t.Parallel()
	for x, want := range map[float64]string{
		61.020412: "61.0204", 50.98234: "50.9823", 116.8049: "116.805", 60: "60", 0: "0",
		1234567.8: "1234568", 0.000123456: "0.000123", math.NaN(): "0", 162153.2: "162153",
	} {
		if got := num(x); got != want {
			t.Errorf("num(%v) = %q, want %q", x, got, want)
		}
	}
}

func keys(m map[string]any) string {
	var k []string
	for key := range m {
		k = append(k, key)
	}
	sort.Strings(k)
	return strings.Join(k, " ")
}

func sorted(s string) string {
	f := strings.Fields(s)
	sort.Strings(f)
	return strings.Join(f, " ")
}

func TestJSON(t *testing.T) {
	t.Parallel()
	run := &result.Run{Database: "postgres://u:xxxxx@h/db", Workload: "o", Seed: 7, Edges: 1000, Retries: 3,
		Started: time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC), Version: "v0.1", Revision: "0123abc+modified", NotApplied: []string{"read_tiers"}}
	var buf bytes.Buffer
	if err := result.WriteJSON(&buf, run, []*result.Experiment{synthetic(), {Threads: 2}}); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, buf.String())
	}
	if got := keys(doc); got != "experiments repeats run" {
		t.Errorf("top-level keys %q", got)
	}
	r := doc["run"].(map[string]any)
	if got, want := keys(r), sorted("database workload graph_workload graph_seed seed edges retries started version revision not_applied run_id drivers driver_indexes client"); got != want {
		t.Errorf("run keys %q, want %q", got, want)
	}
	if r["database"] != run.Database || r["workload"] != "o" || r["seed"] != 7.0 || r["edges"] != 1000.0 ||
		r["retries"] != 3.0 || r["started"] != "2024-05-01T12:00:00Z" || r["version"] != "v0.1" ||
		r["revision"] != "0123abc+modified" || len(r["not_applied"].([]any)) != 1 ||
		r["run_id"] != "" || r["drivers"] != 1.0 || len(r["driver_indexes"].([]any)) != 1 {
		t.Errorf("run = %v", r)
	}

	exps := doc["experiments"].([]any)
	if len(exps) != 2 {
		t.Fatalf("%d experiments, want 2", len(exps))
	}
	wantKeys := sorted("threads warmup_s duration_s ops throughput failed latency_us outcomes contention attempts runtime_s measured_s interrupted lost fidelity started processes histograms counters timeline " +
		"service_us target_rate arrival scheduled not_issued rate_reached overtime no_service_s longest_no_service_s injected_us service_histograms injected_histograms resources " +
		"shared_start late_s first_client all_threads all_target_rate error_codes consistency endpoints latency_by_tier_us latency_by_tier_histograms concurrent_runs intervals repeat")
	for i, x := range exps {
		e := x.(map[string]any)
		if got := keys(e); got != wantKeys {
			t.Errorf("experiment %d keys %q, want %q", i, got, wantKeys)
		}
		lat := e["latency_us"].(map[string]any)
		if got, want := keys(lat), sorted(strings.Join(metrics.SeriesNames(), " ")); got != want || len(lat) != 15 {
			t.Errorf("latency_us keys %q, want %q", got, want)
		}
		for name, v := range lat {
			if got := keys(v.(map[string]any)); got != sorted("count mean min p50 p90 p99 p999 max") {
				t.Errorf("latency_us.%s keys %q", name, got)
			}
		}
		if got := keys(e["outcomes"].(map[string]any)); got != sorted("ok not_found precondition_failed unique_violation conflict_object conflict_association timeout error failed_after_reserve failed_after_primary_commit failed_after_primary_rollback") {
			t.Errorf("outcomes keys %q", got)
		}
		if got := keys(e["contention"].(map[string]any)); got != sorted("object_lock_conflict_pct association_lock_conflict_pct unique_association_exists_pct precondition_failed_pct overall_pct overall_with_unique_pct write_write_conflict_pct write_txn_conflict_pct racing_insert_conflict_pct racing_insert_share_pct server_signalled_conflict_pct write_txn_server_signalled_pct resolved_without_error_pct racing_copies_resolved_pct") {
			t.Errorf("contention keys %q", got)
		}
		if got := keys(e["service_us"].(map[string]any)); got != sorted("read write read_txn write_txn") {
			t.Errorf("service_us keys %q", got)
		}
		if e["arrival"] != "closed" || e["target_rate"] != 0.0 || e["rate_reached"] != true || e["overtime"] != 0.0 {
			t.Errorf("closed loop: arrival %v, target_rate %v, rate_reached %v, overtime %v", e["arrival"], e["target_rate"], e["rate_reached"], e["overtime"])
		}
		lost := e["lost"].(map[string]any)
		if got := keys(lost); got != "count timeline" {
			t.Errorf("lost keys %q", got)
		}
		if _, ok := lost["timeline"].([]any); !ok {
			t.Errorf("lost.timeline is %v, want an array", lost["timeline"])
		}
	}

	e := exps[0].(map[string]any)
	for key, want := range map[string]any{
		"threads": 4.0, "warmup_s": 10.0, "duration_s": 60.0, "ops": 8.0, "failed": 3.0, "attempts": 10.0,
		"runtime_s": 70.5, "measured_s": 60.0, "interrupted": false,
	} {
		if e[key] != want {
			t.Errorf("%s = %v, want %v", key, e[key], want)
		}
	}
	if tp := e["throughput"].(float64); math.Abs(tp-8.0/60) > 1e-12 {
		t.Errorf("throughput = %v, want %v", tp, 8.0/60)
	}
	lat := e["latency_us"].(map[string]any)
	objRead := lat["obj_read"].(map[string]any)
	if objRead["count"] != 2.0 || objRead["min"] != 1000.004 || objRead["max"] != 3000.016 || objRead["mean"] != 2000.01 {
		t.Errorf("latency_us.obj_read = %v", objRead)
	}
	if wt := lat["write_txn"].(map[string]any); wt["count"] != 1.0 || wt["p99"] != 20000.0 {
		t.Errorf("latency_us.write_txn = %v", wt)
	}
	if od := lat["obj_delete"].(map[string]any); od["count"] != 0.0 || od["max"] != 0.0 {
		t.Errorf("latency_us.obj_delete = %v", od)
	}
	out := e["outcomes"].(map[string]any)
	for name, want := range map[string]float64{"ok": 2, "not_found": 1, "precondition_failed": 1, "unique_violation": 1,
		"conflict_object": 1, "conflict_association": 0, "timeout": 1, "error": 1} {
		if out[name] != want {
			t.Errorf("outcomes.%s = %v, want %v", name, out[name], want)
		}
	}
	c := e["contention"].(map[string]any)
	for name, want := range map[string]float64{"object_lock_conflict_pct": 100.0 / 3, "association_lock_conflict_pct": 0,
		"unique_association_exists_pct": 100, "precondition_failed_pct": 50, "overall_pct": 25, "overall_with_unique_pct": 50} {
		if got := c[name].(float64); math.Abs(got-want) > 1e-9 {
			t.Errorf("contention.%s = %v, want %v", name, got, want)
		}
	}
	lost := e["lost"].(map[string]any)
	tl, _ := json.Marshal(lost["timeline"])
	if lost["count"] != 2.0 || string(tl) != `[{"errors":0,"second":12,"timeouts":1},{"errors":1,"second":14,"timeouts":0}]` {
		t.Errorf("lost = %v %s", lost["count"], tl)
	}
}

func TestJSONNilRun(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := result.WriteJSON(&buf, nil, nil); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Run         map[string]any `json:"run"`
		Experiments []any          `json:"experiments"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Experiments == nil || len(doc.Experiments) != 0 || doc.Run["not_applied"] == nil {
		t.Errorf("empty document: %s", buf.String())
	}
}

// TestOpenLoopReport: an open-loop experiment prints its overtime count in
// the original's line, its target and achieved rate, whether the target was
// reached, and service times beside the latencies; the JSON says the same.
func TestOpenLoopReport(t *testing.T) {
	t.Parallel()
	r := metrics.NewRecorder()
	for i := range 100 {
		// Queued: 10 ms from the intended start, 1 ms of service.
		r.Record(&metrics.Sample{Class: tao.Read, Kind: tao.ObjRead, Outcome: tao.OK, Attempts: 1,
			Latency: 10 * time.Millisecond, Service: time.Millisecond, At: time.Duration(i) * time.Millisecond})
	}
	e := &result.Experiment{Threads: 2, Duration: time.Second, Measured: time.Second, Summary: r.Snapshot(),
		OpenLoop: result.OpenLoop{Rate: 200, Arrival: "poisson", Scheduled: 200, NotIssued: 100}, Overtime: 7}
	var buf bytes.Buffer
	if err := WriteText(&buf, e); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	if m := reOvertime.FindStringSubmatch(text); m == nil || m[1] != "7" {
		t.Errorf("overtime line: %v\n%s", m, text)
	}
	for _, want := range []string{
		"target rate: 200 req/s (poisson arrivals), achieved 100 req/s (50.0%); 100 of 200 scheduled requests issued",
		"target rate not reached: 100 scheduled requests were never issued",
		"service (ms)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if !regexp.MustCompile(`(?m)^read +100 +1\.000 +1\.000`).MatchString(text[strings.Index(text, "service (ms)"):]) {
		t.Errorf("service table does not give 1 ms:\n%s", text)
	}
	buf.Reset()
	if err := result.WriteJSON(&buf, nil, []*result.Experiment{e}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Experiments []struct {
			TargetRate  float64                          `json:"target_rate"`
			Arrival     string                           `json:"arrival"`
			Scheduled   int64                            `json:"scheduled"`
			NotIssued   int64                            `json:"not_issued"`
			RateReached bool                             `json:"rate_reached"`
			Overtime    int64                            `json:"overtime"`
			Latency     map[string]struct{ P50 float64 } `json:"latency_us"`
			Service     map[string]struct{ P50 float64 } `json:"service_us"`
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	x := doc.Experiments[0]
	if x.TargetRate != 200 || x.Arrival != "poisson" || x.Scheduled != 200 || x.NotIssued != 100 || x.RateReached || x.Overtime != 7 {
		t.Errorf("JSON: %+v", x)
	}
	if x.Latency["read"].P50 != 10000 || x.Service["read"].P50 != 1000 {
		t.Errorf("JSON read p50: latency %v µs, service %v µs; want 10000 and 1000", x.Latency["read"].P50, x.Service["read"].P50)
	}
}

// TestInjectedReport: injected delays are reported beside the latencies
// that include them, in the text and under injected_us.
func TestInjectedReport(t *testing.T) {
	t.Parallel()
	r := metrics.NewRecorder()
	for range 10 {
		r.Record(&metrics.Sample{Class: tao.WriteTxn, Outcome: tao.OK, Attempts: 1,
			Latency: 12 * time.Millisecond, Inject: true, Injected: 10 * time.Millisecond})
	}
	e := &result.Experiment{Threads: 1, Duration: time.Second, Measured: time.Second, Summary: r.Snapshot()}
	var buf bytes.Buffer
	if err := WriteText(&buf, e); err != nil {
		t.Fatal(err)
	}
	if want := "injected latency (ms), included above: write_txn mean 10.000 p99 10.000;"; !strings.Contains(buf.String(), want) {
		t.Errorf("text lacks %q:\n%s", want, buf.String())
	}
	buf.Reset()
	if err := result.WriteJSON(&buf, nil, []*result.Experiment{e}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Experiments []struct {
			Injected map[string]struct {
				Count int64
				Mean  float64
			} `json:"injected_us"`
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	in := doc.Experiments[0].Injected
	if len(in) != 4 || in["write_txn"].Count != 10 || in["write_txn"].Mean != 10000 || in["read"].Count != 0 {
		t.Errorf("injected_us = %+v", in)
	}
}
