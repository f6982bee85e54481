package result

import "github.com/taobench/taobench/tao"

// Reported is how the database reported a request's write-write conflict:
// Signalled when the server returned an error code for it (PostgreSQL
// 40001, 40P01, 55P03 or 23505; MySQL and MariaDB 1213, 1205 or 1062;
// SQLite 5 ...), Unique when that ended the request as "unique
// association exists". A conflict not signalled the engine resolved
// without error: an upsert that found the row a racing copy had inserted,
// or MySQL's upsert changing no row on a unique collision.
type Reported struct {
	Signalled, Unique bool
}

// Report classifies a finished request by its attempts that ended in a
// conflict, timeout or error (each with the database's code) and its
// final result. Only the database's code counts: a conflict outcome with
// no code (none was given) is not signalled.
func Report(attempts []ErrorCode, res *tao.Result) Reported {
	var r Reported
	for _, a := range attempts {
		if a.Outcome.IsConflict() && a.Code != "" {
			r.Signalled = true
		}
	}
	if res.Outcome == tao.UniqueViolation && res.Code != "" {
		r.Signalled, r.Unique = true, true
	}
	return r
}
