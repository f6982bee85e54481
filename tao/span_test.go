package tao

import "testing"

func TestSpansAtDatabase(t *testing.T) {
	t.Parallel()
	bidir := TypeBidirectional
	if _, ok := bidir.Inverse(); !ok {
		t.Fatalf("type %d has no inverse", bidir)
	}
	other := EdgeType(6) // category other: no inverse
	a, b := ID(0, 1), ID(3, 1)
	for _, c := range []struct {
		ops  []Op
		want bool
	}{
		{[]Op{{Kind: ObjUpdate, ID1: a}, {Kind: EdgeAdd, ID1: a, Type: other, ID2: b}}, false}, // no inverse
		{[]Op{{Kind: ObjUpdate, ID1: a}, {Kind: EdgeAdd, ID1: a, Type: bidir, ID2: b}}, true},  // inverse on shard 3
		{[]Op{{Kind: EdgeDelete, ID1: a, Type: bidir, ID2: ID(0, 7)}}, false},                  // inverse on shard 0 too
		{[]Op{{Kind: EdgePointRead, ID1: a, Type: bidir, ID2: b}}, false},                      // a read writes no inverse
		{[]Op{{Kind: ObjRead, ID1: a}, {Kind: ObjRead, ID1: b}}, true},                         // two id1 shards
	} {
		if got := SpansAtDatabase(c.ops); got != c.want {
			t.Errorf("%+v: spans %v, want %v", c.ops, got, c.want)
		}
	}
}
