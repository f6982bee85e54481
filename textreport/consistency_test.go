package textreport

import (
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
)

func TestTextReportShowsTiers(t *testing.T) {
	t.Parallel()
	c := &result.Consistency{}
	csc := &c.Tiers[tao.TierClientCache]
	csc.Drawn, csc.Lookups, csc.Hits, csc.Served, csc.Stale = 100, 100, 80, 80, 20
	csc.Latency, csc.Age = &metrics.Series{}, &metrics.Series{}
	for range 80 {
		csc.Latency.Record(time.Millisecond)
	}
	for range 20 {
		csc.Age.Record(1500 * time.Millisecond)
	}
	c.Tiers[tao.TierDB].Served, c.Tiers[tao.TierDB].Lookups, c.Tiers[tao.TierDB].Hits = 20, 20, 20
	var b strings.Builder
	if err := WriteText(&b, &result.Experiment{Summary: metrics.NewSummary(), Measured: time.Second, Consistency: c}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"read tiers (",
		"client_cache drawn 100; served 80, 80.00%; hits 80.00% of 100 lookups; stale 20, 25.000%, age 1500.000/1500.000/1500.000; latency 1.000/1.000",
		"db           drawn 0; served 20, 20.00%",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the text report lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	WriteText(&b, &result.Experiment{Summary: metrics.NewSummary(), Measured: time.Second})
	if strings.Contains(b.String(), "read tiers") {
		t.Errorf("a run without tiers reports them:\n%s", b.String())
	}
}
