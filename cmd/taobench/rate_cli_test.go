package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/internal/cpuwait"
)

// TestCLIRunRate: run --rate issues the target rate in open loop against
// the null store, says so in the text and the JSON, and takes a rate from
// the experiments file's fourth field.
func TestCLIRunRate(t *testing.T) {
	cliHome(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "results.json")
	sampler := cpuwait.Sample(5 * time.Millisecond)
	r := cliRun(t, "run", "--db", "null", "--rate", "2000", "--arrival", "uniform", "--threads", "2", "--warmup", "0.2", "--duration", "1", "--out", out)
	sampler.Stop()
	if r.code != 0 {
		t.Fatalf("%v", r)
	}
	sums := cliParse(t, r.stdout)
	doc := cliReadJSON(t, out)
	if len(sums) != 1 || len(doc.Experiments) != 1 || !sums[0].openLoop {
		t.Fatalf("want one open-loop experiment:\n%s", r.stdout)
	}
	e := doc.Experiments[0]
	cliCheckSummary(t, sums[0])
	cliCheckExperiment(t, e, &sums[0])
	if e["target_rate"] != 2000.0 || e["arrival"] != "uniform" || e["scheduled"] != 2000.0 {
		t.Errorf("JSON: target_rate %v, arrival %v, scheduled %v", e["target_rate"], e["arrival"], e["scheduled"])
	}
	// Every scheduled request is issued but those due in a stretch before
	// the end in which the process could hardly run (a loaded machine):
	// the test allows 1% and those, as run's TestOpenLoopRate does.
	started, err := time.Parse(time.RFC3339Nano, fmt.Sprint(e["started"]))
	if err != nil {
		t.Fatalf("JSON started %v: %v", e["started"], err)
	}
	starvedFor := sampler.StarvedBefore(started.Add(1200 * time.Millisecond))
	starved := 2000 * (starvedFor + 5*time.Millisecond).Seconds()
	notIssued, measured, tp := cliNum(t, e, "not_issued"), cliNum(t, e, "measured_s"), cliNum(t, e, "throughput")
	if allowed := 0.01*2000 + starved + 4*math.Sqrt(starved); notIssued > allowed {
		t.Errorf("%v of 2000 scheduled requests not issued, want at most %.0f (1%% and those due in the last %v, when the process was starved of CPU)", notIssued, allowed, starvedFor)
	}
	if e["rate_reached"] != (notIssued <= 20) {
		t.Errorf("JSON: rate_reached %v with %v of 2000 not issued", e["rate_reached"], notIssued)
	}
	if math.Abs(tp-(2000-notIssued)/measured) > 0.001*tp {
		t.Errorf("throughput %v, want the %v issued over %v s", tp, 2000-notIssued, measured)
	}
	if cliNum(t, e, "overtime") != float64(sums[0].overtime) {
		t.Errorf("overtime %v in JSON, %d in text", e["overtime"], sums[0].overtime)
	}
	line := regexp.MustCompile(`target rate: 2000 req/s \(uniform arrivals\), achieved [0-9,.]+ req/s \([0-9.]+%\); (\d+) of 2000 scheduled requests issued`).FindStringSubmatch(r.stdout)
	if line == nil || line[1] != fmt.Sprint(2000-notIssued) || !strings.Contains(r.stdout, "service (ms)") {
		t.Errorf("stdout lacks the target rate line with %v issued, or the service times:\n%s", 2000-notIssued, r.stdout)
	}
	if !strings.Contains(r.stderr, "target rate 2000 req/s (uniform arrivals)") {
		t.Errorf("stderr does not announce the rate:\n%s", r.stderr)
	}

	// An experiments file: a line with a rate, one without (closed loop).
	exps := filepath.Join(dir, "exp.txt")
	if err := os.WriteFile(exps, []byte("1,0,0.5,500\n1,0,0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = cliRun(t, "run", "--db", "null", "--experiments", exps, "--out", out)
	if r.code != 0 {
		t.Fatalf("%v", r)
	}
	sums = cliParse(t, r.stdout)
	doc = cliReadJSON(t, out)
	if len(sums) != 2 || !sums[0].openLoop || sums[1].openLoop {
		t.Fatalf("want an open-loop then a closed-loop experiment:\n%s", r.stdout)
	}
	if doc.Experiments[0]["arrival"] != "poisson" || doc.Experiments[0]["target_rate"] != 500.0 || doc.Experiments[1]["arrival"] != "closed" {
		t.Errorf("JSON: %v %v, then %v", doc.Experiments[0]["arrival"], doc.Experiments[0]["target_rate"], doc.Experiments[1]["arrival"])
	}
}

// TestCLIRateErrors: bad --rate, --arrival and null-store options are
// refused with a message naming the flag and the fix.
func TestCLIRateErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--rate", "-5"}, "--rate: rate -5: give 0 (closed loop) or a target rate"},
		{[]string{"--rate", "1000", "--arrival", "bursty"}, `--arrival: arrival process "bursty": give poisson`},
		{[]string{"--arrival", "uniform"}, "--arrival applies to open loop only: give --rate too"},
		{[]string{"--db", "null?delay=fast"}, "delay=fast: give a duration"},
		{[]string{"--db", "null?password=secret"}, `unknown option "password"`},
	} {
		r := cliRun(t, append([]string{"run", "--duration", "0.1"}, c.args...)...)
		if r.code != exitBadInput || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "secret") {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, r.code, r.stderr, exitBadInput, c.want)
		}
	}
}

