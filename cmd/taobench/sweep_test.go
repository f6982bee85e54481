package main

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/internal/cpuwait"
)

// TestCLISweepRates: sweep --rates runs one open-loop step per rate,
// prints a row each and writes every step as an experiment of the JSON.
func TestCLISweepRates(t *testing.T) {
	cliHome(t)
	out := filepath.Join(t.TempDir(), "sweep.json")
	sampler := cpuwait.Sample(5 * time.Millisecond)
	r := cliRun(t, "sweep", "--db", "null", "--rates", "200,400", "--threads", "2", "--warmup", "0", "--duration", "0.5", "--out", out)
	sampler.Stop()
	if r.code != 0 {
		t.Fatalf("%v", r)
	}
	rows := regexp.MustCompile(`(?m)^ +(200|400) +[0-9.]+ +(yes|NO) `).FindAllStringSubmatch(r.stdout, -1)
	if len(rows) != 2 || !strings.Contains(r.stdout, "all p50/p99/p99.9 ms") {
		t.Fatalf("want a header and rows for 200 and 400:\n%s", r.stdout)
	}
	doc := cliReadJSON(t, out)
	if len(doc.Experiments) != 2 || doc.Experiments[0]["target_rate"] != 200.0 || doc.Experiments[1]["target_rate"] != 400.0 {
		t.Fatalf("JSON experiments: %d, targets %v %v", len(doc.Experiments), doc.Experiments[0]["target_rate"], doc.Experiments[len(doc.Experiments)-1]["target_rate"])
	}
	// The null store keeps up with either rate on a machine with a CPU to
	// spare; a step may fall behind only as a stretch without CPU before
	// its end explains.
	for i, row := range rows {
		if row[2] == "yes" {
			continue
		}
		starvedFor, ok := cliStarved(t, sampler, doc.Experiments[i], 500*time.Millisecond)
		if !ok {
			t.Errorf("the %s req/s step fell behind; the process was starved of CPU for %v before its end, too short to explain it:\n%s", row[1], starvedFor, r.stdout)
		}
		t.Logf("the %s req/s step fell behind, the process starved of CPU for %v before its end", row[1], starvedFor)
	}
	for _, c := range []struct{ args, want string }{
		{"--rates 400,200", "rates must rise"},
		{"--rates 100,fast", `rate "fast"`},
		{"--factor 1", "--factor above 1"},
	} {
		r := cliRun(t, append([]string{"sweep", "--db", "null"}, strings.Fields(c.args)...)...)
		if r.code != exitBadInput || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", c.args, r.code, r.stderr, exitBadInput, c.want)
		}
	}
}

// TestCLISweepSaturates: an automatic sweep against a store of 5 ms with 2
// clients (400 requests/s at most) grows until it falls behind, and stops.
func TestCLISweepSaturates(t *testing.T) {
	cliHome(t)
	out := filepath.Join(t.TempDir(), "sweep.json")
	sampler := cpuwait.Sample(5 * time.Millisecond)
	r := cliRun(t, "sweep", "--db", "null?delay=5ms", "--start", "100", "--threads", "2", "--warmup", "0", "--duration", "0.5", "--out", out)
	sampler.Stop()
	if r.code != 0 {
		t.Fatalf("%v", r)
	}
	m := regexp.MustCompile(`saturated at a target of (\d+) req/s`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no saturation line:\n%s", r.stdout)
	}
	at, _ := strconv.Atoi(m[1])
	// 800 cannot be issued on any machine.
	if at > 800 {
		t.Errorf("saturated at %d req/s, want at most 800 (capacity 400):\n%s", at, r.stdout)
	}
	// 100 is a quarter of the capacity: it falls behind only when the
	// process could hardly run before the step's end (a loaded machine),
	// and then by no more than the requests due in that stretch.
	if at >= 200 {
		return
	}
	doc := cliReadJSON(t, out)
	starvedFor, ok := cliStarved(t, sampler, doc.Experiments[len(doc.Experiments)-1], 500*time.Millisecond)
	if !ok {
		t.Errorf("saturated at %d req/s, a quarter of the capacity; the process was starved of CPU for %v before the end, too short to explain it:\n%s", at, starvedFor, r.stdout)
	}
	t.Logf("saturated at %d req/s, the process starved of CPU for %v before the end", at, starvedFor)
}

