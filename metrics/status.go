package metrics

import (
	"fmt"
	"time"
)

// Status is what one live status line of a running experiment shows. It
// covers the measured window only: requests of the warmup are not counted.
type Status struct {
	Elapsed  time.Duration // since the experiment started, warmup included
	Measured time.Duration // of the measured window so far
	// Requests is the measured requests completed so far; Failed those of
	// them whose final outcome counts as failed, Lost those lost to errors
	// and timeouts (a subset of Failed).
	Requests, Failed, Lost int64
	Rate                   float64 // requests per second since the previous line
	P99                    float64 // µs, of the requests recorded so far
}

// String formats the line, e.g.
//
//	[  12.0s] measured 10.0s: 4100.0 req/s, p99 2.000 ms, 41000 requests, 3 failed (1 lost to errors and timeouts)
func (s Status) String() string {
	return fmt.Sprintf("[%6.1fs] measured %.1fs: %.1f req/s, p99 %.3f ms, %d requests, %d failed (%d lost to errors and timeouts)",
		s.Elapsed.Seconds(), s.Measured.Seconds(), max(s.Rate, 0), s.P99/1000, s.Requests, s.Failed, s.Lost)
}
