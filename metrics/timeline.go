package metrics

import (
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/taobench/taobench/tao"
)

// SecondSigFigs is the precision of the per-second histograms: one
// significant digit (16 sub-buckets per power of two, values within 1/16 of
// the bucket's), 3.8 KB per class and second, against 3 digits and
// about 190 KB for the experiment's own series.
const SecondSigFigs = 1

// second is one second of the time series: requests by class and final
// outcome, their latencies per class and the overall contention counts.
type second struct {
	reqs           [tao.NumClasses][tao.NumOutcomes]int64
	h              [tao.NumClasses]*hdrhistogram.Histogram // nil until the first sample
	writeRequests  int64                                   // write and write_txn requests
	lockConflicted int64                                   // of those, with a lock-conflict attempt
	// By the second a request ended in (At + Latency), not began:
	// completed counts every request, answered those the database answered
	// (every outcome but error and timeout). They tell seconds without
	// service apart from seconds without demand (NoService).
	completed, answered int64
}

// series is a time series by second of request start: measured[i] is
// second i of the measured window, warmup[i] second -(i+1) (the warmup's
// last second is -1). Seconds are allocated on their first sample.
type series struct {
	measured, warmup []*second
	// The second of the last sample, which the next one is most likely in.
	last       *second
	lastAt     time.Duration // its start, as an offset like Sample.At
	lastWarmup bool
	// noAnswers: some seconds came from a results file written before
	// completed and answered were recorded, so NoService cannot be known.
	noAnswers bool
	// slices are the measured window by StallSlice, for LongestStall:
	// requests began (measured ones) and completed and answered (by their
	// end, warmup ones too) in each. Not written to results files.
	slices []slice
}

// StallSlice is LongestStall's resolution: whole seconds (NoService) can
// show a 2 s outage as a single second, and a stall is judged on its
// length (--max-stall).
const StallSlice = 100 * time.Millisecond

type slice struct{ began, completed, answered int64 }

// sliceAt returns the slice of offset d (from the measured window's start),
// allocating it; nil for one before the window.
func (t *series) sliceAt(d time.Duration) *slice {
	if d < 0 {
		return nil
	}
	i := int(min(d/StallSlice, maxLostSeconds*(time.Second/StallSlice)))
	for len(t.slices) <= i {
		t.slices = append(t.slices, slice{})
	}
	return &t.slices[i]
}

// index returns the series' slice and position of a sample's second.
func (t *series) at(x *Sample) *second {
	if t.last != nil && x.Warmup == t.lastWarmup && x.At >= t.lastAt && x.At < t.lastAt+time.Second {
		return t.last
	}
	list := &t.measured
	var i int
	if x.Warmup {
		list = &t.warmup
		i = int(min(max(-x.At-1, 0)/time.Second, maxLostSeconds))
	} else {
		i = int(min(max(x.At, 0)/time.Second, maxLostSeconds))
	}
	for len(*list) <= i {
		*list = append(*list, nil)
	}
	if (*list)[i] == nil {
		(*list)[i] = &second{}
	}
	t.last, t.lastWarmup = (*list)[i], x.Warmup
	t.lastAt = time.Duration(i) * time.Second
	if x.Warmup {
		t.lastAt = -time.Duration(i+1) * time.Second
	}
	if x.At < 0 != x.Warmup || i == maxLostSeconds {
		t.last = nil // clamped: never a hit
	}
	return (*list)[i]
}

// ending returns the second a request that began at at and took lat
// ended in, allocating it if needed.
func (t *series) ending(at, lat time.Duration) *second {
	end := at + max(lat, 0)
	list := &t.measured
	var i int
	if end < 0 {
		list = &t.warmup
		i = int(min(max(-end-1, 0)/time.Second, maxLostSeconds))
	} else {
		i = int(min(end/time.Second, maxLostSeconds))
	}
	for len(*list) <= i {
		*list = append(*list, nil)
	}
	if (*list)[i] == nil {
		(*list)[i] = &second{}
	}
	return (*list)[i]
}

