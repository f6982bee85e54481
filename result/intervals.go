package result

import (
	"math"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/stats"
	"github.com/taobench/taobench/tao"
)

// Confidence is the level of the intervals a results file records.
const Confidence = 0.95

// Percentile is one latency percentile the intervals cover.
type Percentile struct {
	Name string  // its JSON key: "p50"
	Q    float64 // in percent: 50
}

// Percentiles are those of the latency figures: p50, p90, p99, p99.9.
var Percentiles = [...]Percentile{{"p50", 50}, {"p90", 90}, {"p99", 99}, {"p999", 99.9}}

// Intervals are an experiment's figures with confidence intervals by batch
// means over its per-second series (docs/results.md "Intervals"): the
// measured window's whole seconds cut into stats.Batches, each figure
// computed per batch, the batches' spread giving the interval around the
// run's own figure. A figure whose batches are too few, or hold too few
// requests for the percentile, has an interval that is not Valid.
type Intervals struct {
	Confidence float64
	Batches    int     // 0: fewer than two whole seconds measured, or no time series
	BatchS     float64 // mean length of a batch, seconds
	Throughput stats.Interval
	ErrorPct   stats.Interval // failed requests, percent of requests
	// Latency by series (metrics.All, then each class with requests) and
	// percentile, µs, in the order of Percentiles.
	Latency []SeriesIntervals
}

// SeriesIntervals are one latency series' percentiles, in the order of
// Percentiles.
type SeriesIntervals struct {
	Name  string
	Count int64 // requests in the series
	P     [len(Percentiles)]stats.Interval
}

// minTail: a batch must hold at least minTail/(1-q) requests for its
// percentile q to count (10 beyond p99 for p99: 1,000 requests), or the
// batch's percentile is its maximum, not an estimate of the run's.
const minTail = 10

// Intervals computes the experiment's intervals at the confidence (0.95
// is Confidence) from its summary's per-second series. Deterministic: the
// same series give the same intervals, and a merged result's are those of
// its merged series.
func (e *Experiment) Intervals(confidence float64) *Intervals {
	s := e.Sum()
	n := int(e.Measured / time.Second)
	iv := &Intervals{Confidence: confidence}
	var wins []metrics.Window
	var spans []float64
	if n >= 2 {
		for _, b := range stats.Batches(n) {
			wins = append(wins, s.Window(b[0], b[1]))
			spans = append(spans, float64(b[1]-b[0]))
		}
		iv.Batches, iv.BatchS = len(wins), float64(n)/float64(len(wins))
	}
	if s.Requests() > 0 && !hasSeries(wins) {
		// A file of a taobench before the time series: no batches.
		wins, spans, iv.Batches, iv.BatchS = nil, nil, 0, 0
	}
	var tput, errs []float64
	for i, w := range wins {
		var req, failed int64
		for c := range tao.NumClasses {
			req, failed = req+w.Requests[c], failed+w.Failed[c]
		}
		tput = append(tput, float64(req)/spans[i])
		if req > 0 {
			errs = append(errs, 100*float64(failed)/float64(req))
		}
	}
	iv.Throughput = stats.BatchMeans(e.Throughput(), tput, 0, confidence)
	if len(errs) < len(wins) {
		errs = nil // a batch without requests has no error rate
	}
	errPct := 0.0
	if r := s.Requests(); r > 0 {
		errPct = 100 * float64(s.Failed()) / float64(r)
	}
	iv.ErrorPct = stats.BatchMeans(errPct, errs, 0, confidence)

	names := []string{metrics.All}
	for c := range tao.NumClasses {
		if s.Stats(c.String()).Count > 0 {
			names = append(names, c.String())
		}
	}
	for _, name := range names {
		st := s.Stats(name)
		if st.Count == 0 {
			continue
		}
		si := SeriesIntervals{Name: name, Count: st.Count}
		point := [len(Percentiles)]float64{st.P50, st.P90, st.P99, st.P999}
		for j, p := range Percentiles {
			vals := make([]float64, 0, len(wins))
			need := int64(math.Ceil(minTail / (1 - p.Q/100)))
			for _, w := range wins {
				h := batchHist(w, name)
				if h == nil || h.TotalCount() < need {
					vals = nil
					break
				}
				vals = append(vals, float64(h.ValueAtQuantile(p.Q)))
			}
			// The per-second histograms hold a value to within 1/16 of it
			// (metrics.SecondSigFigs): a uniform error over that width has
			// standard deviation width/√12, the least spread batches can
			// show between them.
			si.P[j] = stats.BatchMeans(point[j], vals, point[j]/16/math.Sqrt(12), confidence)
		}
		iv.Latency = append(iv.Latency, si)
	}
	return iv
}

// Percentile returns the interval of a series' percentile ("all", "read";
// "p50"), and whether the series has one.
func (iv *Intervals) Percentile(series, p string) (stats.Interval, bool) {
	for _, si := range iv.Latency {
		if si.Name != series {
			continue
		}
		for j, q := range Percentiles {
			if q.Name == p {
				return si.P[j], true
			}
		}
	}
	return stats.Interval{}, false
}

func hasSeries(wins []metrics.Window) bool {
	for _, w := range wins {
		for c := range tao.NumClasses {
			if w.Requests[c] > 0 {
				return true
			}
		}
	}
	return false
}

// batchHist is a batch's histogram of a class, or of all classes.
func batchHist(w metrics.Window, name string) *hdrhistogram.Histogram {
	if name != metrics.All {
		c, ok := tao.ParseClass(name)
		if !ok {
			return nil
		}
		return w.Hist[c]
	}
	var h *hdrhistogram.Histogram
	for _, x := range w.Hist {
		if x == nil {
			continue
		}
		if h == nil {
			h = x.Clone()
		} else {
			h.Merge(x)
		}
	}
	return h
}
