package tier

import "github.com/taobench/taobench/tao"

// Entry is a cached answer: what the database returned to a read (its
// outcome and result) and Basis, when (Unix ns) the database read that
// produced it returned. A write that began after Basis is not in the
// entry; that is what the staleness check (log.go) rests on. Copies keep
// the basis of the database read they came from.
type Entry struct {
	Outcome tao.Outcome
	Found   bool
	Version int64
	Rows    int
	Basis   int64
}

// answer fills the result of a read op from a cached entry: a range read
// from the list's size, as TAO serves a range from its cached list.
func (e Entry) answer(op *tao.Op, res *tao.Result) {
	r := &res.Ops[0]
	res.Outcome = e.Outcome
	r.Found, r.Version, r.Rows = e.Found, e.Version, e.Rows
	if op.Kind == tao.EdgeRangeRead {
		r.Rows = min(limitOf(op.Limit), max(0, e.Rows-max(op.Offset, 0)))
	}
}
