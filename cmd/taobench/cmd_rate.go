package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/taobench/taobench/internal/flagx"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/session"
)

func cmdRate(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("rate", flag.ContinueOnError)
	lf := &loadFlags{cmd: "rate"}
	lf.register(fs)
	var slas []session.SLA
	fs.Var(flagx.List[session.SLA]{Items: &slas, Parse: parseSLA}, "sla", "a service-level objective every probe must meet over its measured window; repeat for more. "+slaHelp)
	start := fs.Float64("start", 500, "the first, lowest target rate (requests/s)")
	factor := fs.Float64("factor", 2, "growth of the target rate between probes until one fails (above 1)")
	precision := fs.Float64("precision", 5, "bisect until the passing and failing rates are within this percentage")
	maxProbes := fs.Int("max-probes", 20, "the most probes")
	if err := parse(fs, args); err != nil {
		return err
	}
	spec := session.RateSpec{SLAs: slas, Start: *start, Factor: *factor, Precision: *precision, MaxProbes: *maxProbes}
	if err := spec.Check(); err != nil {
		return err
	}
	probes := 0
	p, err := lf.prepare(ctx, e, fs, args, nil, func(x *result.Experiment) {
		probes++
		writeProbe(e.stdout, probes, x, slas)
	})
	if err != nil {
		return err
	}
	defer p.close()
	writeProbesTitle(e.stdout, "rating", p.info, lf.rs.experiment(0), p.cfg.Arrival, "probe", "; SLA "+spec.SLAText())
	r, err := p.Rate(ctx, spec)
	if err != nil {
		return err
	}
	if r.Rate == 0 {
		// The lowest rate failed: nothing to rate.
		if err := p.finish(); err != nil {
			return err
		}
		return &exitError{exitFailed, fmt.Errorf("rate: even the lowest target, %g req/s, does not meet the SLA (see probe 1); give a lower --start, more --threads, or a looser --sla", *start)}
	}
	writeRating(e.stdout, r, *maxProbes)
	return p.finish()
}
