package result_test

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/taobench/taobench/result"
)

// TestRepeats: two configurations (1 ms and 2 ms mean latency) run in
// turn three times: Repeats groups experiment 1, 3, 5 and 2, 4, 6, each
// figure is the mean of its repeats with an interval from their spread,
// and the results file keeps each experiment's repeat and the summary.
func TestRepeats(t *testing.T) {
	var exps []*result.Experiment
	for r := range 3 {
		// Repeats of one configuration differ in size, so their
		// throughputs do: 20,000, 19,000, 18,000 requests in 10 s.
		for c, mean := range []time.Duration{time.Millisecond, 2 * time.Millisecond} {
			s := samples(uint64(10*r+c+1), mean)
			exps = append(exps, experiment(s[:len(s)-1000*r]))
		}
	}
	result.TagRepeats(exps, 2)
	rs := result.Repeats(exps, result.Confidence)
	if len(rs) != 2 || len(rs[0].Experiments) != 3 || rs[0].Experiments[1] != 2 || rs[1].Experiments[2] != 5 {
		t.Fatalf("Repeats grouped %+v; want configurations [0 2 4] and [1 3 5]", rs)
	}
	tp := rs[0].Throughput
	if tp.Estimate != 1900 || !tp.Valid() || tp.DF != 2 || !(tp.Lo < 1800 && tp.Hi > 2000) {
		t.Errorf("throughput across repeats %+v; want the mean 1900 of 2000, 1900, 1800 with an interval around all three", tp)
	}
	// s = 100 between repeats, t(0.975, 2) = 4.3027: 1900 ± 248.4.
	if h := tp.Hi - tp.Estimate; math.Abs(h-4.3027*100/math.Sqrt(3)) > 0.5 {
		t.Errorf("throughput half-width %g; want 248.4 from the repeats' spread", h)
	}
	if p := rs[1].P50; !p.Valid() || p.Estimate < 1.2*rs[0].P50.Estimate {
		t.Errorf("p50 across repeats %+v vs %+v; want the 2 ms configuration's higher", p, rs[0].P50)
	}
	if result.Repeats(exps[:0], 0.95) != nil {
		t.Error("Repeats of no experiments: want nil")
	}

	var b bytes.Buffer
	if err := result.WriteJSON(&b, &result.Run{Workload: "a"}, exps); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Experiments []struct{ Repeat int }
		Repeats     struct {
			Method  string
			Configs []struct {
				Config      int
				Experiments []int
				Throughput  struct {
					Values   []float64
					Mean     float64
					Interval *struct{ Lo, Hi float64 }
				}
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Experiments[3].Repeat != 2 || doc.Repeats.Method != "across_runs" || len(doc.Repeats.Configs) != 2 {
		t.Fatalf("results file: repeats %+v, experiment 4's repeat %d; want 2 configurations, repeat 2", doc.Repeats, doc.Experiments[3].Repeat)
	}
	c := doc.Repeats.Configs[1]
	if c.Config != 2 || len(c.Experiments) != 3 || c.Experiments[0] != 2 || len(c.Throughput.Values) != 3 || c.Throughput.Interval == nil || c.Throughput.Mean != rs[1].Throughput.Estimate {
		t.Errorf("configuration 2 in the file: %+v", c)
	}
	d, err := result.ReadJSON(&b)
	if err != nil {
		t.Fatal(err)
	}
	if d.Experiments[5].Repeat != 3 {
		t.Errorf("read back: experiment 6's repeat %d; want 3", d.Experiments[5].Repeat)
	}
}
