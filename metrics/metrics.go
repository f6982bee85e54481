// Package metrics counts what clients observe: latency histograms per request
// class and per operation kind, final outcomes, retry attempts, contention and
// a per-second timeline of lost requests.
//
// Each client owns a Recorder, so recording shares no lock with other clients;
// the runner merges Snapshots of all recorders into one Summary for status
// lines and for the report. docs/results.md defines every figure.
//
// Latencies are kept twice: an HDR histogram (1 µs to 1 h, 3 significant
// digits) gives percentiles, while exact count, sum, min and max in
// nanoseconds give the original TAOBench's Min/Max/Avg with its two decimals
// of microseconds. A histogram is allocated on the first sample of its class or
// kind (about 190 KB each, at most 15 per recorder), so kinds a workload never
// issues cost nothing.
package metrics

import (
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/taobench/taobench/tao"
)

const (
	lowestUS  = 1
	highestUS = int64(time.Hour / time.Microsecond)
	sigFigs   = 3

	// maxLostSeconds bounds the lost-request timeline against a bogus At:
	// later requests are counted in the last second.
	maxLostSeconds = 7 * 24 * 3600
)

// Sample is one finished request, as a client records it.
type Sample struct {
	Class tao.Class
	// Kind is the kind of a single-operation request (Read or Write);
	// tao.NumKinds for transactions.
	Kind    tao.Kind
	Outcome tao.Outcome // final outcome after retries
	// Latency runs from the first attempt's start (or the intended start, in
	// open loop) to the end of the last attempt.
	Latency time.Duration
	// Service runs from the first attempt's actual start to the end of the
	// last attempt. Zero (closed loop, where it equals Latency) records no
	// service-time sample; ServiceStats then reports the latency series.
	Service time.Duration
	// Injected is the client-side delay injected into the request (part of
	// Latency and Service), recorded when Inject is set.
	Injected time.Duration
	Inject   bool
	Attempts int // >= 1
	// ObjectConflicts and AssocConflicts count attempts that ended in
	// ConflictObject and ConflictAssociation.
	ObjectConflicts, AssocConflicts int
	WritesObjects, WritesEdges      bool // the request writes objects / associations
	AddsUniqueEdge                  bool // it adds an edge of a unique type
	HasChecks                       bool // it carries preconditions
	// Warmup marks a request started before the measured window (At < 0):
	// it counts only in the per-second series, marked as warmup.
	Warmup bool
	// At is the request's start as an offset from the start of measurement.
	At time.Duration
	// Tiered marks a read that read tiers answered; Tier is the tier that
	// served it (tao.Result.Served).
	Tier   tao.Tier
	Tiered bool
}

