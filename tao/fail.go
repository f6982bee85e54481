package tao

import "fmt"

// FailPoint is where a write's path is made to fail on purpose, as the
// workload's errors (single writes) and txn_errors (write transactions)
// draw it. TAO writes a transaction with two-phase commit: it reserves the
// write set (takes its locks on every shard), commits on the primary shard,
// then on the secondaries; a fail point cuts that path at one place.
// docs/experiments.md says what each does on a SQL database.
type FailPoint uint8

const (
	Success                  FailPoint = iota // no injected failure
	FailAfterReserve                          // after the writes (locks taken): roll back
	FailAfterPrimaryCommit                    // commit the primary shard's part only
	FailAfterPrimaryRollback                  // at the commit point: roll back instead
	NumFailPoints
)

var failPointNames = [NumFailPoints]string{
	"success", "fail_after_reserve", "fail_after_primary_commit", "fail_after_primary_rollback",
}

func (f FailPoint) String() string {
	if f < NumFailPoints {
		return failPointNames[f]
	}
	return fmt.Sprintf("fail_point(%d)", uint8(f))
}

// ParseFailPoint returns the fail point with the given name.
func ParseFailPoint(s string) (FailPoint, bool) {
	for i, n := range failPointNames {
		if n == s {
			return FailPoint(i), true
		}
	}
	return 0, false
}

// Outcome returns the outcome a request failed at f ends in (OK for Success).
func (f FailPoint) Outcome() Outcome {
	switch f {
	case FailAfterReserve:
		return FailedAfterReserve
	case FailAfterPrimaryCommit:
		return FailedAfterPrimaryCommit
	case FailAfterPrimaryRollback:
		return FailedAfterPrimaryRollback
	}
	return OK
}
