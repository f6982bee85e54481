package tier

import "github.com/taobench/taobench/tao"

// Key names what a read returns and a write changes. The tiers cache
// objects (Kind 'o'), edges ('e'), the size of an association list ('n',
// which serves range and count reads), time-range reads of a list ('t')
// and a list's completeness ('a', prefill.go: its members are all
// cached, so an edge point read of any other edge finds none). The commit
// log (log.go) keys writes by object, edge, list ('l': any change of the
// list's members, their times or payloads) and count ('c': the list's
// size). Every kind but 'o' belongs to the list (ID1, Type): a Cache
// keeps them together, so that dropping the list drops them all.
type Key struct {
	Kind      byte
	ID1       int64
	Type      tao.EdgeType
	ID2       int64
	Low, High int64
	Limit     int
}

// defaultLimit is what store/sqlstore returns for a list read with no
// limit (sqlstore.DefaultLimit, as TAO caps lists); a test keeps them equal.
const defaultLimit = 6000

// cacheKey is the cache entry that answers a read op.
func cacheKey(op *tao.Op) Key {
	switch op.Kind {
	case tao.ObjRead:
		return Key{Kind: 'o', ID1: op.ID1}
	case tao.EdgePointRead:
		return Key{Kind: 'e', ID1: op.ID1, Type: op.Type, ID2: op.ID2}
	case tao.EdgeRangeRead, tao.EdgeCountRead:
		return Key{Kind: 'n', ID1: op.ID1, Type: op.Type}
	default: // tao.EdgeTimeRead
		return Key{Kind: 't', ID1: op.ID1, Type: op.Type, Low: op.Low, High: op.High, Limit: limitOf(op.Limit)}
	}
}

// logKey is the commit-log key whose writes make a read op's answer stale.
func logKey(op *tao.Op) Key {
	switch op.Kind {
	case tao.ObjRead:
		return Key{Kind: 'o', ID1: op.ID1}
	case tao.EdgePointRead:
		return Key{Kind: 'e', ID1: op.ID1, Type: op.Type, ID2: op.ID2}
	case tao.EdgeCountRead:
		return Key{Kind: 'c', ID1: op.ID1, Type: op.Type}
	default: // range and time reads return the list's members
		return Key{Kind: 'l', ID1: op.ID1, Type: op.Type}
	}
}

func limitOf(n int) int {
	if n <= 0 {
		return defaultLimit
	}
	return n
}

// written lists the commit-log keys a committed write op changed, as far
// as its result tells (r is the op's result from the store): a key the
// write may have left as it was (a delete that found no row, the inverse
// of a delete) is not listed, so no read is classed stale for it. It also
// lists every cache key to invalidate, which may be more.
func written(op *tao.Op, r *tao.OpResult, changed, invalidate []Key) ([]Key, []Key) {
	obj := Key{Kind: 'o', ID1: op.ID1}
	edge := Key{Kind: 'e', ID1: op.ID1, Type: op.Type, ID2: op.ID2}
	list := Key{Kind: 'l', ID1: op.ID1, Type: op.Type}
	count := Key{Kind: 'c', ID1: op.ID1, Type: op.Type}
	switch op.Kind {
	case tao.ObjAdd: // an insert or an overwrite: a new version either way
		return append(changed, obj), append(invalidate, obj)
	case tao.ObjUpdate, tao.ObjDelete:
		if r.Found {
			changed = append(changed, obj)
		}
		return changed, append(invalidate, obj)
	}
	inv, hasInv := op.Type.Inverse()
	iedge := Key{Kind: 'e', ID1: op.ID2, Type: inv, ID2: op.ID1}
	ilist := Key{Kind: 'l', ID1: op.ID2, Type: inv}
	invalidate = append(invalidate, edge, list)
	if hasInv {
		invalidate = append(invalidate, iedge, ilist)
	}
	switch op.Kind {
	case tao.EdgeAdd:
		changed = append(changed, edge, list)
		if !r.Found { // inserted, not overwritten: the list grew
			changed = append(changed, count)
		}
		if hasInv { // the inverse is upserted: a new version either way
			changed = append(changed, iedge, ilist)
		}
	case tao.EdgeUpdate:
		if r.Found {
			changed = append(changed, edge, list)
			if hasInv {
				changed = append(changed, iedge, ilist)
			}
		}
	case tao.EdgeDelete:
		if r.Found {
			changed = append(changed, edge, list, count)
		}
	}
	return changed, invalidate
}