// Recorder collects samples. A client records into its own batch and hands
// the batch over with RecordBatch, so a recorder may serve several clients:
// its histograms, not the client count, set the memory, and its mutex is
// taken once per batch.
type Recorder struct {
	mu  sync.Mutex
	sum Summary
	tl  *Timeline // when shared: the per-second series go there
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder { return &Recorder{} }

// Record adds one sample. It does not allocate, except for a histogram on the
// first sample of a class or kind and a timeline second on a lost request.
// Samples with an out-of-range class or outcome are ignored; fewer than one
// attempt counts as one.
func (r *Recorder) Record(s *Sample) {
	r.mu.Lock()
	r.sum.add(s, r.tl == nil)
	r.mu.Unlock()
	if r.tl != nil {
		r.tl.mu.Lock()
		r.tl.ts.add(s)
		r.tl.mu.Unlock()
	}
}

// RecordBatch adds samples under one acquisition of the mutex.
func (r *Recorder) RecordBatch(samples []Sample) {
	r.mu.Lock()
	for i := range samples {
		r.sum.add(&samples[i], r.tl == nil)
	}
	r.mu.Unlock()
	if r.tl != nil {
		r.tl.addBatch(samples)
	}
}

// Snapshot returns a deep copy of everything recorded so far; it is safe to
// call while the client records.
func (r *Recorder) Snapshot() *Summary {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sum.clone()
}

// latency is one series of latencies.
type latency struct {
	h             *hdrhistogram.Histogram // nil until the first sample
	n             int64
	sum, min, max int64 // ns
}

func (l *latency) record(d time.Duration) {
	ns := max(int64(d), 0)
	if l.h == nil {
		l.h = hdrhistogram.New(lowestUS, highestUS, sigFigs)
	}
	// Clamped into range, RecordValue cannot fail.
	_ = l.h.RecordValue(min(ns/1000, highestUS))
	if l.n == 0 || ns < l.min {
		l.min = ns
	}
	if ns > l.max {
		l.max = ns
	}
	l.n++
	l.sum += ns
}

func (l *latency) merge(o *latency) {
	if o.n == 0 {
		return
	}
	if l.h == nil {
		l.h = o.h.Clone()
	} else {
		l.h.Merge(o.h)
	}
	if l.n == 0 || o.min < l.min {
		l.min = o.min
	}
	l.max = max(l.max, o.max)
	l.n += o.n
	l.sum += o.sum
}

func (l *latency) clone() latency {
	c := *l
	if l.h != nil {
		c.h = l.h.Clone()
	}
	return c
}

// LatencyStats describes a latency series in microseconds. Count, Mean, Min
// and Max are exact; percentiles come from the histogram (3 significant
// digits), clamped to [Min, Max].
type LatencyStats struct {
	Count                               int64
	Mean, Min, P50, P90, P99, P999, Max float64
}

func (l *latency) stats() LatencyStats {
	if l.n == 0 {
		return LatencyStats{}
	}
	st := LatencyStats{
		Count: l.n,
		Mean:  float64(l.sum) / float64(l.n) / 1000,
		Min:   float64(l.min) / 1000,
		Max:   float64(l.max) / 1000,
	}
	pct := func(p float64) float64 {
		return min(max(float64(l.h.ValueAtPercentile(p)), st.Min), st.Max)
	}
	st.P50, st.P90, st.P99, st.P999 = pct(50), pct(90), pct(99), pct(99.9)
	return st
}

// lostSecond counts the requests lost to errors and timeouts in one second.
type lostSecond struct{ errors, timeouts int64 }

// LostSecond is one second of the measured window that lost requests.
type LostSecond struct {
	Second           int // seconds since the start of measurement
	Errors, Timeouts int64
}

// Contention gives the contention figures in percent (see docs/results.md).
type Contention struct {
	ObjectLockConflictPct      float64
	AssociationLockConflictPct float64
	UniqueAssociationExistsPct float64
	PreconditionFailedPct      float64
	// OverallPct is the paper's overall contention (TAOBench Table 5,
	// "operations that conflict over a key when attempting to acquire a
	// lock"): write requests with an object or association lock conflict.
	// Where each request writes an object and an association and the two
	// rarely meet, it is their sum, as Table 5's 0.138% + 0.00315% = 0.141%.
	// OverallWithUniquePct also counts requests refused as "unique
	// association exists", as Table 7's overall does (0.0452% + 0.114% +
	// 0.443% = 0.602%).
	OverallPct           float64
	OverallWithUniquePct float64
	// The write-write conflict percentages (TAOBench §3.3) are counted once,
	// by the fidelity counters: result.Races.
}

// Summary is the merged record of one or more recorders.
type Summary struct {
	classes  [tao.NumClasses]latency
	kinds    [tao.NumKinds]latency   // single-operation requests only
	service  [tao.NumClasses]latency // open loop: from the actual start
	injected [tao.NumClasses]latency // injected delays
	tiers    [tao.NumTiers]latency   // reads (single and transactions) by the tier that served them
	outcomes [tao.NumOutcomes]int64
	attempts int64

	// Contention denominators and numerators.
	writesObjects, objectConflicted int64
	writesEdges, assocConflicted    int64
	addsUnique, withChecks          int64
	writeRequests, lockConflicted   int64
	uniqueRejected                  int64 // write requests that ended in unique_violation

	lost []lostSecond // indexed by second of At

	ts series // per second, warmup included
}

// NewSummary returns an empty summary.
func NewSummary() *Summary { return &Summary{} }

// add counts x; withTS also adds it to the summary's own per-second series.
// A warmup sample counts only there.
func (s *Summary) add(x *Sample, withTS bool) {
	if x.Class >= tao.NumClasses || x.Outcome >= tao.NumOutcomes {
		return
	}
	if withTS {
		s.ts.add(x)
	}
	if x.Warmup {
		return
	}
	s.classes[x.Class].record(x.Latency)
	if x.Service > 0 {
		s.service[x.Class].record(x.Service)
	}
	if x.Inject {
		s.injected[x.Class].record(x.Injected)
	}
	if (x.Class == tao.Read || x.Class == tao.Write) && x.Kind < tao.NumKinds {
		s.kinds[x.Kind].record(x.Latency)
	}
	if x.Tiered && x.Tier < tao.NumTiers && (x.Class == tao.Read || x.Class == tao.ReadTxn) {
		s.tiers[x.Tier].record(x.Latency)
	}
	s.outcomes[x.Outcome]++
	s.attempts += int64(max(x.Attempts, 1))

	if x.WritesObjects {
		s.writesObjects++
		s.objectConflicted += b2i(x.ObjectConflicts > 0)
	}
	if x.WritesEdges {
		s.writesEdges++
		s.assocConflicted += b2i(x.AssocConflicts > 0)
	}
	s.addsUnique += b2i(x.AddsUniqueEdge)
	s.withChecks += b2i(x.HasChecks)
	if x.Class == tao.Write || x.Class == tao.WriteTxn {
		s.writeRequests++
		s.lockConflicted += b2i(x.ObjectConflicts > 0 || x.AssocConflicts > 0)
		s.uniqueRejected += b2i(x.Outcome == tao.UniqueViolation && x.ObjectConflicts == 0 && x.AssocConflicts == 0)
	}

	if x.Outcome == tao.Error || x.Outcome == tao.Timeout {
		sec := int(min(max(x.At, 0)/time.Second, maxLostSeconds))
		for len(s.lost) <= sec {
			s.lost = append(s.lost, lostSecond{})
		}
		if x.Outcome == tao.Error {
			s.lost[sec].errors++
		} else {
			s.lost[sec].timeouts++
		}
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (s *Summary) clone() *Summary {
	c := *s
	for i := range c.classes {
		c.classes[i] = s.classes[i].clone()
	}
	for i := range c.kinds {
		c.kinds[i] = s.kinds[i].clone()
	}
	for i := range c.service {
		c.service[i] = s.service[i].clone()
		c.injected[i] = s.injected[i].clone()
	}
	for i := range c.tiers {
		c.tiers[i] = s.tiers[i].clone()
	}
	c.lost = append([]lostSecond(nil), s.lost...)
	c.ts = s.ts.clone()
	return &c
}

// Merge adds o to s. A nil o adds nothing.
func (s *Summary) Merge(o *Summary) {
	if o == nil {
		return
	}
	for i := range s.classes {
		s.classes[i].merge(&o.classes[i])
	}
	for i := range s.kinds {
		s.kinds[i].merge(&o.kinds[i])
	}
	for i := range s.service {
		s.service[i].merge(&o.service[i])
		s.injected[i].merge(&o.injected[i])
	}
	for i := range s.tiers {
		s.tiers[i].merge(&o.tiers[i])
	}
	for i := range s.outcomes {
		s.outcomes[i] += o.outcomes[i]
	}
	s.attempts += o.attempts
	s.writesObjects += o.writesObjects
	s.objectConflicted += o.objectConflicted
	s.writesEdges += o.writesEdges
	s.assocConflicted += o.assocConflicted
	s.addsUnique += o.addsUnique
	s.withChecks += o.withChecks
	s.writeRequests += o.writeRequests
	s.lockConflicted += o.lockConflicted
	s.uniqueRejected += o.uniqueRejected
	for len(s.lost) < len(o.lost) {
		s.lost = append(s.lost, lostSecond{})
	}
	for i, l := range o.lost {
		s.lost[i].errors += l.errors
		s.lost[i].timeouts += l.timeouts
	}
	s.ts.merge(&o.ts)
}

// All names the union of the four classes: every request.
const All = "all"

// Stats returns the latency statistics of the union of the named series: a
// class ("read", "write", "read_txn", "write_txn"), a kind ("obj_read", ...,
// "edge_delete"; single-operation requests only) or All. Unknown names add
// nothing. Naming a series twice, or a kind and its class, counts it twice.
func (s *Summary) Stats(names ...string) LatencyStats {
	var parts []*latency
	for _, name := range names {
		if name == All {
			for i := range s.classes {
				parts = append(parts, &s.classes[i])
			}
		} else if l := s.series(name); l != nil {
			parts = append(parts, l)
		}
	}
	var nonEmpty []*latency
	for _, p := range parts {
		if p.n > 0 {
			nonEmpty = append(nonEmpty, p)
		}
	}
	switch len(nonEmpty) {
	case 0:
		return LatencyStats{}
	case 1:
		return nonEmpty[0].stats()
	}
	var u latency
	for _, p := range nonEmpty {
		u.merge(p)
	}
	return u.stats()
}

// ServiceStats returns the service-time statistics of a class ("read",
// "read_txn", ...) or All: from each request's actual start, where Stats
// measures from its intended start. A class with no service-time samples
// (closed loop, where the two are the same) reports its latency series.
func (s *Summary) ServiceStats(name string) LatencyStats {
	var u latency
	for c := range tao.NumClasses {
		if name != All && name != c.String() {
			continue
		}
		if s.service[c].n > 0 {
			u.merge(&s.service[c])
		} else {
			u.merge(&s.classes[c])
		}
	}
	return u.stats()
}

// InjectedStats returns the statistics of the delays injected into the
// requests of a class, or All (count 0 when none were injected).
func (s *Summary) InjectedStats(name string) LatencyStats {
	var u latency
	for c := range tao.NumClasses {
		if name == All || name == c.String() {
			u.merge(&s.injected[c])
		}
	}
	return u.stats()
}

// TierStats returns the latency statistics of the reads the named read
// tier (client_cache, tao, db) served, as the clients measured them; a run
// without tiers has none.
func (s *Summary) TierStats(name string) LatencyStats {
	if t, ok := tao.ParseTier(name); ok {
		return s.tiers[t].stats()
	}
	return LatencyStats{}
}

func (s *Summary) series(name string) *latency {
	if c, ok := tao.ParseClass(name); ok {
		return &s.classes[c]
	}
	if k, ok := tao.ParseKind(name); ok {
		return &s.kinds[k]
	}
	return nil
}

// Requests is the number of requests recorded; a transaction counts once.
func (s *Summary) Requests() int64 {
	var n int64
	for _, c := range s.outcomes {
		n += c
	}
	return n
}

// Attempts is the number of attempts, retries included.
func (s *Summary) Attempts() int64 { return s.attempts }

// Outcome is the number of requests whose final outcome was o.
func (s *Summary) Outcome(o tao.Outcome) int64 {
	if o >= tao.NumOutcomes {
		return 0
	}
	return s.outcomes[o]
}

// Failed is the number of requests whose final outcome counts as failed.
func (s *Summary) Failed() int64 {
	var n int64
	for o, c := range s.outcomes {
		if tao.Outcome(o).Failed() {
			n += c
		}
	}
	return n
}

// Contention returns the contention percentages; a zero denominator gives 0.
func (s *Summary) Contention() Contention {
	c := Contention{
		ObjectLockConflictPct:      pct(s.objectConflicted, s.writesObjects),
		AssociationLockConflictPct: pct(s.assocConflicted, s.writesEdges),
		UniqueAssociationExistsPct: pct(s.outcomes[tao.UniqueViolation], s.addsUnique),
		PreconditionFailedPct:      pct(s.outcomes[tao.PreconditionFailed], s.withChecks),
	}
	c.OverallPct = pct(s.lockConflicted, s.writeRequests)
	c.OverallWithUniquePct = pct(s.lockConflicted+s.uniqueRejected, s.writeRequests)
	return c
}

func pct(n, d int64) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d) * 100
}

// Lost returns the requests lost to errors and timeouts: their total and the
// seconds of the measured window that had any, in order.
func (s *Summary) Lost() (total int64, timeline []LostSecond) {
	for i, l := range s.lost {
		if l.errors+l.timeouts == 0 {
			continue
		}
		total += l.errors + l.timeouts
		timeline = append(timeline, LostSecond{Second: i, Errors: l.errors, Timeouts: l.timeouts})
	}
	return total, timeline
}
