package tier

import (
	"strconv"

	"github.com/taobench/taobench/tao"
)

// key names what a read returns and a write changes. The tiers cache
// objects ('o'), edges ('e'), the size of an association list ('n', which
// serves range and count reads) and time-range reads of a list ('t'). The
// commit log (log.go) keys writes by object, edge, list ('l': any change of
// the list's members, their times or payloads) and count ('c': the list's
// size).
type key struct {
	kind      byte
	id1       int64
	typ       tao.EdgeType
	id2       int64
	low, high int64
	limit     int
}

// defaultLimit is what store/sqlstore returns for a list read with no
// limit (sqlstore.DefaultLimit, as TAO caps lists); a test keeps them equal.
const defaultLimit = 6000

// cacheKey is the cache entry that answers a read op.
func cacheKey(op *tao.Op) key {
	switch op.Kind {
	case tao.ObjRead:
		return key{kind: 'o', id1: op.ID1}
	case tao.EdgePointRead:
		return key{kind: 'e', id1: op.ID1, typ: op.Type, id2: op.ID2}
	case tao.EdgeRangeRead, tao.EdgeCountRead:
		return key{kind: 'n', id1: op.ID1, typ: op.Type}
	default: // tao.EdgeTimeRead
		return key{kind: 't', id1: op.ID1, typ: op.Type, low: op.Low, high: op.High, limit: limitOf(op.Limit)}
	}
}

// logKey is the commit-log key whose writes make a read op's answer stale.
func logKey(op *tao.Op) key {
	switch op.Kind {
	case tao.ObjRead:
		return key{kind: 'o', id1: op.ID1}
	case tao.EdgePointRead:
		return key{kind: 'e', id1: op.ID1, typ: op.Type, id2: op.ID2}
	case tao.EdgeCountRead:
		return key{kind: 'c', id1: op.ID1, typ: op.Type}
	default: // range and time reads return the list's members
		return key{kind: 'l', id1: op.ID1, typ: op.Type}
	}
}

func limitOf(n int) int {
	if n <= 0 {
		return defaultLimit
	}
	return n
}

// redisKey returns the Redis key of k under the namespace ns and, for
// entries of a list, the field of the list's hash: its size, time-range
// reads, edges and completeness share one hash per list, so one DEL
// invalidates them all and one HMGET answers an edge point read from the
// edge or, when absent, from the complete list (prefill.go).
func redisKey(ns string, k key) (name, field string) {
	b := make([]byte, 0, len(ns)+48)
	b = append(b, ns...)
	if k.kind == 'o' {
		b = append(b, "o:"...)
		b = strconv.AppendInt(b, k.id1, 10)
		return string(b), ""
	}
	// 'e', 'n', 't', 'a', 'l', 'c': the list's hash
	b = append(b, "l:"...)
	b = strconv.AppendInt(b, k.id1, 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(k.typ), 10)
	f := make([]byte, 0, 48)
	switch k.kind {
	case 'n':
		f = append(f, 'n')
	case 'a': // the list is complete (prefill.go)
		f = append(f, 'a')
	case 'e':
		f = append(f, "e:"...)
		f = strconv.AppendInt(f, k.id2, 10)
	case 't':
		f = append(f, "t:"...)
		f = strconv.AppendInt(f, k.low, 10)
		f = append(f, ':')
		f = strconv.AppendInt(f, k.high, 10)
		f = append(f, ':')
		f = strconv.AppendInt(f, int64(k.limit), 10)
	}
	return string(b), string(f)
}

// written lists the commit-log keys a committed write op changed, as far
// as its result tells (r is the op's result from the store): a key the
// write may have left as it was (a delete that found no row, the inverse
// of a delete) is not listed, so no read is classed stale for it. It also
// lists every cache key to invalidate, which may be more.
func written(op *tao.Op, r *tao.OpResult, changed, invalidate []key) ([]key, []key) {
	obj := key{kind: 'o', id1: op.ID1}
	edge := key{kind: 'e', id1: op.ID1, typ: op.Type, id2: op.ID2}
	list := key{kind: 'l', id1: op.ID1, typ: op.Type}
	count := key{kind: 'c', id1: op.ID1, typ: op.Type}
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
	iedge := key{kind: 'e', id1: op.ID2, typ: inv, id2: op.ID1}
	ilist := key{kind: 'l', id1: op.ID2, typ: inv}
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
