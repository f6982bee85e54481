package metrics

import (
	"fmt"
	"time"
)

// FormatStatus returns one status line: the time since the experiment
// started, the request rate over the last interval (cur minus prev; prev nil
// means nothing had been counted before), the p99 latency of all requests so
// far and the failed and lost requests so far.
func FormatStatus(elapsed time.Duration, cur, prev *Summary, interval time.Duration) string {
	if cur == nil {
		cur = NewSummary()
	}
	n := cur.Requests()
	rate := 0.0
	if interval > 0 {
		done := n
		if prev != nil {
			done -= prev.Requests()
		}
		rate = float64(max(done, 0)) / interval.Seconds()
	}
	lost, _ := cur.Lost()
	return fmt.Sprintf("[%6.1fs] %.1f req/s, p99 %.3f ms, %d requests, %d failed (%d lost to errors and timeouts)",
		elapsed.Seconds(), rate, cur.Stats(All).P99/1000, n, cur.Failed(), lost)
}
