package htmlreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
)

// experiment records n requests per second for seconds -1 (warmup) to 2,
// each class at its own latency times scale.
func experiment(n int, scale time.Duration) *result.Experiment {
	r := metrics.NewRecorder()
	for sec := -1; sec <= 2; sec++ {
		for i := range n {
			for c, k := range []tao.Kind{tao.ObjRead, tao.ObjAdd} {
				r.Record(&metrics.Sample{Class: tao.Class(c), Kind: k, Outcome: tao.OK, Attempts: 1,
					Latency: scale * time.Duration(100+i), At: time.Duration(sec)*time.Second + time.Millisecond,
					Warmup: sec < 0})
			}
		}
	}
	return &result.Experiment{Threads: 2, Warmup: time.Second, Duration: 3 * time.Second,
		Measured: 3 * time.Second, TotalRuntime: 4 * time.Second, Summary: r.Snapshot()}
}

// Parse reads one result document as taobench report does: through
// result.ReadJSON, so the page sees what a file holds.
func Parse(name string, data []byte) (*File, error) {
	doc, err := result.ReadJSON(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return &File{Name: name, Doc: doc}, nil
}

// encode writes a result document, adding extra to its first experiment.
func encode(t *testing.T, extra map[string]any, exps ...*result.Experiment) []byte {
	t.Helper()
	var buf bytes.Buffer
	run := &result.Run{Database: "null", Workload: "o", Edges: 100}
	if err := result.WriteJSON(&buf, run, exps); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for k, v := range extra {
		doc["experiments"].([]any)[0].(map[string]any)[k] = v
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestResourceFields: what the experiment cost, as result.Resources holds
// it, read back from its JSON.
func TestResourceFields(t *testing.T) {
	t.Parallel()
	x := experiment(10, time.Microsecond)
	x.Resources = &result.Resources{Interval: time.Second,
		Driver: result.DriverUsage{User: 1500 * time.Millisecond, Sys: 500 * time.Millisecond, CPUPct: 12.5, MaxRSS: 3 << 20,
			Samples: []result.DriverSample{{At: time.Second, CPUPct: 12, RSS: 2 << 20}, {At: 2 * time.Second, CPUPct: 13, RSS: 3 << 20}}},
		Server: &result.ServerUsage{Engine: "postgres",
			Before: result.ServerState{SizeBytes: map[string]int64{"edges": 1 << 20}},
			After:  result.ServerState{SizeBytes: map[string]int64{"edges": 2 << 20}},
			Deltas: map[string]int64{"xact_commit": 40, "deadlocks": 0}, TableDeltas: map[string]map[string]int64{"edges": {"n_tup_ins": 7}}}}
	f, err := Parse("a.json", encode(t, nil, x))
	if err != nil {
		t.Fatal(err)
	}
	got := resourceFields(f.Doc.Experiments[0].Resources)
	want := []Field{{"driver CPU (% of a core)", "12.5"}, {"driver CPU user / sys (s)", "1.5 / 0.5"}, {"driver RSS, largest (MiB)", "3"},
		{"driver samples", "2"}, {"server", "postgres"}, {"size of edges (MiB), before → after", "1 → 2"},
		{"Δ xact_commit", "40"}, {"Δ edges.n_tup_ins", "7"}}
	if len(got) != len(want) {
		t.Fatalf("resources = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("resources[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	if r := resourceFields(nil); r != nil {
		t.Errorf("no resources gave %v", r)
	}
}

func TestDistributions(t *testing.T) {
	t.Parallel()
	h := experiment(1000, time.Microsecond).Sum().Histogram("read")
	x, y := cdf(h)
	if len(x) < 10 || y[len(y)-1] != 1 {
		t.Fatalf("cdf: %d points, ending at %v; want many, ending at 1", len(x), y[len(y)-1])
	}
	for i := 1; i < len(x); i++ {
		if x[i] <= x[i-1] || y[i] < y[i-1] {
			t.Fatalf("cdf not increasing at %d: (%v,%v) after (%v,%v)", i, x[i], y[i], x[i-1], y[i-1])
		}
	}
	k, l := spectrum(h)
	// 3000 measured values: up to log10(3000) = 3.48 nines, the maximum.
	if k[0] != 0 || k[len(k)-1] < 3.47 || k[len(k)-1] > 3.48 {
		t.Errorf("spectrum spans %v to %v nines; want 0 to 3.48", k[0], k[len(k)-1])
	}
	// Latencies 100..1099 µs: p50 near 0.6 ms, the top 1.099 ms.
	if l[0] < 0.099 || l[0] > 0.101 || l[len(l)-1] < 1.09 || l[len(l)-1] > 1.1 {
		t.Errorf("spectrum from %v to %v ms; want 0.1 to 1.1", l[0], l[len(l)-1])
	}
}

func TestCompareMarksWorse(t *testing.T) {
	t.Parallel()
	fast, slow := experiment(50, time.Microsecond), experiment(50, 10*time.Microsecond)
	slow.Measured *= 2 // half the throughput
	files := []*File{{Name: "a.json", Doc: &result.Doc{Experiments: []*result.Experiment{fast}}},
		{Name: "b.json", Doc: &result.Doc{Experiments: []*result.Experiment{slow}}}}
	c := newCompare(files, []string{"a", "b"})
	rows := map[string]compareRow{}
	for _, r := range append(c.Rows, c.Class...) {
		rows[r.Metric] = r
	}
	if len(c.Rows) != 5 || len(c.Class) != 4 {
		t.Errorf("%d headline rows and %d per class, want 5 and 4 (p50, p99 of read and write)", len(c.Rows), len(c.Class))
	}
	tp, p99 := rows["throughput (req/s)"], rows["p99 read (ms)"]
	if !tp.Cells[1].Worse || !tp.Cells[0].Better || tp.Cells[1].Delta != "-50.0%" {
		t.Errorf("throughput halved: %+v; want b worse by -50.0%%", tp.Cells)
	}
	if !p99.Cells[1].Worse || p99.Cells[0].Worse || p99.Cells[1].Delta != "+900%" {
		t.Errorf("p99 ten times: %+v; want b worse, +900%%", p99.Cells)
	}
	if f := rows["failed (% of requests)"]; f.Cells[0].Worse || f.Cells[1].Worse {
		t.Errorf("equal failures marked: %+v", f.Cells)
	}
	if _, ok := rows["p50 read_txn (ms)"]; ok {
		t.Errorf("a class without requests is compared")
	}
}

func TestWritePage(t *testing.T) {
	t.Parallel()
	withRes := experiment(20, time.Microsecond)
	withRes.Resources = &result.Resources{Interval: time.Second, Driver: result.DriverUsage{CPUPct: 1.5, MaxRSS: 1 << 20}}
	a, err := Parse("dir/a.json", encode(t, nil, withRes, experiment(40, 2*time.Microsecond)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse("b.json", encode(t, nil, experiment(20, 3*time.Microsecond)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, []*File{a, b}, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{"uPlot (v1.6.32)", `id="compare"`, `id="sweep"`, `id="spectra"`, `id="f0-e1-rps"`,
		`id="f1-e0-kind-spec"`, "<th>driver CPU (% of a core)</th>", "Resources", "MIT License"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, " src=") || strings.Contains(page, `href="http`) || strings.Contains(page, "@import") {
		t.Errorf("the page loads something from the network")
	}
	if n := strings.Count(page, "<h4>Resources</h4>"); n != 1 {
		t.Errorf("%d resources tables, want 1 (only a.json's first experiment has one)", n)
	}
	// Experiments without requests draw nothing and break nothing.
	empty := &result.Experiment{Threads: 1}
	e, err := Parse("e.json", encode(t, nil, empty, empty))
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := Write(&buf, []*File{e, e}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), `class="chart"`); n != 0 {
		t.Errorf("%d charts of experiments without requests, want none", n)
	}
	if err := Write(&buf, nil, time.Now()); err == nil {
		t.Error("Write of no files: no error")
	}
}

// TestCompareOpenLoop: open-loop throughputs that all reach their target
// differ by chance and are not marked; one that falls short is.
func TestCompareOpenLoop(t *testing.T) {
	t.Parallel()
	open := func(n int, notIssued int64) *result.Experiment {
		e := experiment(n, time.Microsecond)
		e.OpenLoop = result.OpenLoop{Rate: 100, Arrival: "poisson", Scheduled: 300, NotIssued: notIssued}
		return e
	}
	for _, c := range []struct {
		notIssued int64
		marked    bool
	}{{0, false}, {100, true}} {
		files := []*File{{Name: "a", Doc: &result.Doc{Experiments: []*result.Experiment{open(100, 0)}}},
			{Name: "b", Doc: &result.Doc{Experiments: []*result.Experiment{open(90, c.notIssued)}}}}
		row := newCompare(files, []string{"a", "b"}).Rows[0]
		if row.Metric != "throughput (req/s)" || row.Cells[1].Worse != c.marked {
			t.Errorf("b not issuing %d of 300: %s %+v, want marked worse %v", c.notIssued, row.Metric, row.Cells, c.marked)
		}
	}
}

// TestFidelityFailMarked: a fidelity row that failed is marked in red, one
// that passed is not.
func TestFidelityFailMarked(t *testing.T) {
	t.Parallel()
	e := experiment(20, time.Microsecond)
	e.Fidelity = []result.FidelityRow{
		{Figure: "figure that passed", Verdict: result.Pass},
		{Figure: "figure that failed", Verdict: result.Fail},
	}
	f := &File{Name: "a.json", Doc: &result.Doc{Run: &result.Run{Database: "null", Workload: "o"}, Experiments: []*result.Experiment{e}}}
	var buf bytes.Buffer
	if err := Write(&buf, []*File{f}, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	for figure, marked := range map[string]bool{"figure that passed": false, "figure that failed": true} {
		if got := strings.Contains(buf.String(), `<tr class="worse"><td>`+figure+"</td>"); got != marked {
			t.Errorf("%s: marked worse %v, want %v", figure, got, marked)
		}
	}
}

// TestEndpointsTable: a run over several endpoints shows an Endpoints
// table, a row each, the one that lost requests marked, its codes and its
// server's certification failures beside its requests.
func TestEndpointsTable(t *testing.T) {
	e := experiment(20, time.Microsecond)
	lost := experiment(5, time.Microsecond)
	lost.Summary.Merge(experimentWith(tao.Error).Summary)
	// A third endpoint answered in seconds 0 and 2 only: second 1 is an
	// outage.
	r := metrics.NewRecorder()
	for sec, o := range []tao.Outcome{tao.OK, tao.Error, tao.OK} {
		r.Record(&metrics.Sample{Class: tao.Read, Kind: tao.ObjRead, Outcome: o, Attempts: 1, Latency: time.Millisecond, At: time.Duration(sec)*time.Second + time.Millisecond})
	}
	e.Endpoints = []result.Endpoint{
		{Name: "mysql://bench:xxxxx@n3/t", Weight: 1, Clients: 1, Summary: r.Snapshot(),
			ErrorCodes:    result.ErrorCodes{{Outcome: tao.Error, Code: "08S01"}: 1},
			CodesBySecond: result.CodesBySecond{nil, {{Outcome: tao.Error, Code: "08S01"}: 1}}},
		{Name: "mysql://bench:xxxxx@n1/t", Weight: 1, Clients: 1, Summary: experiment(20, time.Microsecond).Summary,
			Server: &result.ServerUsage{Deltas: map[string]int64{"wsrep_local_cert_failures": 7}}},
		{Name: "mysql://bench:xxxxx@n2/t", Weight: 1, Clients: 1, Summary: lost.Summary,
			ErrorCodes:    result.ErrorCodes{{Outcome: tao.Error, Code: "2002"}: 1},
			CodesBySecond: result.CodesBySecond{{{Outcome: tao.Error, Code: "2002"}: 1}}},
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
		"<h4>Endpoints</h4>",
		`<tr><td>mysql://bench:xxxxx@n1/t</td><td class="num">1</td><td class="num">1</td><td class="num">120</td>`,
		`wsrep_local_cert_failures &#43;7`,
		`<tr class="worse"><td>mysql://bench:xxxxx@n2/t</td>`,
		`<td>error 2002 ×1</td>`,
		`<td></td><td>1</td></tr>`, // n3's second without service; n1 has none
		`<div class="chart" id="f0-e0-endpoints">`,
		`<div class="chart" id="f0-e0-endpoint-codes">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// The chart, from what the file holds: a line per endpoint of the
	// requests served each second, and n3's outage in second 1 as a lost
	// request marked there.
	c := endpointChart("x", f.Doc.Experiments[0])
	if c == nil {
		t.Fatal("no endpoint chart for 3 endpoints")
	}
	var got []string
	for _, s := range c.Series {
		got = append(got, fmt.Sprintf("%s %v", s.Label, s.Y))
	}
	nan := Num(math.NaN())
	want := []string{
		fmt.Sprintf("mysql://bench:xxxxx@n3/t %v", []Num{1, 0, 1}),
		fmt.Sprintf("mysql://bench:xxxxx@n3/t errors %v", []Num{nan, 1, nan}),
		fmt.Sprintf("mysql://bench:xxxxx@n1/t %v", []Num{40, 40, 40}),
		fmt.Sprintf("mysql://bench:xxxxx@n2/t %v", []Num{10, 10, 10}),
		fmt.Sprintf("mysql://bench:xxxxx@n2/t errors %v", []Num{1, nan, nan}),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("endpoint chart series:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The codes by second, read back from the file: n3's in second 1,
	// n2's in second 0, none for n1.
	c = endpointCodesChart("x", f.Doc.Experiments[0])
	if c == nil {
		t.Fatal("no codes chart; two endpoints have codes by second")
	}
	got = nil
	for _, s := range c.Series {
		got = append(got, fmt.Sprintf("%s %v", s.Label, s.Y))
	}
	want = []string{
		fmt.Sprintf("mysql://bench:xxxxx@n3/t error 08S01 %v", []Num{nan, 1, nan}),
		fmt.Sprintf("mysql://bench:xxxxx@n2/t error 2002 %v", []Num{1, nan, nan}),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("codes chart series:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// experimentWith is one measured request ending in o.
func experimentWith(o tao.Outcome) *result.Experiment {
	r := metrics.NewRecorder()
	r.Record(&metrics.Sample{Class: tao.Read, Kind: tao.ObjRead, Outcome: o, Attempts: 1, Latency: time.Millisecond, At: time.Millisecond})
	return &result.Experiment{Summary: r.Snapshot()}
}

// TestCompareShowsIntervals: the comparison gives each throughput and
// latency cell its 95% interval from the file's per-second series, and
// the page shows it beside the value; a file too short for one shows none.
func TestCompareShowsIntervals(t *testing.T) {
	t.Parallel()
	r := metrics.NewRecorder()
	for i := range 3000 {
		// 10 measured seconds of uneven load: 200 to 400 reads a second.
		sec := i % 10
		if i%1000 >= 200*(1+sec%2) && i%1000 < 600 {
			continue
		}
		r.Record(&metrics.Sample{Class: tao.Read, Kind: tao.ObjRead, Outcome: tao.OK, Attempts: 1,
			Latency: time.Duration(100+i%97) * time.Microsecond, At: time.Duration(sec)*time.Second + time.Duration(i%1000)*time.Microsecond})
	}
	long := &result.Experiment{Threads: 2, Duration: 10 * time.Second, Measured: 10 * time.Second, Summary: r.Snapshot()}
	short := experimentWith(tao.OK)
	files := []*File{{Name: "a.json", Doc: &result.Doc{Run: &result.Run{Workload: "a"}, Experiments: []*result.Experiment{long}}},
		{Name: "b.json", Doc: &result.Doc{Run: &result.Run{Workload: "a"}, Experiments: []*result.Experiment{short}}}}
	c := newCompare(files, []string{"a", "b"})
	iv := long.Intervals(result.Confidence)
	want := fmt.Sprintf("%.1f–%.1f", iv.Throughput.Lo, iv.Throughput.Hi)
	tp := c.Rows[0]
	if tp.Metric != "throughput (req/s)" || tp.Cells[0].Interval != want || iv.Throughput.Lo >= iv.Throughput.Hi || tp.Cells[1].Interval != "" {
		t.Fatalf("throughput cells %+v; want a's interval %s, none for b's single second", tp.Cells, want)
	}
	var buf bytes.Buffer
	if err := Write(&buf, files, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `<span class="ci" title="95% confidence interval`) || !strings.Contains(buf.String(), "["+want+"]") {
		t.Errorf("the page does not show the throughput interval [%s]", want)
	}
}

// TestIntervalsDrawn: a repeated run's page gives its charts the bands and
// error bars of its intervals, where they are (the throughput band over
// the measured window; one error bar per configuration across repeats),
// and its repeats table shows each repeat's throughput and the interval
// of their mean; a run not repeated has no repeats table.
func TestIntervalsDrawn(t *testing.T) {
	t.Parallel()
	exps := []*result.Experiment{experiment(100, time.Microsecond), experiment(120, time.Microsecond), experiment(90, time.Microsecond)}
	result.TagRepeats(exps, 1)
	f := &File{Name: "r.json", Doc: &result.Doc{Run: &result.Run{Workload: "o"}, Experiments: exps}}
	var buf bytes.Buffer
	if err := Write(&buf, []*File{f}, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	_, js, _ := strings.Cut(page, `<script type="application/json" id="charts">`)
	js, _, _ = strings.Cut(js, "</script>")
	var charts []Chart
	if err := json.Unmarshal([]byte(js), &charts); err != nil {
		t.Fatalf("charts JSON: %v", err)
	}
	byID := map[string]Chart{}
	for _, c := range charts {
		byID[c.ID] = c
	}
	iv := exps[0].Intervals(result.Confidence).Throughput
	tput := byID["f0-e0-tput"]
	near := func(a Num, b float64) bool { return math.Abs(float64(a)-b) <= 1e-3*math.Abs(b) }
	if len(tput.Bands) != 1 || tput.Bands[0].XY[0] != 0 || tput.Bands[0].XY[1] != 3 || !near(tput.Bands[0].XY[2], iv.Lo) || !near(tput.Bands[0].XY[3], iv.Hi) {
		t.Errorf("throughput chart bands %+v; want one over [0, 3] s at [%g, %g]", tput.Bands, iv.Lo, iv.Hi)
	}
	rs := result.Repeats(exps, result.Confidence)
	rep := byID["f0-repeats"]
	if len(rep.Bars) != 1 || !near(rep.Bars[0].V[2], rs[0].Throughput.Lo) || !near(rep.Bars[0].V[3], rs[0].Throughput.Hi) || len(rep.Series) != 4 {
		t.Errorf("repeats chart: bars %+v, %d series; want one bar at the mean's interval [%g, %g], 3 repeats and the mean", rep.Bars, len(rep.Series), rs[0].Throughput.Lo, rs[0].Throughput.Hi)
	}
	want := fmt.Sprintf("<td class=\"num\">200.0, 240.0, 180.0</td><td class=\"num\">206.7</td><td class=\"num ci\">[%.1f–%.1f]</td>", rs[0].Throughput.Lo, rs[0].Throughput.Hi)
	if !strings.Contains(page, want) {
		t.Errorf("the repeats table does not show %s", want)
	}
	buf.Reset()
	for _, e := range exps {
		e.Repeat = 0
	}
	if err := Write(&buf, []*File{f}, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), `class="repeats"`) {
		t.Error("a run not repeated has a repeats table")
	}
}
