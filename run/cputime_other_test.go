//go:build !unix

package run

import (
	"testing"
	"time"
)

// cpuTime is 0 where getrusage is missing: the benchmarks then report 0
// CPU time per request.
func cpuTime(testing.TB) time.Duration { return 0 }
