package result_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
)

// samples are one driver's requests over a 10 s measured window: reads and
// writes, exponential latencies of the given mean, some errors.
func samples(seed uint64, mean time.Duration) []metrics.Sample {
	r := rand.New(rand.NewPCG(seed, 1))
	var out []metrics.Sample
	for i := range 20_000 {
		s := metrics.Sample{Class: tao.Read, Kind: tao.ObjRead, Outcome: tao.OK, Attempts: 1,
			At:      time.Duration(r.Int64N(int64(10 * time.Second))),
			Latency: time.Duration(r.ExpFloat64() * float64(mean))}
		if i%10 == 0 {
			s.Class, s.Kind = tao.Write, tao.ObjUpdate
		}
		if r.IntN(100) == 0 {
			s.Outcome = tao.Error
		}
		out = append(out, s)
	}
	return out
}

func experiment(ss ...[]metrics.Sample) *result.Experiment {
	rec := metrics.NewRecorder()
	for _, s := range ss {
		rec.RecordBatch(s)
	}
	return &result.Experiment{Threads: 2, Duration: 10 * time.Second, Measured: 10 * time.Second, Summary: rec.Snapshot()}
}

// intervalsOf is the "intervals" object a results file holds for e.
func intervalsOf(t *testing.T, run *result.Run, e *result.Experiment) map[string]any {
	t.Helper()
	var b bytes.Buffer
	if err := result.WriteJSON(&b, run, []*result.Experiment{e}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Experiments []struct {
			Intervals map[string]any `json:"intervals"`
		} `json:"experiments"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Experiments[0].Intervals
}

// TestMergedIntervals: merging two drivers' results files gives the
// intervals of their combined per-second series (the same requests
// recorded in one process), not a mix of each driver's intervals; and
// the intervals are there, with a throughput interval around the
// throughput.
func TestMergedIntervals(t *testing.T) {
	a, b := samples(1, time.Millisecond), samples(2, 3*time.Millisecond/2)
	run := func(seed uint64) *result.Run {
		return &result.Run{Database: "null", Workload: "a", GraphWorkload: "a", Seed: seed, Version: "v1", Started: time.Unix(int64(seed), 0)}
	}
	var named []result.Named
	for i, s := range [][]metrics.Sample{a, b} {
		var buf bytes.Buffer
		if err := result.WriteJSON(&buf, run(uint64(i+1)), []*result.Experiment{experiment(s)}); err != nil {
			t.Fatal(err)
		}
		d, err := result.ReadJSON(&buf)
		if err != nil {
			t.Fatal(err)
		}
		named = append(named, result.Named{Name: string(rune('a' + i)), Doc: d})
	}
	m, err := result.Merge(named)
	if err != nil {
		t.Fatal(err)
	}
	combined := experiment(a, b)
	combined.Threads = 4
	got, want := intervalsOf(t, run(1), m.Experiments[0]), intervalsOf(t, run(1), combined)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merged intervals\n%v\nwant those of the combined series\n%v", got, want)
	}
	if one := intervalsOf(t, run(1), named[0].Doc.Experiments[0]); reflect.DeepEqual(one, got) {
		t.Errorf("merged intervals are one driver's: %v", one)
	}
	iv := m.Experiments[0].Intervals(result.Confidence)
	tp := iv.Throughput
	if iv.Batches != 10 || !tp.Valid() || tp.Lo >= tp.Estimate || tp.Hi <= tp.Estimate || tp.Estimate != 4000 {
		t.Errorf("throughput interval %+v over %d batches; want 10 batches around 4000 req/s", tp, iv.Batches)
	}
	p99, ok := iv.Percentile("read", "p99")
	if !ok || !p99.Valid() || p99.Lo >= p99.Estimate || p99.Hi <= p99.Estimate {
		t.Errorf("read p99 interval %+v (%v); want one around the p99", p99, ok)
	}
	if e, ok := iv.Percentile("write", "p999"); !ok || e.Valid() {
		t.Errorf("write p99.9 interval %+v from batches of 400 writes; want none", e)
	}
}
