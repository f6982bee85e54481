package metrics

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Series is one latency-like series of durations kept outside a Summary: the
// read latency of one cache tier, or the ages of its stale reads (package
// tier). It has a Summary's geometry (1 µs to 1 h, 3 significant digits) and
// its exact count, sum, min and max, so series from driver processes merge
// exactly. The zero value is empty; it is not safe for concurrent use.
type Series struct{ l latency }

// Record adds one duration (negative counts as 0, above an hour as an hour
// in the histogram; min, max and sum stay exact).
func (s *Series) Record(d time.Duration) { s.l.record(d) }

// Merge adds o's durations; o may be nil.
func (s *Series) Merge(o *Series) {
	if o != nil {
		s.l.merge(&o.l)
	}
}

// Histogram returns a copy of the series' histogram; nil when empty.
func (s *Series) Histogram() *hdrhistogram.Histogram {
	if s == nil || s.l.h == nil {
		return nil
	}
	return s.l.h.Clone()
}

// Clone returns a copy that shares nothing with s.
func (s *Series) Clone() *Series { return &Series{l: s.l.clone()} }

// Count is how many durations were recorded.
func (s *Series) Count() int64 { return s.l.n }

// Stats describes the series in microseconds.
func (s *Series) Stats() LatencyStats { return s.l.stats() }

// Data returns the series as data; what names it in errors.
func (s *Series) Data(what string) (SeriesData, error) { return seriesData(&s.l, what) }

// SeriesFromData rebuilds a series, checking that the data hang together;
// what names it in errors.
func SeriesFromData(what string, sd SeriesData) (*Series, error) {
	l, err := fromSeriesData(what, sd)
	if err != nil {
		return nil, err
	}
	return &Series{l: l}, nil
}
