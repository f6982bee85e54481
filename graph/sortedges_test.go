package graph

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/taobench/taobench/tao"
)

// sortEdges orders edges as the stable sort by (Type, ID2) it replaces,
// duplicates of a key included, whatever their number and order.
func TestSortEdgesIsStable(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 31, 32, 33, 100, 1000} {
		for range 20 {
			edges := make([]tao.Edge, n)
			for i := range edges {
				// Few types and targets: many equal keys; Time tells them apart.
				edges[i] = tao.Edge{ID1: 1, Type: tao.EdgeType(r.IntN(3)), ID2: int64(r.IntN(max(1, n/2))), Time: int64(i)}
			}
			if n == 100 {
				slices.SortFunc(edges, func(a, b tao.Edge) int { return int(a.Type-b.Type)*1000000 + int(a.ID2-b.ID2) })
			}
			want := slices.Clone(edges)
			slices.SortStableFunc(want, func(a, b tao.Edge) int {
				if a.Type != b.Type {
					return int(a.Type - b.Type)
				}
				return int(a.ID2 - b.ID2)
			})
			sortEdges(edges)
			if !slices.EqualFunc(edges, want, func(a, b tao.Edge) bool { return a.Type == b.Type && a.ID2 == b.ID2 && a.Time == b.Time }) {
				t.Fatalf("%d edges: got %v, want %v", n, edges, want)
			}
		}
	}
}
