package stats

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-3 }

// TestBatchMeans: five batches 1..5 around 3 give s = 1.5811, SE =
// s/√5 = 0.7071, t(0.975, 4) = 2.7764: 3 ± 1.9632 (worked by hand); one
// batch gives no interval; agreeing batches take the floor.
func TestBatchMeans(t *testing.T) {
	iv := BatchMeans(3, []float64{1, 2, 3, 4, 5}, 0, 0.95)
	if !iv.Valid() || !near(iv.SE, 0.7071) || iv.DF != 4 || !near(iv.Lo, 3-1.9632) || !near(iv.Hi, 3+1.9632) {
		t.Errorf("BatchMeans = %+v; want SE 0.7071, df 4, [1.0368, 4.9632]", iv)
	}
	if iv := BatchMeans(3, []float64{3}, 0, 0.95); iv.Valid() || iv.Lo != 3 || iv.Hi != 3 {
		t.Errorf("one batch: %+v; want no interval", iv)
	}
	if iv := BatchMeans(3, []float64{3, 3, 3, 3}, 0.2, 0.95); !near(iv.SE, 0.1) {
		t.Errorf("equal batches, floor 0.2: SE %g; want 0.2/√4 = 0.1", iv.SE)
	}
}

// TestPairedCancelsCommonSwings: two runs that swung together second by
// second, one 1 higher throughout: batch by batch the change is certain,
// while Compare, which takes them as independent, cannot tell it from
// their swings.
func TestPairedCancelsCommonSwings(t *testing.T) {
	swing := []float64{10, 14, 9, 16, 11, 13}
	up := make([]float64, len(swing))
	for i, v := range swing {
		up[i] = v + 1 + 0.01*float64(i%2)
	}
	a, b := BatchMeans(12.1667, swing, 0, 0.95), BatchMeans(13.1717, up, 0, 0.95)
	if p := Paired(a, b, 0.95); p.P > 1e-6 || p.Lo <= 0 {
		t.Errorf("Paired: %+v; want a change of 1 with p near 0", p)
	}
	if w := Compare(a, b, 0.95); w.P < 0.3 || w.Lo >= 0 {
		t.Errorf("Compare: %+v; want no difference detectable", w)
	}
}

// TestHolmStats: p-values 0.01, 0.04, 0.03, 0.5 at 0.05, worked by hand:
// smallest first, levels 0.05/4, /3, /2, /1; adjusted 4×0.01 = 0.04,
// 3×0.03 = 0.09, max(0.09, 2×0.04) = 0.09, 0.5.
func TestHolmStats(t *testing.T) {
	levels, adj := Holm([]float64{0.01, 0.04, 0.03, 0.5}, 0.05)
	wantL, wantA := []float64{0.0125, 0.025, 0.05 / 3, 0.05}, []float64{0.04, 0.09, 0.09, 0.5}
	for i := range adj {
		if !near(levels[i], wantL[i]) || !near(adj[i], wantA[i]) {
			t.Errorf("p %d: level %g, adjusted %g; want %g, %g", i, levels[i], adj[i], wantL[i], wantA[i])
		}
	}
}

// TestStudentsT: quantiles and tails of Student's t against the tables:
// t(0.975) = 12.706 at 1 degree of freedom, 2.2281 at 10, 1.9600 far out;
// the two tails beyond 2.7764 at 4 hold 5%.
func TestStudentsT(t *testing.T) {
	for _, c := range []struct{ df, conf, want float64 }{{1, 0.95, 12.706}, {10, 0.95, 2.2281}, {1e6, 0.95, 1.9600}, {4, 0.99, 4.6041}} {
		if got := tQuantile(c.df, c.conf); !near(got, c.want) {
			t.Errorf("t quantile at %g, df %g = %g; want %g", c.conf, c.df, got, c.want)
		}
	}
	if p := 2 * tSurvival(2.7764, 4); !near(p, 0.05) {
		t.Errorf("two tails beyond 2.7764 at df 4 = %g; want 0.05", p)
	}
}

// TestAcrossRuns: runs of 10, 12, 14 give their mean 12, s = 2, SE =
// 2/√3 = 1.1547, t(0.975, 2) = 4.3027: 12 ± 4.9683; runs that agree
// exactly take the root mean square of their own standard errors.
func TestAcrossRuns(t *testing.T) {
	iv := AcrossRuns([]float64{10, 12, 14}, []float64{0.1, 0.1, 0.1}, 0.95)
	if !iv.Valid() || iv.Estimate != 12 || !near(iv.SE, 1.1547) || iv.DF != 2 || !near(iv.Hi-iv.Lo, 2*4.9683) {
		t.Errorf("AcrossRuns = %+v; want 12 ± 4.9683 on 2 degrees of freedom", iv)
	}
	if iv := AcrossRuns([]float64{5, 5}, []float64{0.3, 0.4}, 0.95); !near(iv.SE, math.Sqrt((0.09+0.16)/2)/math.Sqrt(2)) {
		t.Errorf("agreeing runs: SE %g; want the rms of their own, 0.3536, over √2", iv.SE)
	}
	if iv := AcrossRuns([]float64{5}, nil, 0.95); iv.Valid() {
		t.Errorf("one run: %+v; want no interval", iv)
	}
}

// TestRatio: rounds with ratios 2, 2, 2×e^0.2 (logs ln2, ln2, ln2+0.2) give
// the geometric mean 2e^(0.2/3); the interval is exp of the log ratios' t
// interval, so not symmetric around it; a zero denominator is skipped.
func TestRatio(t *testing.T) {
	num := []float64{2, 4, 2 * math.Exp(0.2), 1}
	den := []float64{1, 2, 1, 0}
	iv, skipped := Ratio(num, den, 0.95)
	sd := math.Sqrt((2*(0.2/3)*(0.2/3) + (0.4/3)*(0.4/3)) / 2)
	h := 4.3027 * sd / math.Sqrt(3)
	if skipped != 1 || !near(iv.Estimate, 2*math.Exp(0.2/3)) || !near(iv.Lo, 2*math.Exp(0.2/3-h)) || !near(iv.Hi, 2*math.Exp(0.2/3+h)) {
		t.Errorf("Ratio = %+v (skipped %d); want %.4f in [%.4f, %.4f], 1 skipped", iv, skipped, 2*math.Exp(0.2/3), 2*math.Exp(0.2/3-h), 2*math.Exp(0.2/3+h))
	}
	if iv.Hi-iv.Estimate <= iv.Estimate-iv.Lo {
		t.Errorf("Ratio interval [%g, %g] around %g: want it wider above (a ratio's log is symmetric)", iv.Lo, iv.Hi, iv.Estimate)
	}
}
