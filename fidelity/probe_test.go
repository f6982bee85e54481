package fidelity

import (
	"math/bits"
	"strings"
	"testing"

	"github.com/taobench/taobench/randdist"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/workload"
)

// TestProbedRangeRows: a run that read what the probes counted passes; one
// whose range reads lost rows (a store that drops an edge from every list
// of two, or returns half the rows) fails; probes far apart widen the
// tolerance by half their gap.
func TestProbedRangeRows(t *testing.T) {
	w, err := workload.Builtin("linkbench")
	if err != nil {
		t.Fatal(err)
	}
	r := randdist.NewRand(3)
	// A list drawn: empty 26.6%, one edge 45.4%, else 2 to 41 edges.
	draw := func() int {
		switch u := r.Float64(); {
		case u < 0.266:
			return 0
		case u < 0.72:
			return 1
		}
		return 2 + int(r.Uint64N(40))
	}
	probe := func() RangeProbe {
		var p RangeProbe
		for range 10_000 {
			p.Add(draw(), 10_000)
		}
		return p
	}
	before, after := probe(), probe()
	run := func(damage func(int) int) *result.Counters {
		var c result.Counters
		for range 20_000 {
			n := damage(draw())
			c.RangeReads++
			c.RangeRows += int64(n)
			if n > 0 {
				c.RangeNonEmpty++
				c.RangeSizes[bits.Len(uint(n))-1]++
			}
		}
		return &c
	}
	verdicts := func(c *result.Counters, b, a RangeProbe) map[string]result.FidelityRow {
		m := map[string]result.FidelityRow{}
		for _, row := range ProbedRangeRows(w, &result.Targets{}, c, b, a) {
			m[row.Figure] = row
		}
		// linkbench sizes its range reads (range_mean_rows): its 1-row
		// share (Table 4b) is a fifth row.
		if len(m) != 5 {
			t.Fatalf("want the five range rows, got %+v", m)
		}
		return m
	}
	for fig, row := range verdicts(run(func(n int) int { return n }), before, after) {
		if row.Verdict != result.Pass {
			t.Errorf("an undamaged run fails %s: %+v", fig, row)
		}
	}
	halfRows := verdicts(run(func(n int) int { return (n + 1) / 2 }), before, after)
	for _, fig := range []string{"rows per edge_range_read (mean)", "edge_range_read sizes vs lists counted"} {
		if row := halfRows[fig]; row.Verdict != result.Fail {
			t.Errorf("half the rows passes %s: %+v", fig, row)
		}
	}
	dropOne := verdicts(run(func(n int) int {
		if n > 0 && r.Uint64N(2) == 0 {
			return n - 1
		}
		return n
	}), before, after)
	for _, fig := range []string{"edge_range_read returns edges", "non-empty ranges of 1 edge", "edge_range_read sizes vs lists counted", "edge_range_read returns 1 row"} {
		if row := dropOne[fig]; row.Verdict != result.Fail {
			t.Errorf("an edge lost from half the lists passes %s: %+v", fig, row)
		}
	}
	// The run's writes moved the lists between the probes: half the gap
	// is allowed beside the sampling error.
	var moved RangeProbe
	for range 10_000 {
		n := draw()
		if n == 1 && r.Uint64N(10) == 0 {
			n = 2
		}
		moved.Add(n, 10_000)
	}
	plain := verdicts(run(func(n int) int { return n }), before, before)["non-empty ranges of 1 edge"]
	wide := verdicts(run(func(n int) int { return n }), before, moved)["non-empty ranges of 1 edge"]
	if gap := before.sizeOne() - moved.sizeOne(); wide.Tolerance-plain.Tolerance < gap/2*0.9 {
		t.Errorf("probes %.4f apart widen the tolerance by %.4f, want about half", gap, wide.Tolerance-plain.Tolerance)
	}
}

func TestReplace(t *testing.T) {
	rows := []result.FidelityRow{{Figure: "a"}, {Figure: "b", Note: "old"}, {Figure: "c"}}
	got := Replace(rows, []result.FidelityRow{{Figure: "b", Note: "new"}, {Figure: "b2"}})
	var figs []string
	for _, r := range got {
		figs = append(figs, r.Figure+r.Note)
	}
	if want := "a bnew b2 c"; strings.Join(figs, " ") != want {
		t.Errorf("Replace gave %v, want %s", figs, want)
	}
}

// TestLoadRangeRows: lists counted on a fresh load pass against the plan's
// targets, lists of another share fail (a generator that misses
// range_nonempty), and after runs the rows are skipped.
func TestLoadRangeRows(t *testing.T) {
	w, err := workload.Builtin("linkbench")
	if err != nil {
		t.Fatal(err)
	}
	tg := &result.Targets{RangeNonEmpty: 0.734, RangeSizeOne: 0.596, Correlation: 0.005}
	probe := func(nonEmpty, one float64) RangeProbe {
		var p RangeProbe
		r := randdist.NewRand(5)
		for range 10_000 {
			switch u := r.Float64(); {
			case u >= nonEmpty:
				p.Add(0, 10_000)
			case u < nonEmpty*one:
				p.Add(1, 10_000)
			default:
				p.Add(3, 10_000)
			}
		}
		return p
	}
	for _, c := range []struct {
		name string
		p    RangeProbe
		runs int64
		want [2]string
	}{
		{"fresh load", probe(0.734, 0.596), 0, [2]string{result.Pass, result.Pass}},
		{"targets missed", probe(0.66, 0.53), 0, [2]string{result.Fail, result.Fail}},
		{"after runs", probe(0.66, 0.53), 2, [2]string{result.Skipped, result.Skipped}},
	} {
		rows := LoadRangeRows(w, tg, c.p, c.runs)
		if len(rows) != 2 || rows[0].Verdict != c.want[0] || rows[1].Verdict != c.want[1] {
			t.Errorf("%s: want %v, got %+v", c.name, c.want, rows)
		}
	}
}
