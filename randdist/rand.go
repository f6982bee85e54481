// Package randdist holds the samplers the generator draws from: a fast seeded
// RNG owned by one client, a stateless hash for facts of the computed graph,
// Vose's alias method for discrete weights, a Zipf sampler for any exponent
// and an invertible permutation that scatters Zipf ranks over a shard.
//
// Everything here is a plain value with no locks and no global state: each
// client owns its own Rand, and the tables (Alias, Zipf, Perm) are read-only
// after construction, so many clients may share them.
package randdist

import "math/bits"

// Rand is a wyrand generator: one 64-bit state, an add and a 128-bit
// multiply per draw. It passes BigCrush and is several times cheaper than
// math/rand/v2's PCG behind an interface. The zero value is usable; use
// NewRand to derive distinct streams from a seed.
type Rand struct{ s uint64 }

// NewRand returns a generator whose stream is a function of seed only.
func NewRand(seed uint64) Rand { return Rand{s: Mix(seed ^ 0x6a09e667f3bcc909)} }

// Uint64 returns a uniform 64-bit value.
func (r *Rand) Uint64() uint64 {
	r.s += 0xa0761d6478bd642f
	hi, lo := bits.Mul64(r.s, r.s^0xe7037ed1a0b428db)
	return hi ^ lo
}

// Uint64N returns a uniform value in [0, n); n must be positive (0 yields 0).
// Lemire's multiply-shift with rejection keeps it exactly uniform.
func (r *Rand) Uint64N(n uint64) uint64 {
	hi, lo := bits.Mul64(r.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(r.Uint64(), n)
		}
	}
	return hi
}

// Float64 returns a uniform value in [0, 1).
func (r *Rand) Float64() float64 { return float64(r.Uint64()>>11) * 0x1p-53 }

// Mix is splitmix64's finalizer: a bijection of uint64 with full avalanche.
func Mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

const golden = 0x9e3779b97f4a7c15

// Hash mixes seed and three values into one uniform 64-bit value. It is
// stateless, so a fact of the computed graph (a node's outdegree, a slot's
// target) is the same wherever and whenever it is computed. Each input goes
// through a bijective round, so changing any one changes the result.
func Hash(seed, a, b, c uint64) uint64 {
	h := Mix(seed + golden)
	h = Mix((h ^ a) + 0x3c6ef372fe94f82b)
	h = Mix((h ^ b) + 0xdaa66d2c7ddf743f)
	return Mix((h ^ c) + 0x78dde6e5fd29f053)
}

// Below maps a uniform 64-bit value x to [0, n) by multiply-shift. It is for
// hashed facts, where there is no stream to reject from; its bias is below
// n/2^64.
func Below(x, n uint64) uint64 {
	hi, _ := bits.Mul64(x, n)
	return hi
}
