// Package stats holds the statistics taobench's comparisons rest on:
// confidence intervals by batch means over a run's per-second series,
// Welch's comparison of two of them, and Holm's correction for a family of
// tests. It imports nothing but the standard library, so result (a leaf
// the reporters and merge link) and gencheck share it.
package stats

import (
	"math"
	"sort"
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
	c.P = 2 * tSurvival(math.Abs(d)/se, c.DF)
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
	c.P = 2 * tSurvival(math.Abs(d)/c.SE, c.DF)
	return c
}

// tQuantile is the two-sided quantile of Student's t at the confidence:
// the t whose two tails hold 1-confidence, by bisection.
func tQuantile(df, confidence float64) float64 {
	alpha := 1 - confidence
	lo, hi := 0.0, 1.0
	for 2*tSurvival(hi, df) > alpha {
		lo, hi = hi, 2*hi
	}
	for range 100 {
		mid := (lo + hi) / 2
		if 2*tSurvival(mid, df) > alpha {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// tSurvival is P(T > t) for Student's t with df degrees of freedom, t >= 0:
// half the regularized incomplete beta function I_x(df/2, 1/2) at
// x = df/(df+t²).
func tSurvival(t, df float64) float64 {
	return 0.5 * betaInc(df/2, 0.5, df/(df+t*t))
}

// betaInc is the regularized incomplete beta function I_x(a, b), by its
// continued fraction (Numerical Recipes, betai and betacf).
func betaInc(a, b, x float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log(1-x))
	if x < (a+1)/(a+b+2) {
		return front * betaFrac(a, b, x) / a
	}
	return 1 - front*betaFrac(b, a, 1-x)/b
}

// betaFrac evaluates the continued fraction of betaInc by Lentz's method.
func betaFrac(a, b, x float64) float64 {
	const tiny, eps = 1e-300, 1e-15
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		for _, aa := range [2]float64{
			fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm)),
			-(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1)),
		} {
			d = 1 + aa*d
			if math.Abs(d) < tiny {
				d = tiny
			}
			c = 1 + aa/c
			if math.Abs(c) < tiny {
				c = tiny
			}
			d = 1 / d
			h *= d * c
		}
		if math.Abs(d*c-1) < eps {
			break
		}
	}
	return h
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
