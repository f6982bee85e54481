package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/taobench/taobench/internal/testenv"
)

// chromiumPath is Debian's chromium, the browser the report is tested in
// (a test tool's own browser download cannot work on this network).
const chromiumPath = "/usr/bin/chromium"

// chartState is what the page reports of one chart after drawing it.
type chartState struct {
	ID      string `json:"id"`
	Drawn   bool   `json:"drawn"`
	Error   string `json:"error"`
	Points  []int  `json:"points"`
	Series  int    `json:"series"`
	Colored int    `json:"colored"` // canvas pixels in a series' colour
	Width   int    `json:"width"`
}

// chartsJS reads every chart's state; Colored counts opaque pixels within a
// small distance of one of the chart's series colours, so axes, grid and
// the warmup band do not count, only drawn data.
const chartsJS = `Array.from(document.querySelectorAll('.chart')).map(function (el) {
  var colors = JSON.parse(el.dataset.colors || '[]').map(function (h) {
    return [parseInt(h.slice(1, 3), 16), parseInt(h.slice(3, 5), 16), parseInt(h.slice(5, 7), 16)];
  });
  var cv = el.querySelector('canvas'), colored = 0;
  if (cv && cv.width > 0) {
    var d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
    for (var i = 0; i < d.length; i += 4) {
      if (d[i + 3] < 200) continue;
      for (var c = 0; c < colors.length; c++) {
        if (Math.abs(d[i] - colors[c][0]) + Math.abs(d[i + 1] - colors[c][1]) + Math.abs(d[i + 2] - colors[c][2]) < 40) { colored++; break; }
      }
    }
  }
  return {id: el.id, drawn: el.dataset.drawn === '1', error: el.dataset.error || '',
    points: JSON.parse(el.dataset.points || '[]'), series: colors.length, colored: colored,
    width: cv ? Math.round(cv.getBoundingClientRect().width) : 0};
})`

