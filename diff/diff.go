// Package diff compares two runs' results figure by figure: the change of
// each figure with its confidence interval and a verdict (faster, slower,
// or no difference detectable), corrected for the number of figures
// compared (Holm), and what makes the two runs not comparable
// (docs/results.md "Comparing runs"). It reads no file and prints nothing:
// the command does.
package diff

import (
	"fmt"
	"math"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/stats"
)

// The verdicts of a figure, and of the comparison as a whole (Overall).
const (
	Faster        = "faster"
	Slower        = "slower"
	FewerFailures = "fewer failures"
	MoreFailures  = "more failures"
	NoDifference  = "no difference detectable"
	Mixed         = "mixed" // Overall only: some figures better, some worse
	Untested      = "not tested"
)

// Figure is one figure of one experiment in both runs.
type Figure struct {
	Experiment int    // 1-based
	Name       string // "throughput", "failed", "all p50", "read p99"
	Unit       string // "req/s", "%", "µs"
	Base, New  stats.Interval
	Change     stats.Change // New less Base, interval at the confidence
	// ChangePct, LoPct and HiPct are the change and its interval in
	// percent of the base figure (NaN when the base figure is 0).
	ChangePct, LoPct, HiPct float64
	AdjustedP               float64 // Holm-adjusted p-value; NaN when not tested
	Verdict                 string
	Note                    string // why a figure was not tested
	words                   words
}

// words are a figure's direction and its verdicts' names.
type words struct {
	higherBetter  bool
	better, worse string
}

// Report is a comparison of new against base.
type Report struct {
	Confidence float64
	Tested     int // figures in the family Holm corrects for
	Figures    []Figure
	// Differences name what makes the runs not comparable: their
	// workload, graph, clients, schedule or taobench version.
	Differences []string
	Overall     string
	// Repeats are the repeats of base and of new when both were run with
	// --repeat: the figures are then each configuration's across its
	// repeats (Figure.Experiment is the configuration), not experiment by
	// experiment; 0 otherwise.
	Repeats [2]int
}

// Comparable reports whether nothing but the database, its settings and
// the seeds set the two runs apart.
func (r *Report) Comparable() bool { return len(r.Differences) == 0 }

// Compare compares new against base at the confidence (0.95: a figure is
// called faster or slower when its Holm-adjusted p-value is below 0.05, so
// two runs of the same configuration get any verdict but "no difference
// detectable" with chance at most 5% in all). Experiment i of new is
// compared with experiment i of base. Figures: throughput, the failed
// share (not tested when neither run failed a request), and p50 and p99
// of every latency series (all requests, then each class, but for a class
// that holds every request) both runs hold with an interval. When both
// runs were repeated (--repeat), each configuration is compared across its
// repeats instead (result.Repeats: throughput, failed share, all requests'
// p50 and p99), with intervals from the spread between repeats.
func Compare(base, next *result.Doc, confidence float64) (*Report, error) {
	if !(confidence > 0 && confidence < 1) {
		return nil, fmt.Errorf("confidence %g: give a level between 0 and 1, such as 0.95", confidence)
	}
	if base == nil || base.Run == nil || next == nil || next.Run == nil {
		return nil, fmt.Errorf("a results file without a run")
	}
	ra, rb := result.Repeats(base.Experiments, confidence), result.Repeats(next.Experiments, confidence)
	r := &Report{Confidence: confidence, Differences: differences(base, next, ra != nil && rb != nil)}
	// add adds a figure of experiment (or configuration) i; paired: the
	// two intervals' batches ran in the same seconds of their windows.
	add := func(i int, name, unit string, x, y stats.Interval, higherBetter bool, better, worse string, paired bool) {
		f := Figure{Experiment: i + 1, Name: name, Unit: unit, Base: x, New: y, AdjustedP: math.NaN(), Verdict: Untested}
		f.Change.Estimate = y.Estimate - x.Estimate
		if !x.Valid() || !y.Valid() {
			f.Note = "no interval in both runs (docs/results.md \"Intervals\")"
		} else if paired && len(x.Values) == len(y.Values) {
			f.Change = stats.Paired(x, y, confidence)
		} else {
			f.Change = stats.Compare(x, y, confidence)
		}
		f.ChangePct, f.LoPct, f.HiPct = pct(f.Change.Estimate, x.Estimate), pct(f.Change.Lo, x.Estimate), pct(f.Change.Hi, x.Estimate)
		f.words = words{higherBetter, better, worse}
		r.Figures = append(r.Figures, f)
	}
	if ra != nil && rb != nil {
		// Both repeated: each configuration's figures across its repeats,
		// whose spread holds what moves between runs (Welch's test: the
		// repeats of one file are not paired with the other's).
		r.Repeats = [2]int{len(ra[0].Experiments), len(rb[0].Experiments)}
		for k := range min(len(ra), len(rb)) {
			x, y := ra[k], rb[k]
			add(k, "throughput", "req/s", x.Throughput, y.Throughput, true, Faster, Slower, false)
			add(k, "failed", "%", x.ErrorPct, y.ErrorPct, false, FewerFailures, MoreFailures, false)
			if f := &r.Figures[len(r.Figures)-1]; f.Note == "" && f.Base.Estimate == 0 && f.New.Estimate == 0 {
				f.Note = "no failures in either run"
			}
			add(k, "all p50", "µs", x.P50, y.P50, false, Faster, Slower, false)
			add(k, "all p99", "µs", x.P99, y.P99, false, Faster, Slower, false)
		}
		r.decide()
		return r, nil
	}
	for i := range min(len(base.Experiments), len(next.Experiments)) {
		a, b := base.Experiments[i].Intervals(confidence), next.Experiments[i].Intervals(confidence)
		add := func(name, unit string, x, y stats.Interval, higherBetter bool, better, worse string) {
			add(i, name, unit, x, y, higherBetter, better, worse, true)
		}
		add("throughput", "req/s", a.Throughput, b.Throughput, true, Faster, Slower)
		add("failed", "%", a.ErrorPct, b.ErrorPct, false, FewerFailures, MoreFailures)
		if f := &r.Figures[len(r.Figures)-1]; f.Note == "" && f.Base.Estimate == 0 && f.New.Estimate == 0 {
			f.Note = "no failures in either run"
		}
		for _, si := range a.Latency {
			if si.Name != metrics.All && dup(a, si.Name) && dup(b, si.Name) {
				continue // the only class: its figures are all's
			}
			for _, p := range []string{"p50", "p99"} {
				x, _ := a.Percentile(si.Name, p)
				y, ok := b.Percentile(si.Name, p)
				if !ok {
					continue
				}
				add(si.Name+" "+p, "µs", x, y, false, Faster, Slower)
			}
		}
	}
	r.decide()
	return r, nil
}

