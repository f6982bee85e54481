// Package stats holds the statistics taobench's comparisons rest on:
// confidence intervals by batch means over a run's per-second series,
// Welch's comparison of two of them, and Holm's correction for a family of
// tests. It imports nothing of taobench's, so result, gencheck and
// reporters share it without linking one another.
package stats

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// MaxBatches is how many batches Batches cuts a series into at most: 20
// keeps the t quantile near the normal's (2.09 at 19 degrees of freedom)
// while each batch of a long run spans many seconds, so that neighbouring
// batches are nearly independent even when neighbouring seconds are not.
const MaxBatches = 20

// Batches cuts n seconds into min(n, MaxBatches) contiguous batches of
// nearly equal length (they differ by at most one second) and returns each
// one's [from, to).
func Batches(n int) [][2]int {
	k := min(n, MaxBatches)
	out := make([][2]int, 0, k)
	for i := range k {
		out = append(out, [2]int{i * n / k, (i + 1) * n / k})
	}
	return out
}

// Interval is a figure with its confidence interval.
type Interval struct {
	Estimate   float64 // the run's figure
	Lo, Hi     float64 // the interval, at Confidence
	SE         float64 // standard error of Estimate
	DF         float64 // degrees of freedom of the t distribution behind it
	Confidence float64
	// Values are the figure's value in each batch, in time order, and
	// Floor the least standard deviation they are taken to have (see
	// BatchMeans); Paired compares two runs batch by batch with them.
	Values []float64
	Floor  float64
}

// Valid reports whether the interval was computed (at least 2 batches).
func (iv Interval) Valid() bool { return iv.DF >= 1 }

// BatchMeans returns the interval of estimate from the values a figure
// took in each batch: the batches' standard deviation over √k is its
// standard error, and Student's t with k-1 degrees of freedom its
// quantile. floor is the smallest standard deviation of a batch value the
// data can tell (their resolution), so that batches that agree to the
// resolution do not give a zero-width interval. Fewer than two values give
// an interval that is not Valid.
func BatchMeans(estimate float64, values []float64, floor, confidence float64) Interval {
	iv := Interval{Estimate: estimate, Lo: estimate, Hi: estimate, Confidence: confidence, Values: values, Floor: floor}
	k := len(values)
	if k < 2 {
		return iv
	}
	mean := 0.0
	for _, v := range values {
		mean += v
	}
	mean /= float64(k)
	ss := 0.0
	for _, v := range values {
		ss += (v - mean) * (v - mean)
	}
	sd := max(math.Sqrt(ss/float64(k-1)), floor)
	iv.SE = sd / math.Sqrt(float64(k))
	iv.DF = float64(k - 1)
	h := tQuantile(iv.DF, confidence) * iv.SE
	iv.Lo, iv.Hi = estimate-h, estimate+h
	return iv
}

// Change is b's figure less a's, with its interval and the two-sided
// p-value of no change.
type Change struct {
	Interval
	P float64
}

// Compare is Welch's test of b against a: the change's standard error
// combines theirs, and its degrees of freedom are Welch–Satterthwaite's.
// Both must be Valid.
func Compare(a, b Interval, confidence float64) Change {
	d := b.Estimate - a.Estimate
	va, vb := a.SE*a.SE, b.SE*b.SE
	c := Change{Interval: Interval{Estimate: d, Lo: d, Hi: d, Confidence: confidence}}
	se := math.Sqrt(va + vb)
	if se == 0 {
		c.DF, c.P = a.DF+b.DF, 1
		if d != 0 {
			c.P = 0
		}
		return c
	}
	c.SE = se
	c.DF = (va + vb) * (va + vb) / (va*va/a.DF + vb*vb/b.DF)
	h := tQuantile(c.DF, confidence) * se
	c.Lo, c.Hi = d-h, d+h
	c.P = 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: c.DF}.Survival(math.Abs(d)/se)
	return c
}

// Paired compares b with a batch by batch: the change's standard error is
// the spread of the batches' differences over √k, with k-1 degrees of
// freedom (a paired t test). Valid whenever the batches are independent
// over time, as BatchMeans assumes; and when the two runs ran side by
// side, batch i of each in the same seconds, what the machine did to both
// in those seconds cancels, which Compare would count as noise twice.
// Both must be Valid with as many batches.
func Paired(a, b Interval, confidence float64) Change {
	d := b.Estimate - a.Estimate
	diffs := make([]float64, len(a.Values))
	for i := range diffs {
		diffs[i] = b.Values[i] - a.Values[i]
	}
	c := Change{Interval: BatchMeans(d, diffs, math.Hypot(a.Floor, b.Floor), confidence)}
	c.Values = nil
	if c.SE == 0 {
		c.P = 1
		if d != 0 {
			c.P = 0
		}
		return c
	}
	c.P = 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: c.DF}.Survival(math.Abs(d)/c.SE)
	return c
}

// tQuantile is the two-sided quantile of Student's t at the confidence.
func tQuantile(df, confidence float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - (1-confidence)/2)
}

// Holm applies Holm's step-down correction (Holm–Bonferroni) to a family
// of m p-values, so that true null hypotheses are rejected with chance at
// most alpha in all (the family-wise false-alarm rate), not alpha each.
// The p-values, smallest first, are held to alpha/m, alpha/(m-1), ...,
// alpha; once one passes its level, every later one passes. It returns
// each one's level and adjusted p-value, the smallest family rate at which
// it would be rejected: max over the p-values up to its rank of
// min(1, (m-rank) p). A hypothesis is rejected when adjusted < alpha.
// NaN p-values sort last.
func Holm(p []float64, alpha float64) (levels, adjusted []float64) {
	m := len(p)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		pa, pb := p[order[a]], p[order[b]]
		return pa < pb || !math.IsNaN(pa) && math.IsNaN(pb)
	})
	levels, adjusted = make([]float64, m), make([]float64, m)
	adj := 0.0
	for rank, i := range order {
		levels[i] = alpha / float64(m-rank)
		adj = max(adj, min(1, float64(m-rank)*p[i]))
		adjusted[i] = adj
	}
	return levels, adjusted
}
