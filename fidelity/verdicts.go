package fidelity

import "github.com/taobench/taobench/result"

// selfCheckVerdict is the stale-read self-check's verdict over checked
// reads: any stale one fails it, and with no read checked it is skipped
// (no row passes on nothing).
func selfCheckVerdict(checked, stale int64) string {
	switch {
	case stale != 0:
		return result.Fail
	case checked == 0:
		return result.Skipped
	}
	return result.Pass
}

// LossTolerance is the share of requests the loss row allows lost before
// it fails (its note says it): a run on a loaded machine times out a few
// requests with nothing wrong with the database.
const LossTolerance = 0.01