// decide corrects the tested figures' p-values for their number (Holm)
// and gives each figure, and the report, its verdict.
func (r *Report) decide() {
	alpha := 1 - r.Confidence
	var idx []int
	var ps []float64
	for i, f := range r.Figures {
		if f.Note == "" {
			idx = append(idx, i)
			ps = append(ps, f.Change.P)
		}
	}
	r.Tested = len(idx)
	_, adj := stats.Holm(ps, alpha)
	better, worse := 0, 0
	for j, i := range idx {
		f := &r.Figures[i]
		f.AdjustedP = adj[j]
		f.Verdict = NoDifference
		if adj[j] >= alpha || f.Change.Estimate == 0 {
			continue
		}
		if (f.Change.Estimate > 0) == f.words.higherBetter {
			f.Verdict = f.words.better
			better++
		} else {
			f.Verdict = f.words.worse
			worse++
		}
	}
	switch {
	case better > 0 && worse > 0:
		r.Overall = Mixed
	case worse > 0:
		r.Overall = Slower
	case better > 0:
		r.Overall = Faster
	default:
		r.Overall = NoDifference
	}
}

func pct(x, base float64) float64 {
	if base == 0 {
		return math.NaN()
	}
	return 100 * x / base
}

// dup reports whether series name holds every request of iv (the only
// class of a run), so its figures are those of the series "all".
func dup(iv *result.Intervals, name string) bool {
	var all, n int64 = -1, -2
	for _, x := range iv.Latency {
		switch x.Name {
		case metrics.All:
			all = x.Count
		case name:
			n = x.Count
		}
	}
	return all == n
}

// differences names what sets the runs apart beyond the database, its
// settings and the seeds.
// repeated: both ran with --repeat, so their numbers of experiments may
// differ with their repeats; their configurations must not.
func differences(a, b *result.Doc, repeated bool) []string {
	var out []string
	d := func(what string, x, y any) {
		if x != y {
			out = append(out, fmt.Sprintf("%s: %v in base, %v in new", what, x, y))
		}
	}
	x, y := a.Run, b.Run
	d("workload", x.Workload, y.Workload)
	d("graph workload", x.GraphWorkload, y.GraphWorkload)
	d("graph seed", x.GraphSeed, y.GraphSeed)
	d("graph edges", x.Edges, y.Edges)
	d("retries", x.Retries, y.Retries)
	d("taobench version", x.Version, y.Version)
	if repeated {
		d("configurations repeated", len(result.Repeats(a.Experiments, 0.95)), len(result.Repeats(b.Experiments, 0.95)))
	} else {
		d("experiments", len(a.Experiments), len(b.Experiments))
	}
	for i := range min(len(a.Experiments), len(b.Experiments)) {
		e, f := a.Experiments[i], b.Experiments[i]
		at := fmt.Sprintf("experiment %d ", i+1)
		d(at+"clients", clients(e), clients(f))
		d(at+"target rate", e.OpenLoop.Rate, f.OpenLoop.Rate)
		d(at+"arrivals", e.OpenLoop.Arrivals(), f.OpenLoop.Arrivals())
		d(at+"duration", e.Duration, f.Duration)
		d(at+"warmup", e.Warmup, f.Warmup)
	}
	return out
}

// clients is the run's clients over all its drivers.
func clients(e *result.Experiment) int { return max(e.AllThreads, e.Threads) }
