package session

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/tao"
)

// Prober runs probes, open-loop experiments one at a time, each at a
// target rate chosen from the results so far: a sweep or a rating. Each
// probe draws its own request stream and has its own run number; the sink
// hears of each as it starts and ends.
type Prober struct {
	s    *Session
	cfg  run.Config
	x    run.Experiment
	done []*result.Experiment
}

// Prober returns a prober running x (its Rate set per probe) with cfg.
func (s *Session) Prober(cfg run.Config, x run.Experiment) *Prober {
	return &Prober{s: s, cfg: cfg, x: x}
}

// Done are the probes' results so far.
func (p *Prober) Done() []*result.Experiment { return p.done }

// Probe runs one probe at rate. Ctrl-C (ctx) returns its result and
// ErrInterrupted.
func (p *Prober) Probe(ctx context.Context, rate float64) (*result.Experiment, error) {
	x := p.x
	x.Rate = rate
	k := len(p.done)
	p.s.sink.ExperimentStarted(k, 0, "", x)
	res, err := p.s.Experiment(ctx, p.cfg, k, x)
	if err != nil {
		return nil, err
	}
	p.done = append(p.done, res)
	stop := res.Interrupted || ctx.Err() != nil
	if err := p.s.sink.ExperimentEnded(p.done, stop); err != nil {
		return res, err
	}
	if stop {
		return res, ErrInterrupted
	}
	return res, nil
}

// Row is a probe as a sweep prints it.
type Row struct {
	Target, Achieved float64
	Scheduled        float64 // the schedule's own rate in the window (Poisson: around the target)
	Reached          bool
	ErrorsPct        float64 // requests lost to errors and timeouts, % of ops
	FailedPct        float64
	ContentionPct    float64
	All              metrics.LatencyStats
	Classes          [tao.NumClasses]metrics.LatencyStats
}

// RowOf summarises a probe.
func RowOf(x *result.Experiment) Row {
	s := x.Summary
	if s == nil {
		s = metrics.NewSummary()
	}
	r := Row{Target: x.OpenLoop.Rate, Reached: x.OpenLoop.Reached(), All: s.Stats(metrics.All)}
	if x.Measured > 0 {
		r.Achieved = float64(s.Requests()) / x.Measured.Seconds()
		r.Scheduled = float64(x.OpenLoop.Scheduled) / x.Measured.Seconds()
	}
	if n := s.Requests(); n > 0 {
		lost, _ := s.Lost()
		r.ErrorsPct = 100 * float64(lost) / float64(n)
		r.FailedPct = 100 * float64(s.Failed()) / float64(n)
	}
	r.ContentionPct = s.Contention().OverallPct
	for c := range tao.NumClasses {
		r.Classes[c] = s.Stats(c.String())
	}
	return r
}

// Behind reports why a probe ends an automatic sweep: the achieved rate
// fell more than 5% behind the schedule's (the target, give or take the
// Poisson process's own spread), the schedule was not issued, or the p99
// passed maxP99 (0: no limit); "" when it does not.
func (r Row) Behind(maxP99 time.Duration) string {
	switch {
	case !r.Reached:
		return "the clients could not issue the schedule"
	case r.Achieved < 0.95*r.Scheduled:
		return fmt.Sprintf("achieved %.0f/s, more than 5%% behind the %.0f/s scheduled", r.Achieved, r.Scheduled)
	case maxP99 > 0 && r.All.P99 > float64(maxP99.Microseconds()):
		return fmt.Sprintf("p99 %.1f ms above SweepSpec.MaxP99 %v", r.All.P99/1000, maxP99)
	}
	return ""
}

// SweepSpec is a sweep: the given Rates, or automatic from Start growing
// by Factor until a probe saturates (Behind), at most MaxSteps.
type SweepSpec struct {
	Rates         []float64
	Start, Factor float64
	MaxSteps      int
	MaxP99        time.Duration
}

// Check checks an automatic sweep's figures (not needed with Rates); its
// error is an InputError naming the fields.
func (spec SweepSpec) Check() error {
	if spec.Rates == nil && (!(spec.Start > 0) || run.CheckRate(spec.Start) != nil || !(spec.Factor > 1) || math.IsInf(spec.Factor, 0) || spec.MaxSteps < 1) {
		return badInput("sweep: SweepSpec.Start must be a positive rate, SweepSpec.Factor above 1, SweepSpec.MaxSteps at least 1")
	}
	return nil
}

