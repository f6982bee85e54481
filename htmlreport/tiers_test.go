package htmlreport

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
)

func TestTierView(t *testing.T) {
	if rows, charts := tierView("x", &result.Experiment{Summary: metrics.NewSummary()}); rows != nil || charts != nil {
		t.Errorf("a run without tiers: %v, %v", rows, charts)
	}
	c := &result.Consistency{}
	cc := &c.Tiers[tao.TierClientCache]
	cc.Latency, cc.Age = &metrics.Series{}, &metrics.Series{}
	for sec := range 3 {
		for i := range 10 {
			stale := i < sec // 0, 1, 2 stale reads in seconds 0, 1, 2
			q := cc.Second(sec)
			q.Served++
			if stale {
				q.Stale, q.MaxAge = q.Stale+1, time.Duration(sec+1)*100*time.Millisecond
			}
			cc.Served++
			cc.Latency.Record(time.Microsecond)
			if stale {
				cc.Stale++
				cc.Age.Record(time.Duration(sec+1) * 100 * time.Millisecond)
			}
		}
	}
	rows, charts := tierView("x", &result.Experiment{Summary: metrics.NewSummary(), Consistency: c})
	if len(rows) != int(tao.NumTiers) || rows[0].Stale != "3" || rows[0].StaleShare != "10%" {
		t.Errorf("rows %+v", rows)
	}
	byID := map[string]*Chart{}
	for _, ch := range charts {
		byID[ch.ID] = ch
	}
	share, age := byID["x-stale"], byID["x-stale-age"]
	if share == nil || age == nil || byID["x-stale-age-cdf"] == nil {
		t.Fatalf("charts %v", charts)
	}
	if len(share.Series) != 1 || share.Series[0].Y[0] != 0 || share.Series[0].Y[1] != 10 || share.Series[0].Y[2] != 20 {
		t.Errorf("stale share per second: %+v", share.Series)
	}
	if y := age.Series[0].Y; len(y) != 3 || y[0] == y[0] || y[1] != 200 || y[2] != 300 {
		t.Errorf("oldest stale age per second (ms): %v; want none, 200, 300", y)
	}
	if byID["x-tier-lat"] != nil {
		t.Errorf("a latency-by-tier chart with no tiered read at the clients")
	}
}

// staleReads fills t with n reads a second for secs seconds, stale of them
// in second k being k, each stale read k*100 ms old.
func staleReads(t *result.TierStats, n, secs int) {
	t.Latency, t.Age = &metrics.Series{}, &metrics.Series{}
	for sec := range secs {
		for i := range n {
			q := t.Second(sec)
			q.Served++
			t.Served, t.Lookups, t.Hits = t.Served+1, t.Lookups+1, t.Hits+1
			t.Latency.Record(time.Millisecond)
			if i < sec {
				age := time.Duration(sec) * 100 * time.Millisecond
				q.Stale, q.MaxAge = q.Stale+1, age
				t.Stale++
				t.Age.Record(age)
			}
		}
	}
}

