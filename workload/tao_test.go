package workload

import (
	"math"
	"testing"

	"github.com/taobench/taobench/tao"
)

// TestTaoBuiltin checks the tao workload against the TAO paper's §7
// figures it claims: Fig. 3's mix and write share, Fig. 5's limits,
// Fig. 6's association sizes, the read targets, and o's placement.
func TestTaoBuiltin(t *testing.T) {
	w, err := Builtin("tao")
	if err != nil {
		t.Fatal(err)
	}
	share := func(d Dist[tao.Kind], k tao.Kind) float64 {
		sum, x := 0.0, 0.0
		for i, v := range d.Values {
			sum += d.Weights[i]
			if v == k {
				x += d.Weights[i]
			}
		}
		return 100 * x / sum
	}
	for k, want := range map[tao.Kind]float64{tao.EdgeRangeRead: 40.9, tao.ObjRead: 28.9, tao.EdgePointRead: 15.7,
		tao.EdgeCountRead: 11.7, tao.EdgeTimeRead: 2.8} {
		if got := share(w.ReadKinds, k); math.Abs(got-want) > 0.05 {
			t.Errorf("read %v: %.2f%%, TAO Fig. 3 %.1f%%", k, got, want)
		}
	}
	// Fig. 3's write shares add up to 100.9% (the paper's rounding): the
	// weights are the figure's, each drawn as weight / 100.9.
	for k, want := range map[tao.Kind]float64{tao.EdgeAdd: 52.5, tao.ObjUpdate: 20.7, tao.ObjAdd: 16.5,
		tao.EdgeDelete: 8.3, tao.ObjDelete: 2.0, tao.EdgeUpdate: 0.9} {
		if got := share(w.WriteKinds, k) * 1.009; math.Abs(got-want) > 0.005 {
			t.Errorf("write %v: weight %.2f, TAO Fig. 3 %.1f%%", k, got, want)
		}
	}
	var reqs, writes float64
	for i, c := range w.Requests.Values {
		reqs += w.Requests.Weights[i]
		if c == tao.Write || c == tao.WriteTxn {
			writes += w.Requests.Weights[i]
		}
	}
	if got := 100 * writes / reqs; math.Abs(got-0.2) > 1e-9 {
		t.Errorf("writes %.3f%% of requests, TAO §7 0.2%%", got)
	}
	lim := w.Limits()
	var all, one, big float64
	for i, l := range lim.Values {
		all += lim.Weights[i]
		switch {
		case l == 1:
			one += lim.Weights[i]
		case l >= 1000:
			big += lim.Weights[i]
		}
		if l > w.RangeLimit {
			t.Errorf("limit %d above range_limit %d", l, w.RangeLimit)
		}
	}
	if math.Abs(one/all-0.12) > 1e-9 || math.Abs(big/(all-one)-0.95) > 1e-9 {
		t.Errorf("limits: %.3f limit 1, %.3f of the rest >= 1000; TAO Fig. 5: 0.12, 0.95", one/all, big/(all-one))
	}
	var sum, empty, bytes float64
	for i, s := range w.PayloadSizes.Values {
		sum += w.PayloadSizes.Weights[i]
		bytes += float64(s) * w.PayloadSizes.Weights[i]
		if s == 0 {
			empty += w.PayloadSizes.Weights[i]
		}
	}
	if e, m := empty/sum, bytes/(sum-empty); math.Abs(e-0.395) > 1e-9 || math.Abs(m-97.8) > 0.5 {
		t.Errorf("associations %.3f empty, %.1f B mean when not; TAO Fig. 6: 0.395, 97.8 B", e, m)
	}
	if w.EdgeHitRate != 0.196 || w.RangeNonEmpty != 0.31 || w.TimeRangeNonEmpty != 0.019 || w.CountNonZero != 0.55 {
		t.Errorf("read targets %v %v %v %v, TAO §7: 0.196 0.31 0.019 0.55", w.EdgeHitRate, w.RangeNonEmpty, w.TimeRangeNonEmpty, w.CountNonZero)
	}
	o, _ := Builtin("o")
	if o.Shards() != w.Shards() {
		t.Errorf("tao has %d shards, o %d: it should run on o's graph", w.Shards(), o.Shards())
	}
}