// cliStarved says whether an open-loop experiment that fell behind its
// schedule, at a rate a machine with a CPU to spare always issues, is
// explained by a loaded machine: the process was starved of CPU for a
// stretch before the measured window's end, and no more requests went
// unissued than were due in it (and 1%). A stall shorter than the
// sampler's 5 ms period goes unseen, so every window is allowed one such
// period: the requests due in 5 ms may go unissued with no stall measured
// (one of 25 at 50 req/s, seen on a loaded 2-core machine). It returns the
// stretch measured.
func cliStarved(t *testing.T, sampler *cpuwait.Sampler, e map[string]any, window time.Duration) (time.Duration, bool) {
	t.Helper()
	started, err := time.Parse(time.RFC3339Nano, fmt.Sprint(e["started"]))
	if err != nil {
		t.Fatalf("JSON started %v: %v", e["started"], err)
	}
	warmup := time.Duration(cliNum(t, e, "warmup_s") * float64(time.Second))
	starvedFor := sampler.StarvedBefore(started.Add(warmup + window))
	starved := cliNum(t, e, "target_rate") * (starvedFor + 5*time.Millisecond).Seconds()
	allowed := 0.01*cliNum(t, e, "scheduled") + starved + 4*math.Sqrt(starved)
	return starvedFor, cliNum(t, e, "not_issued") <= allowed
}

// TestCLIRate: the rating of a store of 5 ms with 2 clients lies below
// their capacity of 400 requests/s (above it the schedule cannot be issued;
// the loose p99<=200ms keeps a loaded machine's pauses from failing the
// lowest probes), every probe is printed, and a rate whose lowest probe
// fails exits 1 saying so.
func TestCLIRate(t *testing.T) {
	cliHome(t)
	out := filepath.Join(t.TempDir(), "rate.json")
	sampler := cpuwait.Sample(5 * time.Millisecond)
	r := cliRun(t, "rate", "--db", "null?delay=5ms", "--sla", "p99<=200ms", "--sla", "errors<=1%", "--start", "50", "--threads", "2",
		"--warmup", "0", "--duration", "0.5", "--precision", "25", "--out", out)
	sampler.Stop()
	// The lowest probe, an eighth of the capacity, passes on a machine with
	// a CPU to spare; on a loaded one it may fail, but only as a stretch
	// without CPU before its end explains: the requests due in it unissued,
	// a p99 longer by at most the stretch.
	if p99 := regexp.MustCompile(`(?m)^probe 1: target 50 req/s: FAIL: .*; p99 ([0-9.]+) ms`).FindStringSubmatch(r.stdout); r.code == exitFailed && p99 != nil {
		doc := cliReadJSON(t, out)
		starvedFor, ok := cliStarved(t, sampler, doc.Experiments[0], 500*time.Millisecond)
		if ms, _ := strconv.ParseFloat(p99[1], 64); !ok || ms > 200+float64(starvedFor.Milliseconds()) {
			t.Errorf("the lowest probe failed; the process was starved of CPU for %v before its end, too short to explain it:\n%s", starvedFor, r.stdout)
		}
		t.Logf("the lowest probe failed, the process starved of CPU for %v before its end: the rating is not checked", starvedFor)
	} else {
		if r.code != 0 {
			t.Fatalf("%v", r)
		}
		m := regexp.MustCompile(`(?m)^rating: (\d+) req/s, the highest target`).FindStringSubmatch(r.stdout)
		if m == nil {
			t.Fatalf("no rating:\n%s", r.stdout)
		}
		probes := regexp.MustCompile(`(?m)^probe \d+: target \d+ req/s: (pass|FAIL): `).FindAllString(r.stdout, -1)
		doc := cliReadJSON(t, out)
		if at, _ := strconv.Atoi(m[1]); at < 50 || at > 420 || len(probes) < 3 || len(doc.Experiments) != len(probes) {
			t.Errorf("rating %s req/s after %d probes (%d in JSON); want 50 to 420 req/s:\n%s", m[1], len(probes), len(doc.Experiments), r.stdout)
		}
	}

	r = cliRun(t, "rate", "--db", "null?delay=20ms", "--sla", "p99<=5ms", "--start", "20", "--threads", "2", "--warmup", "0", "--duration", "0.3")
	if r.code != exitFailed || !strings.Contains(r.stderr, "even the lowest target, 20 req/s, does not meet the SLA") || !strings.Contains(r.stdout, "probe 1: target 20 req/s: FAIL") {
		t.Errorf("a failing lowest rate: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if r := cliRun(t, "rate", "--db", "null"); r.code != exitBadInput || !strings.Contains(r.stderr, "--sla: give at least one SLA") {
		t.Errorf("no --sla: exit %d, %s", r.code, r.stderr)
	}
}
