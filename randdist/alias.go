package randdist

import (
	"fmt"
	"math"
	"math/bits"
)

// Alias draws an index i with probability weights[i]/sum(weights) in O(1)
// time and one random value (Vose's alias method). Zero-weight indices are
// left out of the table, so they are never drawn.
type Alias struct {
	cols []aliasCol
}

// aliasCol is one column: keep own when the fraction is below thresh, else
// take alias. Integer thresholds keep a draw free of float conversions.
type aliasCol struct {
	thresh     uint64
	own, alias int32
}

// NewAlias builds the table. Weights must be finite, non-negative and not
// all zero.
func NewAlias(weights []float64) (Alias, error) {
	if len(weights) == 0 {
		return Alias{}, fmt.Errorf("no weights: give at least one positive weight")
	}
	if len(weights) > math.MaxInt32 {
		return Alias{}, fmt.Errorf("%d weights: at most %d are supported", len(weights), math.MaxInt32)
	}
	sum := 0.0
	var idx []int32 // indices with positive weight
	for i, w := range weights {
		if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
			return Alias{}, fmt.Errorf("weight %d is %v: weights must be finite and non-negative", i, w)
		}
		if w > 0 {
			sum += w
			idx = append(idx, int32(i))
		}
	}
	if len(idx) == 0 {
		return Alias{}, fmt.Errorf("all %d weights are zero: give at least one positive weight", len(weights))
	}
	n := len(idx)
	p := make([]float64, n)
	var small, large []int
	for c, i := range idx {
		p[c] = weights[i] * float64(n) / sum
		if p[c] < 1 {
			small = append(small, c)
		} else {
			large = append(large, c)
		}
	}
	cols := make([]aliasCol, n)
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		cols[s] = aliasCol{thresh: fraction(p[s]), own: idx[s], alias: idx[l]}
		p[l] -= 1 - p[s]
		if p[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	// What is left is 1 up to rounding: a full column.
	for _, c := range append(small, large...) {
		cols[c] = aliasCol{thresh: math.MaxUint64, own: idx[c], alias: idx[c]}
	}
	return Alias{cols: cols}, nil
}

// fraction converts a probability in [0, 1) to a threshold out of 2^64.
func fraction(p float64) uint64 {
	if p >= 1 {
		return math.MaxUint64
	}
	return uint64(p * 0x1p64)
}

// Pick returns the index chosen by the uniform 64-bit value x: the high half
// of x*len picks the column, the low half is the fraction inside it.
func (a *Alias) Pick(x uint64) int {
	hi, lo := bits.Mul64(x, uint64(len(a.cols)))
	c := &a.cols[hi]
	if lo < c.thresh {
		return int(c.own)
	}
	return int(c.alias)
}

// Draw returns an index drawn with r.
func (a *Alias) Draw(r *Rand) int { return a.Pick(r.Uint64()) }

// Single reports whether only one index can be drawn.
func (a *Alias) Single() bool { return len(a.cols) == 1 }
