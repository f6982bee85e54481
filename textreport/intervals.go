package textreport

import (
	"fmt"
	"strings"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/stats"
)

// writeIntervals prints the throughput, error rate and latency
// percentiles with their confidence intervals, or says why there are none.
func writeIntervals(b *strings.Builder, iv *result.Intervals) {
	if iv.Batches < 2 {
		fmt.Fprintf(b, "\nno confidence intervals: they need at least 2 whole measured seconds with a time series\n")
		return
	}
	fmt.Fprintf(b, "\n%g%% confidence intervals (batch means over %d batches of %s s; docs/results.md \"Intervals\"):\n",
		100*iv.Confidence, iv.Batches, num(iv.BatchS))
	fmt.Fprintf(b, "%-16s %s req/s\n", "throughput", span(iv.Throughput, 1, "%.1f"))
	fmt.Fprintf(b, "%-16s %s %%\n", "failed", span(iv.ErrorPct, 1, "%.3f"))
	fmt.Fprintf(b, "%-16s", "latency (ms)")
	for _, p := range result.Percentiles {
		fmt.Fprintf(b, " %-26s", p.Name)
	}
	b.WriteString("\n")
	for _, si := range iv.Latency {
		fmt.Fprintf(b, "%-16s", si.Name)
		for _, p := range si.P {
			fmt.Fprintf(b, " %-26s", span(p, 1000, "%.3f"))
		}
		b.WriteString("\n")
	}
}

// span is "x [lo, hi]" in the unit (values divided by div), or "x [-]"
// when the batches gave no interval.
func span(iv stats.Interval, div float64, f string) string {
	x := fmt.Sprintf(f, iv.Estimate/div)
	if !iv.Valid() {
		return x + " [-]"
	}
	return fmt.Sprintf("%s ["+f+", "+f+"]", x, iv.Lo/div, iv.Hi/div)
}
