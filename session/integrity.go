package session

import (
	"strings"

	"github.com/taobench/taobench/fidelity/expect"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/store"
)

// placementViolation is the invariant that every loaded id sits where
// the graph g places it (runs create ids of their own, never loaded ones);
// none when the store does not count it.
func placementViolation(g *graph.Graph, inv store.Inventory) []store.Violation {
	if inv.Integrity == nil {
		return nil
	}
	off := expect.OffPlacement(g, inv.Integrity)
	if len(off) == 0 {
		return nil
	}
	return []store.Violation{{Invariant: "loaded ids sit where the graph places them", Count: int64(len(off)),
		Example: strings.Join(off, "; ")}}
}
