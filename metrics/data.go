package metrics

import (
	"fmt"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/taobench/taobench/tao"
)

// SeriesData is one latency series as data: its exact counters in
// nanoseconds and its full histogram (microseconds, 1 µs to 1 h, 3
// significant digits) in the standard HdrHistogram encoding (V2, compressed,
// base64), so any HdrHistogram library reads it. HDR is "" for an empty
// series.
type SeriesData struct {
	Count int64  `json:"count"`
	SumNS int64  `json:"sum_ns"`
	MinNS int64  `json:"min_ns"`
	MaxNS int64  `json:"max_ns"`
	HDR   string `json:"hdr"`
}

// CountersData are a summary's exact counters besides latencies and
// outcomes: attempts, and the numerators and denominators of the contention
// figures (docs/results.md, Contention).
type CountersData struct {
	Attempts              int64 `json:"attempts"`
	WritesObjects         int64 `json:"writes_objects"`
	ObjectConflicted      int64 `json:"object_conflicted"`
	WritesEdges           int64 `json:"writes_edges"`
	AssociationConflicted int64 `json:"association_conflicted"`
	AddsUnique            int64 `json:"adds_unique"`
	WithChecks            int64 `json:"with_checks"`
	WriteRequests         int64 `json:"write_requests"`
	LockConflicted        int64 `json:"lock_conflicted"`
	UniqueRejected        int64 `json:"unique_rejected"`
	// The results file's counters object goes on with the write-write
	// conflicts, which result.Races counts (result/json.go).
}

// SecondData is one second of the time series.
type SecondData struct {
	// Second counts from the start of measurement, by request start;
	// warmup seconds are negative (the warmup's last second is -1).
	Second int  `json:"second"`
	Warmup bool `json:"warmup"`
	// Requests are by class, each an array of counts by final outcome in
	// the order of the outcomes object.
	Requests map[string][]int64 `json:"requests"`
	// Errors and Timeouts are the requests lost (outcomes error, timeout).
	Errors   int64 `json:"errors"`
	Timeouts int64 `json:"timeouts"`
	// P50US and P99US are per class, in µs, from the second's histogram
	// (SecondSigFigs digits); 0 for a class with no request.
	P50US map[string]float64 `json:"p50_us"`
	P99US map[string]float64 `json:"p99_us"`
	// WriteRequests and LockConflicted give the overall contention of the
	// second, ContentionPct = LockConflicted / WriteRequests in percent.
	WriteRequests  int64   `json:"write_requests"`
	LockConflicted int64   `json:"lock_conflicted"`
	ContentionPct  float64 `json:"contention_pct"`
	// HDR holds each class's histogram of the second, encoded as
	// SeriesData.HDR; "" for a class with no request.
	HDR map[string]string `json:"hdr"`
	// Completed and Answered count requests by the second they ended in
	// (not began): all of them, and those the database answered (every
	// outcome but error and timeout). Absent in files written before
	// taobench recorded them.
	Completed *int64 `json:"completed,omitempty"`
	Answered  *int64 `json:"answered,omitempty"`
}

// Data is a summary's whole state as plain data, what the JSON carries:
// FromData rebuilds the summary exactly, so results merge across
// processes.
type Data struct {
	Series map[string]SeriesData // by class and kind name
	// Service and Injected are the service-time (open loop) and injected
	// delay series, by class name; a class without samples may be absent.
	Service  map[string]SeriesData
	Injected map[string]SeriesData
	// Tiers are the reads' latency by the read tier that served them, by
	// tier name; absent in files written before taobench recorded them.
	Tiers    map[string]SeriesData
	Outcomes [tao.NumOutcomes]int64
	Counters CountersData
	Lost     []LostSecond
	Timeline []SecondData
}

// SeriesNames lists the classes, then the kinds, in their canonical order.
func SeriesNames() []string {
	var names []string
	for c := range tao.NumClasses {
		names = append(names, c.String())
	}
	for k := range tao.NumKinds {
		names = append(names, k.String())
	}
	return names
}

func encode(h *hdrhistogram.Histogram) (string, error) {
	if h == nil || h.TotalCount() == 0 {
		return "", nil
	}
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	return string(b), err
}

