package randdist_test

import (
	"math"
	"testing"

	"github.com/taobench/taobench/chisquare"
	"github.com/taobench/taobench/randdist"
)

// checkFit fails t unless counts fit weights by chi-square. The seeds are
// fixed, so a pass is reproducible, not luck.
func checkFit(t *testing.T, name string, counts []int64, weights []float64) {
	t.Helper()
	chi2, df, p, _ := chisquare.Test(counts, weights)
	if df < 1 || !(p >= 1e-4) {
		t.Errorf("%s: chi2 %.1f df %d p %.3g: counts %v do not fit weights %v", name, chi2, df, p, counts, weights)
	}
}

func TestRandDeterministicAndDistinct(t *testing.T) {
	a, b, c := randdist.NewRand(1), randdist.NewRand(1), randdist.NewRand(2)
	same := 0
	for i := 0; i < 100; i++ {
		x, y, z := a.Uint64(), b.Uint64(), c.Uint64()
		if x != y {
			t.Fatalf("draw %d: same seed gave %x and %x", i, x, y)
		}
		if x == z {
			same++
		}
	}
	if same > 0 {
		t.Errorf("seeds 1 and 2 agreed on %d of 100 draws", same)
	}
}

func TestUint64NUniform(t *testing.T) {
	r := randdist.NewRand(7)
	const n = 13
	counts := make([]int64, n)
	weights := make([]float64, n)
	for i := range weights {
		weights[i] = 1
	}
	for i := 0; i < 130000; i++ {
		v := r.Uint64N(n)
		if v >= n {
			t.Fatalf("Uint64N(%d) = %d", n, v)
		}
		counts[v]++
	}
	checkFit(t, "Uint64N", counts, weights)
	for i := 0; i < 1000; i++ {
		if f := r.Float64(); f < 0 || f >= 1 {
			t.Fatalf("Float64 = %v, want [0,1)", f)
		}
	}
}

func TestHashSensitiveToEveryInput(t *testing.T) {
	base := randdist.Hash(1, 2, 3, 4)
	if base != randdist.Hash(1, 2, 3, 4) {
		t.Fatal("Hash is not deterministic")
	}
	for i, h := range []uint64{randdist.Hash(0, 2, 3, 4), randdist.Hash(1, 3, 3, 4), randdist.Hash(1, 2, 4, 4), randdist.Hash(1, 2, 3, 5), randdist.Hash(1, 3, 2, 4)} {
		if h == base {
			t.Errorf("variant %d hashes like the base", i)
		}
	}
	// Each output bit is set about half the time over consecutive inputs.
	var ones [64]int
	const n = 4096
	for i := uint64(0); i < n; i++ {
		h := randdist.Hash(9, i, 0, 0)
		for b := 0; b < 64; b++ {
			ones[b] += int(h >> b & 1)
		}
	}
	for b, c := range ones {
		if c < n/2-200 || c > n/2+200 { // ±6 standard deviations
			t.Errorf("bit %d set %d times of %d", b, c, n)
		}
	}
}

func TestAliasMatchesWeights(t *testing.T) {
	weights := []float64{0, 104440, 283626, 340601, 43853, 5878, 107888, 674, 862, 0, 3, 235}
	a, err := randdist.NewAlias(weights)
	if err != nil {
		t.Fatal(err)
	}
	r := randdist.NewRand(3)
	counts := make([]int64, len(weights))
	for i := 0; i < 200000; i++ {
		counts[a.Draw(&r)]++
	}
	if counts[0] != 0 || counts[9] != 0 {
		t.Errorf("zero-weight indices drawn: %v", counts)
	}
	checkFit(t, "alias", counts, weights)
	// The same counts must not fit other weights: the check can fail.
	swapped := append([]float64(nil), weights...)
	swapped[2], swapped[3] = swapped[3], swapped[2]
	if _, _, p, _ := chisquare.Test(counts, swapped); p >= 1e-4 {
		t.Errorf("counts fit swapped weights too (p %.3g)", p)
	}
}

func TestAliasSingleAndErrors(t *testing.T) {
	a, err := randdist.NewAlias([]float64{0, 0, 5})
	if err != nil {
		t.Fatal(err)
	}
	r := randdist.NewRand(1)
	for i := 0; i < 100; i++ {
		if v := a.Draw(&r); v != 2 {
			t.Fatalf("only index 2 has weight, drew %d", v)
		}
	}
	if !a.Single() {
		t.Error("Single() = false for one positive weight")
	}
	for _, w := range [][]float64{nil, {0, 0}, {1, -1}, {math.NaN()}, {math.Inf(1), 1}} {
		if _, err := randdist.NewAlias(w); err == nil {
			t.Errorf("NewAlias(%v) accepted bad weights", w)
		}
	}
}

