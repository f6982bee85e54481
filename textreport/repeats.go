package textreport

import (
	"fmt"
	"io"
	"strings"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/stats"
)

// WriteRepeats prints, for a run given --repeat, each configuration's
// figures in every repeat and their mean with the interval from the
// spread between repeats (result.Repeats); labels name the configurations
// (missing ones: "experiment K"). Nothing for a run not repeated.
func WriteRepeats(w io.Writer, exps []*result.Experiment, labels []string) error {
	rs := result.Repeats(exps, result.Confidence)
	if rs == nil {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nrepeats: each figure per repeat, then their mean with a %g%% interval from the spread between repeats (t over repeats-1 degrees of freedom; docs/results.md \"Repeats\")\n", 100*result.Confidence)
	for _, r := range rs {
		label := fmt.Sprintf("experiment %d", r.Config+1)
		if r.Config < len(labels) && labels[r.Config] != "" {
			label = labels[r.Config]
		}
		fmt.Fprintf(&b, "%s (experiments %s):\n", label, numbers(r.Experiments))
		fmt.Fprintf(&b, "  %-18s %-34s %s\n", "throughput (req/s)", values(r.Throughput, 1, "%.1f"), span(r.Throughput, 1, "%.1f"))
		fmt.Fprintf(&b, "  %-18s %-34s %s\n", "failed (%)", values(r.ErrorPct, 1, "%.3f"), span(r.ErrorPct, 1, "%.3f"))
		fmt.Fprintf(&b, "  %-18s %-34s %s\n", "p50 all (ms)", values(r.P50, 1000, "%.3f"), span(r.P50, 1000, "%.3f"))
		fmt.Fprintf(&b, "  %-18s %-34s %s\n", "p99 all (ms)", values(r.P99, 1000, "%.3f"), span(r.P99, 1000, "%.3f"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// values are the figure in each repeat, space-separated.
func values(iv stats.Interval, div float64, f string) string {
	s := make([]string, len(iv.Values))
	for i, v := range iv.Values {
		s[i] = fmt.Sprintf(f, v/div)
	}
	return strings.Join(s, " ")
}

// numbers are 0-based experiment indexes as the 1-based numbers the
// report prints.
func numbers(idx []int) string {
	s := make([]string, len(idx))
	for i, x := range idx {
		s[i] = fmt.Sprint(x + 1)
	}
	return strings.Join(s, ", ")
}
