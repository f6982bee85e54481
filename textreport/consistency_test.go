package textreport

import (
	"strings"
	"testing"

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