// harmonic returns the generalised harmonic number H(n, theta).
func harmonic(n int, theta float64) float64 {
	s := 0.0
	for k := n; k >= 1; k-- {
		s += math.Pow(float64(k), -theta)
	}
	return s
}

func TestZipfMatchesTheory(t *testing.T) {
	for _, tc := range []struct {
		n     int
		theta float64
	}{{1000, 0.99}, {1000, 1}, {1000, 0.5}, {50, 1.5}, {100000, 0.99}, {10, 3}, {100000, 0.8}, {100000, 1.2}} {
		z, err := randdist.NewZipf(uint64(tc.n), tc.theta)
		if err != nil {
			t.Fatal(err)
		}
		r := randdist.NewRand(uint64(tc.n))
		const draws = 100000
		// Ranks 1..9 on their own, the rest pooled.
		counts := make([]int64, 11)
		for i := 0; i < draws; i++ {
			k := z.Draw(&r)
			if k < 1 || k > uint64(tc.n) {
				t.Fatalf("n %d: rank %d out of range", tc.n, k)
			}
			counts[min(k, 10)]++
		}
		h := harmonic(tc.n, tc.theta)
		want := 1 / h
		got := float64(counts[1]) / draws
		sd := math.Sqrt(want * (1 - want) / draws)
		if math.Abs(got-want) > 5*sd {
			t.Errorf("n %d theta %v: rank-1 share %.4f, theory %.4f", tc.n, tc.theta, got, want)
		}
		weights := make([]float64, 11)
		rest := 1.0
		for k := 1; k <= min(9, tc.n); k++ {
			weights[k] = math.Pow(float64(k), -tc.theta) / h
			rest -= weights[k]
		}
		weights[10] = max(rest, 0)
		checkFit(t, "zipf", counts, weights)
	}
	if _, err := randdist.NewZipf(10, 0); err == nil {
		t.Error("NewZipf accepted theta 0")
	}
	if _, err := randdist.NewZipf(0, 1); err == nil {
		t.Error("NewZipf accepted n 0")
	}
}

func TestZipfOneItem(t *testing.T) {
	z, err := randdist.NewZipf(1, 0.99)
	if err != nil {
		t.Fatal(err)
	}
	r := randdist.NewRand(1)
	for i := 0; i < 100; i++ {
		if k := z.Draw(&r); k != 1 {
			t.Fatalf("rank %d of 1", k)
		}
	}
}

func TestPermIsBijection(t *testing.T) {
	for _, n := range []uint64{1, 2, 3, 4, 5, 7, 16, 17, 100, 255, 256, 1000, 4097} {
		p, err := randdist.NewPerm(n, n*31)
		if err != nil {
			t.Fatal(err)
		}
		seen := make([]bool, n)
		fixed := 0
		for x := uint64(0); x < n; x++ {
			y := p.Map(x)
			if y >= n || seen[y] {
				t.Fatalf("n %d: Map(%d) = %d is out of range or repeated", n, x, y)
			}
			seen[y] = true
			if p.Inverse(y) != x {
				t.Fatalf("n %d: Inverse(Map(%d)) = %d", n, x, p.Inverse(y))
			}
			if x == y {
				fixed++
			}
		}
		if n >= 100 && fixed > int(n/10) {
			t.Errorf("n %d: %d fixed points: not scattering", n, fixed)
		}
	}
	a, _ := randdist.NewPerm(1000, 1)
	b, _ := randdist.NewPerm(1000, 2)
	diff := 0
	for x := uint64(0); x < 1000; x++ {
		if a.Map(x) != b.Map(x) {
			diff++
		}
	}
	if diff < 900 {
		t.Errorf("keys 1 and 2 differ on only %d of 1000 points", diff)
	}
}

func BenchmarkAlias(b *testing.B) {
	a, _ := randdist.NewAlias([]float64{94036, 36224, 3600, 612, 612, 612, 612, 612, 614, 612})
	r := randdist.NewRand(1)
	s := 0
	for b.Loop() {
		s += a.Draw(&r)
	}
	_ = s
}

func BenchmarkZipf(b *testing.B) {
	z, _ := randdist.NewZipf(1_000_000, 0.99)
	r := randdist.NewRand(1)
	var s uint64
	for b.Loop() {
		s += z.Draw(&r)
	}
	_ = s
}

func BenchmarkPerm(b *testing.B) {
	p, _ := randdist.NewPerm(1_000_000, 1)
	var s uint64
	for i := uint64(0); b.Loop(); i++ {
		s += p.Map(i % 1_000_000)
	}
	_ = s
}
