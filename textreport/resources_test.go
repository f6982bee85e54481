package textreport

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/result"
)

// TestResourcesJSON: the shape docs/results.md gives, every key present, a
// round trip through ReadJSON, and the text report's lines.
func TestResourcesJSON(t *testing.T) {
	t.Parallel()
	e := synthetic()
	e.Resources = &result.Resources{
		Interval: time.Second,
		Driver: result.DriverUsage{User: 1500 * time.Millisecond, Sys: 500 * time.Millisecond, CPUPct: 40, MaxRSS: 64 << 20,
			Samples: []result.DriverSample{{At: time.Second, CPUPct: 38.5, RSS: 60 << 20}}},
		Server: &result.ServerUsage{Engine: "postgres",
			Before: result.ServerState{SizeBytes: map[string]int64{"edges": 1 << 20}},
			After:  result.ServerState{SizeBytes: map[string]int64{"edges": 2 << 20}},
			Deltas: map[string]int64{"xact_commit": 1234, "xact_rollback": 0, "tup_returned": 1851, "blks_hit": 99}, Error: "after: permission denied"},
	}
	var buf bytes.Buffer
	if err := result.WriteJSON(&buf, &result.Run{Workload: "o", Database: "postgres://x@h/db"}, []*result.Experiment{e}); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	r := doc["experiments"].([]any)[0].(map[string]any)["resources"].(map[string]any)
	if got := keys(r); got != "driver interval_s server" {
		t.Errorf("resources keys %q", got)
	}
	if got := keys(r["driver"].(map[string]any)); got != "cpu_pct cpu_sys_s cpu_user_s error max_rss_bytes samples" {
		t.Errorf("driver keys %q", got)
	}
	if got := keys(r["driver"].(map[string]any)["samples"].([]any)[0].(map[string]any)); got != "cpu_pct rss_bytes t_s" {
		t.Errorf("sample keys %q", got)
	}
	srv := r["server"].(map[string]any)
	if got := keys(srv); got != "after before deltas engine error product table_deltas tuples_per_request" {
		t.Errorf("server keys %q", got)
	}
	if got := srv["tuples_per_request"]; got != 1.5 {
		t.Errorf("tuples_per_request %v, want 1.5 (1851 over 1234 transactions)", got)
	}
	if got := keys(srv["before"].(map[string]any)); got != "gauges size_bytes" {
		t.Errorf("server state keys %q", got)
	}

	back, err := result.ReadJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	br := back.Experiments[0].Resources
	if br == nil || br.Driver.User != 1500*time.Millisecond || len(br.Driver.Samples) != 1 || br.Server.Deltas["xact_commit"] != 1234 ||
		br.Server.Error != "after: permission denied" {
		t.Errorf("read back: %+v", br)
	}

	var text bytes.Buffer
	if err := WriteText(&text, e); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"driver: CPU 40.0% of one core (user 1.50 s, sys 0.50 s), max RSS 64.0 MiB",
		"server (postgres): size 1.0 MiB -> 2.0 MiB, xact_commit +1234, 1.5 tuples/request (after: permission denied)",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}

}

// TestResourcesTextWithoutSizes: a server that tells no sizes (Spanner) gets
// no "size 0.0 MiB" line; Galera's conflict counters are headline figures.
func TestResourcesTextWithoutSizes(t *testing.T) {
	t.Parallel()
	e := synthetic()
	e.Resources = &result.Resources{Interval: time.Second, Server: &result.ServerUsage{Engine: "mysql", Product: "MariaDB 10.11.19 with Galera",
		Deltas: map[string]int64{"wsrep_local_cert_failures": 97, "wsrep_local_bf_aborts": 287}, Error: "before and after: no sizes"}}
	var b strings.Builder
	if err := WriteText(&b, e); err != nil {
		t.Fatal(err)
	}
	want := "server (mysql, MariaDB 10.11.19 with Galera), wsrep_local_bf_aborts +287, wsrep_local_cert_failures +97 (before and after: no sizes)\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("text lacks %q:\n%s", want, b.String())
	}
}