// Data returns the summary's whole state.
func (s *Summary) Data() (*Data, error) {
	d := &Data{Series: map[string]SeriesData{}, Service: map[string]SeriesData{}, Injected: map[string]SeriesData{}, Tiers: map[string]SeriesData{}, Outcomes: s.outcomes}
	for t := range tao.NumTiers {
		var err error
		if d.Tiers[t.String()], err = seriesData(&s.tiers[t], "the latency histogram of reads served by "+t.String()); err != nil {
			return nil, err
		}
	}
	for _, name := range SeriesNames() {
		sd, err := seriesData(s.series(name), "the histogram of "+name)
		if err != nil {
			return nil, err
		}
		d.Series[name] = sd
	}
	for c := range tao.NumClasses {
		name := c.String()
		var err error
		if d.Service[name], err = seriesData(&s.service[c], "the service-time histogram of "+name); err != nil {
			return nil, err
		}
		if d.Injected[name], err = seriesData(&s.injected[c], "the injected-delay histogram of "+name); err != nil {
			return nil, err
		}
	}
	d.Counters = CountersData{
		Attempts: s.attempts, WritesObjects: s.writesObjects, ObjectConflicted: s.objectConflicted,
		WritesEdges: s.writesEdges, AssociationConflicted: s.assocConflicted, AddsUnique: s.addsUnique,
		WithChecks: s.withChecks, WriteRequests: s.writeRequests, LockConflicted: s.lockConflicted,
		UniqueRejected: s.uniqueRejected,
	}
	_, d.Lost = s.Lost()
	var err error
	emit := func(i int, warmup bool, sec *second) {
		if sec == nil || err != nil {
			return
		}
		completed, answered := sec.completed, sec.answered
		x := SecondData{Second: i, Warmup: warmup, Requests: map[string][]int64{},
			P50US: map[string]float64{}, P99US: map[string]float64{}, HDR: map[string]string{},
			WriteRequests: sec.writeRequests, LockConflicted: sec.lockConflicted,
			ContentionPct: pct(sec.lockConflicted, sec.writeRequests),
			Completed:     &completed, Answered: &answered}
		for c := range tao.NumClasses {
			name := c.String()
			x.Requests[name] = append([]int64(nil), sec.reqs[c][:]...)
			x.Errors += sec.reqs[c][tao.Error]
			x.Timeouts += sec.reqs[c][tao.Timeout]
			h := sec.h[c]
			if h != nil && h.TotalCount() > 0 {
				x.P50US[name] = float64(h.ValueAtPercentile(50))
				x.P99US[name] = float64(h.ValueAtPercentile(99))
			} else {
				x.P50US[name], x.P99US[name] = 0, 0
			}
			var e error
			if x.HDR[name], e = encode(h); e != nil {
				err = fmt.Errorf("encoding the histogram of %s in second %d: %w", name, i, e)
			}
		}
		d.Timeline = append(d.Timeline, x)
	}
	for i := len(s.ts.warmup) - 1; i >= 0; i-- {
		emit(-(i + 1), true, s.ts.warmup[i])
	}
	for i, sec := range s.ts.measured {
		emit(i, false, sec)
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// seriesData returns one series as data; what names it in errors.
func seriesData(l *latency, what string) (SeriesData, error) {
	enc, err := encode(l.h)
	if err != nil {
		return SeriesData{}, fmt.Errorf("encoding %s: %w", what, err)
	}
	return SeriesData{Count: l.n, SumNS: l.sum, MinNS: l.min, MaxNS: l.max, HDR: enc}, nil
}

// fromSeriesData rebuilds one series; what names it in errors.
func fromSeriesData(what string, sd SeriesData) (latency, error) {
	h, err := decode(what, sd.HDR, sd.Count, sigFigs)
	if err != nil {
		return latency{}, err
	}
	if sd.Count < 0 || sd.MinNS < 0 || sd.MaxNS < sd.MinNS || sd.SumNS < 0 {
		return latency{}, fmt.Errorf("%s: count %d, min %d, max %d, sum %d ns do not hang together", what, sd.Count, sd.MinNS, sd.MaxNS, sd.SumNS)
	}
	return latency{h: h, n: sd.Count, sum: sd.SumNS, min: sd.MinNS, max: sd.MaxNS}, nil
}

// decode reads an encoded histogram, checking that it holds count values
// and has the geometry taobench writes.
func decode(what, enc string, count int64, sigFigs int64) (*hdrhistogram.Histogram, error) {
	if enc == "" {
		if count != 0 {
			return nil, fmt.Errorf("%s: %d requests but no histogram", what, count)
		}
		return nil, nil
	}
	h, err := hdrhistogram.Decode([]byte(enc))
	if err != nil {
		return nil, fmt.Errorf("%s: the histogram cannot be decoded: %v", what, err)
	}
	if h.LowestTrackableValue() != lowestUS || h.HighestTrackableValue() < highestUS || h.SignificantFigures() != sigFigs {
		return nil, fmt.Errorf("%s: the histogram covers %d to %d µs with %d significant digits; taobench writes %d to %d µs with %d",
			what, h.LowestTrackableValue(), h.HighestTrackableValue(), h.SignificantFigures(), lowestUS, highestUS, sigFigs)
	}
	if h.TotalCount() != count {
		return nil, fmt.Errorf("%s: the histogram holds %d values but the count is %d", what, h.TotalCount(), count)
	}
	return h, nil
}

// FromData rebuilds a summary from its data, checking that the data hang
// together (histograms decode and hold their counts). Errors name the
// series or second at fault.
func FromData(d *Data) (*Summary, error) {
	s := &Summary{outcomes: d.Outcomes}
	for name, sd := range d.Series {
		l := s.series(name)
		if l == nil {
			return nil, fmt.Errorf("latency series %q: no such class or kind", name)
		}
		var err error
		if *l, err = fromSeriesData("latency series "+name, sd); err != nil {
			return nil, err
		}
	}
	for _, set := range []struct {
		what string
		data map[string]SeriesData
		into *[tao.NumClasses]latency
	}{{"service-time series", d.Service, &s.service}, {"injected-delay series", d.Injected, &s.injected}} {
		for name, sd := range set.data {
			c, ok := tao.ParseClass(name)
			if !ok {
				return nil, fmt.Errorf("%s %q: no such class", set.what, name)
			}
			var err error
			if set.into[c], err = fromSeriesData(set.what+" "+name, sd); err != nil {
				return nil, err
			}
		}
	}
	for name, sd := range d.Tiers {
		t, ok := tao.ParseTier(name)
		if !ok {
			return nil, fmt.Errorf("latency series by tier %q: no such tier", name)
		}
		var err error
		if s.tiers[t], err = fromSeriesData("latency series of tier "+name, sd); err != nil {
			return nil, err
		}
	}
	c := d.Counters
	s.attempts, s.writesObjects, s.objectConflicted = c.Attempts, c.WritesObjects, c.ObjectConflicted
	s.writesEdges, s.assocConflicted, s.addsUnique = c.WritesEdges, c.AssociationConflicted, c.AddsUnique
	s.withChecks, s.writeRequests, s.lockConflicted, s.uniqueRejected = c.WithChecks, c.WriteRequests, c.LockConflicted, c.UniqueRejected
	for _, l := range d.Lost {
		if l.Second < 0 || l.Second > maxLostSeconds {
			return nil, fmt.Errorf("lost requests in second %d: out of range", l.Second)
		}
		for len(s.lost) <= l.Second {
			s.lost = append(s.lost, lostSecond{})
		}
		s.lost[l.Second].errors += l.Errors
		s.lost[l.Second].timeouts += l.Timeouts
	}
	for _, x := range d.Timeline {
		if x.Second < -maxLostSeconds || x.Second > maxLostSeconds || x.Warmup != (x.Second < 0) {
			return nil, fmt.Errorf("timeline second %d (warmup %v): out of range, or warmup not exactly the negative seconds", x.Second, x.Warmup)
		}
		sec := &second{writeRequests: x.WriteRequests, lockConflicted: x.LockConflicted}
		if x.Completed == nil || x.Answered == nil {
			s.ts.noAnswers = true
		} else if *x.Completed < 0 || *x.Answered < 0 || *x.Answered > *x.Completed {
			return nil, fmt.Errorf("timeline second %d: %d completed, %d answered: want 0 <= answered <= completed", x.Second, *x.Completed, *x.Answered)
		} else {
			sec.completed, sec.answered = *x.Completed, *x.Answered
		}
		for name, counts := range x.Requests {
			cl, ok := tao.ParseClass(name)
			if !ok || len(counts) != int(tao.NumOutcomes) {
				return nil, fmt.Errorf("timeline second %d: requests of %q: want a class with %d counts by outcome", x.Second, name, tao.NumOutcomes)
			}
			var n int64
			for o, v := range counts {
				sec.reqs[cl][o] = v
				n += v
			}
			h, err := decode(fmt.Sprintf("timeline second %d, class %s", x.Second, name), x.HDR[name], n, SecondSigFigs)
			if err != nil {
				return nil, err
			}
			sec.h[cl] = h
		}
		list, i := &s.ts.measured, x.Second
		if x.Warmup {
			list, i = &s.ts.warmup, -x.Second-1
		}
		for len(*list) <= i {
			*list = append(*list, nil)
		}
		if (*list)[i] == nil {
			(*list)[i] = sec
		} else {
			(*list)[i].merge(sec)
		}
	}
	return s, nil
}

// TierHistogram returns a copy of the histogram of the reads the named
// read tier served, or nil when it served none.
func (s *Summary) TierHistogram(name string) *hdrhistogram.Histogram {
	t, ok := tao.ParseTier(name)
	if !ok || s.tiers[t].h == nil {
		return nil
	}
	return s.tiers[t].h.Clone()
}

// Histogram returns a copy of a series' histogram (a class or kind name;
// microseconds, 3 significant digits), or nil when the series is empty or
// unknown: for reporters that draw its distribution.
func (s *Summary) Histogram(name string) *hdrhistogram.Histogram {
	l := s.series(name)
	if l == nil || l.h == nil {
		return nil
	}
	return l.h.Clone()
}
