package tier

import "github.com/taobench/taobench/tao"

// Write-through (docs/tiers.md, "Writes: TAO's changeset"): TAO does not
// send a read to the database after a write. "TAO synchronously updates
// the cache with locally written values by having the master leader
// return a changeset when the write is successful", and "the leader sends
// a refill message" for an association rather than truncating the list
// (TAO paper §4.4, §6.1). So after a write commits, the tao tier updates
// what the write's result says it changed, atomically on the cache
// (Cache.Commit: one Lua script on Redis), each entry only if the tier
// holds it (a key it does not hold is filled by the next read, as
// before):
//
//   - an object or edge updated (found): its version plus one, as the
//     database's "version = version + 1" (every committed update adds one,
//     in whatever order their scripts run);
//   - an object or edge inserted: found at version 1; deleted (found): not
//     found;
//   - a list's size plus or minus one for an edge inserted or deleted;
//     its time-range answers dropped on any change of its edges;
//   - every entry updated gets the write's return as its basis (the later
//     of the two), so the staleness check classes reads of it against the
//     writes after it, as a fill's.
//
// The inverse edge of a bidirectional type is upserted (an add, an update
// that found its edge) or deleted with it, and the store does not say
// whether it was there: the tier's entry says, when it holds the edge (at
// its version) or its list complete without it (absent); then the inverse
// is updated as above, else its list is invalidated as before. An entry
// whose state contradicts the write (an update that found a row the entry
// says is absent) is invalidated too. Like a fill, an update may race a fill that read the
// database before the write committed and stores after the script ran:
// the entry then lacks the write, and the staleness check misses the
// reads it serves (a lower bound, as for fills).

// Change is one write-through update of an entry (above), by Act: "bump"
// (its version plus one), "new" (found at version 1; an edge only into a
// list the cache holds), "gone" (not found), "count" (a list's size plus
// Delta), "touch" (its basis alone), "dropt" (the list's time-range
// answers dropped), "iupsert" and "idelete" (an inverse edge, as the
// cache's entry of it or its complete list says, else its list dropped).
type Change struct {
	Key   Key
	Act   string
	Delta int
}

// through lists the write-through changes of a committed write op from
// its result r, and the keys to invalidate instead.
func through(op *tao.Op, r *tao.OpResult, ch []Change, invalid []Key) ([]Change, []Key) {
	obj := Key{Kind: 'o', ID1: op.ID1}
	edge := Key{Kind: 'e', ID1: op.ID1, Type: op.Type, ID2: op.ID2}
	size := Key{Kind: 'n', ID1: op.ID1, Type: op.Type}
	switch op.Kind {
	case tao.ObjAdd:
		if r.Found { // overwritten: version + 1
			return append(ch, Change{Key: obj, Act: "bump"}), invalid
		}
		return append(ch, Change{Key: obj, Act: "new"}), invalid
	case tao.ObjUpdate:
		if r.Found {
			ch = append(ch, Change{Key: obj, Act: "bump"})
		}
		return ch, invalid
	case tao.ObjDelete:
		if r.Found {
			ch = append(ch, Change{Key: obj, Act: "gone"})
		}
		return ch, invalid
	}
	if inv, ok := op.Type.Inverse(); ok {
		// The store upserts the inverse of an add or an update that found
		// its edge, and deletes it with the edge: whether it was there the
		// store does not say, the tier's complete list may (iupsert).
		ie := Key{Kind: 'e', ID1: op.ID2, Type: inv, ID2: op.ID1}
		switch {
		case op.Kind == tao.EdgeAdd || op.Kind == tao.EdgeUpdate && r.Found:
			ch = append(ch, Change{Key: ie, Act: "iupsert"})
		case op.Kind == tao.EdgeDelete && r.Found:
			ch = append(ch, Change{Key: ie, Act: "idelete"})
		case op.Kind == tao.EdgeDelete: // the inverse may have gone alone
			invalid = append(invalid, Key{Kind: 'l', ID1: op.ID2, Type: inv})
		}
	}
	switch {
	case op.Kind == tao.EdgeAdd && !r.Found: // inserted: the list grew
		ch = append(ch, Change{Key: edge, Act: "new"}, Change{Key: size, Act: "count", Delta: 1}, Change{Key: size, Act: "dropt"})
	case op.Kind == tao.EdgeAdd, op.Kind == tao.EdgeUpdate && r.Found: // overwritten
		ch = append(ch, Change{Key: edge, Act: "bump"}, Change{Key: size, Act: "touch"}, Change{Key: size, Act: "dropt"})
	case op.Kind == tao.EdgeDelete && r.Found:
		ch = append(ch, Change{Key: edge, Act: "gone"}, Change{Key: size, Act: "count", Delta: -1}, Change{Key: size, Act: "dropt"})
	}
	return ch, invalid
}
