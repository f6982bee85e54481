package fidelity

import (
	"testing"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/workload"
)

// TestTimeProbeRows: 10,000 time-range reads finding an edge 1.9% of the
// time pass TAO's target, none fail it; a natural workload or an empty
// probe has no row.
func TestTimeProbeRows(t *testing.T) {
	tg := &result.Targets{TimeRangeNonEmpty: 0.019}
	if r := TimeProbeRows(tg, TimeProbe{Reads: 10000, NonEmpty: 190}, 0); len(r) != 1 || r[0].Verdict != result.Pass {
		t.Errorf("1.9%%: %+v, want pass", r)
	}
	if r := TimeProbeRows(tg, TimeProbe{Reads: 10000}, 0); len(r) != 1 || r[0].Verdict != result.Fail {
		t.Errorf("none found: %+v, want fail", r)
	}
	if r := TimeProbeRows(tg, TimeProbe{}, 0); r != nil {
		t.Errorf("no probe: %+v", r)
	}
	if r := TimeProbeRows(&result.Targets{TimeRangeNonEmpty: workload.Natural}, TimeProbe{Reads: 10000, NonEmpty: 5}, 0); r != nil {
		t.Errorf("a natural workload: %+v", r)
	}
}
