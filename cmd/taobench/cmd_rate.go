package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/report"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/tao"
)

// sla is one service-level objective: a latency percentile (or mean, max)
// of a class at most a duration, or the share of requests lost to errors
// and timeouts (errors) or failed (failed) at most a percentage.
type sla struct {
	text   string
	class  string // metrics.All or a class name
	metric string // p50, p90, p99, p999, mean, max, errors, failed
	limit  float64
}

// slaList collects --sla flags.
type slaList struct{ slas *[]sla }

func (l slaList) String() string { return "" }

// Repeatable lets --sla be given more than once.
func (l slaList) Repeatable() bool { return true }

func (l slaList) Set(s string) error {
	x, err := parseSLA(s)
	if err != nil {
		return err
	}
	*l.slas = append(*l.slas, x)
	return nil
}

const slaHelp = "write [CLASS.]METRIC<=LIMIT: p50, p90, p99, p99.9, mean or max <= a duration (p99<=20ms, read.p99<=10ms), " +
	"or errors or failed <= a percentage (errors<=0.1%); CLASS is read, write, read_txn or write_txn (default: all requests)"

// parseSLA reads one SLA, strictly.
func parseSLA(s string) (sla, error) {
	x := sla{text: strings.TrimSpace(s), class: metrics.All}
	lhs, rhs, ok := strings.Cut(x.text, "<=")
	if !ok {
		return x, fmt.Errorf("SLA %q has no <=; %s", s, slaHelp)
	}
	lhs, rhs = strings.TrimSpace(lhs), strings.TrimSpace(rhs)
	if c, m, ok := strings.Cut(lhs, "."); ok && !strings.HasPrefix(lhs, "p99.") {
		if _, known := tao.ParseClass(c); !known {
			return x, fmt.Errorf("SLA %q: %q is not a request class; %s", s, c, slaHelp)
		}
		x.class, lhs = c, m
	}
	switch lhs {
	case "p50", "p90", "p99", "mean", "max":
		x.metric = lhs
	case "p99.9", "p999":
		x.metric = "p999"
	case "errors", "failed":
		x.metric = lhs
		if x.class != metrics.All {
			return x, fmt.Errorf("SLA %q: %s applies to all requests; drop the class", s, lhs)
		}
		num, pct := strings.CutSuffix(rhs, "%")
		v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if !pct || err != nil || !(v >= 0 && v <= 100) {
			return x, fmt.Errorf("SLA %q: %s takes a percentage from 0%% to 100%% such as 0.1%%", s, lhs)
		}
		x.limit = v
		return x, nil
	default:
		return x, fmt.Errorf("SLA %q: unknown metric %q; %s", s, lhs, slaHelp)
	}
	d, err := time.ParseDuration(rhs)
	if err != nil || d <= 0 {
		return x, fmt.Errorf("SLA %q: %q is not a positive duration such as 20ms", s, rhs)
	}
	x.limit = float64(d.Microseconds())
	if d < time.Microsecond {
		x.limit = float64(d) / 1000
	}
	return x, nil
}

// check returns the SLA's measured value, as printed, and whether it holds.
func (x sla) check(e *report.Experiment) (string, bool) {
	s := e.Summary
	if s == nil {
		s = metrics.NewSummary()
	}
	if x.metric == "errors" || x.metric == "failed" {
		n := s.Requests()
		bad := s.Failed()
		if x.metric == "errors" {
			bad, _ = s.Lost()
		}
		v := 0.0
		if n > 0 {
			v = 100 * float64(bad) / float64(n)
		}
		return fmt.Sprintf("%s %.3f%%", x.metric, v), v <= x.limit
	}
	st := s.Stats(x.class)
	v := map[string]float64{"p50": st.P50, "p90": st.P90, "p99": st.P99, "p999": st.P999, "mean": st.Mean, "max": st.Max}[x.metric]
	name := x.metric
	if x.class != metrics.All {
		name = x.class + "." + name
	}
	return fmt.Sprintf("%s %.3f ms", name, v/1000), v <= x.limit
}

