package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// pageIntervals is what the page shows of the intervals: the comparison
// table's interval beside each file's throughput, the repeats table's
// interval cells, and each chart's bands and error bars drawn.
type pageIntervals struct {
	Throughput []string          `json:"throughput"`
	Repeats    []string          `json:"repeats"`
	Bands      map[string]int    `json:"bands"`
	Bars       map[string]int    `json:"bars"`
	Errors     map[string]string `json:"errors"`
}

const intervalsJS = `(function () {
  var out = {throughput: [], repeats: [], bands: {}, bars: {}, errors: {}};
  document.querySelectorAll('#compare table.compare tbody tr').forEach(function (tr) {
    if (tr.children[1].textContent !== 'throughput (req/s)') return;
    tr.querySelectorAll('span.ci').forEach(function (s) { if (s.offsetWidth > 0) out.throughput.push(s.textContent.trim()); });
  });
  document.querySelectorAll('table.repeats td.ci').forEach(function (td) { if (td.offsetWidth > 0) out.repeats.push(td.textContent.trim()); });
  document.querySelectorAll('.chart').forEach(function (el) {
    if (el.dataset.bands !== undefined) out.bands[el.id] = +el.dataset.bands;
    if (el.dataset.bars !== undefined) out.bars[el.id] = +el.dataset.bars;
    if (el.dataset.error || el.dataset.drawn !== '1') out.errors[el.id] = el.dataset.error || 'not drawn';
  });
  return out;
})()`

// checkIntervalsInBrowser: the report of a comparison of two repeated
// runs shows the intervals: each file's throughput interval in the
// comparison table, as its results file gives it; the files' throughputs
// with error bars, one per experiment with an interval; error bars on
// the latency-throughput chart's points; the throughput and latency bands
// on the time series; and the repeats' table and chart with the interval
// across repeats.
func checkIntervalsInBrowser(t *testing.T, bctx context.Context, dir, artifacts string) {
	t.Helper()
	files := []string{filepath.Join(dir, "b1.json"), filepath.Join(dir, "b2.json")}
	var wg sync.WaitGroup
	res := make([]cliResult, 2)
	for i, rate := range []string{"3000", "2500"} {
		wg.Go(func() {
			res[i] = cliRun(t, "run", "--db", "null", "--edges", "10000", "--threads", "2", "--rate", rate,
				"--warmup", "0.3", "--duration", "3", "--repeat", "2", "--out", files[i])
		})
	}
	wg.Wait()
	for _, r := range res {
		if r.code != 0 {
			t.Fatalf("run: %v", r)
		}
	}
	page := filepath.Join(dir, "intervals.html")
	cliMust(t, "report", files[0], files[1], "-o", page)
	if b, err := os.ReadFile(page); err == nil {
		_ = os.WriteFile(filepath.Join(artifacts, "intervals.html"), b, 0o644)
	}
	err := chromedp.Do(bctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate("file://"+page),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll('.chart').length > 0 &&
			document.querySelectorAll('.chart').length === document.querySelectorAll('.chart[data-drawn="1"]').length`,
			chromedp.WithPollingTimeout(20*time.Second)))
	if err != nil {
		t.Fatalf("loading the comparison: %v", err)
	}
	got, err := chromedp.Run(bctx, chromedp.Evaluate[pageIntervals](intervalsJS))
	if err != nil {
		t.Fatalf("reading the page: %v", err)
	}
	if shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100)); err == nil {
		_ = os.WriteFile(filepath.Join(artifacts, "intervals-desktop.png"), shot, 0o644)
	}
	// The comparison and its charts alone, legible at a glance.
	for _, sel := range []string{"#compare", "#overview", "#file-0 .exp"} {
		if shot, err := chromedp.Run(bctx, chromedp.Screenshot(sel)); err == nil {
			_ = os.WriteFile(filepath.Join(artifacts, "intervals"+strings.NewReplacer("#", "-", " ", "-", ".", "").Replace(sel)+".png"), shot, 0o644)
		}
	}
	for id, e := range got.Errors {
		t.Errorf("chart %s: %s", id, e)
	}

	type iv struct{ Lo, Hi float64 }
	type doc struct {
		Experiments []struct {
			Intervals struct {
				Throughput *iv
				LatencyUS  map[string]map[string]*iv `json:"latency_us"`
			}
		}
		Repeats struct {
			Configs []struct {
				Throughput struct{ Interval *iv }
			}
		}
	}
	want := make([][]string, 2) // by experiment, then file: the table's order
	bars, sweepBars := 0, 0
	for i, f := range files {
		d, _ := readJSONFile[doc](t, f)
		if len(d.Experiments) != 2 {
			t.Fatalf("%s: %d experiments; want 2 repeats", f, len(d.Experiments))
		}
		for j, e := range d.Experiments {
			tp := e.Intervals.Throughput
			if tp == nil {
				t.Fatalf("%s: experiment %d has no throughput interval after 3 s", f, j+1)
			}
			want[j] = append(want[j], fmt.Sprintf("[%.1f–%.1f]", tp.Lo, tp.Hi))
			bars++
			for _, p := range []string{"p50", "p99"} {
				if e.Intervals.LatencyUS["all"][p] != nil {
					sweepBars++
				}
			}
		}
		lat := 0
		for _, p := range []string{"p50", "p99"} {
			if d.Experiments[0].Intervals.LatencyUS["all"][p] != nil {
				lat++
			}
		}
		id := fmt.Sprintf("f%d-e0", i)
		if got.Bands[id+"-tput"] != 1 || got.Bands[id+"-lat"] != lat {
			t.Errorf("%s: bands drawn: throughput %d, latency %d; want 1 and %d (the intervals its file holds)", f, got.Bands[id+"-tput"], got.Bands[id+"-lat"], lat)
		}
		rt := d.Repeats.Configs[0].Throughput.Interval
		if rt == nil {
			t.Fatalf("%s: no interval across its 2 repeats", f)
		}
		if w := fmt.Sprintf("[%.1f–%.1f]", rt.Lo, rt.Hi); len(got.Repeats) <= 4*i || got.Repeats[4*i] != w {
			t.Errorf("%s: the repeats table's throughput interval %v; want %s first of its 4 figures", f, got.Repeats, w)
		}
		if got.Bars[fmt.Sprintf("f%d-repeats", i)] != 1 {
			t.Errorf("%s: %d error bars on the repeats chart; want 1, the mean's", f, got.Bars[fmt.Sprintf("f%d-repeats", i)])
		}
	}
	if strings.Join(got.Throughput, " ") != strings.Join(append(want[0], want[1]...), " ") {
		t.Errorf("the comparison shows the throughput intervals %q; want the files' %q", got.Throughput, want)
	}
	if got.Bars["compare-tput"] != bars || got.Bars["sweep"] != sweepBars {
		t.Errorf("error bars: %d on the throughput comparison, %d on the latency-throughput chart; want %d and %d", got.Bars["compare-tput"], got.Bars["sweep"], bars, sweepBars)
	}
	t.Logf("intervals on the page: throughput %v, repeats %v, bands %v, bars %v", got.Throughput, got.Repeats, got.Bands, got.Bars)
}
