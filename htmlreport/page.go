package htmlreport

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/result"
)

// assets: uPlot 1.6.32 (MIT, uPlot.LICENSE), and the page's own template,
// script and style.
//
//go:embed assets
var assets embed.FS

type page struct {
	Title     string
	Generated string
	Files     []fileView
	Compare   *compareTable
	Overview  []*Chart // throughput-latency, and the files' spectra side by side
	Charts    []*Chart // every chart, for the script
	UPlotJS   template.JS
	UPlotCSS  template.CSS
	Script    template.JS
	Style     template.CSS
	License   string
}

type fileView struct {
	Label   string
	Run     []Field
	Repeats *repeatsView // nil unless the run was repeated
	Exps    []expView
}

// Write writes the page for files, in the order given; the first file is
// the base of comparisons. now stamps the page.
func Write(w io.Writer, files []*File, now time.Time) error {
	if len(files) == 0 {
		return fmt.Errorf("no result files")
	}
	labels := fileLabels(files)
	p := &page{Title: "taobench report: " + strings.Join(labels, ", "), Generated: now.UTC().Format(time.RFC3339)}
	for i, f := range files {
		fv := fileView{Label: labels[i], Run: runFields(f.Doc.Run)}
		for j, e := range f.Doc.Experiments {
			ev := newExpView(fmt.Sprintf("f%d-e%d", i, j), j, e, resourceFields(e.Resources))
			p.Charts = append(append(p.Charts, ev.Timeline...), ev.Dist...)
			fv.Exps = append(fv.Exps, ev)
		}
		if fv.Repeats = newRepeatsView(fmt.Sprintf("f%d", i), f.Doc.Experiments); fv.Repeats != nil {
			p.Charts = append(p.Charts, fv.Repeats.Chart)
		}
		p.Files = append(p.Files, fv)
	}
	p.Compare = newCompare(files, labels)
	if c := sweepChart(files, labels); c != nil {
		c.Bars = sweepBars(files)
		p.Overview = append(p.Overview, c)
	}
	if c := compareChart(files, labels); c != nil {
		p.Overview = append(p.Overview, c)
	}
	if c := spectraChart(files, labels); len(files) > 1 && len(c.Series) > 0 {
		p.Overview = append(p.Overview, c)
	}
	p.Charts = append(p.Charts, p.Overview...)
	for _, a := range []struct {
		name string
		into *string
	}{{"uPlot.iife.min.js", (*string)(&p.UPlotJS)}, {"uPlot.min.css", (*string)(&p.UPlotCSS)},
		{"report.js", (*string)(&p.Script)}, {"report.css", (*string)(&p.Style)}, {"uPlot.LICENSE", &p.License}} {
		b, err := assets.ReadFile("assets/" + a.name)
		if err != nil {
			return err
		}
		*a.into = string(b)
	}
	t, err := template.ParseFS(assets, "assets/page.html")
	if err != nil {
		return err
	}
	return t.Execute(w, p)
}

// fileLabels names files by their base names, or by the paths given when
// two base names are the same.
func fileLabels(files []*File) []string {
	seen := map[string]int{}
	for _, f := range files {
		seen[filepath.Base(f.Name)]++
	}
	var out []string
	for _, f := range files {
		if seen[filepath.Base(f.Name)] > 1 {
			out = append(out, f.Name)
		} else {
			out = append(out, filepath.Base(f.Name))
		}
	}
	return out
}

func runFields(r *result.Run) []Field {
	if r == nil {
		return nil
	}
	g := r.GraphWorkload
	if g == "" {
		g = r.Workload
	}
	return []Field{
		{"database", r.Database}, {"workload", r.Workload},
		{"graph", fmt.Sprintf("%s, %d edges, seed %d", g, r.Edges, r.GraphSeed)},
		{"request seed", fmt.Sprint(r.Seed)}, {"retries", fmt.Sprint(r.Retries)},
		{"started", r.Started.UTC().Format(time.RFC3339)},
		{"taobench", r.Version + " " + r.Revision},
	}
}

// sweepChart is the TAOBench paper's Fig. 15: p50 (dashed) and p99 latency
// of all requests against the throughput achieved, one point per
// experiment, one pair of lines per file; nil unless some file holds
// several experiments.
func sweepChart(files []*File, labels []string) *Chart {
	several := false
	for _, f := range files {
		several = several || len(f.Doc.Experiments) > 1
	}
	if !several {
		return nil
	}
	var xs, ys [][]float64
	var names, colors []string
	var dash []bool
	for i, f := range files {
		var x, p50, p99 []float64
		for _, e := range f.Doc.Experiments {
			st := e.Sum().Stats(metrics.All)
			if st.Count == 0 {
				continue
			}
			x, p50, p99 = append(x, e.Throughput()), append(p50, max(st.P50/1000, lowestMS)), append(p99, max(st.P99/1000, lowestMS))
		}
		if len(x) == 0 {
			continue
		}
		xs, ys = append(xs, x, x), append(ys, p50, p99)
		names = append(names, labels[i]+" p50", labels[i]+" p99")
		colors, dash = append(colors, color(i), color(i)), append(dash, true, false)
	}
	if len(xs) == 0 {
		return nil
	}
	c := overlay(&Chart{ID: "sweep", Title: "Latency against throughput achieved (TAOBench Fig. 15)",
		XLabel: "throughput (req/s)", YLabel: "latency (ms, log)", YLog: true, Points: true}, xs, ys, names, colors)
	for i := range c.Series {
		c.Series[i].Dash = dash[i]
	}
	return c
}

// spectraChart sets the files' percentile spectra of all requests side by
// side, for each experiment they all have.
func spectraChart(files []*File, labels []string) *Chart {
	var ks, ls [][]float64
	var names, colors []string
	for i, f := range files {
		for j, e := range f.Doc.Experiments {
			h := allRequests(e.Sum())
			if h == nil {
				continue
			}
			k, l := spectrum(h)
			ks, ls = append(ks, k), append(ls, l)
			name := labels[i]
			if len(f.Doc.Experiments) > 1 {
				name += fmt.Sprintf(" #%d", j+1)
			}
			colors = append(colors, color(len(names)))
			names = append(names, name)
		}
	}
	return overlay(&Chart{ID: "spectra", Title: "Percentile spectrum of all requests, files side by side",
		XLabel: "percentile", YLabel: "latency (ms, log)", YLog: true, XFmt: "nines"}, ks, ls, names, colors)
}

// allRequests merges the four classes' histograms.
func allRequests(s *metrics.Summary) *hdrhistogram.Histogram {
	var all *hdrhistogram.Histogram
	for _, c := range classes() {
		h := s.Histogram(c)
		if h == nil {
			continue
		}
		if all == nil {
			all = h
		} else {
			all.Merge(h)
		}
	}
	return all
}
