package textreport

import (
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
)

// A run whose checker ran alone prints its self-check in one line, with
// the sample it classed, and no tier lines; a run with tiers prints them.
func TestCheckOnlyLine(t *testing.T) {
	c := &result.Consistency{CheckOnly: true, CheckEvery: 8}
	c.Tiers[tao.TierDB].Served = 12
	var b strings.Builder
	writeConsistency(&b, c, metrics.NewSummary())
	want := "staleness self-check: 12 database reads checked (1 in 8, by key), 0 stale (must be 0: docs/tiers.md)\n"
	if b.String() != want {
		t.Errorf("checker alone:\n%q\nwant\n%q", b.String(), want)
	}
	c.CheckOnly = false
	b.Reset()
	writeConsistency(&b, c, metrics.NewSummary())
	if !strings.HasPrefix(b.String(), "read tiers (") || strings.Contains(b.String(), "self-check") {
		t.Errorf("with tiers:\n%s", b.String())
	}
}

// Under db_replica, a line per replica names it and says its errors,
// outages and promotion.
func TestReplicaLines(t *testing.T) {
	c := &result.Consistency{Replica: &result.TierStats{Lookups: 12, Hits: 10, Errors: 2, Served: 10}, Replicas: []result.ReplicaStats{
		{Name: "postgres://postgres@127.0.0.1:5433/taobench", TierStats: result.TierStats{Lookups: 5, Hits: 5, Served: 5},
			PromotedAt: time.Date(2026, 11, 29, 1, 25, 41, 512000000, time.UTC)},
		{Name: "postgres://postgres@127.0.0.1:5434/taobench", TierStats: result.TierStats{Lookups: 7, Hits: 5, Errors: 2, Served: 5},
			Outages: 1, Outage: 2600 * time.Millisecond, Longest: 2600 * time.Millisecond},
	}}
	var b strings.Builder
	writeConsistency(&b, c, metrics.NewSummary())
	for _, want := range []string{
		"    replica postgres://postgres@127.0.0.1:5433/taobench: served 5 of 5 reads sent, 0 errors;",
		"; PROMOTED (left recovery) at 01:25:41.512: read as a replica no more\n",
		"    replica postgres://postgres@127.0.0.1:5434/taobench: served 5 of 7 reads sent, 2 errors;",
		"; out of rotation 1 time(s), 2.6 s in all, longest 2.6 s (its reads went elsewhere)\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
}

// A run over several endpoints has a line per endpoint with its stale
// reads and its poller's lag, and no self-check line (its reads are no
// self-check's).
func TestEndpointStaleLines(t *testing.T) {
	c := &result.Consistency{CheckOnly: true, Endpoints: []result.ReplicaStats{
		{Name: "mysql://root@10.0.0.1:3306/t", TierStats: result.TierStats{Lookups: 5, Hits: 5, Served: 5}},
		{Name: "mysql://root@10.0.0.3:3306/t", TierStats: result.TierStats{Lookups: 7, Hits: 7, Served: 7, Stale: 2}, Outages: 1, Outage: 2 * time.Second, Longest: 2 * time.Second},
	}}
	var b strings.Builder
	writeConsistency(&b, c, metrics.NewSummary())
	for _, want := range []string{
		"stale reads per endpoint",
		"  endpoint mysql://root@10.0.0.1:3306/t: 5 reads; stale 0, 0.000%",
		"  endpoint mysql://root@10.0.0.3:3306/t: 7 reads; stale 2, 28.571%",
		"; its heartbeat poll failed 1 time(s), 2.0 s in all, longest 2.0 s\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "self-check") {
		t.Errorf("a self-check line for the endpoints' reads:\n%s", b.String())
	}
}
