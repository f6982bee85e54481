package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// checkEndpointsInBrowser: the report of a run over two endpoints (of one
// SQLite file) draws the chart of each endpoint's requests served per
// second, a line with points for each endpoint, in its colours.
func checkEndpointsInBrowser(t *testing.T, bctx context.Context, dir, artifacts string) {
	t.Helper()
	db := "sqlite:" + filepath.Join(dir, "endpoints.db")
	out := filepath.Join(dir, "endpoints.json")
	cliMust(t, "run", "--db", db, "--db", db, "--workload", "a", "--edges", "1000", "--threads", "4",
		"--warmup", "0", "--duration", "2", "--out", out)
	page := filepath.Join(dir, "endpoints.html")
	cliMust(t, "report", out, "-o", page)
	err := chromedp.Do(bctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate("file://"+page),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll('.chart').length > 0 &&
			document.querySelectorAll('.chart').length === document.querySelectorAll('.chart[data-drawn="1"]').length`,
			chromedp.WithPollingTimeout(20*time.Second)))
	if err != nil {
		t.Fatalf("loading the endpoints' report: %v", err)
	}
	states, err := chromedp.Run(bctx, chromedp.Evaluate[[]chartState](chartsJS))
	if err != nil {
		t.Fatalf("reading the charts: %v", err)
	}
	if shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100)); err == nil {
		_ = os.WriteFile(filepath.Join(artifacts, "endpoints-desktop.png"), shot, 0o644)
	}
	for _, c := range states {
		if c.ID != "f0-e0-endpoints" {
			continue
		}
		// Two seconds measured: 2 points on each endpoint's line.
		if !c.Drawn || c.Error != "" || len(c.Points) != 2 || c.Points[0] < 2 || c.Points[1] < 2 || c.Colored < 50 {
			t.Errorf("endpoint chart %+v: want 2 lines of at least 2 points drawn in their colours", c)
		}
		return
	}
	t.Errorf("no endpoint chart among %d charts", len(states))
}
