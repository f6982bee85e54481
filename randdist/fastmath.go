package randdist

import "math"

// fastExp and fastLog are table-driven exp and log for the Zipf sampler's
// draw, about three times cheaper than package math's (which handle every
// special case and are not inlined): a 128-entry table and a short
// polynomial each, with an error of a few units in the last place over
// the ranges the sampler uses (finite arguments, no overflow, positive
// normal inputs to fastLog); TestFastMath checks them against package math.

const (
	tableBits = 7
	tableN    = 1 << tableBits
	// ln 2 split so that k*ln2Hi is exact for the k a draw meets
	// (the split of package math's exp).
	ln2Hi = 6.93147180369123816490e-01
	ln2Lo = 1.90821492927058770002e-10
)

// exp2Table[j] holds the bits of 2^(j/128); logTable[i] holds 1/c and
// -log(1/c) for c the centre of the i-th 1/128 of [1, 2).
var (
	exp2Table = func() (t [tableN]uint64) {
		for j := range t {
			t[j] = math.Float64bits(math.Exp2(float64(j) / tableN))
		}
		return t
	}()
	logTable = func() (t [tableN][2]float64) {
		for i := range t {
			inv := 1 / (1 + (float64(i)+0.5)/tableN)
			t[i] = [2]float64{inv, -math.Log(inv)}
		}
		return t
	}()
)

// fastExp returns e^z for |z| < 700.
func fastExp(z float64) float64 {
	// z = (k/128) ln 2 + r with |r| <= ln 2/256; e^z = 2^(k>>7) 2^((k&127)/128) e^r.
	kf := math.Floor(z*(tableN/math.Ln2) + 0.5)
	k := int64(kf)
	r := (z - kf*(ln2Hi/tableN)) - kf*(ln2Lo/tableN)
	p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120+r*(1.0/720))))))
	return math.Float64frombits(exp2Table[k&(tableN-1)]+uint64(k>>tableBits)<<52) * p
}

// fastLog returns log y for a positive normal y.
func fastLog(y float64) float64 {
	b := math.Float64bits(y)
	e := float64(int64(b>>52) - 1023)
	t := &logTable[(b>>(52-tableBits))&(tableN-1)]
	m := math.Float64frombits(b&(1<<52-1) | 1023<<52) // y = m 2^e, m in [1, 2)
	r := math.FMA(m, t[0], -1)                        // m/c - 1, |r| <= 1/256
	p := r * (1 - r*(1.0/2-r*(1.0/3-r*(1.0/4-r*(1.0/5-r*(1.0/6-r*(1.0/7)))))))
	return (e*ln2Hi + t[1]) + (e*ln2Lo + p)
}
