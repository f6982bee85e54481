package tao

// SpansAtDatabase reports whether ops touch more than one shard at the
// database: the shard of every op's id1 (its row, or its forward edge),
// and for a write of an edge type with an inverse, the shard of its id2,
// where the store writes the inverse row in the same transaction (an
// update or delete writes it when it finds its row: the generator aims
// them at edges that exist).
func SpansAtDatabase(ops []Op) bool {
	if len(ops) == 0 {
		return false
	}
	first := ShardOf(ops[0].ID1)
	for i := range ops {
		op := &ops[i]
		if ShardOf(op.ID1) != first {
			return true
		}
		if writesInverse(op) && ShardOf(op.ID2) != first {
			return true
		}
	}
	return false
}

// writesInverse reports whether op writes an inverse row besides its own.
func writesInverse(op *Op) bool {
	switch op.Kind {
	case EdgeAdd, EdgeUpdate, EdgeDelete:
		_, ok := op.Type.Inverse()
		return ok
	}
	return false
}
