package testenv

import (
	"bufio"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// Scrape fetches addr's /metrics (a taobench --metrics-addr server) and
// returns the taobench_ samples, keyed by the series as the text format
// writes them.
func Scrape(t testing.TB, addr string) map[string]float64 {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape: %s", resp.Status)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		l := sc.Text()
		if !strings.HasPrefix(l, "taobench_") {
			continue
		}
		i := strings.LastIndexByte(l, ' ')
		v, err := strconv.ParseFloat(l[i+1:], 64)
		if err != nil {
			t.Fatalf("scrape: line %q: %v", l, err)
		}
		out[l[:i]] = v
	}
	return out
}
