package chisquare_test

import (
	"math"
	"testing"

	"github.com/taobench/taobench/chisquare"
)

func TestKnownValues(t *testing.T) {
	t.Parallel()
	chi2, df, p, cats := chisquare.Test([]int64{10, 20, 30}, []float64{1, 1, 1})
	if chi2 != 10 || df != 2 || cats != 3 || math.Abs(p-math.Exp(-5)) > 1e-12 {
		t.Errorf("got chi2 %v df %d p %v cats %d; want 10, 2, e^-5, 3", chi2, df, p, cats)
	}
	// Expected 1, 1, 2 (below 5) pool into one bin of 4, still below 5, so
	// it absorbs the smallest other bin (expected 16): 2 bins remain.
	_, df, _, cats = chisquare.Test([]int64{1, 1, 2, 16, 80}, []float64{1, 1, 2, 16, 80})
	if cats != 2 || df != 1 {
		t.Errorf("pooling gave %d bins, df %d; want 2, 1", cats, df)
	}
	// A count where the weight is zero cannot happen.
	if chi2, _, p, _ := chisquare.Test([]int64{5, 5, 1}, []float64{1, 1, 0}); !math.IsInf(chi2, 1) || p != 0 {
		t.Errorf("count on a zero weight: chi2 %v p %v", chi2, p)
	}
	// One bin: nothing to test.
	if _, df, p, _ := chisquare.Test([]int64{7, 0}, []float64{1, 0}); df != 0 || !math.IsNaN(p) {
		t.Errorf("one bin: df %d p %v", df, p)
	}
}
