package result

import (
	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/stats"
)

// Repeated is one configuration of a run given --repeat (an experiment of
// its experiments file, a workload of a comparison, a step of a ladder)
// over its repeats: the figure of each repeat, and their mean with an
// interval from the spread between repeats (stats.AcrossRuns), which
// holds what moved between runs as well as each run's own noise
// (docs/results.md "Repeats").
type Repeated struct {
	Config int // the configuration's place in a repeat, from 0
	// Experiments are the experiments (indexes into the run's) that ran it,
	// one per repeat, in the order they ran.
	Experiments []int
	Throughput  stats.Interval
	ErrorPct    stats.Interval
	// P50 and P99 are all requests' percentiles, µs; a repeat without
	// requests adds no value.
	P50, P99 stats.Interval
}

// TagRepeats numbers exps as a run of n configurations repeated in turn,
// configuration after configuration (the order --repeat runs them): the
// first n are repeat 1, the next n repeat 2, and so on.
func TagRepeats(exps []*Experiment, n int) {
	for i, e := range exps {
		if e != nil && n > 0 {
			e.Repeat = i/n + 1
		}
	}
}

// Repeats groups a repeated run's experiments by configuration (the k-th
// experiment of each repeat is configuration k) and gives each its figures
// across the repeats at the confidence; nil when no experiment is a
// repeat. Every figure of one repeat comes from that repeat alone.
func Repeats(exps []*Experiment, confidence float64) []Repeated {
	var out []Repeated
	seen := map[int]int{} // repeat -> experiments of it so far
	for i, e := range exps {
		if e == nil || e.Repeat == 0 {
			continue
		}
		k := seen[e.Repeat]
		seen[e.Repeat]++
		for len(out) <= k {
			out = append(out, Repeated{Config: len(out)})
		}
		out[k].Experiments = append(out[k].Experiments, i)
	}
	for j := range out {
		r := &out[j]
		var tp, errs, p50, p99 figureRuns
		for _, i := range r.Experiments {
			iv := exps[i].Intervals(confidence)
			tp.add(iv.Throughput)
			if exps[i].Sum().Requests() > 0 {
				errs.add(iv.ErrorPct)
			}
			if x, ok := iv.Percentile(metrics.All, "p50"); ok {
				p50.add(x)
			}
			if x, ok := iv.Percentile(metrics.All, "p99"); ok {
				p99.add(x)
			}
		}
		r.Throughput, r.ErrorPct = tp.interval(confidence), errs.interval(confidence)
		r.P50, r.P99 = p50.interval(confidence), p99.interval(confidence)
	}
	return out
}

// figureRuns are a figure's values in the repeats and the standard errors
// of each from its own batches (0 where the run had no interval).
type figureRuns struct{ values, within []float64 }

func (f *figureRuns) add(iv stats.Interval) {
	f.values, f.within = append(f.values, iv.Estimate), append(f.within, iv.SE)
}

// interval is the figures' interval across runs, its lower end held at 0:
// every figure here is a rate, a share or a latency, never below 0, so the
// cut loses no coverage, and a few scattered repeats (t is 12.7 for 2) do
// not print a negative latency.
func (f *figureRuns) interval(confidence float64) stats.Interval {
	iv := stats.AcrossRuns(f.values, f.within, confidence)
	iv.Lo = max(iv.Lo, 0)
	return iv
}

// jsonRepeats is Repeats in a results file: written, never read back
// (recomputed from the experiments, as the intervals are).
type jsonRepeats struct {
	Confidence float64      `json:"confidence"`
	Method     string       `json:"method"`
	Configs    []jsonRepeat `json:"configs"`
}

type jsonRepeat struct {
	Config      int                          `json:"config"`      // from 1
	Experiments []int                        `json:"experiments"` // from 1
	Throughput  *jsonRepeatFigure            `json:"throughput"`
	ErrorPct    *jsonRepeatFigure            `json:"error_pct"`
	LatencyUS   map[string]*jsonRepeatFigure `json:"latency_us"` // "p50", "p99" of all requests
}

// jsonRepeatFigure is a figure across repeats: each repeat's value, their
// mean, and its interval (null with fewer than 2 repeats).
type jsonRepeatFigure struct {
	Values   []float64     `json:"values"`
	Mean     float64       `json:"mean"`
	Interval *jsonInterval `json:"interval"`
}

func repeatFigure(iv stats.Interval) *jsonRepeatFigure {
	if len(iv.Values) == 0 {
		return nil
	}
	return &jsonRepeatFigure{Values: iv.Values, Mean: iv.Estimate, Interval: intervalJSON(iv)}
}

func repeatsJSON(exps []*Experiment) *jsonRepeats {
	rs := Repeats(exps, Confidence)
	if rs == nil {
		return nil
	}
	j := &jsonRepeats{Confidence: Confidence, Method: "across_runs", Configs: []jsonRepeat{}}
	for _, r := range rs {
		x := jsonRepeat{Config: r.Config + 1, Throughput: repeatFigure(r.Throughput), ErrorPct: repeatFigure(r.ErrorPct),
			LatencyUS: map[string]*jsonRepeatFigure{"p50": repeatFigure(r.P50), "p99": repeatFigure(r.P99)}}
		for _, i := range r.Experiments {
			x.Experiments = append(x.Experiments, i+1)
		}
		j.Configs = append(j.Configs, x)
	}
	return j
}
