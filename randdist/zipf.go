package randdist

import (
	"fmt"
	"math"
)

// Zipf draws ranks k in [1, n] with probability proportional to 1/k^theta,
// for any theta > 0, by rejection-inversion (Hörmann and Derflinger, "Rejection-
// inversion to generate variates from monotone discrete distributions",
// 1996), as in Apache Commons' RejectionInversionZipfSampler. Setup is O(1)
// and a draw takes O(1) expected time (well under two tries). Go's
// math/rand.Zipf needs an exponent above 1, which a YCSB-style 0.99 is not.
type Zipf struct {
	n          float64
	theta      float64
	hX1, hN, s float64
	// For the draw's inversion by fastExp and fastLog: span is hX1-hN,
	// and, when fast, inv is 1/(1-theta), far enough from 1/0 that their
	// few ulps of error stay far below what any sample could show.
	span, inv float64
	fast      bool
}

// NewZipf returns a sampler over [1, n].
func NewZipf(n uint64, theta float64) (Zipf, error) {
	if n < 1 {
		return Zipf{}, fmt.Errorf("zipf over %d items: need at least one", n)
	}
	if !(theta > 0) || math.IsInf(theta, 0) {
		return Zipf{}, fmt.Errorf("zipf exponent %v: give a finite exponent above 0 (YCSB uses 0.99)", theta)
	}
	z := Zipf{n: float64(n), theta: theta}
	z.hX1 = z.hIntegral(1.5) - 1
	z.hN = z.hIntegral(z.n + 0.5)
	z.s = 2 - z.hIntegralInv(z.hIntegral(2.5)-z.h(2))
	z.span = z.hX1 - z.hN
	z.inv = 1 / (1 - theta)
	z.fast = math.Abs(1-theta) >= 1e-3
	return z, nil
}

// Draw returns a rank in [1, n]; rank 1 is the most likely.
func (z *Zipf) Draw(r *Rand) uint64 {
	for {
		u := z.hN + r.Float64()*z.span
		x := z.inverse(u)
		k := math.Floor(x + 0.5)
		if k < 1 {
			k = 1
		} else if k > z.n {
			k = z.n
		}
		if k-x <= z.s || u >= z.hIntegral(k+0.5)-z.h(k) {
			return uint64(k)
		}
	}
}

// inverse is hIntegralInv, in closed form (1+(1-theta)u)^(1/(1-theta))
// by fastExp and fastLog where that is exact enough: their error, a few
// ulps of x, moves a draw to a neighbouring rank with a chance near
// 1e-13, where package math's own rounding gives 1e-15.
func (z *Zipf) inverse(u float64) float64 {
	if w := 1 + u*(1-z.theta); z.fast && w >= 0x1p-1000 {
		return fastExp(z.inv * fastLog(w))
	}
	return z.hIntegralInv(u)
}

// h is the unnormalised density 1/x^theta.
func (z *Zipf) h(x float64) float64 { return math.Exp(-z.theta * math.Log(x)) }

// hIntegral is an antiderivative of h, written to stay exact as theta → 1.
func (z *Zipf) hIntegral(x float64) float64 {
	lx := math.Log(x)
	return expm1div((1-z.theta)*lx) * lx
}

func (z *Zipf) hIntegralInv(x float64) float64 {
	t := x * (1 - z.theta)
	if t < -1 {
		t = -1 // rounding only: keeps log1p finite
	}
	return math.Exp(log1pdiv(t) * x)
}

// log1pdiv is log1p(x)/x, continuous at 0.
func log1pdiv(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(0.5-x*(1.0/3-0.25*x))
}

// expm1div is expm1(x)/x, continuous at 0.
func expm1div(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x*0.5*(1+x/3*(1+0.25*x))
}