func (t *series) add(x *Sample) {
	if x.Class >= tao.NumClasses || x.Outcome >= tao.NumOutcomes {
		return
	}
	// Most requests end in the second the last sample began in: the
	// cached second's range is [lastAt, lastAt+1s), warmup or not.
	e := t.last
	if end := x.At + max(x.Latency, 0); e == nil || end < t.lastAt || end >= t.lastAt+time.Second {
		e = t.ending(x.At, x.Latency)
	}
	e.completed++
	answered := x.Outcome != tao.Error && x.Outcome != tao.Timeout
	if answered {
		e.answered++
	}
	if !x.Warmup {
		t.sliceAt(max(x.At, 0)).began++
	}
	if sl := t.sliceAt(x.At + max(x.Latency, 0)); sl != nil {
		sl.completed++
		if answered {
			sl.answered++
		}
	}
	s := t.at(x)
	s.reqs[x.Class][x.Outcome]++
	if s.h[x.Class] == nil {
		s.h[x.Class] = hdrhistogram.New(lowestUS, highestUS, SecondSigFigs)
	}
	_ = s.h[x.Class].RecordValue(min(max(int64(x.Latency), 0)/1000, highestUS))
	if x.Class == tao.Write || x.Class == tao.WriteTxn {
		s.writeRequests++
		s.lockConflicted += b2i(x.ObjectConflicts > 0 || x.AssocConflicts > 0)
	}
}

func (s *second) merge(o *second) {
	for c := range s.reqs {
		for k := range s.reqs[c] {
			s.reqs[c][k] += o.reqs[c][k]
		}
		if o.h[c] == nil {
			continue
		}
		if s.h[c] == nil {
			s.h[c] = o.h[c].Clone()
		} else {
			s.h[c].Merge(o.h[c])
		}
	}
	s.writeRequests += o.writeRequests
	s.lockConflicted += o.lockConflicted
	s.completed += o.completed
	s.answered += o.answered
}

func mergeSeconds(dst *[]*second, src []*second) {
	for len(*dst) < len(src) {
		*dst = append(*dst, nil)
	}
	for i, o := range src {
		if o == nil {
			continue
		}
		if (*dst)[i] == nil {
			(*dst)[i] = &second{}
		}
		(*dst)[i].merge(o)
	}
}

func (t *series) merge(o *series) {
	t.noAnswers = t.noAnswers || o.noAnswers
	for len(t.slices) < len(o.slices) {
		t.slices = append(t.slices, slice{})
	}
	for i, x := range o.slices {
		y := &t.slices[i]
		y.began, y.completed, y.answered = y.began+x.began, y.completed+x.completed, y.answered+x.answered
	}
	mergeSeconds(&t.measured, o.measured)
	mergeSeconds(&t.warmup, o.warmup)
}

func (t *series) clone() series {
	var c series // no last: it would point into t
	c.merge(t)
	return c
}

// Timeline collects the per-second series of several recorders in one
// place, so its memory does not grow with the number of recorders: about
// 15 KB per second of a four-class workload.
type Timeline struct {
	mu sync.Mutex
	ts series
}

// NewTimeline returns an empty timeline.
func NewTimeline() *Timeline { return &Timeline{} }

// NewRecorderSharing returns an empty recorder whose per-second series go
// to tl instead of its own summary: Snapshot then holds none, and
// tl.Snapshot holds those of every recorder sharing tl.
func NewRecorderSharing(tl *Timeline) *Recorder { return &Recorder{tl: tl} }

func (t *Timeline) addBatch(samples []Sample) {
	t.mu.Lock()
	for i := range samples {
		t.ts.add(&samples[i])
	}
	t.mu.Unlock()
}

// Snapshot returns a summary holding only the timeline's series, to be
// merged into the recorders' summaries.
func (t *Timeline) Snapshot() *Summary {
	t.mu.Lock()
	defer t.mu.Unlock()
	return &Summary{ts: t.ts.clone()}
}

// EachSecond calls fn for every second with requests, warmup first, in
// order, and every class with requests in it, with the class's histogram of
// that second (microseconds, SecondSigFigs digits). fn must not keep h.
func (s *Summary) EachSecond(fn func(second int, warmup bool, c tao.Class, h *hdrhistogram.Histogram)) {
	for i := len(s.ts.warmup) - 1; i >= 0; i-- {
		eachClass(s.ts.warmup[i], -(i + 1), true, fn)
	}
	for i, sec := range s.ts.measured {
		eachClass(sec, i, false, fn)
	}
}

func eachClass(sec *second, n int, warmup bool, fn func(int, bool, tao.Class, *hdrhistogram.Histogram)) {
	if sec == nil {
		return
	}
	for c, h := range sec.h {
		if h != nil && h.TotalCount() > 0 {
			fn(n, warmup, tao.Class(c), h)
		}
	}
}