// SweepEnd is how a sweep ended.
type SweepEnd struct {
	// Saturated says why the probe at Rate saturated; "" when none did.
	Saturated string
	Rate      float64
	// Unsaturated: an automatic sweep ran out of steps (or rates) first.
	Unsaturated bool
	Steps       int
}

// Sweep runs the sweep's probes in order.
func (p *Prober) Sweep(ctx context.Context, spec SweepSpec) (SweepEnd, error) {
	rates := spec.Rates
	rate := spec.Start
	for i := 0; ; i++ {
		if rates != nil {
			if i == len(rates) {
				return SweepEnd{Steps: i}, nil
			}
			rate = rates[i]
		} else if i == spec.MaxSteps || run.CheckRate(rate) != nil {
			return SweepEnd{Unsaturated: true, Steps: i}, nil
		}
		x, err := p.Probe(ctx, rate)
		if err != nil {
			return SweepEnd{Steps: i + 1}, err
		}
		if rates == nil {
			if why := RowOf(x).Behind(spec.MaxP99); why != "" {
				return SweepEnd{Saturated: why, Rate: rate, Steps: i + 1}, nil
			}
			rate *= spec.Factor
		}
	}
}

// RateSpec is a rating: the highest target rate at which every SLA holds,
// found by growing the rate from Start by Factor until a probe fails, then
// bisecting until the passing and failing rates are within Precision
// percent, in at most MaxProbes probes.
type RateSpec struct {
	SLAs                     []SLA
	Start, Factor, Precision float64
	MaxProbes                int
}

// Check checks the rating's figures; its error is an InputError naming
// the fields.
func (spec RateSpec) Check() error {
	if len(spec.SLAs) == 0 {
		return badInput("rate: RateSpec.SLAs: give at least one SLA, such as p99 <= 20 ms or errors <= 0.1%%")
	}
	if !(spec.Start > 0) || run.CheckRate(spec.Start) != nil || !(spec.Factor > 1) || math.IsInf(spec.Factor, 0) || !(spec.Precision > 0) || spec.MaxProbes < 1 {
		return badInput("rate: RateSpec.Start must be a positive rate, RateSpec.Factor above 1, RateSpec.Precision positive, RateSpec.MaxProbes at least 1")
	}
	return nil
}

// Rating is a rating's outcome.
type Rating struct {
	// Rate is the highest passing target; 0: even Start failed.
	Rate float64
	// Failed is the lowest failing target; 0: none failed.
	Failed float64
	// OutOfProbes: MaxProbes ran out; AtMaxRate: the next probe would pass
	// run.MaxRate.
	OutOfProbes, AtMaxRate bool
}

// Rate rates the database against the SLAs. Each probe's verdict is
// Verdict(result, spec.SLAs).
func (p *Prober) Rate(ctx context.Context, spec RateSpec) (Rating, error) {
	return spec.Search(func(rate float64) (bool, error) {
		x, err := p.Probe(ctx, rate)
		pass := false
		if x != nil {
			_, pass = Verdict(x, spec.SLAs)
		}
		return pass, err
	})
}

// Search is the rating's search, probe saying whether a target rate
// passes: up from Start by Factor until a probe fails, then bisection on a
// log scale until the passing and failing rates are within Precision
// percent, at most MaxProbes probes. A probe's error ends it, with what
// the probe said counted.
func (spec RateSpec) Search(probe func(rate float64) (bool, error)) (Rating, error) {
	var r Rating
	rate := spec.Start
	for n := 1; ; n++ {
		if n > spec.MaxProbes {
			r.OutOfProbes = true
			return r, nil
		}
		pass, err := probe(rate)
		if pass {
			r.Rate = rate
		} else {
			r.Failed = rate
		}
		if err != nil || r.Rate == 0 {
			return r, err
		}
		switch {
		case r.Failed == 0: // still growing
			rate = r.Rate * spec.Factor
			if run.CheckRate(rate) != nil {
				r.AtMaxRate = true
				return r, nil
			}
		case r.Failed/r.Rate <= 1+spec.Precision/100:
			return r, nil
		default:
			rate = math.Round(math.Sqrt(r.Rate * r.Failed)) // bisect on a log scale
			if rate <= r.Rate || rate >= r.Failed {
				return r, nil
			}
		}
	}
}
