// Package chisquare is Pearson's goodness-of-fit test, shared by the
// generator's checks (gencheck) and the fidelity rows (fidelity), which
// must not link the generator: merge and report recompute rows with it.
package chisquare

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// Alpha is the significance level: a fidelity row passes when its p-value is
// at least Alpha. The generator's check (gencheck) tests a dozen or more
// distributions as one family and holds the family's false-alarm rate to
// Alpha by Holm's correction (gencheck.Correct).
const Alpha = 0.001

// MinExpected is the smallest expected count a category may have on its own;
// smaller ones are pooled, as the chi-square approximation needs.
const MinExpected = 5

// Test is Pearson's goodness-of-fit test of observed counts against
// weights (any scale; observed[i] belongs to weights[i]). Categories whose
// expected count is below MinExpected are pooled into one bin; if that bin is
// still below it, it absorbs the smallest remaining category. It returns the
// statistic, the degrees of freedom (bins - 1), the p-value and the number
// of bins. A count observed where the weight is zero cannot happen under the
// weights: chi2 is +Inf and p is 0. With fewer than two bins (df < 1) there is
// nothing to test and p is NaN.
func Test(observed []int64, weights []float64) (chi2 float64, df int, p float64, cats int) {
	var n int64
	sumW := 0.0
	for i, o := range observed {
		n += o
		if i < len(weights) && weights[i] > 0 {
			sumW += weights[i]
		}
	}
	if n == 0 || sumW == 0 {
		return 0, 0, math.NaN(), 0
	}
	type bin struct{ obs, exp float64 }
	var bins []bin
	var pooled bin
	for i, o := range observed {
		w := 0.0
		if i < len(weights) {
			w = weights[i]
		}
		if !(w > 0) {
			if o > 0 {
				return math.Inf(1), 0, 0, 0
			}
			continue
		}
		e := float64(n) * w / sumW
		if e < MinExpected {
			pooled.obs += float64(o)
			pooled.exp += e
			continue
		}
		bins = append(bins, bin{float64(o), e})
	}
	if pooled.exp > 0 {
		if pooled.exp < MinExpected && len(bins) > 0 {
			sort.Slice(bins, func(i, j int) bool { return bins[i].exp < bins[j].exp })
			pooled.obs += bins[0].obs
			pooled.exp += bins[0].exp
			bins = bins[1:]
		}
		bins = append(bins, pooled)
	}
	for _, b := range bins {
		d := b.obs - b.exp
		chi2 += d * d / b.exp
	}
	cats = len(bins)
	df = cats - 1
	if df < 1 {
		return chi2, df, math.NaN(), cats
	}
	p = distuv.ChiSquared{K: float64(df)}.Survival(chi2)
	return chi2, df, p, cats
}
