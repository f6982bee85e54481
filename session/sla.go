package session

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
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

// SLAHelp says how to write an SLA.
const SLAHelp = "write [CLASS.]METRIC<=LIMIT: p50, p90, p99, p99.9, mean or max <= a duration (p99<=20ms, read.p99<=10ms), " +
	"or errors or failed <= a percentage (errors<=0.1%); CLASS is read, write, read_txn or write_txn (default: all requests)"

// ParseSLA reads one SLA, strictly.
func ParseSLA(s string) (SLA, error) {
	x := SLA{Text: strings.TrimSpace(s), Class: metrics.All}
	lhs, rhs, ok := strings.Cut(x.Text, "<=")
	if !ok {
		return x, fmt.Errorf("SLA %q has no <=; %s", s, SLAHelp)
	}
	lhs, rhs = strings.TrimSpace(lhs), strings.TrimSpace(rhs)
	if c, m, ok := strings.Cut(lhs, "."); ok && !strings.HasPrefix(lhs, "p99.") {
		if _, known := tao.ParseClass(c); !known {
			return x, fmt.Errorf("SLA %q: %q is not a request class; %s", s, c, SLAHelp)
		}
		x.Class, lhs = c, m
	}
	switch lhs {
	case "p50", "p90", "p99", "mean", "max":
		x.Metric = lhs
	case "p99.9", "p999":
		x.Metric = "p999"
	case "errors", "failed":
		x.Metric = lhs
		if x.Class != metrics.All {
			return x, fmt.Errorf("SLA %q: %s applies to all requests; drop the class", s, lhs)
		}
		num, pct := strings.CutSuffix(rhs, "%")
		v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if !pct || err != nil || !(v >= 0 && v <= 100) {
			return x, fmt.Errorf("SLA %q: %s takes a percentage from 0%% to 100%% such as 0.1%%", s, lhs)
		}
		x.Limit = v
		return x, nil
	default:
		return x, fmt.Errorf("SLA %q: unknown metric %q; %s", s, lhs, SLAHelp)
	}
	d, err := time.ParseDuration(rhs)
	if err != nil || d <= 0 {
		return x, fmt.Errorf("SLA %q: %q is not a positive duration such as 20ms", s, rhs)
	}
	x.Limit = float64(d.Microseconds())
	if d < time.Microsecond {
		x.Limit = float64(d) / 1000
	}
	return x, nil
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
