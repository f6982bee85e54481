package htmlreport

import (
	"fmt"
	"math"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
)

// expView is one experiment's section of the page.
type expView struct {
	Title      string
	Summary    []Field
	Timeline   []*Chart // throughput, then latency over time
	Dist       []*Chart // CDF and spectrum, of classes then kinds
	Latency    []latRow
	Outcomes   []outRow
	Contention []Field
	Fidelity   []result.FidelityRow
	Resources  []Field
	Endpoints  []epRow
	Tiers      []tierRow // read tiers (docs/tiers.md); none without
	// Concurrent says each other taobench run active on the database
	// during the measured window, beside the stale-read figures.
	Concurrent []string
}

// epRow is one endpoint of a run spread over several.
type epRow struct {
	Name                                  string
	Weight, Clients                       int
	Requests, Conflicts, Errors, Timeouts int64
	Rate, P50, P99, Codes, Server         string
	NoService                             string // measured seconds without an answer: "9-14, 22"
	Failed                                bool   // it lost requests: highlighted
}

// spans writes ascending seconds as runs: 9, 10, 11, 14 as "9-11, 14".
func spans(secs []int) string {
	var out []string
	for i := 0; i < len(secs); {
		j := i
		for j+1 < len(secs) && secs[j+1] == secs[j]+1 {
			j++
		}
		if j > i {
			out = append(out, fmt.Sprintf("%d-%d", secs[i], secs[j]))
		} else {
			out = append(out, fmt.Sprint(secs[i]))
		}
		i = j + 1
	}
	return strings.Join(out, ", ")
}

func endpointRows(e *result.Experiment) []epRow {
	var rows []epRow
	for _, ep := range e.Endpoints {
		s := ep.Sum()
		r := epRow{Name: ep.Name, Weight: ep.Weight, Clients: ep.Clients, Requests: s.Requests(),
			Errors: s.Outcome(tao.Error), Timeouts: s.Outcome(tao.Timeout),
			P50: ms(s.Stats(metrics.All).P50), P99: ms(s.Stats(metrics.All).P99)}
		r.Failed = r.Errors+r.Timeouts > 0
		if secs, known := s.NoServiceSeconds(e.Measured); known {
			r.NoService = spans(secs)
		}
		for o := range tao.NumOutcomes {
			if o.IsConflict() {
				r.Conflicts += s.Outcome(o)
			}
		}
		if e.Measured > 0 {
			r.Rate = fmt.Sprintf("%.1f", float64(r.Requests)/e.Measured.Seconds())
		}
		var codes []string
		for _, k := range ep.ErrorCodes.Sorted() {
			codes = append(codes, k.String())
		}
		r.Codes = strings.Join(codes, ", ")
		if sv := ep.Server; sv != nil {
			var cs []string
			for _, k := range []string{"wsrep_local_cert_failures", "wsrep_local_bf_aborts", "deadlocks", "Innodb_deadlocks", "xact_rollback"} {
				if v, ok := sv.Deltas[k]; ok {
					cs = append(cs, fmt.Sprintf("%s +%d", k, v))
				}
			}
			r.Server = strings.Join(cs, ", ")
			if sv.Error != "" {
				r.Server += " (" + sv.Error + ")"
			}
		}
		rows = append(rows, r)
	}
	return rows
}

type latRow struct {
	Name                                 string
	Count                                int64
	Mean, P50, P90, P99, P999, Max, Rate string
}

type outRow struct {
	Name, Count, Pct string
	Failed           bool // a failed outcome with requests: highlighted
}

func classes() []string {
	var out []string
	for c := range tao.NumClasses {
		out = append(out, c.String())
	}
	return out
}

func kinds() []string {
	var out []string
	for k := range tao.NumKinds {
		out = append(out, k.String())
	}
	return out
}

func ms(us float64) string { return fmt.Sprintf("%.3f", us/1000) }

