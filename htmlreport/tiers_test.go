package htmlreport

import (
	"testing"
	"time"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
)

func TestTierView(t *testing.T) {
	if rows, charts := tierView("x", &result.Experiment{Summary: metrics.NewSummary()}); rows != nil || charts != nil {
		t.Errorf("a run without tiers: %v, %v", rows, charts)
	}
	c := &result.Consistency{}
	cc := &c.Tiers[tao.TierClientCache]
	cc.Latency, cc.Age = &metrics.Series{}, &metrics.Series{}
	for sec := range 3 {
		for i := range 10 {
			stale := i < sec // 0, 1, 2 stale reads in seconds 0, 1, 2
			q := cc.Second(sec)
			q.Served++
			if stale {
				q.Stale, q.MaxAge = q.Stale+1, time.Duration(sec+1)*100*time.Millisecond
			}
			cc.Served++
			cc.Latency.Record(time.Microsecond)
			if stale {
				cc.Stale++
				cc.Age.Record(time.Duration(sec+1) * 100 * time.Millisecond)
			}
		}
	}
	rows, charts := tierView("x", &result.Experiment{Summary: metrics.NewSummary(), Consistency: c})
	if len(rows) != int(tao.NumTiers) || rows[0].Stale != "3" || rows[0].StaleShare != "10%" {
		t.Errorf("rows %+v", rows)
	}
	byID := map[string]*Chart{}
	for _, ch := range charts {
		byID[ch.ID] = ch
	}
	share, age := byID["x-stale"], byID["x-stale-age"]
	if share == nil || age == nil || byID["x-stale-age-cdf"] == nil {
		t.Fatalf("charts %v", charts)
	}
	if len(share.Series) != 1 || share.Series[0].Y[0] != 0 || share.Series[0].Y[1] != 10 || share.Series[0].Y[2] != 20 {
		t.Errorf("stale share per second: %+v", share.Series)
	}
	if y := age.Series[0].Y; len(y) != 3 || y[0] == y[0] || y[1] != 200 || y[2] != 300 {
		t.Errorf("oldest stale age per second (ms): %v; want none, 200, 300", y)
	}
	if byID["x-tier-lat"] != nil {
		t.Errorf("a latency-by-tier chart with no tiered read at the clients")
	}
}
