package textreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
)

// samples returns n reproducible samples of every class, kind and outcome,
// latencies from 1 µs to past the histograms' 1 h, conflicts, and a tenth
// in the warmup (5 s).
func samples(n int) []metrics.Sample {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]metrics.Sample, n)
	for i := range out {
		s := metrics.Sample{
			Class:    tao.Class(rng.IntN(int(tao.NumClasses))),
			Kind:     tao.NumKinds,
			Outcome:  tao.Outcome(rng.IntN(int(tao.NumOutcomes))),
			Latency:  time.Duration(rng.ExpFloat64() * float64(2*time.Millisecond)),
			Attempts: 1 + rng.IntN(3),
			At:       time.Duration(rng.Int64N(int64(5 * time.Second))),
		}
		if s.Class == tao.Read || s.Class == tao.Write {
			s.Kind = tao.Kind(rng.IntN(int(tao.NumKinds)))
		}
		switch i % 97 {
		case 0:
			s.Latency = 2 * time.Hour // past the histograms' range: max stays exact
		case 1:
			s.Latency = 500 // below 1 µs
		}
		s.ObjectConflicts, s.AssocConflicts = rng.IntN(2), rng.IntN(2)
		s.WritesObjects, s.WritesEdges, s.AddsUniqueEdge, s.HasChecks = rng.IntN(2) == 0, rng.IntN(2) == 0, rng.IntN(5) == 0, rng.IntN(3) == 0
		if i%10 == 0 {
			s.Warmup, s.At = true, -s.At-1
		}
		out[i] = s
	}
	return out
}

func experimentOf(threads int, ss []metrics.Sample, fid *result.Counters) *result.Experiment {
	r := metrics.NewRecorder()
	for i := 0; i < len(ss); i += 64 {
		r.RecordBatch(ss[i:min(i+64, len(ss))])
	}
	return &result.Experiment{
		Threads: threads, Warmup: 5 * time.Second, Duration: 5 * time.Second,
		TotalRuntime: 7100 * time.Millisecond, Measured: 5 * time.Second,
		Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Summary: r.Snapshot(), Counters: fid,
	}
}

// testRun is the run of a driver process; seed tells processes apart.
func testRun(seed uint64) *result.Run {
	return &result.Run{Database: "null", Workload: "a", GraphWorkload: "a", GraphSeed: 9, Seed: seed, Edges: 1000,
		Retries: 10, Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Version: "devel", Revision: "unknown"}
}

func jsonOf(t *testing.T, run *result.Run, exps ...*result.Experiment) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := result.WriteJSON(&b, run, exps); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestMergeSplitEqualsWhole records the same samples into one summary and
// into two halves, writes the halves as JSON, reads and merges them, and
// finds every number of the merged document equal to the whole's: counts,
// exact min, max and mean, percentiles, contention, the time series and
// the histograms themselves.
func TestMergeSplitEqualsWhole(t *testing.T) {
	t.Parallel()
	ss := samples(20000)
	half := len(ss) / 2
	fa := result.Counters{PointReads: 10, PointHits: 2, RangeSizes: [result.SizeBuckets]int64{3, 1}}
	fb := result.Counters{PointReads: 7, PointHits: 5, RangeSizes: [result.SizeBuckets]int64{0, 4}}
	fw := fa
	fw.Merge(&fb)
	ca := result.ErrorCodes{{Outcome: tao.ConflictObject, Code: "40P01"}: 3, {Outcome: tao.Timeout}: 1}
	cb := result.ErrorCodes{{Outcome: tao.ConflictObject, Code: "40P01"}: 2, {Outcome: tao.ConflictAssociation, Code: "55P03"}: 4}
	ew := experimentOf(2, ss, &fw)
	ew.ErrorCodes = result.ErrorCodes{{Outcome: tao.ConflictObject, Code: "40P01"}: 5, {Outcome: tao.Timeout}: 1,
		{Outcome: tao.ConflictAssociation, Code: "55P03"}: 4}
	whole := jsonOf(t, testRun(1), ew)

	var runs []result.Named
	for i, part := range [][]metrics.Sample{ss[:half], ss[half:]} {
		f := []*result.Counters{&fa, &fb}[i]
		e := experimentOf(1, part, f)
		e.ErrorCodes = []result.ErrorCodes{ca, cb}[i]
		doc, err := result.ReadJSON(bytes.NewReader(jsonOf(t, testRun(uint64(1+i)), e)))
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, result.Named{Name: fmt.Sprintf("part%d.json", i), Doc: doc})
	}
	m, err := result.Merge(runs)
	if err != nil {
		t.Fatal(err)
	}
	merged := jsonOf(t, m.Run, m.Experiments...)

	var w, g map[string]any
	if err := json.Unmarshal(whole, &w); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(merged, &g); err != nil {
		t.Fatal(err)
	}
	we := w["experiments"].([]any)[0].(map[string]any)
	ge := g["experiments"].([]any)[0].(map[string]any)
	if ge["processes"] != 2.0 || we["processes"] != 1.0 {
		t.Errorf("processes: merged %v, whole %v; want 2 and 1", ge["processes"], we["processes"])
	}
	delete(we, "processes")
	delete(ge, "processes")
	began := 0 // seconds in which requests began; others hold only ends
	for _, x := range we["timeline"].([]any) {
		for _, counts := range x.(map[string]any)["requests"].(map[string]any) {
			if slices.ContainsFunc(counts.([]any), func(v any) bool { return v != 0.0 }) {
				began++
				break
			}
		}
	}
	if we["ops"] != float64(len(ss)-len(ss)/10) || began != 10 {
		t.Fatalf("the whole has %v ops and %d seconds with requests; want %d and 10 (5 of warmup): the samples are not what the test means", we["ops"], began, len(ss)-len(ss)/10)
	}
	n := compareJSON(t, "", w, g)
	t.Logf("merge(split) == whole: %d numbers and strings compared, all equal", n)
}

