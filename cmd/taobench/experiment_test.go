package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// expTableRows returns the rows of a printed table whose first cell matches
// first, split into cells.
func expTableRows(out string, first *regexp.Regexp) [][]string {
	var rows [][]string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && first.MatchString(f[0]) {
			rows = append(rows, f)
		}
	}
	return rows
}

func expNum(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimPrefix(s, "+"), "%"), 64)
	if err != nil {
		t.Fatalf("%q is not a number", s)
	}
	return v
}

// expLockHold runs a short lock-hold ladder on dbURL and checks its table
// and JSON: one row per hold, and writes that hold 60 ms take at least that.
func expLockHold(t *testing.T, dbURL string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "lh.json")
	r := cliRun(t, "experiment", "lock-hold", "--db", dbURL, "--holds", "0,60ms", "--threads", "4",
		"--warmup", "0", "--duration", "0.6", "--edges", "3000", "--seed", "5", "--out", out)
	if r.code != 0 {
		t.Fatalf("experiment lock-hold: %v", r)
	}
	rows := expTableRows(r.stdout, regexp.MustCompile(`^(0s|60ms)$`))
	if len(rows) != 2 || len(rows[0]) != 10 {
		t.Fatalf("want a row per hold of 10 cells:\n%s", r.stdout)
	}
	for _, row := range rows {
		if expNum(t, row[1]) <= 0 {
			t.Errorf("hold %s: no writes measured:\n%s", row[0], r.stdout)
		}
		for _, c := range row[3:8] {
			if p := expNum(t, c); p < 0 || p > 100 {
				t.Errorf("hold %s: a percentage of %v:\n%s", row[0], p, r.stdout)
			}
		}
	}
	if p50 := expNum(t, rows[1][8]); p50 < 60 {
		t.Errorf("writes holding their locks 60 ms have a p50 of %v ms:\n%s", p50, r.stdout)
	}
	var doc struct {
		Experiment  string
		Steps       []string
		Table       []map[string]any
		Run         map[string]any
		Experiments []map[string]any
	}
	decodeJSONFile(t, out, &doc)
	if doc.Experiment != "lock-hold" || len(doc.Steps) != 2 || len(doc.Table) != 2 || len(doc.Experiments) != 2 || doc.Run["workload"] != "t1" {
		t.Errorf("JSON: experiment %q, steps %v, %d rows, %d experiments, run %v", doc.Experiment, doc.Steps, len(doc.Table), len(doc.Experiments), doc.Run)
	}
	if doc.Table[1]["hold_ms"] != 60.0 || doc.Table[1]["timeout_pct"] == nil {
		t.Errorf("JSON row %v", doc.Table[1])
	}
}

func TestExperimentLockHoldSQLite(t *testing.T) {
	t.Parallel()
	expLockHold(t, "sqlite:"+filepath.Join(t.TempDir(), "e.db"))
}

func TestExperimentLockHoldServers(t *testing.T) {
	t.Parallel()
	srvEach(t, func(t *testing.T, s srvServer) { expLockHold(t, s.fresh(t)) })
}