// NoService reports the whole seconds of a measured window of the given
// length in which requests were due (one began in the second, or one was
// still running at its start) and the database answered none (every
// request that ended in it, if any, was an error or a timeout): an outage,
// or a server that stopped answering. longest is the longest run of such
// seconds. Seconds with no demand (an open loop at a low rate) are not
// counted. known is false for a summary read from a file written before
// taobench recorded when requests ended.
func (s *Summary) NoService(window time.Duration) (seconds, longest int, known bool) {
	secs, known := s.NoServiceSeconds(window)
	run := 0
	for i, sec := range secs {
		if i > 0 && secs[i-1] == sec-1 {
			run++
		} else {
			run = 1
		}
		longest = max(longest, run)
	}
	return len(secs), longest, known
}

// NoServiceSeconds returns the measured seconds NoService counts, in
// order: where an outage began and ended, for a report to show.
func (s *Summary) NoServiceSeconds(window time.Duration) (secs []int, known bool) {
	if s.ts.noAnswers {
		return nil, false
	}
	var inFlight int64
	for _, sec := range s.ts.warmup {
		if sec != nil {
			inFlight += sec.began() - sec.completed
		}
	}
	for i := range int(window / time.Second) {
		var sec second
		if i < len(s.ts.measured) && s.ts.measured[i] != nil {
			sec = *s.ts.measured[i]
		}
		began := sec.began()
		if (inFlight > 0 || began > 0) && sec.answered == 0 {
			secs = append(secs, i)
		}
		inFlight += began - sec.completed
	}
	return secs, true
}

// LongestStall is the longest stretch of a measured window of the given
// length, to StallSlice, from a request that was due (began, or still
// running) and not answered to the next answer (or the window's end) in
// which the database answered none; a stretch spans slices without demand
// (clients backing off after errors), so an outage whose requests fail at
// once counts whole. Unlike NoService it does not round an outage down to
// whole seconds: a 2 s partition measures about 2 s, not the one whole
// second it may cover. A summary read from a results file (no slices)
// gives NoService's longest run in whole seconds; known as NoService's.
func (s *Summary) LongestStall(window time.Duration) (d time.Duration, known bool) {
	_, longest, known := s.NoService(window)
	if !known || s.ts.slices == nil {
		return time.Duration(longest) * time.Second, known
	}
	var inFlight int64
	for _, sec := range s.ts.warmup {
		if sec != nil {
			inFlight += sec.began() - sec.completed
		}
	}
	start, most := -1, 0
	for i := range int(window / StallSlice) {
		var sl slice
		if i < len(s.ts.slices) {
			sl = s.ts.slices[i]
		}
		switch {
		case sl.answered > 0:
			start = -1
		case inFlight > 0 || sl.began > 0:
			if start < 0 {
				start = i
			}
			most = max(most, i-start+1)
		}
		inFlight += sl.began - sl.completed
	}
	return time.Duration(most) * StallSlice, true
}

// began is the number of requests that began in the second.
func (s *second) began() int64 {
	var n int64
	for c := range s.reqs {
		for _, v := range s.reqs[c] {
			n += v
		}
	}
	return n
}

// Window is what the measured seconds [From, To) of a time series hold, by
// request start: requests and failed requests by class, and each class's
// latencies (µs, SecondSigFigs digits; nil for a class without requests).
type Window struct {
	Requests, Failed [tao.NumClasses]int64
	Hist             [tao.NumClasses]*hdrhistogram.Histogram
}

// Window merges the measured seconds [from, to) of the summary's time
// series, for the intervals of package result (seconds without requests
// count as empty).
func (s *Summary) Window(from, to int) Window {
	var w Window
	for i := max(from, 0); i < min(to, len(s.ts.measured)); i++ {
		sec := s.ts.measured[i]
		if sec == nil {
			continue
		}
		for c := range sec.reqs {
			for o, n := range sec.reqs[c] {
				w.Requests[c] += n
				if tao.Outcome(o).Failed() {
					w.Failed[c] += n
				}
			}
			if h := sec.h[c]; h != nil {
				if w.Hist[c] == nil {
					w.Hist[c] = h.Clone()
				} else {
					w.Hist[c].Merge(h)
				}
			}
		}
	}
	return w
}
