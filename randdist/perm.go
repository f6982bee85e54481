package randdist

import (
	"fmt"
	"math/bits"
)

// Perm is a keyed bijection of [0, n). It is a bijection of [0, 2^b), the
// smallest power of two covering n, built from steps each invertible on b
// bits (xor with a key, multiply by an odd key, xor-shift right), with
// cycle-walking to stay inside [0, n): the domain is under 2n, so a mapping
// takes fewer than two walks on average. It scatters Zipf ranks so hot keys
// are not neighbours, without a table. (A Feistel network needs an even bit
// width, so its domain may reach 4n and twice the walks.)
type Perm struct {
	n     uint64
	bits  uint
	mask  uint64
	shift uint
	xk    [permRounds]uint64 // xor keys
	mk    [permRounds]uint64 // odd multipliers
	inv   [permRounds]uint64 // their inverses mod 2^64
}

const permRounds = 3

// NewPerm returns the permutation of [0, n) chosen by key.
func NewPerm(n uint64, key uint64) (Perm, error) {
	if n < 1 {
		return Perm{}, fmt.Errorf("permutation of %d items: need at least one", n)
	}
	p := Perm{n: n, bits: uint(bits.Len64(n - 1))}
	p.mask = 1<<p.bits - 1
	p.shift = max(1, (p.bits+1)/2)
	for i := range permRounds {
		p.xk[i] = Hash(key, uint64(i), 0x7065726d, 0) & p.mask
		p.mk[i] = Hash(key, uint64(i), 0x6d756c, 0) | 1
		inv := p.mk[i] // Newton: each step doubles the correct low bits
		for range 6 {
			inv *= 2 - p.mk[i]*inv
		}
		p.inv[i] = inv
	}
	return p, nil
}

// Len returns n.
func (p *Perm) Len() uint64 { return p.n }

// Map returns the image of x, which must be below n.
func (p *Perm) Map(x uint64) uint64 {
	for {
		for i := range permRounds {
			x = (x ^ p.xk[i]) * p.mk[i] & p.mask
			x ^= x >> p.shift
		}
		if x < p.n {
			return x
		}
	}
}

// Inverse returns the x with Map(x) == y.
func (p *Perm) Inverse(y uint64) uint64 {
	for {
		for i := permRounds - 1; i >= 0; i-- {
			// Undo x ^= x>>s: x = y ^ y>>s ^ y>>2s ^ ...
			x := y
			for s := p.shift; s < p.bits; s += p.shift {
				x ^= y >> s
			}
			y = (x*p.inv[i])&p.mask ^ p.xk[i]
		}
		if y < p.n {
			return y
		}
	}
}