// TestExperimentOpenLoop: with --rate every step offers the same load, so
// writes that hold their locks are offered as many as writes that hold
// none, and the table and JSON say the load was open. SQLite has one writer
// at a time, so the hold keeps it below saturation: 60/s × 8 ms.
//
// What the test controls is the schedule (a Poisson process of the seed);
// how much of it a loaded machine issues and completes in the window is the
// machine's. So the schedule is checked against its rate, and the writes
// measured against what the step says it issued.
func TestExperimentOpenLoop(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "ol.json")
	r := cliRun(t, "experiment", "lock-hold", "--db", "sqlite:"+filepath.Join(t.TempDir(), "o.db"), "--holds", "0,8ms",
		"--threads", "16", "--rate", "60", "--warmup", "0.2", "--duration", "2", "--edges", "3000", "--seed", "5", "--out", out)
	if r.code != 0 {
		t.Fatalf("experiment lock-hold --rate: %v", r)
	}
	if !strings.Contains(r.stdout, "open loop at 60 req/s offered") {
		t.Errorf("the table does not say the load was open:\n%s", r.stdout)
	}
	rows := expTableRows(r.stdout, regexp.MustCompile(`^(0s|8ms)\*?$`))
	if len(rows) != 2 {
		t.Fatalf("want a row per hold:\n%s", r.stdout)
	}
	var doc struct {
		Table       []map[string]any
		Experiments []map[string]any
	}
	decodeJSONFile(t, out, &doc)
	if len(doc.Table) != 2 || len(doc.Experiments) != 2 || doc.Table[1]["target_rate"] != 60.0 || doc.Experiments[1]["target_rate"] != 60.0 {
		t.Fatalf("JSON: table %v; %d experiments", doc.Table, len(doc.Experiments))
	}
	for i, row := range rows {
		e := doc.Experiments[i]
		sched, notIssued := cliNum(t, e, "scheduled"), cliNum(t, e, "not_issued")
		// 120 scheduled on average; Poisson's spread is 11.
		if sched < 76 || sched > 164 {
			t.Errorf("hold %s: %v requests scheduled at 60 req/s for 2 s, want 120 ± 44", row[0], sched)
		}
		// Workload t1 is all writes: each issued request is one measured.
		if w, ops := expNum(t, row[1]), cliNum(t, e, "ops"); w != ops || ops+notIssued != sched {
			t.Errorf("hold %s: %v writes in the table, %v requests measured, %v not issued, %v scheduled; want writes = requests = scheduled - not issued:\n%s",
				row[0], w, ops, notIssued, sched, r.stdout)
		}
		reached := notIssued <= 0.01*sched
		if doc.Table[i]["reached"] != reached || strings.HasSuffix(row[0], "*") == reached {
			t.Errorf("hold %s: %v of %v not issued, yet JSON reached %v, table %q", row[0], notIssued, sched, doc.Table[i]["reached"], row[0])
		}
	}
}

// TestExperimentCompare: experiment compare prints the comparison's rows
// and writes its JSON.
func TestExperimentCompare(t *testing.T) {
	t.Parallel()
	db := "sqlite:" + filepath.Join(t.TempDir(), "c.db")
	out := filepath.Join(t.TempDir(), "c.json")
	r := cliRun(t, "experiment", "compare", "--db", db, "--workload", "t1", "--workload", "t3", "--threads", "2",
		"--warmup", "0", "--duration", "0.4", "--edges", "3000", "--out", out)
	if r.code != 0 {
		t.Fatalf("experiment compare: %v", r)
	}
	if !strings.Contains(r.stdout, "t1 vs t3") || !strings.Contains(r.stdout, "% diff t3") {
		t.Errorf("no comparison header:\n%s", r.stdout)
	}
	rows := expTableRows(r.stdout, regexp.MustCompile(`^(mean|p50|p99|obj\.|assoc\.|overall|lock-conflicted|unique|timeout|throughput)`))
	if len(rows) != 10 {
		t.Fatalf("%d metric rows, want 10:\n%s", len(rows), r.stdout)
	}
	// The % diff of the exact values is session's TestCompareRows; the
	// printed latencies are rounded to µs, so 1/µs off in ratio.
	if mean := rows[0]; expNum(t, mean[3]) <= 0 || expNum(t, mean[4]) <= 0 || len(mean) < 6 {
		t.Fatalf("mean latencies row %q:\n%s", mean, r.stdout)
	}
	var doc struct {
		Experiment string
		Steps      []string
		Table      []struct {
			Metric  string
			Values  []float64
			DiffPct []*float64 `json:"diff_pct"`
		}
	}
	decodeJSONFile(t, out, &doc)
	if doc.Experiment != "compare" || strings.Join(doc.Steps, ",") != "t1,t3" || len(doc.Table) != 10 || len(doc.Table[0].Values) != 2 || len(doc.Table[0].DiffPct) != 1 {
		t.Errorf("JSON: %+v", doc)
	}
}

// TestExperimentFanout: Table 7 in one command, t2 beside fanout by default.
func TestExperimentFanout(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "f.json")
	r := cliRun(t, "experiment", "fanout", "--db", "sqlite:"+filepath.Join(t.TempDir(), "f.db"), "--threads", "2",
		"--warmup", "0", "--duration", "0.4", "--edges", "3000", "--out", out)
	if r.code != 0 {
		t.Fatalf("experiment fanout: %v", r)
	}
	if !strings.Contains(r.stdout, "t2 vs fanout") || !strings.Contains(r.stdout, "% diff fanout") {
		t.Errorf("no comparison header:\n%s", r.stdout)
	}
	var doc struct {
		Experiment string
		Steps      []string
		Table      []map[string]any
	}
	decodeJSONFile(t, out, &doc)
	if doc.Experiment != "fanout" || strings.Join(doc.Steps, ",") != "t2,fanout" || len(doc.Table) != 10 {
		t.Errorf("JSON: experiment %q, steps %v, %d rows", doc.Experiment, doc.Steps, len(doc.Table))
	}
	if r := cliRun(t, "experiment", "fanout", "--db", "sqlite:"+filepath.Join(t.TempDir(), "g.db"), "--fanout", "nosuch"); r.code != exitBadInput || !strings.Contains(r.stderr, "nosuch") {
		t.Errorf("--fanout nosuch: %v", r)
	}
}