// TestReportInBrowser generates a report of a run and a sweep and opens it
// in headless Chromium at desktop and phone widths: no console errors or
// exceptions, every chart drawn with the points its data holds and pixels
// of its series' colours, no horizontal overflow on the phone; screenshots
// and the page go to $TAOBENCH_ARTIFACTS (else a temporary directory).
func TestReportInBrowser(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		msg := fmt.Sprintf("no %s (%v): install Debian's chromium (apt-get install -y --no-install-recommends chromium) to test the HTML report in a browser", chromiumPath, err)
		if testenv.Required() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	artifacts := os.Getenv("TAOBENCH_ARTIFACTS")
	if artifacts == "" {
		artifacts = t.TempDir()
	} else if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	actx, cancelA := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(chromiumPath), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1280, 900))
	defer cancelA()
	bctx, cancelB := chromedp.NewContext(actx)
	defer cancelB()

	var mu sync.Mutex
	var problems []string
	err := chromedp.Listen(bctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				var args []string
				for _, a := range ev.Args {
					args = append(args, a.Description+string(a.Value))
				}
				problems = append(problems, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			problems = append(problems, "exception: "+msg)
		}
	})
	if err != nil {
		t.Fatalf("starting %s: %v", chromiumPath, err)
	}
	dir := t.TempDir()
	a, s := reportInputs(t, dir)
	// A run with a client cache under workload a's writes: stale reads,
	// whose charts the page must draw too.
	tiered := filepath.Join(dir, "tiers.json")
	cliMust(t, "run", "--db", "sqlite:"+filepath.Join(dir, "t.db"), "--workload", "a", "--edges", "1000", "--threads", "4",
		"--warmup", "0.5", "--duration", "3", "--client-cache-ttl", "1s", "--out", tiered)
	page := filepath.Join(dir, "report.html")
	if r := cliRun(t, "report", a, s, tiered, "-o", page); r.code != 0 {
		t.Fatalf("report: %v", r)
	}
	if b, err := os.ReadFile(page); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(filepath.Join(artifacts, "report.html"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	wantRPS := timelineSeconds(t, a, 0)
	for _, view := range []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"desktop", 1280, 900, false}, {"phone", 390, 844, true}} {
		var emulate []chromedp.EmulateViewportOption
		if view.mobile {
			emulate = append(emulate, chromedp.EmulateMobile, chromedp.EmulateTouch)
		}
		err := chromedp.Do(bctx,
			chromedp.EmulateViewport(view.width, view.height, emulate...),
			chromedp.Navigate("file://"+page),
			chromedp.Poll[chromedp.Void](`document.querySelectorAll('.chart').length > 0 &&
				document.querySelectorAll('.chart').length === document.querySelectorAll('.chart[data-drawn="1"]').length`,
				chromedp.WithPollingTimeout(20*time.Second)))
		if err != nil {
			t.Fatalf("%s: loading the report: %v", view.name, err)
		}
		states, err := chromedp.Run(bctx, chromedp.Evaluate[[]chartState](chartsJS))
		if err != nil {
			t.Fatalf("%s: reading the charts: %v", view.name, err)
		}
		overflow, err := chromedp.Run(bctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`))
		if err != nil {
			t.Fatal(err)
		}
		shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("%s: screenshot: %v", view.name, err)
		}
		shotPath := filepath.Join(artifacts, "report-"+view.name+".png")
		if err := os.WriteFile(shotPath, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d charts; screenshot %s", view.name, len(states), shotPath)
		checkCharts(t, view.name, int(view.width), states, wantRPS)
		checkTierCharts(t, view.name, states, tiered)
		if overflow {
			t.Errorf("%s: the page is wider than the %d px screen", view.name, view.width)
		}
	}
	checkIntervalsInBrowser(t, bctx, dir, artifacts)
	checkEndpointsInBrowser(t, bctx, dir, artifacts)
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Errorf("in the browser: %s", p)
	}
}

// checkCharts checks every chart the page drew against its data: the
// run's and the sweep's charts are all there, every series has points, the
// throughput chart as many as the timeline has seconds per class, the sweep
// chart one per step, and each canvas shows its series' colours.
func checkCharts(t *testing.T, view string, width int, states []chartState, wantRPS map[string]int) {
	t.Helper()
	byID := map[string]chartState{}
	for _, c := range states {
		byID[c.ID] = c
		if !c.Drawn || c.Error != "" {
			t.Errorf("%s: chart %s not drawn (error %q)", view, c.ID, c.Error)
			continue
		}
		if len(c.Points) != c.Series || c.Series == 0 {
			t.Errorf("%s: chart %s: %d series drawn, %d in its data", view, c.ID, len(c.Points), c.Series)
		}
		for i, n := range c.Points {
			if n == 0 {
				t.Errorf("%s: chart %s: series %d has no points", view, c.ID, i)
			}
		}
		if c.Colored < 50 {
			t.Errorf("%s: chart %s: %d pixels of its series' colours; its data is not on the canvas", view, c.ID, c.Colored)
		}
		if c.Width > width || c.Width < width/4 {
			t.Errorf("%s: chart %s is %d px wide on a %d px screen", view, c.ID, c.Width, width)
		}
	}
	for _, id := range []string{"f0-e0-rps", "f0-e0-lat", "f0-e0-class-cdf", "f0-e0-class-spec", "f0-e0-kind-cdf",
		"f0-e0-kind-spec", "f1-e1-rps", "f1-e1-kind-spec", "sweep", "spectra"} {
		if _, ok := byID[id]; !ok {
			t.Errorf("%s: no chart %s", view, id)
		}
	}
	// The run's classes in the order the chart draws them, those with requests.
	var want []int
	for _, class := range []string{"read", "write", "read_txn", "write_txn"} {
		if n := wantRPS[class]; n > 0 {
			want = append(want, n)
		}
	}
	if got := byID["f0-e0-rps"].Points; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s: throughput chart points by class %v, want the timeline's seconds %v", view, got, want)
	}
	// a.json p50, p99 (one experiment), s.json p50, p99 (two steps),
	// tiers.json p50, p99 (one experiment).
	if got := byID["sweep"].Points; fmt.Sprint(got) != "[1 1 2 2 1 1]" {
		t.Errorf("%s: latency-throughput chart points %v, want [1 1 2 2 1 1]", view, got)
	}
}

// checkTierCharts checks the read tiers' charts of the third file (f2):
// stale share per second with a point per second each tier served reads
// in, and, as the run had stale reads, their age per second and as a CDF,
// and the reads' latency by tier.
func checkTierCharts(t *testing.T, view string, states []chartState, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Experiments []struct {
			Consistency struct {
				Tiers map[string]struct {
					Stale     int64
					PerSecond []struct{ Served, Stale int64 } `json:"per_second"`
				}
			}
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	cc := doc.Experiments[0].Consistency.Tiers["client_cache"]
	if cc.Stale == 0 {
		t.Fatalf("the client-cache run had no stale read: nothing for the stale charts to show")
	}
	byID := map[string]chartState{}
	for _, c := range states {
		byID[c.ID] = c
	}
	for _, id := range []string{"f2-e0-stale", "f2-e0-stale-age", "f2-e0-stale-age-cdf", "f2-e0-tier-lat"} {
		if _, ok := byID[id]; !ok {
			t.Errorf("%s: no chart %s", view, id)
		}
	}
	// Series in tier order, those that served reads: client_cache first.
	want := 0
	for _, s := range cc.PerSecond {
		if s.Served > 0 {
			want++
		}
	}
	if c := byID["f2-e0-stale"]; len(c.Points) == 0 || c.Points[0] != want {
		t.Errorf("%s: stale share chart: points %v; want %d for client_cache", view, c.Points, want)
	}
}
