package htmlreport

import (
	"fmt"
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/stats"
	"github.com/taobench/taobench/tao"
)

// Band shades y from Lo to Hi over x from X0 to X1: a figure's confidence
// interval over the window it was measured in.
type Band struct {
	Label string `json:"label"`
	Color string `json:"color"`
	XY    [4]Num `json:"xy"` // x0, x1, lo, hi
}

// Bar is an error bar at (X, Y): Y's interval Lo to Hi and, when XLo <
// XHi, X's too.
type Bar struct {
	Color string `json:"color"`
	V     [6]Num `json:"v"` // x, y, lo, hi, xlo, xhi (null: none)
}

func band(label, color string, x0, x1 float64, iv stats.Interval, div float64) Band {
	return Band{Label: label, Color: color, XY: [4]Num{Num(x0), Num(x1), Num(iv.Lo / div), Num(iv.Hi / div)}}
}

// bar is the error bar of y's interval (÷ div) at x, and of x's interval
// when xiv is Valid.
func bar(color string, x float64, xiv stats.Interval, y stats.Interval, div float64) Bar {
	b := Bar{Color: color, V: [6]Num{Num(x), Num(y.Estimate / div), Num(y.Lo / div), Num(y.Hi / div), Num(math.NaN()), Num(math.NaN())}}
	if xiv.Valid() {
		b.V[4], b.V[5] = Num(xiv.Lo), Num(xiv.Hi)
	}
	return b
}

// throughputChart is all requests per second, warmup included, with the
// run's throughput interval (batch means, docs/results.md "Intervals") as
// a band over the measured window; nil without a time series.
func throughputChart(id string, e *result.Experiment, iv *result.Intervals) *Chart {
	perSec := map[int]int64{}
	var secs []int
	e.Sum().EachSecond(func(sec int, _ bool, _ tao.Class, h *hdrhistogram.Histogram) {
		if _, ok := perSec[sec]; !ok {
			secs = append(secs, sec)
		}
		perSec[sec] += h.TotalCount()
	})
	if len(secs) == 0 {
		return nil
	}
	c := &Chart{ID: id + "-tput", Title: "Throughput per second, all requests, with its 95% interval (band)", XLabel: "second (from the start of measurement)",
		YLabel: "requests/s", Warmup: true}
	y := make([]Num, len(secs))
	for i, sec := range secs {
		c.X = append(c.X, float64(sec))
		y[i] = Num(perSec[sec])
	}
	c.Series = []Series{{Label: "all requests", Color: color(0), Y: y}}
	if iv.Throughput.Valid() {
		c.Bands = append(c.Bands, band(fmt.Sprintf("throughput %.1f req/s, 95%% interval", iv.Throughput.Estimate), color(0), 0, e.Measured.Seconds(), iv.Throughput, 1))
	}
	return c
}

// latencyBands are the intervals of all requests' p50 and p99 (ms) over
// the measured window, for the latency-per-second chart.
func latencyBands(e *result.Experiment, iv *result.Intervals) []Band {
	var out []Band
	for _, p := range []string{"p50", "p99"} {
		if x, ok := iv.Percentile(metrics.All, p); ok && x.Valid() {
			out = append(out, band("all "+p+", 95% interval", "#555555", 0, e.Measured.Seconds(), x, 1000))
		}
	}
	return out
}

// sweepBars are the error bars of the sweep chart's points: each
// experiment's p50 and p99 interval, and its throughput's.
func sweepBars(files []*File) []Bar {
	var out []Bar
	for i, f := range files {
		for _, e := range f.Doc.Experiments {
			if e.Sum().Stats(metrics.All).Count == 0 {
				continue
			}
			iv := e.Intervals(result.Confidence)
			for _, p := range []string{"p50", "p99"} {
				if y, ok := iv.Percentile(metrics.All, p); ok && y.Valid() {
					out = append(out, bar(color(i), e.Throughput(), iv.Throughput, y, 1000))
				}
			}
		}
	}
	return out
}