// describe titles an experiment as the text summary would.
func describe(i int, e *result.Experiment) string {
	s := fmt.Sprintf("Experiment %d: %d threads, %gs warmup, %gs measured", i+1, e.Threads, e.Warmup.Seconds(), e.Measured.Seconds())
	if e.OpenLoop.Rate > 0 {
		s += fmt.Sprintf(", target %s req/s (%s)", num(e.OpenLoop.Rate), e.OpenLoop.Arrival)
	}
	return s
}

func newExpView(id string, i int, e *result.Experiment, res []Field) expView {
	s := e.Sum()
	v := expView{Title: describe(i, e), Fidelity: e.Fidelity, Resources: res}
	ops := s.Requests()
	v.Summary = []Field{
		{"throughput", fmt.Sprintf("%.1f req/s", e.Throughput())},
		{"requests", fmt.Sprint(ops)},
		{"failed", fmt.Sprintf("%d (%.3g%%)", s.Failed(), pctOf(s.Failed(), ops))},
		{"attempts", fmt.Sprint(s.Attempts())},
		{"p50 / p99 (all)", ms(s.Stats(metrics.All).P50) + " / " + ms(s.Stats(metrics.All).P99) + " ms"},
	}
	if e.OpenLoop.Rate > 0 {
		v.Summary = append(v.Summary, Field{"scheduled / not issued / overtime",
			fmt.Sprintf("%d / %d / %d", e.OpenLoop.Scheduled, e.OpenLoop.NotIssued, e.Overtime)})
	}
	if e.Interrupted {
		v.Summary = append(v.Summary, Field{"interrupted", "yes"})
	}
	for _, name := range append(classes(), kinds()...) {
		st := s.Stats(name)
		if st.Count == 0 {
			continue
		}
		v.Latency = append(v.Latency, latRow{Name: name, Count: st.Count, Mean: ms(st.Mean), P50: ms(st.P50),
			P90: ms(st.P90), P99: ms(st.P99), P999: ms(st.P999), Max: ms(st.Max)})
	}
	for o := range tao.NumOutcomes {
		n := s.Outcome(o)
		v.Outcomes = append(v.Outcomes, outRow{Name: o.String(), Count: fmt.Sprint(n),
			Pct: fmt.Sprintf("%.3g%%", pctOf(n, ops)), Failed: n > 0 && o.Failed()})
	}
	c := s.Contention()
	v.Contention = []Field{
		{"object lock conflict", pct(c.ObjectLockConflictPct)},
		{"association lock conflict", pct(c.AssociationLockConflictPct)},
		{"unique association exists", pct(c.UniqueAssociationExistsPct)},
		{"precondition failed", pct(c.PreconditionFailedPct)},
		{"overall", pct(c.OverallPct)},
		{"overall with unique", pct(c.OverallWithUniquePct)},
	}
	v.Endpoints = endpointRows(e)
	v.Timeline = timelineCharts(id, s)
	iv := e.Intervals(result.Confidence)
	if len(v.Timeline) == 2 {
		v.Timeline[1].Bands = latencyBands(e, iv)
	}
	if c := throughputChart(id, e, iv); c != nil {
		v.Timeline = append(v.Timeline, c)
	}
	for _, c := range []*Chart{endpointChart(id, e), endpointCodesChart(id, e)} {
		if c != nil {
			v.Timeline = append(v.Timeline, c)
		}
	}
	v.Dist = append(distCharts(id+"-class", "class", s, classes()), distCharts(id+"-kind", "kind", s, kinds())...)
	var tierCharts []*Chart
	v.Tiers, tierCharts = tierView(id, e)
	for _, c := range e.Concurrent {
		v.Concurrent = append(v.Concurrent, fmt.Sprintf("another taobench run was active on this database during %.3f s of the %.3f s measured window (%s): stale-read verdicts and contention include its writes",
			c.Overlap.Seconds(), e.Measured.Seconds(), c.Describe()))
	}
	v.Dist = append(v.Dist, tierCharts...)
	return v
}

