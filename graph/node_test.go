package graph

import (
	"math"
	"testing"

	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// nodeReference is node as it was before it skipped the hashes of empty
// lists: every category split and hashed whatever the degree.
func (g *Graph) nodeReference(shard int, index, rank int64) Node {
	id := tao.ID(shard, index)
	n := Node{ID: id, base: g.nodeBase(id)}
	n.Degree = g.degreeAt(shard, rank)
	u := unit(field(n.base, fSplit))
	prev := 0
	for c := range tao.NumEdgeCategories {
		end := int(math.Floor(float64(n.Degree)*g.catCum[c] + u))
		if c == tao.NumEdgeCategories-1 {
			end = n.Degree
		}
		s := end - prev
		prev = end
		n.Slots[c] = s
		n.Written[c] = s - int(math.Floor(float64(s)*g.empty+unit(field(n.base, fEmpty+uint64(c)))))
	}
	return n
}

// TestNodeSkipsNothing: every node of a and o's graphs is the same with
// and without the hashes of empty lists, and many have degree 0.
func TestNodeSkipsNothing(t *testing.T) {
	for _, name := range []string{"a", "o"} {
		w, err := workload.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		g, err := New(w, 1, 50_000)
		if err != nil {
			t.Fatal(err)
		}
		zero := 0
		for s := range g.Shards() {
			for i := range g.ShardNodes(s) {
				r := int64(g.perms[s].Map(uint64(i)))
				got, want := g.node(s, i, r), g.nodeReference(s, i, r)
				if got != want {
					t.Fatalf("%s: node (%d, %d): %+v, want %+v", name, s, i, got, want)
				}
				if got.Degree == 0 {
					zero++
				}
			}
		}
		t.Logf("%s: %d of %d nodes of degree 0", name, zero, g.Nodes())
		if zero == 0 {
			t.Errorf("%s: no node of degree 0: the test checks nothing of the skip", name)
		}
	}
}
