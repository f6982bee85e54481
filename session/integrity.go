package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/taobench/taobench/fidelity/expect"
	"github.com/taobench/taobench/graph"
	"github.com/taobench/taobench/store"
)

// placementViolation is the invariant that every loaded id sits where
// the graph g places it (runs create ids of their own, never loaded ones);
// none when the store does not count it. Its count is the rows off their
// placement (objects and forward edges) when the database can count them
// (store.PlacementCounter), else the shards where they sit.
func placementViolation(ctx context.Context, db store.Database, g *graph.Graph, inv store.Inventory) []store.Violation {
	if inv.Integrity == nil {
		return nil
	}
	off := expect.OffPlacement(g, inv.Integrity)
	if len(off) == 0 {
		return nil
	}
	v := store.Violation{Invariant: "loaded ids sit where the graph places them", Count: int64(len(off)), Example: strings.Join(off, "; ")}
	if pc, ok := db.(store.PlacementCounter); ok {
		objects, edges, err := pc.CountOffPlacement(ctx, expect.OffBounds(g, inv.Integrity))
		if err != nil {
			v.Example += fmt.Sprintf(" (counting the rows: %v; the count is of shards)", err)
		} else {
			v.Count = objects + edges
			v.Example = fmt.Sprintf("%d objects and %d forward edges: %s", objects, edges, v.Example)
		}
	}
	return []store.Violation{v}
}