// compareChart sets the files' throughputs side by side with their
// intervals as error bars: x is the file's place in the comparison (1:
// the base), a series per experiment; nil for a single file.
func compareChart(files []*File, labels []string) *Chart {
	if len(files) < 2 {
		return nil
	}
	n := len(files[0].Doc.Experiments)
	for _, f := range files {
		n = min(n, len(f.Doc.Experiments))
	}
	if n == 0 {
		return nil
	}
	title := "Throughput with 95% intervals (error bars), by file:"
	for i, l := range labels {
		title += fmt.Sprintf(" %d %s", i+1, l)
	}
	c := &Chart{ID: "compare-tput", Title: title, XLabel: "file", YLabel: "requests/s", Points: true}
	measured := false
	for _, f := range files {
		for _, e := range f.Doc.Experiments[:n] {
			measured = measured || e.Sum().Requests() > 0
		}
	}
	if !measured {
		return nil
	}
	for j := range files {
		c.X = append(c.X, float64(j+1))
	}
	for i := range n {
		y := make([]Num, len(files))
		for j, f := range files {
			e := f.Doc.Experiments[i]
			y[j] = Num(e.Throughput())
			if iv := e.Intervals(result.Confidence).Throughput; iv.Valid() {
				c.Bars = append(c.Bars, bar(color(i), float64(j+1), stats.Interval{}, iv, 1))
			}
		}
		c.Series = append(c.Series, Series{Label: fmt.Sprintf("experiment %d", i+1), Color: color(i), Y: y})
	}
	return c
}

// repeatsView is a repeated run's summary (result.Repeats): a row per
// configuration and figure, and a chart of each repeat's throughput with
// the mean's interval as an error bar.
type repeatsView struct {
	Rows  []repeatRow
	Chart *Chart
}

type repeatRow struct {
	Config, Figure, Values, Mean, Interval string
}

func newRepeatsView(id string, exps []*result.Experiment) *repeatsView {
	rs := result.Repeats(exps, result.Confidence)
	if rs == nil {
		return nil
	}
	v := &repeatsView{}
	c := &Chart{ID: id + "-repeats", Title: "Throughput in each repeat, and the mean's 95% interval across repeats (error bars)",
		XLabel: "configuration", YLabel: "requests/s", Points: true}
	repeats := 0
	for _, r := range rs {
		repeats = max(repeats, len(r.Experiments))
		c.X = append(c.X, float64(r.Config+1))
	}
	for k := range repeats {
		y := make([]Num, len(rs))
		for j, r := range rs {
			y[j] = Num(math.NaN())
			if k < len(r.Throughput.Values) {
				y[j] = Num(r.Throughput.Values[k])
			}
		}
		c.Series = append(c.Series, Series{Label: fmt.Sprintf("repeat %d", k+1), Color: color(k), Y: y})
	}
	mean := make([]Num, len(rs))
	for j, r := range rs {
		mean[j] = Num(r.Throughput.Estimate)
		if r.Throughput.Valid() {
			c.Bars = append(c.Bars, bar("#000000", float64(r.Config+1), stats.Interval{}, r.Throughput, 1))
		}
		cfg := fmt.Sprintf("%d (experiments %s)", r.Config+1, expNumbers(r.Experiments))
		for _, f := range []struct {
			name   string
			iv     stats.Interval
			div    float64
			format string
		}{{"throughput (req/s)", r.Throughput, 1, "%.1f"}, {"failed (%)", r.ErrorPct, 1, "%.3g"},
			{"p50 all (ms)", r.P50, 1000, "%.3f"}, {"p99 all (ms)", r.P99, 1000, "%.3f"}} {
			row := repeatRow{Config: cfg, Figure: f.name, Mean: fmt.Sprintf(f.format, f.iv.Estimate/f.div)}
			for i, x := range f.iv.Values {
				if i > 0 {
					row.Values += ", "
				}
				row.Values += fmt.Sprintf(f.format, x/f.div)
			}
			if f.iv.Valid() {
				row.Interval = fmt.Sprintf(f.format+"–"+f.format, f.iv.Lo/f.div, f.iv.Hi/f.div)
			}
			v.Rows = append(v.Rows, row)
			cfg = ""
		}
	}
	c.Series = append(c.Series, Series{Label: "mean", Color: "#000000", Y: mean})
	v.Chart = c
	return v
}

func expNumbers(idx []int) string {
	s := ""
	for i, x := range idx {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(x + 1)
	}
	return s
}