// verdict checks a probe: the clients issued the schedule, the achieved
// rate is within 5% of the target, and every SLA holds. It returns a line
// describing the probe.
func verdict(x *report.Experiment, slas []sla) (string, bool) {
	r := rowOf(x)
	parts := []string{fmt.Sprintf("achieved %.1f req/s", r.achieved)}
	pass := true
	if why := behind(r, 0); why != "" {
		parts = append(parts, why)
		pass = false
	}
	for _, s := range slas {
		got, ok := s.check(x)
		mark := "ok"
		if !ok {
			mark, pass = "VIOLATED", false
		}
		parts = append(parts, fmt.Sprintf("%s (%s: %s)", got, s.text, mark))
	}
	return strings.Join(parts, "; "), pass
}

func cmdRate(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("rate", flag.ContinueOnError)
	lf := &loadFlags{cmd: "rate"}
	lf.register(fs)
	var slas []sla
	fs.Var(slaList{&slas}, "sla", "a service-level objective every probe must meet over its measured window; repeat for more. "+slaHelp)
	start := fs.Float64("start", 500, "the first, lowest target rate (requests/s)")
	factor := fs.Float64("factor", 2, "growth of the target rate between probes until one fails (above 1)")
	precision := fs.Float64("precision", 5, "bisect until the passing and failing rates are within this percentage")
	maxProbes := fs.Int("max-probes", 20, "the most probes")
	if err := parse(fs, args); err != nil {
		return err
	}
	lf.given = setFlags(fs)
	if len(slas) == 0 {
		return badInput("rate: give at least one --sla, e.g. --sla 'p99<=20ms' --sla 'errors<=0.1%%'")
	}
	if !(*start > 0) || run.CheckRate(*start) != nil || !(*factor > 1) || math.IsInf(*factor, 0) || !(*precision > 0) || *maxProbes < 1 {
		return badInput("rate: --start must be a positive rate, --factor above 1, --precision positive, --max-probes at least 1")
	}
	p, err := lf.prepare(ctx, e, args)
	if err != nil {
		return err
	}
	defer p.close()
	texts := make([]string, len(slas))
	for i, s := range slas {
		texts[i] = s.text
	}
	fmt.Fprintf(e.stdout, "rating: workload %s on %s, %d clients, %v warmup + %v per probe, %s arrivals; SLA %s\n",
		p.info.Workload, p.info.Database, *lf.threads, lf.warmup, lf.duration, p.cfg.Arrival, strings.Join(texts, ", "))

	lo, hi := 0.0, 0.0 // highest passing, lowest failing target
	rate := *start
	for n := 1; ; n++ {
		if n > *maxProbes {
			fmt.Fprintf(e.stdout, "stopped after %d probes (--max-probes)\n", *maxProbes)
			break
		}
		x, err := p.probe(ctx, rate)
		if x != nil {
			line, pass := verdict(x, slas)
			word := "pass"
			if !pass {
				word = "FAIL"
			}
			fmt.Fprintf(e.stdout, "probe %d: target %.0f req/s: %s: %s\n", n, rate, word, line)
			if pass {
				lo = rate
			} else {
				hi = rate
			}
		}
		if err != nil {
			return err
		}
		if lo == 0 {
			// The lowest rate failed: nothing to rate.
			if err := p.finish(); err != nil {
				return err
			}
			return &exitError{exitFailed, fmt.Errorf("rate: even the lowest target, %g req/s, does not meet the SLA (see probe 1); give a lower --start, more --threads, or a looser --sla", *start)}
		}
		done := false
		switch {
		case hi == 0: // still growing
			rate = lo * *factor
			if run.CheckRate(rate) != nil {
				fmt.Fprintf(e.stdout, "the next probe would pass the most taobench issues (%g req/s)\n", float64(run.MaxRate))
				done = true
			}
		case hi/lo <= 1+*precision/100:
			done = true
		default:
			rate = math.Round(math.Sqrt(lo * hi)) // bisect on a log scale
			done = rate <= lo || rate >= hi
		}
		if done {
			break
		}
	}
	fmt.Fprintf(e.stdout, "rating: %.0f req/s, the highest target at which every SLA held", lo)
	if hi > 0 {
		fmt.Fprintf(e.stdout, " (%.0f req/s failed)", hi)
	}
	fmt.Fprintln(e.stdout)
	return p.finish()
}
