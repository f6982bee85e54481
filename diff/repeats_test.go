package diff_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/taobench/taobench/diff"
	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
)

// steady is one run of 10 measured seconds at rate requests a second,
// spread evenly over each second, exponential latencies of mean 1 ms: a
// run whose own batches barely move, so that its batch-means interval is
// narrow whatever the next run does.
func steady(seed uint64, rate int) *result.Experiment {
	r := rand.New(rand.NewPCG(seed, 7))
	rec := metrics.NewRecorder()
	for sec := range 10 {
		for i := range rate {
			rec.Record(&metrics.Sample{Class: tao.Read, Kind: tao.ObjRead, Outcome: tao.OK, Attempts: 1,
				At:      time.Duration(sec)*time.Second + time.Duration(i)*time.Second/time.Duration(rate),
				Latency: time.Duration(r.ExpFloat64() * float64(time.Millisecond))})
		}
	}
	return &result.Experiment{Threads: 4, Duration: 10 * time.Second, Measured: 10 * time.Second, Summary: rec.Snapshot()}
}

func doc(repeated bool, seed uint64, rates ...int) *result.Doc {
	d := &result.Doc{Run: &result.Run{Database: "null", Workload: "o", GraphWorkload: "o", Version: "v"}}
	for i, rate := range rates {
		d.Experiments = append(d.Experiments, steady(seed+uint64(i), rate))
	}
	if repeated {
		result.TagRepeats(d.Experiments, 1)
	}
	return d
}

// TestRepeatedRuns: runs that are each steady but move by ±15% from one
// run to the next. Compared one experiment with the other, a 10% higher
// run is "faster" (its batches cannot see what moves between runs); the
// same runs as repeats are compared across them, and the 10% is within
// their spread: no difference detectable. A 60% faster configuration is
// still called faster across repeats.
func TestRepeatedRuns(t *testing.T) {
	base := []int{1000, 1150, 870, 1000}
	same := []int{1100, 900, 1130, 960}
	one, err := diff.Compare(doc(false, 1, base[0]), doc(false, 100, same[0]), 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if one.Figures[0].Name != "throughput" || one.Figures[0].Verdict != diff.Faster {
		t.Fatalf("single steady runs 1000 and 1100 req/s: throughput %s; want faster (else this test shows nothing)%s", one.Figures[0].Verdict, figures(one))
	}
	r, err := diff.Compare(doc(true, 1, base...), doc(true, 100, same...), 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if r.Repeats != [2]int{4, 4} || !r.Comparable() || r.Figures[0].Name != "throughput" || r.Figures[0].Verdict != diff.NoDifference || r.Figures[0].Change.DF > 6 {
		t.Errorf("across 4 repeats each: repeats %v, differences %v, throughput %s on %.1f degrees of freedom; want no difference detectable, Welch on the repeats%s",
			r.Repeats, r.Differences, r.Figures[0].Verdict, r.Figures[0].Change.DF, figures(r))
	}
	fast := []int{1600, 1750, 1500, 1650}
	r, err = diff.Compare(doc(true, 1, base...), doc(true, 200, fast[:3]...), 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if r.Repeats != [2]int{4, 3} || !r.Comparable() || r.Figures[0].Verdict != diff.Faster {
		t.Errorf("60%% faster over 3 repeats against 4: repeats %v, differences %v, throughput %s; want faster%s", r.Repeats, r.Differences, r.Figures[0].Verdict, figures(r))
	}
}
