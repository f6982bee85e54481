package session

import (
	"fmt"
	"strings"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/result"
)

// SLA is one service-level objective: a latency percentile (or mean, max)
// of a class at most a duration, or the share of requests lost to errors
// and timeouts (errors) or failed (failed) at most a percentage.
type SLA struct {
	Text   string
	Class  string  // metrics.All or a class name
	Metric string  // p50, p90, p99, p999, mean, max, errors, failed
	Limit  float64 // µs for latencies, % for errors and failed
}

// Check returns the SLA's measured value, as printed, and whether it holds.
func (x SLA) Check(e *result.Experiment) (string, bool) {
	s := e.Summary
	if s == nil {
		s = metrics.NewSummary()
	}
	if x.Metric == "errors" || x.Metric == "failed" {
		n := s.Requests()
		bad := s.Failed()
		if x.Metric == "errors" {
			bad, _ = s.Lost()
		}
		v := 0.0
		if n > 0 {
			v = 100 * float64(bad) / float64(n)
		}
		return fmt.Sprintf("%s %.3f%%", x.Metric, v), v <= x.Limit
	}
	st := s.Stats(x.Class)
	v := map[string]float64{"p50": st.P50, "p90": st.P90, "p99": st.P99, "p999": st.P999, "mean": st.Mean, "max": st.Max}[x.Metric]
	name := x.Metric
	if x.Class != metrics.All {
		name = x.Class + "." + name
	}
	return fmt.Sprintf("%s %.3f ms", name, v/1000), v <= x.Limit
}

// Verdict checks a probe: the clients issued the schedule, the achieved
// rate is within 5% of the target, and every SLA holds. It returns a line
// describing the probe.
func Verdict(x *result.Experiment, slas []SLA) (string, bool) {
	r := RowOf(x)
	parts := []string{fmt.Sprintf("achieved %.1f req/s", r.Achieved)}
	pass := true
	if why := r.Behind(0); why != "" {
		parts = append(parts, why)
		pass = false
	}
	for _, s := range slas {
		got, ok := s.Check(x)
		mark := "ok"
		if !ok {
			mark, pass = "VIOLATED", false
		}
		parts = append(parts, fmt.Sprintf("%s (%s: %s)", got, s.Text, mark))
	}
	return strings.Join(parts, "; "), pass
}

// SLAText is the rating's SLAs as given, comma-separated.
func (spec RateSpec) SLAText() string {
	texts := make([]string, len(spec.SLAs))
	for i, s := range spec.SLAs {
		texts[i] = s.Text
	}
	return strings.Join(texts, ", ")
}