func TestExperimentBadInput(t *testing.T) {
	t.Parallel()
	db := "sqlite:" + filepath.Join(t.TempDir(), "b.db")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"experiment"}, "name the experiment: lock-hold, precondition-wait, fanout or compare"},
		{[]string{"experiment", "fanin"}, `unknown experiment "fanin"; use lock-hold, precondition-wait, fanout or compare`},
		{[]string{"experiment", "lock-hold", "--db", db, "--holds", "0,5"}, `"5" is not a duration`},
		{[]string{"experiment", "lock-hold", "--db", db, "--holds", "2m"}, "give holds from 0 to 1m0s"},
		{[]string{"experiment", "lock-hold", "--db", db, "--threads", "0"}, "--threads 0: give 1 to"},
		{[]string{"experiment", "lock-hold", "--db", db, "--timeout", "-1s"}, `experiment lock-hold: --timeout -1s: `},
		{[]string{"experiment", "lock-hold", "--db", db, "--out", "/nonexistent/dir/x.json"}, "the directory /nonexistent/dir does not exist"},
		{[]string{"experiment", "compare", "--db", db, "--workload", "t1"}, "give two or more --workload flags"},
		{[]string{"experiment", "lock-hold", "--db", db, "--rate", "-5"}, "--rate: rate -5"},
		{[]string{"experiment", "lock-hold", "--db", db, "--arrival", "uniform"}, "--arrival applies to open loop only"},
		{[]string{"experiment", "lock-hold", "--db", db, "--rate", "10", "--arrival", "bursty"}, "--arrival"},
		{[]string{"experiment", "compare", "--db", db, "--workload", "t1", "--workload", "nosuch"}, "nosuch"},
		{[]string{"experiment", "lock-hold", "--db", "postgres://u:s3cret@127.0.0.1:1/x", "--duration", "0.1"}, "xxxxx"},
	} {
		r := cliRun(t, c.args...)
		if r.code != exitBadInput || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: want exit %d and %q:\n%v", c.args, exitBadInput, c.want, r)
		}
		if strings.Contains(r.stderr+r.stdout, "s3cret") {
			t.Errorf("%v: the password is printed:\n%v", c.args, r)
		}
	}
}

func TestExperimentPreconditionWait(t *testing.T) {
	t.Parallel()
	db := "sqlite:" + filepath.Join(t.TempDir(), "p.db")
	out := filepath.Join(t.TempDir(), "p.json")
	r := cliRun(t, "experiment", "precondition-wait", "--db", db, "--waits", "0,30ms", "--threads", "4",
		"--warmup", "0", "--duration", "0.6", "--edges", "3000", "--out", out)
	if r.code != 0 {
		t.Fatalf("experiment precondition-wait: %v", r)
	}
	rows := expTableRows(r.stdout, regexp.MustCompile(`^(0s|30ms)$`))
	if len(rows) != 2 || len(rows[0]) != 5 {
		t.Fatalf("want a row per wait of 5 cells:\n%s", r.stdout)
	}
	for _, row := range rows {
		n, failed := expNum(t, row[1]), expNum(t, row[2])
		if n <= 0 || failed > n {
			t.Errorf("wait %s: %v preconditioned writes, %v failed:\n%s", row[0], n, failed, r.stdout)
		}
	}
	var doc struct {
		Experiment string
		Table      []map[string]any
	}
	decodeJSONFile(t, out, &doc)
	if doc.Experiment != "precondition-wait" || len(doc.Table) != 2 || doc.Table[1]["wait_ms"] != 30.0 {
		t.Errorf("JSON: %+v", doc)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--waits", "0,30ms,30ms"}, "gives 30ms twice"},
		{[]string{"--workload", "t1"}, "draws no write_version or read_version precondition"},
	} {
		r := cliRun(t, append([]string{"experiment", "precondition-wait", "--db", db}, c.args...)...)
		if r.code != exitBadInput || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: want exit %d and %q:\n%v", c.args, exitBadInput, c.want, r)
		}
	}
}
