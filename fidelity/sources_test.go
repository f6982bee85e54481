package fidelity

import (
	"strings"
	"testing"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// TestRowNotesNameTheirTargetsSource: a row's note names the source of
// the target it was compared with, not TAO's figure whatever the target:
// linkbench's 0.734 is LinkBench's Table 4b, tao's 0.31 TAO's Fig. 3, and
// a figure no paper gives is credited to the workload's field.
func TestRowNotesNameTheirTargetsSource(t *testing.T) {
	t.Parallel()
	c := result.Counters{PointReads: 1000, PointHits: 200, RangeReads: 1000, RangeNonEmpty: 700, RangeRows: 5000,
		CountReads: 1000, CountNonEmpty: 500, TimeReads: 1000, TimeNonEmpty: 20}
	c.Outcomes[tao.Read][tao.OK] = 4000
	note := func(name string, tg *result.Targets, fig string) string {
		w, err := workload.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range Compare(w, tg, &c) {
			if r.Figure == fig {
				return r.Note
			}
		}
		t.Fatalf("%s: no row %q", name, fig)
		return ""
	}
	for _, x := range []struct {
		name string
		tg   result.Targets
		fig  string
		want string
	}{
		{"linkbench", result.Targets{EdgeHitRate: workload.Natural, RangeNonEmpty: 0.734, CountNonZero: workload.Natural, TimeRangeNonEmpty: workload.Natural},
			"edge_range_read returns edges", "LinkBench Table 4b"},
		{"tao", result.Targets{EdgeHitRate: 0.196, RangeNonEmpty: 0.31, CountNonZero: 0.55, TimeRangeNonEmpty: 0.019},
			"edge_range_read returns edges", "TAO §7, Fig. 3: 31.0%"},
		{"tao", result.Targets{EdgeHitRate: 0.196, RangeNonEmpty: 0.31, CountNonZero: 0.55, TimeRangeNonEmpty: 0.019},
			"edge_count_read counts edges", "TAO §7, Fig. 4"},
		{"a", result.Targets{EdgeHitRate: 0.5, RangeNonEmpty: 0.31, CountNonZero: 0.55, TimeRangeNonEmpty: 0.019},
			"edge_point_read finds an edge", "the workload's edge_hit_rate 0.5"},
	} {
		got := note(x.name, &x.tg, x.fig)
		if !strings.Contains(got, x.want) {
			t.Errorf("%s %q: note %q, want it to name %q", x.name, x.fig, got, x.want)
		}
		if x.want != "TAO §7, Fig. 3: 31.0%" && strings.Contains(got, "31.0%") {
			t.Errorf("%s %q: note %q credits TAO's 31.0%% with another target", x.name, x.fig, got)
		}
	}
}
