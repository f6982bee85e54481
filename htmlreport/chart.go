package htmlreport

import (
	"math"
	"sort"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Chart is what the page's script draws with uPlot: one x array shared by
// every series, as uPlot wants, and nulls (NaN here) where a series has no
// point. Go prepares the data so the script stays a thin renderer.
type Chart struct {
	ID     string    `json:"id"`
	Title  string    `json:"title"`
	XLabel string    `json:"xlabel"`
	YLabel string    `json:"ylabel"`
	XLog   bool      `json:"xlog"`
	YLog   bool      `json:"ylog"`
	XFmt   string    `json:"xfmt"`   // "" plain, "nines": x is -log10(1-q), labelled as a percentile
	Warmup bool      `json:"warmup"` // shade x < 0 as the warmup
	Points bool      `json:"points"` // mark every point (sparse data)
	X      []float64 `json:"x"`
	Series []Series  `json:"series"`
	// Bands and Bars are confidence intervals drawn over the data
	// (intervals.go); the browser test counts those drawn.
	Bands []Band `json:"bands,omitempty"`
	Bars  []Bar  `json:"bars,omitempty"`
}

// Series is one line of a chart.
type Series struct {
	Label string `json:"label"`
	Color string `json:"color"`
	Dash  bool   `json:"dash"`
	Y     []Num  `json:"y"`
}

// Num is a float that encodes NaN as null, uPlot's "no point".
type Num float64

// MarshalJSON writes null for NaN and infinities, else the shortest form.
func (n Num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return []byte(num(roundSig(f, 6))), nil
}

func roundSig(f float64, digits int) float64 {
	if f == 0 {
		return 0
	}
	p := math.Pow(10, float64(digits)-math.Ceil(math.Log10(math.Abs(f))))
	return math.Round(f*p) / p
}

// Colors: one per request class, then more for kinds and files.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf",
	"#8c564b", "#e377c2", "#bcbd22", "#7f7f7f", "#393b79", "#ad494a", "#637939", "#843c39", "#5254a3"}

func color(i int) string { return palette[i%len(palette)] }

// lowestMS is the histograms' lowest value, 1 µs: latencies below it are
// counted as 0, which log axes cannot show, so charts show them at 1 µs.
const lowestMS = 0.001

func usToMS(us int64) float64 { return max(float64(us)/1000, lowestMS) }

// cdf returns a histogram's cumulative distribution as (latency in ms,
// fraction at or below), keeping a point every 3% of latency so that a
// wide histogram stays a few hundred points.
func cdf(h *hdrhistogram.Histogram) (x, y []float64) {
	total := float64(h.TotalCount())
	if total == 0 {
		return nil, nil
	}
	var cum int64
	last := 0.0
	bars := h.Distribution()
	for i, b := range bars {
		if b.Count == 0 && i != len(bars)-1 {
			continue
		}
		cum += b.Count
		v := usToMS(b.To)
		if v >= last*1.03 || cum == h.TotalCount() {
			x, y = append(x, v), append(y, float64(cum)/total)
			last = v
		}
		if cum == h.TotalCount() {
			break
		}
	}
	return x, y
}

// spectrumStep is the spacing of the percentile spectrum in "nines".
const spectrumStep = 0.05

// spectrum returns latency (ms) at quantiles q = 1 - 10^-k for k = 0,
// 0.05, ... up to the nines the sample count supports (at most 6), ending
// at the maximum when there are fewer than a million: the HdrHistogram
// percentile distribution.
func spectrum(h *hdrhistogram.Histogram) (k, ms []float64) {
	n := h.TotalCount()
	if n == 0 {
		return nil, nil
	}
	top := math.Min(6, math.Log10(float64(n)))
	for i := 0; float64(i)*spectrumStep <= top+1e-9; i++ {
		kk := float64(i) * spectrumStep
		q := 100 * (1 - math.Pow(10, -kk))
		k, ms = append(k, kk), append(ms, usToMS(h.ValueAtQuantile(q)))
	}
	if k[len(k)-1] < top {
		k, ms = append(k, top), append(ms, usToMS(h.Max()))
	}
	return k, ms
}

// union merges sorted x arrays and places each series' y on the merged x
// (NaN where it has none), for uPlot's single x array.
func union(xs [][]float64, ys [][]float64) (x []float64, out [][]Num) {
	seen := map[float64]bool{}
	for _, a := range xs {
		for _, v := range a {
			if !seen[v] {
				seen[v] = true
				x = append(x, v)
			}
		}
	}
	sort.Float64s(x)
	at := make(map[float64]int, len(x))
	for i, v := range x {
		at[v] = i
	}
	for s := range xs {
		y := make([]Num, len(x))
		for i := range y {
			y[i] = Num(math.NaN())
		}
		for i, v := range xs[s] {
			y[at[v]] = Num(ys[s][i])
		}
		out = append(out, y)
	}
	return x, out
}
