package metrics

import (
	"testing"
	"time"

	"github.com/taobench/taobench/tao"
)

// The read tier that served a read is a dimension of the latency
// histograms: counted for tiered reads only, merged exactly, and carried
// through Data and FromData.
func TestLatencyByTier(t *testing.T) {
	a, b := NewRecorder(), NewRecorder()
	for i := range 300 {
		r := a
		if i%2 == 1 {
			r = b
		}
		tier := tao.Tier(i % 3)
		r.Record(&Sample{Class: tao.Read, Kind: tao.ObjRead, Latency: time.Duration(1+int(tier)*10) * time.Millisecond, Attempts: 1, Tier: tier, Tiered: true})
	}
	// Neither a write nor an untiered read counts by tier.
	a.Record(&Sample{Class: tao.Write, Kind: tao.ObjUpdate, Latency: time.Second, Attempts: 1, Tier: tao.TierDB, Tiered: true})
	a.Record(&Sample{Class: tao.Read, Kind: tao.ObjRead, Latency: time.Second, Attempts: 1})
	m := NewSummary()
	m.Merge(a.Snapshot())
	m.Merge(b.Snapshot())
	for tier := range tao.NumTiers {
		st := m.TierStats(tier.String())
		want := float64(1+int(tier)*10) * 1000
		if st.Count != 100 || st.P50 < want*0.99 || st.P50 > want*1.01 {
			t.Errorf("tier %s: %d reads, p50 %.0f µs; want 100 at %.0f", tier, st.Count, st.P50, want)
		}
	}
	d, err := m.Data()
	if err != nil {
		t.Fatal(err)
	}
	back, err := FromData(d)
	if err != nil {
		t.Fatal(err)
	}
	for tier := range tao.NumTiers {
		if got, want := back.TierStats(tier.String()), m.TierStats(tier.String()); got != want {
			t.Errorf("tier %s after Data/FromData: %+v, want %+v", tier, got, want)
		}
	}
	d.Tiers["nosuch"] = d.Tiers["db"]
	if _, err := FromData(d); err == nil {
		t.Errorf("FromData took a tier named nosuch")
	}
}
