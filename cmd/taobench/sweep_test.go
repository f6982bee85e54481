package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestCLISweepRates: sweep --rates runs one open-loop step per rate,
// prints a row each and writes every step as an experiment of the JSON.
func TestCLISweepRates(t *testing.T) {
	cliHome(t)
	out := filepath.Join(t.TempDir(), "sweep.json")
	r := cliRun(t, "sweep", "--db", "null", "--rates", "200,400", "--threads", "2", "--warmup", "0", "--duration", "0.5", "--out", out)
	if r.code != 0 {
		t.Fatalf("%v", r)
	}
	rows := regexp.MustCompile(`(?m)^ +(200|400) +[0-9.]+ +yes `).FindAllString(r.stdout, -1)
	if len(rows) != 2 || !strings.Contains(r.stdout, "all p50/p99/p99.9 ms") {
		t.Errorf("want a header and rows for 200 and 400:\n%s", r.stdout)
	}
	doc := cliReadJSON(t, out)
	if len(doc.Experiments) != 2 || doc.Experiments[0]["target_rate"] != 200.0 || doc.Experiments[1]["target_rate"] != 400.0 {
		t.Errorf("JSON experiments: %d, targets %v %v", len(doc.Experiments), doc.Experiments[0]["target_rate"], doc.Experiments[len(doc.Experiments)-1]["target_rate"])
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
	r := cliRun(t, "sweep", "--db", "null?delay=5ms", "--start", "100", "--threads", "2", "--warmup", "0", "--duration", "0.5")
	if r.code != 0 {
		t.Fatalf("%v", r)
	}
	m := regexp.MustCompile(`saturated at a target of (\d+) req/s`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no saturation line:\n%s", r.stdout)
	}
	// 100, 200 pass on any machine; 800 cannot.
	if at, _ := strconv.Atoi(m[1]); at < 200 || at > 800 {
		t.Errorf("saturated at %d req/s, want 200 to 800 (capacity 400):\n%s", at, r.stdout)
	}
}

// TestCLIRate: the rating of a store of 5 ms with 2 clients lies below
// their capacity of 400 requests/s (above it the schedule cannot be issued;
// the loose p99<=200ms keeps a loaded machine's pauses from failing the
// lowest probes), every probe is printed, and a rate whose lowest probe
// fails exits 1 saying so.
func TestCLIRate(t *testing.T) {
	cliHome(t)
	out := filepath.Join(t.TempDir(), "rate.json")
	r := cliRun(t, "rate", "--db", "null?delay=5ms", "--sla", "p99<=200ms", "--sla", "errors<=1%", "--start", "50", "--threads", "2",
		"--warmup", "0", "--duration", "0.5", "--precision", "25", "--out", out)
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

	r = cliRun(t, "rate", "--db", "null?delay=20ms", "--sla", "p99<=5ms", "--start", "20", "--threads", "2", "--warmup", "0", "--duration", "0.3")
	if r.code != exitFailed || !strings.Contains(r.stderr, "even the lowest target, 20 req/s, does not meet the SLA") || !strings.Contains(r.stdout, "probe 1: target 20 req/s: FAIL") {
		t.Errorf("a failing lowest rate: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if r := cliRun(t, "rate", "--db", "null"); r.code != exitBadInput || !strings.Contains(r.stderr, "give at least one --sla") {
		t.Errorf("no --sla: exit %d, %s", r.code, r.stderr)
	}
}