func pctOf(n, d int64) float64 {
	if d == 0 {
		return 0
	}
	return 100 * float64(n) / float64(d)
}

func pct(f float64) string { return fmt.Sprintf("%.4g%%", f) }

// timelineCharts draws the per-second series: requests per second by class,
// and each class's p50 (dashed) and p99, warmup shaded.
func timelineCharts(id string, s *metrics.Summary) []*Chart {
	type point struct{ n, p50, p99 float64 }
	bySec := map[int]*[tao.NumClasses]point{}
	var secs []int
	s.EachSecond(func(sec int, _ bool, c tao.Class, h *hdrhistogram.Histogram) {
		p := bySec[sec]
		if p == nil {
			p = &[tao.NumClasses]point{}
			bySec[sec] = p
			secs = append(secs, sec) // EachSecond goes in order
		}
		p[c] = point{float64(h.TotalCount()), usToMS(h.ValueAtQuantile(50)), usToMS(h.ValueAtQuantile(99))}
	})
	if len(secs) == 0 {
		return nil
	}
	x := make([]float64, len(secs))
	for i, sec := range secs {
		x[i] = float64(sec)
	}
	rps := &Chart{ID: id + "-rps", Title: "Throughput per second", XLabel: "second (from the start of measurement)",
		YLabel: "requests/s", Warmup: true, X: x}
	lat := &Chart{ID: id + "-lat", Title: "Latency per second: p50 (dashed) and p99", XLabel: "second",
		YLabel: "ms", YLog: true, Warmup: true, X: x}
	for c := range tao.NumClasses {
		n, p50, p99 := make([]Num, len(secs)), make([]Num, len(secs)), make([]Num, len(secs))
		seen := false
		for i, sec := range secs {
			p := bySec[sec][c]
			if p.n == 0 {
				n[i], p50[i], p99[i] = Num(math.NaN()), Num(math.NaN()), Num(math.NaN())
				continue
			}
			seen = true
			n[i], p50[i], p99[i] = Num(p.n), Num(p.p50), Num(p.p99)
		}
		if !seen {
			continue
		}
		name := c.String()
		rps.Series = append(rps.Series, Series{Label: name, Color: color(int(c)), Y: n})
		lat.Series = append(lat.Series, Series{Label: name + " p50", Color: color(int(c)), Dash: true, Y: p50},
			Series{Label: name + " p99", Color: color(int(c)), Y: p99})
	}
	return []*Chart{rps, lat}
}

// distCharts draws the latency distribution of the named series from their
// full histograms: the CDF, and the percentile spectrum that shows the tail.
func distCharts(id, what string, s *metrics.Summary, names []string) []*Chart {
	var xs, ys, ks, ls [][]float64
	var labels []string
	var colors []string
	for i, name := range names {
		h := s.Histogram(name)
		if h == nil {
			continue
		}
		x, y := cdf(h)
		k, l := spectrum(h)
		xs, ys, ks, ls = append(xs, x), append(ys, y), append(ks, k), append(ls, l)
		labels, colors = append(labels, name), append(colors, color(i))
	}
	if len(labels) == 0 {
		return nil
	}
	return []*Chart{
		overlay(&Chart{ID: id + "-cdf", Title: "Latency CDF by " + what, XLabel: "latency (ms, log)",
			YLabel: "fraction of requests", XLog: true}, xs, ys, labels, colors),
		overlay(&Chart{ID: id + "-spec", Title: "Percentile spectrum by " + what, XLabel: "percentile",
			YLabel: "latency (ms, log)", YLog: true, XFmt: "nines"}, ks, ls, labels, colors),
	}
}

// overlay puts several series of their own x onto one chart.
func overlay(c *Chart, xs, ys [][]float64, labels, colors []string) *Chart {
	x, y := union(xs, ys)
	c.X = x
	for i := range labels {
		c.Series = append(c.Series, Series{Label: labels[i], Color: colors[i], Y: y[i]})
	}
	return c
}