// The replicas are a tier of the page as of the JSON and text (db_replica):
// a row of the table, a series of the per-second charts and of the stale
// age CDF, drawn from the file as taobench report reads it. A run whose
// checker ran alone shows no tier table.
func TestReplicaTierOnPage(t *testing.T) {
	e := experiment(20, time.Microsecond)
	e.Consistency = &result.Consistency{Replica: &result.TierStats{}}
	staleReads(e.Consistency.Replica, 10, 3)
	for i := range e.Consistency.Tiers {
		e.Consistency.Tiers[i].Latency, e.Consistency.Tiers[i].Age = &metrics.Series{}, &metrics.Series{}
	}
	f, err := Parse("a.json", encode(t, nil, e))
	if err != nil {
		t.Fatal(err)
	}
	rows, charts := tierView("x", f.Doc.Experiments[0])
	if len(rows) != int(tao.NumTiers)+1 || rows[3].Name != result.ReplicaTier || rows[3].Served != "30" || rows[3].Stale != "3" || rows[3].StaleShare != "10%" {
		t.Errorf("rows %+v; want the replicas' row last: 30 served, 3 stale, 10%%", rows)
	}
	byID := map[string]*Chart{}
	for _, ch := range charts {
		byID[ch.ID] = ch
	}
	for _, id := range []string{"x-stale", "x-stale-age", "x-stale-age-cdf"} {
		ch := byID[id]
		if ch == nil {
			t.Errorf("no chart %s", id)
			continue
		}
		if ch.ID == "x-stale-age-cdf" {
			continue // an overlay: its labels are checked on the page
		}
		if len(ch.Series) != 1 || ch.Series[0].Label != result.ReplicaTier {
			t.Errorf("chart %s: %+v; want the replicas' series", id, ch.Series)
		}
	}
	if s := byID["x-stale"]; s != nil && len(s.Series) == 1 && (s.Series[0].Y[1] != 10 || s.Series[0].Y[2] != 20) {
		t.Errorf("replicas' stale share per second: %v; want 0, 10, 20", s.Series[0].Y)
	}
	var buf bytes.Buffer
	if err := Write(&buf, []*File{f}, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if n := strings.Count(page, result.ReplicaTier); n < 4 {
		t.Errorf("the page names %s %d times; want its table row and three charts' series", result.ReplicaTier, n)
	}
	if !strings.Contains(page, "<td>"+result.ReplicaTier+"</td>") {
		t.Errorf("the page has no table row of %s", result.ReplicaTier)
	}

	e.Consistency = &result.Consistency{CheckOnly: true}
	if rows, charts := tierView("x", e); rows != nil || charts != nil {
		t.Errorf("checker alone: %v, %v; want no tier table", rows, charts)
	}
}

// Each replica has a row of its own after db_replica's, named by its URL,
// with its errors, outages and promotion.
func TestReplicaRowsOnPage(t *testing.T) {
	e := experiment(20, time.Microsecond)
	e.Consistency = &result.Consistency{Replica: &result.TierStats{Errors: 2}, Replicas: []result.ReplicaStats{
		{Name: "postgres://postgres@127.0.0.1:5433/taobench", PromotedAt: time.Date(2026, 11, 29, 1, 25, 41, 0, time.UTC)},
		{Name: "postgres://postgres@127.0.0.1:5434/taobench", TierStats: result.TierStats{Errors: 2}, Outages: 1, Outage: 2600 * time.Millisecond, Longest: 2600 * time.Millisecond},
	}}
	staleReads(e.Consistency.Replica, 10, 3)
	staleReads(&e.Consistency.Replicas[1].TierStats, 10, 3)
	for i := range e.Consistency.Tiers {
		e.Consistency.Tiers[i].Latency, e.Consistency.Tiers[i].Age = &metrics.Series{}, &metrics.Series{}
	}
	f, err := Parse("a.json", encode(t, nil, e))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, []*File{f}, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{
		"<td>replica postgres://postgres@127.0.0.1:5433/taobench</td>", "PROMOTED (left recovery) at 01:25:41.000",
		"<td>replica postgres://postgres@127.0.0.1:5434/taobench</td>", "2 errors; out of rotation 1 time(s), 2.6 s (longest 2.6 s)",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page has no %q", want)
		}
	}
	// Per second, the replica that served reads has a line of its own in
	// the stale charts, read from the file; the one that served none has
	// none.
	_, charts := tierView("x", f.Doc.Experiments[0])
	for _, ch := range charts {
		if ch.ID != "x-stale" && ch.ID != "x-stale-age" {
			continue
		}
		var labels []string
		for _, s := range ch.Series {
			labels = append(labels, s.Label)
		}
		want := []string{result.ReplicaTier, "replica postgres://postgres@127.0.0.1:5434/taobench"}
		if !slices.Equal(labels, want) {
			t.Errorf("chart %s: series %q, want %q", ch.ID, labels, want)
			continue
		}
		if y := ch.Series[1].Y; ch.ID == "x-stale" && (y[0] != 0 || y[1] != 10 || y[2] != 20) {
			t.Errorf("replica 5434's stale share per second: %v; want 0, 10, 20", y)
		}
	}
}

// TestConcurrentRunsOnPage: another run active during the window is said
// beside the stale-read figures; none is said for a run alone.
func TestConcurrentRunsOnPage(t *testing.T) {
	page := func(e *result.Experiment) string {
		f, err := Parse("a.json", encode(t, nil, e))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, []*File{f}, time.Unix(0, 0)); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	e := experiment(20, time.Microsecond)
	if p := page(e); strings.Contains(p, "another taobench run") {
		t.Error("a run alone: the page says another run was active")
	}
	e.Concurrent = []result.ConcurrentRun{{Run: 7, Hosts: []string{"h1"}, PID: 42, Processes: 1, Started: time.Unix(1e9, 0), Overlap: 1500 * time.Millisecond}}
	if p := page(e); !strings.Contains(p, "another taobench run was active on this database during 1.500 s") || !strings.Contains(p, "run 7, started 2001-09-09T01:46:40Z, host h1, pid 42") {
		t.Error("the page does not say the run 7 that was active during the window")
	}
}

// A run over several endpoints (check-only: no tier) has a table row and
// a line per endpoint in the stale charts, read from the file.
func TestEndpointLinesOnPage(t *testing.T) {
	e := experiment(20, time.Microsecond)
	const n1, n2 = "mysql://root@10.0.0.1:3306/t", "mysql://root@10.0.0.3:3306/t"
	e.Consistency = &result.Consistency{CheckOnly: true, Endpoints: []result.ReplicaStats{{Name: n1}, {Name: n2}}}
	staleReads(&e.Consistency.Endpoints[0].TierStats, 10, 1)
	staleReads(&e.Consistency.Endpoints[1].TierStats, 10, 3)
	for i := range e.Consistency.Tiers {
		e.Consistency.Tiers[i].Latency, e.Consistency.Tiers[i].Age = &metrics.Series{}, &metrics.Series{}
	}
	f, err := Parse("a.json", encode(t, nil, e))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, []*File{f}, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{"<td>endpoint " + n1 + "</td>", "<td>endpoint " + n2 + "</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page has no %q", want)
		}
	}
	rows, charts := tierView("x", f.Doc.Experiments[0])
	if len(rows) != 2 {
		t.Errorf("%d table rows; want one per endpoint", len(rows))
	}
	found := false
	for _, ch := range charts {
		if ch.ID != "x-stale" {
			continue
		}
		found = true
		var labels []string
		for _, s := range ch.Series {
			labels = append(labels, s.Label)
		}
		if want := []string{"endpoint " + n1, "endpoint " + n2}; !slices.Equal(labels, want) {
			t.Errorf("stale chart: series %q, want %q", labels, want)
		} else if y := ch.Series[1].Y; y[0] != 0 || y[1] != 10 || y[2] != 20 {
			t.Errorf("endpoint 2's stale share per second: %v; want 0, 10, 20", y)
		}
	}
	if !found {
		t.Error("no stale-per-second chart for the endpoints")
	}
}