// TestCLIInjectLatency: --inject-latency applies workload o's latency
// buckets (the original's weights, taken as the documented values, said
// once), includes them in the latencies and reports them under
// injected_us; without it they are listed as not applied.
func TestCLIInjectLatency(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "r.json")
	r := cliRun(t, "run", "--db", "null", "--inject-latency", "--threads", "16", "--warmup", "0", "--duration", "1", "--out", out)
	if r.code != 0 {
		t.Fatalf("%v", r)
	}
	const note = "the original format gives bucket weights only, taken as 0: 0s, 1: 1ms, 2: 5ms, 3: 10ms, 4: 25ms, 5: 50ms, 6: 100ms"
	if strings.Count(r.stderr, note) != 1 || strings.Contains(r.stderr, "not applied yet: read_operation_latency") {
		t.Errorf("stderr: want the bucket note once and no latency field unapplied:\n%s", r.stderr)
	}
	doc := cliReadJSON(t, out)
	e := doc.Experiments[0]
	in := cliNum(t, e, "injected_us", "read", "mean")
	lat := cliNum(t, e, "latency_us", "read", "mean")
	// Workload o's read buckets: mean 32.4 ms; a second of 16 clients draws
	// about 500, so the mean is within a few ms of it.
	if in < 20000 || in > 45000 || lat < in || cliNum(t, e, "injected_us", "read", "count") != cliNum(t, e, "latency_us", "read", "count") {
		t.Errorf("read: injected mean %v µs, latency mean %v µs; want about 32,400 and latency above it", in, lat)
	}
	if na := fmt.Sprint(doc.Run["not_applied"]); strings.Contains(na, "latency") {
		t.Errorf("not_applied %v lists a latency field", na)
	}
	if !strings.Contains(r.stdout, "injected latency (ms), included above: read mean") {
		t.Errorf("stdout lacks the injected latency line:\n%s", r.stdout)
	}

	r = cliRun(t, "run", "--db", "null", "--threads", "1", "--warmup", "0", "--duration", "0.2", "--out", out)
	doc = cliReadJSON(t, out)
	if r.code != 0 || !strings.Contains(fmt.Sprint(doc.Run["not_applied"]), "read_operation_latency") || cliNum(t, doc.Experiments[0], "injected_us", "read", "count") != 0 {
		t.Errorf("without the flag: not_applied %v, injected count %v", doc.Run["not_applied"], doc.Experiments[0]["injected_us"])
	}
}