// compareJSON reports every leaf where got differs from want, and returns
// the number of leaves compared.
func compareJSON(t *testing.T, path string, want, got any) int {
	t.Helper()
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			t.Errorf("%s: got %v, want %v", path, got, want)
			return 0
		}
		n := 0
		for k := range w {
			n += compareJSON(t, path+"."+k, w[k], g[k])
		}
		return n
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			t.Errorf("%s: got %d elements, want %d", path, len(g), len(w))
			return 0
		}
		n := 0
		for i := range w {
			n += compareJSON(t, fmt.Sprintf("%s[%d]", path, i), w[i], g[i])
		}
		return n
	default:
		if !reflect.DeepEqual(want, got) {
			t.Errorf("%s: got %v, want %v", path, got, want)
		}
		return 1
	}
}

// TestMergeRefuses: results of another workload, graph or schedule are
// refused, naming both files and the field.
func TestMergeRefuses(t *testing.T) {
	t.Parallel()
	ss := samples(200)
	base := func(seed uint64) *result.Doc {
		return &result.Doc{Run: testRun(seed), Experiments: []*result.Experiment{experimentOf(4, ss, nil)}}
	}
	for _, tc := range []struct {
		change func(d *result.Doc)
		want   string
	}{
		{func(d *result.Doc) { d.Run.Database = "sqlite:/tmp/x.db" }, "database null in a.json, sqlite:/tmp/x.db in b.json"},
		{func(d *result.Doc) { d.Run.Workload = "b" }, "workload a in a.json, b in b.json"},
		{func(d *result.Doc) { d.Run.GraphWorkload = "o" }, "graph_workload a in a.json, o in b.json"},
		{func(d *result.Doc) { d.Run.GraphSeed = 1 }, "graph_seed 9 in a.json, 1 in b.json"},
		{func(d *result.Doc) { d.Run.Edges = 2000 }, "edges 1000 in a.json, 2000 in b.json"},
		{func(d *result.Doc) { d.Experiments[0].Duration = time.Minute }, "experiment 1: duration_s 5 in a.json, 60 in b.json"},
		{func(d *result.Doc) { d.Experiments[0].Warmup = 0 }, "experiment 1: warmup_s 5 in a.json, 0 in b.json"},
		{func(d *result.Doc) { d.Experiments[0].Threads = 8 }, "experiment 1: threads per process 4 in a.json, 8 in b.json"},
		{func(d *result.Doc) { d.Experiments = append(d.Experiments, experimentOf(4, ss, nil)) }, "the number of experiments 1 in a.json, 2 in b.json"},
	} {
		b := base(2)
		tc.change(b)
		_, err := result.Merge([]result.Named{{Name: "a.json", Doc: base(1)}, {Name: "b.json", Doc: b}})
		if err == nil || !strings.Contains(err.Error(), "a.json and b.json do not belong together: "+tc.want) {
			t.Errorf("want %q, got %v", tc.want, err)
		}
	}
	// Two processes of 4 threads merged, then merged with a third: 4 per process.
	m, err := result.Merge([]result.Named{{Name: "a.json", Doc: base(1)}, {Name: "b.json", Doc: base(2)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := result.Merge([]result.Named{{Name: "ab.json", Doc: m}, {Name: "c.json", Doc: base(3)}}); err != nil {
		t.Errorf("a merged result and a third process of the same schedule: %v", err)
	}
	// The same run twice would count its requests twice.
	_, err = result.Merge([]result.Named{{Name: "a.json", Doc: base(1)}, {Name: "a2.json", Doc: base(1)}})
	if err == nil || !strings.Contains(err.Error(), "a.json and a2.json hold the same run (seed 1, started 2026-01-02T03:04:05Z)") {
		t.Errorf("the same run twice: got %v", err)
	}
}

// TestReadJSONRefuses: documents that cannot be merged exactly are refused
// with the reason.
func TestReadJSONRefuses(t *testing.T) {
	t.Parallel()
	good := string(jsonOf(t, testRun(1), experimentOf(1, samples(100), nil)))
	for _, tc := range []struct{ doc, want string }{
		{"[]", "not a taobench results document"},
		{`{"run":{"workload":"a"},"experiments":[{"threads":1}]}`, "experiment 1: no histograms or counters"},
		{strings.Replace(good, `"ok": `, `"ok": 1`, 1), "the outcomes add up to"},
		{strings.Replace(good, `"hdr": "HISTFAA`, `"hdr": "XISTFAA`, 1), "cannot be decoded"},
	} {
		_, err := result.ReadJSON(strings.NewReader(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want an error with %q, got %v", tc.want, err)
		}
	}
}

// TestMergeOpenLoop: open-loop results merge like the rest: the
// service-time and injected-delay histograms exactly, the target rates,
// schedules and overtime of the processes adding up; results of another
// target rate per process or arrival process are refused.
func TestMergeOpenLoop(t *testing.T) {
	t.Parallel()
	ss := samples(20000)
	for i := range ss {
		ss[i].Service = max(ss[i].Latency/3, 1)
		if i%3 != 0 {
			ss[i].Inject = true
			ss[i].Injected = time.Duration(i%7) * time.Millisecond
		}
	}
	half := len(ss) / 2
	open := func(threads int, part []metrics.Sample, rate float64, scheduled, notIssued, overtime int64) *result.Experiment {
		e := experimentOf(threads, part, nil)
		e.OpenLoop = result.OpenLoop{Rate: rate, Arrival: "poisson", Scheduled: scheduled, NotIssued: notIssued}
		e.Overtime = overtime
		return e
	}
	whole := jsonOf(t, testRun(1), open(2, ss, 200, 1000, 30, 6))
	var runs []result.Named
	for i, part := range [][]metrics.Sample{ss[:half], ss[half:]} {
		doc, err := result.ReadJSON(bytes.NewReader(jsonOf(t, testRun(uint64(1+i)), open(1, part, 100, 500, int64(10+10*i), int64(2+2*i)))))
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, result.Named{Name: fmt.Sprintf("part%d.json", i), Doc: doc})
	}
	m, err := result.Merge(runs)
	if err != nil {
		t.Fatal(err)
	}
	var w, g map[string]any
	if err := json.Unmarshal(whole, &w); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(jsonOf(t, m.Run, m.Experiments...), &g); err != nil {
		t.Fatal(err)
	}
	we := w["experiments"].([]any)[0].(map[string]any)
	ge := g["experiments"].([]any)[0].(map[string]any)
	delete(we, "processes")
	delete(ge, "processes")
	if we["target_rate"] != 200.0 || we["arrival"] != "poisson" || we["rate_reached"] != false || we["overtime"] != 6.0 ||
		we["service_us"].(map[string]any)["read"].(map[string]any)["count"] == 0.0 ||
		we["injected_us"].(map[string]any)["write"].(map[string]any)["count"] == 0.0 {
		t.Fatalf("the whole is not open loop with service times and injected delays: %v %v %v %v", we["target_rate"], we["arrival"], we["rate_reached"], we["overtime"])
	}
	n := compareJSON(t, "", w, g)
	t.Logf("open loop: merge(split) == whole: %d numbers and strings compared, all equal", n)

	base := func(seed uint64, rate float64, arrival string) *result.Doc {
		e := open(4, ss[:200], rate, 100, 0, 0)
		e.OpenLoop.Arrival = arrival
		return &result.Doc{Run: testRun(seed), Experiments: []*result.Experiment{e}}
	}
	for _, tc := range []struct {
		b    *result.Doc
		want string
	}{
		{base(2, 150, "poisson"), "experiment 1: target_rate per process 100 in a.json, 150 in b.json"},
		{base(2, 0, ""), "experiment 1: target_rate per process 100 in a.json, 0 in b.json"},
		{base(2, 100, "uniform"), "experiment 1: arrival poisson in a.json, uniform in b.json"},
	} {
		_, err := result.Merge([]result.Named{{Name: "a.json", Doc: base(1, 100, "poisson")}, {Name: "b.json", Doc: tc.b}})
		if err == nil || !strings.Contains(err.Error(), "a.json and b.json do not belong together: "+tc.want) {
			t.Errorf("want %q, got %v", tc.want, err)
		}
	}
	// Two processes at 100 req/s merged (200 in 2), then a third at 100.
	ab, err := result.Merge([]result.Named{{Name: "a.json", Doc: base(1, 100, "poisson")}, {Name: "b.json", Doc: base(2, 100, "poisson")}})
	if err != nil {
		t.Fatal(err)
	}
	if r := ab.Experiments[0].OpenLoop; r.Rate != 200 || r.Scheduled != 200 {
		t.Errorf("merged open loop %+v: want rate 200, 200 scheduled", r)
	}
	if _, err := result.Merge([]result.Named{{Name: "ab.json", Doc: ab}, {Name: "c.json", Doc: base(3, 100, "poisson")}}); err != nil {
		t.Errorf("a merged open-loop result and a third process at the same rate: %v", err)
	}
}
