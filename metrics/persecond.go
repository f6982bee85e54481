package metrics

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/taobench/taobench/tao"
)

// SecondFigures is one measured second of a summary's time series in a
// form a reader (or a chart) takes as is: what SecondData holds by class,
// added up over the classes. It is derived from the time series, so it
// costs the recorders nothing.
type SecondFigures struct {
	Second int `json:"second"`
	// By the second requests began in: all of them, those the database
	// answered (every outcome but error and timeout), and the lost ones.
	Requests int64 `json:"requests"`
	Served   int64 `json:"served"`
	Errors   int64 `json:"errors"`
	Timeouts int64 `json:"timeouts"`
	// P50US and P99US are over every class (µs, SecondSigFigs digits);
	// 0 in a second without requests.
	P50US float64 `json:"p50_us"`
	P99US float64 `json:"p99_us"`
	// NoService marks a second NoServiceSeconds counts.
	NoService bool `json:"no_service"`
}

// PerSecond returns every second of a measured window of the given length
// (and any later second requests began in), in order, empty seconds included,
// so a gap in service shows as zeros rather than a missing point.
func (s *Summary) PerSecond(window time.Duration) []SecondFigures {
	n := max(int(window/time.Second), len(s.ts.measured))
	out := make([]SecondFigures, n)
	for i := range out {
		out[i].Second = i
		if i >= len(s.ts.measured) || s.ts.measured[i] == nil {
			continue
		}
		sec := s.ts.measured[i]
		var h *hdrhistogram.Histogram
		for c := range sec.reqs {
			for o, v := range sec.reqs[c] {
				out[i].Requests += v
				switch tao.Outcome(o) {
				case tao.Error:
					out[i].Errors += v
				case tao.Timeout:
					out[i].Timeouts += v
				default:
					out[i].Served += v
				}
			}
			if sec.h[c] == nil {
				continue
			}
			if h == nil {
				h = sec.h[c].Clone()
			} else {
				h.Merge(sec.h[c])
			}
		}
		if h != nil && h.TotalCount() > 0 {
			out[i].P50US = float64(h.ValueAtQuantile(50))
			out[i].P99US = float64(h.ValueAtQuantile(99))
		}
	}
	// Past the window, only seconds requests began in: the series also
	// holds seconds requests merely ended in.
	for len(out) > int(window/time.Second) && out[len(out)-1].Requests == 0 {
		out = out[:len(out)-1]
	}
	if secs, known := s.NoServiceSeconds(window); known {
		for _, i := range secs {
			out[i].NoService = true
		}
	}
	return out
}
