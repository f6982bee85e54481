package fidelity

import "testing"

// TestNextCounted: the requests a buffer counts, found a counted request
// ahead, are those of the rule "stride x/perFull at most 1, or dividing
// x" checked request by request, for a share of clients small and large.
func TestNextCounted(t *testing.T) {
	for _, clients := range []int{1, 3, 16, 1024, 5000} {
		tab := &KeyTable{perFull: max(minFull, fullCount/uint64(clients))}
		counted := func(x uint64) bool {
			stride := x / tab.perFull
			return stride <= 1 || x%stride == 0
		}
		next, n := uint64(0), 0
		for x := uint64(1); x <= 40*tab.perFull; x++ {
			got := x >= next
			if got {
				next = tab.nextCounted(x)
				n++
			}
			if got != counted(x) {
				t.Fatalf("perFull %d: request %d counted %v, the rule says %v", tab.perFull, x, got, counted(x))
			}
		}
		if n < int(2*tab.perFull) {
			t.Errorf("perFull %d: %d requests counted of %d", tab.perFull, n, 40*tab.perFull)
		}
	}
}
