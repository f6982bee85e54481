package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/taobench/taobench/fleet"
	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// Parsers of the flags' own syntax: lists of durations and rates, a
// loader's part, an SLA.

// parseHolds reads a comma-separated list of durations from 0 ("0": none)
// to workload.MaxLockHold.
func parseHolds(s string) ([]time.Duration, error) {
	var hs []time.Duration
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		d, err := time.ParseDuration(p)
		if err != nil {
			return nil, fmt.Errorf("%q is not a duration; give Go durations such as 0,5ms,20ms,100ms", p)
		}
		if d < 0 || d > workload.MaxLockHold {
			return nil, fmt.Errorf("%v: give holds from 0 to %v", d, workload.MaxLockHold)
		}
		hs = append(hs, d)
	}
	return hs, nil
}

// parseWaits reads precondition-wait's --waits: parseHolds's durations,
// each once. Its errors name the flag.
func parseWaits(s string) ([]time.Duration, error) {
	ws, err := parseHolds(s)
	if err != nil {
		return nil, fmt.Errorf("--waits %q: %v", s, err)
	}
	seen := map[time.Duration]bool{}
	for _, d := range ws {
		if seen[d] {
			return nil, fmt.Errorf("--waits %q gives %v twice; give each wait once", s, d)
		}
		seen[d] = true
	}
	return ws, nil
}

// parseRates reads a sweep's rates: positive requests per second,
// comma-separated, rising.
func parseRates(s string) ([]float64, error) {
	var rates []float64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		r, err := strconv.ParseFloat(f, 64)
		if err != nil || r <= 0 || run.CheckRate(r) != nil {
			return nil, fmt.Errorf("rate %q: give positive requests per second up to %g, comma-separated (e.g. 1000,2000,4000)", f, float64(run.MaxRate))
		}
		if len(rates) > 0 && r <= rates[len(rates)-1] {
			return nil, fmt.Errorf("rates must rise: %g after %g", r, rates[len(rates)-1])
		}
		rates = append(rates, r)
	}
	return rates, nil
}

// parseLoadPart reads load's --driver I/N: which part of the graph this
// loader writes; "" is all of it.
func parseLoadPart(s string) (fleet.Driver, error) {
	if s == "" {
		return fleet.Single, nil
	}
	d, err := fleet.Parse("--driver", s)
	if err != nil {
		return d, badInput("load: %v", err)
	}
	return d, nil
}

// slaHelp says how to write an SLA.
const slaHelp = "write [CLASS.]METRIC<=LIMIT: p50, p90, p99, p99.9, mean or max <= a duration (p99<=20ms, read.p99<=10ms), " +
	"or errors or failed <= a percentage (errors<=0.1%); CLASS is read, write, read_txn or write_txn (default: all requests)"

// parseSLA reads one --sla, strictly.
func parseSLA(s string) (session.SLA, error) {
	x := session.SLA{Text: strings.TrimSpace(s), Class: metrics.All}
	lhs, rhs, ok := strings.Cut(x.Text, "<=")
	if !ok {
		return x, fmt.Errorf("SLA %q has no <=; %s", s, slaHelp)
	}
	lhs, rhs = strings.TrimSpace(lhs), strings.TrimSpace(rhs)
	if c, m, ok := strings.Cut(lhs, "."); ok && !strings.HasPrefix(lhs, "p99.") {
		if _, known := tao.ParseClass(c); !known {
			return x, fmt.Errorf("SLA %q: %q is not a request class; %s", s, c, slaHelp)
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
		return x, fmt.Errorf("SLA %q: unknown metric %q; %s", s, lhs, slaHelp)
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
