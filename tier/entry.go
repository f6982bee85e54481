package tier

import (
	"errors"
	"strconv"
	"strings"

	"github.com/taobench/taobench/tao"
)

// entry is a cached answer: what the database returned to a read (its
// outcome and result) and basis, when (Unix ns) the database read that
// produced it returned. A write that began after basis is not in the
// entry; that is what the staleness check (log.go) rests on. Copies keep
// the basis of the database read they came from.
type entry struct {
	outcome tao.Outcome
	found   bool
	version int64
	rows    int
	basis   int64
}

// encode is the entry as Redis keeps it: "outcome,found,version,rows,basis".
func (e entry) encode() string {
	b := make([]byte, 0, 48)
	b = strconv.AppendInt(b, int64(e.outcome), 10)
	b = append(b, ',')
	if e.found {
		b = append(b, '1')
	} else {
		b = append(b, '0')
	}
	b = append(b, ',')
	b = strconv.AppendInt(b, e.version, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(e.rows), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, e.basis, 10)
	return string(b)
}

var errEntry = errors.New("not a taobench cache entry")

func decodeEntry(s string) (entry, error) {
	f := strings.Split(s, ",")
	if len(f) != 5 {
		return entry{}, errEntry
	}
	var n [5]int64
	for i, x := range f {
		v, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			return entry{}, errEntry
		}
		n[i] = v
	}
	if n[0] < 0 || n[0] >= int64(tao.NumOutcomes) || n[1] < 0 || n[1] > 1 || n[3] < 0 {
		return entry{}, errEntry
	}
	return entry{outcome: tao.Outcome(n[0]), found: n[1] == 1, version: n[2], rows: int(n[3]), basis: n[4]}, nil
}

// answer fills the result of a read op from a cached entry: a range read
// from the list's size, as TAO serves a range from its cached list.
func (e entry) answer(op *tao.Op, res *tao.Result) {
	r := &res.Ops[0]
	res.Outcome = e.outcome
	r.Found, r.Version, r.Rows = e.found, e.version, e.rows
	if op.Kind == tao.EdgeRangeRead {
		r.Rows = min(limitOf(op.Limit), max(0, e.rows-max(op.Offset, 0)))
	}
}
