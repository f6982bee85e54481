package randdist

import (
	"math"
	"testing"
)

// TestFastMath: fastExp and fastLog agree with package math to a few ulps
// over the ranges the Zipf draw uses (exponents up to about 30 * 1/(1-theta)
// clamped by fast to |z| < 700; logs of positive normal values).
func TestFastMath(t *testing.T) {
	r := NewRand(3)
	worstExp, worstLog := 0.0, 0.0
	for range 1_000_000 {
		z := (r.Float64()*2 - 1) * 700
		worstExp = max(worstExp, math.Abs(fastExp(z)/math.Exp(z)-1))
		y := math.Exp((r.Float64()*2 - 1) * 700)
		worstLog = max(worstLog, math.Abs(fastLog(y)-math.Log(y))/max(1, math.Abs(math.Log(y))))
	}
	for _, y := range []float64{1, 2, 0.5, 1 + 0x1p-52, 1 - 0x1p-53, 0x1p-1000, math.MaxFloat64} {
		worstLog = max(worstLog, math.Abs(fastLog(y)-math.Log(y))/max(1, math.Abs(math.Log(y))))
	}
	if worstExp > 1e-15 {
		t.Errorf("fastExp: relative error up to %g, want <= 1e-15", worstExp)
	}
	if worstLog > 1e-15 {
		t.Errorf("fastLog: error up to %g (relative, or absolute below 1), want <= 1e-15", worstLog)
	}
}

// drawReference is Draw with package math's inversion (hIntegralInv): the
// sampler as it was before the fast inversion.
func (z *Zipf) drawReference(r *Rand) uint64 {
	for {
		u := z.hN + r.Float64()*(z.hX1-z.hN)
		x := z.hIntegralInv(u)
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

// TestZipfFastInversion: the fast inversion is within 1e-13 of the
// reference everywhere, and up to a million ranks draws the reference's
// very stream (the same rank from the same random numbers). Over more
// ranks the two part now and then: x is large, and an error of 1e-14 of
// it moves it across a rounding or acceptance bound about once in
// 1e14/x draws, where the reference's own rounding does the same.
func TestZipfFastInversion(t *testing.T) {
	for _, theta := range []float64{0.5, 0.8, 0.99, 0.998, 1, 1.002, 1.2, 2, 3} {
		for _, n := range []uint64{1, 2, 10, 1000, 1_000_000, 1 << 40} {
			z, err := NewZipf(n, theta)
			if err != nil {
				t.Fatal(err)
			}
			r := NewRand(n)
			worst := 0.0
			for range 20_000 {
				u := z.hN + r.Float64()*z.span
				worst = max(worst, math.Abs(z.inverse(u)/z.hIntegralInv(u)-1))
			}
			if worst > 1e-13 {
				t.Errorf("theta %v n %d: inversion off the reference by up to %g", theta, n, worst)
			}
			if n > 1_000_000 {
				continue
			}
			a, b := NewRand(7), NewRand(7)
			for i := range 100_000 {
				if x, y := z.Draw(&a), z.drawReference(&b); x != y {
					t.Fatalf("theta %v n %d: draw %d is rank %d, the reference's %d", theta, n, i, x, y)
				}
			}
		}
	}
}
