package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"strings"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
)

// slaList collects --sla flags.
type slaList struct{ slas *[]session.SLA }

func (l slaList) String() string { return "" }

// Repeatable lets --sla be given more than once.
func (l slaList) Repeatable() bool { return true }

func (l slaList) Set(s string) error {
	x, err := session.ParseSLA(s)
	if err != nil {
		return err
	}
	*l.slas = append(*l.slas, x)
	return nil
}

func cmdRate(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("rate", flag.ContinueOnError)
	lf := &loadFlags{cmd: "rate"}
	lf.register(fs)
	var slas []session.SLA
	fs.Var(slaList{&slas}, "sla", "a service-level objective every probe must meet over its measured window; repeat for more. "+session.SLAHelp)
	start := fs.Float64("start", 500, "the first, lowest target rate (requests/s)")
	factor := fs.Float64("factor", 2, "growth of the target rate between probes until one fails (above 1)")
	precision := fs.Float64("precision", 5, "bisect until the passing and failing rates are within this percentage")
	maxProbes := fs.Int("max-probes", 20, "the most probes")
	if err := parse(fs, args); err != nil {
		return err
	}
	if len(slas) == 0 {
		return badInput("rate: give at least one --sla, e.g. --sla 'p99<=20ms' --sla 'errors<=0.1%%'")
	}
	if !(*start > 0) || run.CheckRate(*start) != nil || !(*factor > 1) || math.IsInf(*factor, 0) || !(*precision > 0) || *maxProbes < 1 {
		return badInput("rate: --start must be a positive rate, --factor above 1, --precision positive, --max-probes at least 1")
	}
	probes := 0
	p, err := lf.prepare(ctx, e, fs, args, nil, func(x *result.Experiment) {
		probes++
		line, pass := session.Verdict(x, slas)
		word := "pass"
		if !pass {
			word = "FAIL"
		}
		fmt.Fprintf(e.stdout, "probe %d: target %.0f req/s: %s: %s\n", probes, x.OpenLoop.Rate, word, line)
	})
	if err != nil {
		return err
	}
	defer p.close()
	texts := make([]string, len(slas))
	for i, s := range slas {
		texts[i] = s.Text
	}
	fmt.Fprintf(e.stdout, "rating: workload %s on %s, %d clients, %v warmup + %v per probe, %s arrivals; SLA %s\n",
		p.info.Workload, p.info.Database, lf.rs.threads, lf.rs.warmup, lf.rs.duration, p.cfg.Arrival, strings.Join(texts, ", "))
	r, err := p.Rate(ctx, session.RateSpec{SLAs: slas, Start: *start, Factor: *factor, Precision: *precision, MaxProbes: *maxProbes})
	if err != nil {
		return err
	}
	switch {
	case r.Rate == 0:
		// The lowest rate failed: nothing to rate.
		if err := p.finish(); err != nil {
			return err
		}
		return &exitError{exitFailed, fmt.Errorf("rate: even the lowest target, %g req/s, does not meet the SLA (see probe 1); give a lower --start, more --threads, or a looser --sla", *start)}
	case r.OutOfProbes:
		fmt.Fprintf(e.stdout, "stopped after %d probes (--max-probes)\n", *maxProbes)
	case r.AtMaxRate:
		fmt.Fprintf(e.stdout, "the next probe would pass the most taobench issues (%g req/s)\n", float64(run.MaxRate))
	}
	fmt.Fprintf(e.stdout, "rating: %.0f req/s, the highest target at which every SLA held", r.Rate)
	if r.Failed > 0 {
		fmt.Fprintf(e.stdout, " (%.0f req/s failed)", r.Failed)
	}
	fmt.Fprintln(e.stdout)
	return p.finish()
}
