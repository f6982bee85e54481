package metrics

import (
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taobench/taobench/tao"
)

func read(k tao.Kind, d time.Duration) *Sample {
	return &Sample{Class: tao.Read, Kind: k, Outcome: tao.OK, Latency: d, Attempts: 1}
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

func TestClassAndKindSeries(t *testing.T) {
	r := NewRecorder()
	r.Record(read(tao.ObjRead, 1500*time.Nanosecond))
	r.Record(read(tao.ObjRead, 2500*time.Nanosecond))
	r.Record(read(tao.EdgeRangeRead, 10*time.Millisecond))
	r.Record(&Sample{Class: tao.ReadTxn, Kind: tao.NumKinds, Latency: 40 * time.Millisecond, Attempts: 1})
	s := r.Snapshot()

	if got := s.Stats("read"); got.Count != 3 || got.Min != 1.5 || got.Max != 10000 {
		t.Errorf("read = %+v, want count 3, min 1.5, max 10000", got)
	}
	if got := s.Stats("obj_read"); got.Count != 2 || got.Mean != 2 || got.Min != 1.5 || got.Max != 2.5 {
		t.Errorf("obj_read = %+v, want count 2, mean 2, min 1.5, max 2.5", got)
	}
	// A transaction goes to its class only.
	if got := s.Stats("read_txn"); got.Count != 1 || got.P50 != 40000 {
		t.Errorf("read_txn = %+v, want count 1, p50 40000", got)
	}
	kinds := int64(0)
	for _, k := range tao.ReadKinds {
		kinds += s.Stats(k.String()).Count
	}
	if kinds != 3 {
		t.Errorf("kind counts sum to %d, want 3", kinds)
	}
	if got := s.Stats(All); got.Count != 4 || got.Max != 40000 || got.Min != 1.5 {
		t.Errorf("all = %+v, want count 4, min 1.5, max 40000", got)
	}
	if got := s.Stats("obj_add", "edge_add"); got.Count != 0 {
		t.Errorf("empty union = %+v, want zero", got)
	}
	if got := s.Stats("nonsense"); got != (LatencyStats{}) {
		t.Errorf("unknown name = %+v, want zero", got)
	}
}

func TestPercentiles(t *testing.T) {
	r := NewRecorder()
	for i := 1; i <= 1000; i++ {
		r.Record(read(tao.ObjRead, time.Duration(i)*time.Millisecond))
	}
	st := r.Snapshot().Stats("obj_read")
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"p50", st.P50, 500_000}, {"p90", st.P90, 900_000}, {"p99", st.P99, 990_000},
		{"p999", st.P999, 999_000}, {"mean", st.Mean, 500_500}, {"max", st.Max, 1_000_000},
	} {
		if !near(c.got, c.want, 0.001) {
			t.Errorf("%s = %v µs, want %v within 0.1%%", c.name, c.got, c.want)
		}
	}
}

func TestOutOfRangeInput(t *testing.T) {
	r := NewRecorder()
	r.Record(&Sample{Class: tao.NumClasses, Outcome: tao.OK, Attempts: 1})
	r.Record(&Sample{Class: tao.Read, Kind: tao.ObjRead, Outcome: tao.NumOutcomes, Attempts: 1})
	r.Record(read(tao.ObjRead, 2*time.Hour))
	r.Record(read(tao.ObjRead, -time.Second))
	r.Record(&Sample{Class: tao.Write, Kind: tao.NumKinds + 3, Outcome: tao.Error, At: 1000 * 24 * time.Hour})
	s := r.Snapshot()
	if got := s.Requests(); got != 3 {
		t.Errorf("requests = %d, want 3 (bad class and outcome ignored)", got)
	}
	st := s.Stats("obj_read")
	if st.Min != 0 || st.Max != float64(2*time.Hour/time.Microsecond) || st.P999 > st.Max {
		t.Errorf("obj_read = %+v, want min 0, exact max of 2h, p999 <= max", st)
	}
	if got := s.Stats("write").Count; got != 1 {
		t.Errorf("write count = %d, want 1 (bad kind still counts in its class)", got)
	}
	if got := s.Attempts(); got != 3 {
		t.Errorf("attempts = %d, want 3 (a zero attempt count reads as 1)", got)
	}
	if n, tl := s.Lost(); n != 1 || len(tl) != 1 || tl[0].Second != maxLostSeconds {
		t.Errorf("lost = %d %+v, want 1 in the last second", n, tl)
	}
}

func TestOutcomesAndContention(t *testing.T) {
	r := NewRecorder()
	w := func(c tao.Class, o tao.Outcome, mod func(*Sample)) {
		s := &Sample{Class: c, Kind: tao.NumKinds, Outcome: o, Attempts: 1, Latency: time.Millisecond}
		if c == tao.Write {
			s.Kind = tao.ObjUpdate
		}
		mod(s)
		r.Record(s)
	}
	none := func(*Sample) {}
	// Four object writes, one of which conflicted once and then succeeded.
	w(tao.Write, tao.OK, func(s *Sample) { s.WritesObjects = true })
	w(tao.Write, tao.OK, func(s *Sample) { s.WritesObjects = true })
	w(tao.Write, tao.OK, func(s *Sample) { s.WritesObjects = true; s.ObjectConflicts = 1; s.Attempts = 2 })
	w(tao.Write, tao.PreconditionFailed, func(s *Sample) { s.WritesObjects = true; s.HasChecks = true })
	// Two edge transactions adding unique edges: one ended in a unique
	// violation, one failed after three association conflicts.
	w(tao.WriteTxn, tao.UniqueViolation, func(s *Sample) { s.WritesEdges = true; s.AddsUniqueEdge = true; s.HasChecks = true })
	w(tao.WriteTxn, tao.ConflictAssociation, func(s *Sample) {
		s.WritesEdges = true
		s.AddsUniqueEdge = true
		s.AssocConflicts = 3
		s.Attempts = 3
	})
	// Reads: a legal not-found, a timeout and an error.
	w(tao.Read, tao.NotFound, func(s *Sample) { s.Kind = tao.ObjRead })
	w(tao.ReadTxn, tao.Timeout, func(s *Sample) { s.At = 12500 * time.Millisecond })
	w(tao.ReadTxn, tao.Error, func(s *Sample) { s.At = 14 * time.Second })
	w(tao.ReadTxn, tao.Error, func(s *Sample) { s.At = 12 * time.Second })
	w(tao.ReadTxn, tao.OK, none)

	s := r.Snapshot()
	if got := s.Requests(); got != 11 {
		t.Errorf("requests = %d, want 11", got)
	}
	if got := s.Attempts(); got != 14 {
		t.Errorf("attempts = %d, want 14", got)
	}
	if got := s.Failed(); got != 4 {
		t.Errorf("failed = %d, want 4 (conflict, timeout, 2 errors)", got)
	}
	wantOutcomes := map[tao.Outcome]int64{
		tao.OK: 4, tao.NotFound: 1, tao.PreconditionFailed: 1, tao.UniqueViolation: 1,
		tao.ConflictObject: 0, tao.ConflictAssociation: 1, tao.Timeout: 1, tao.Error: 2,
	}
	for o, want := range wantOutcomes {
		if got := s.Outcome(o); got != want {
			t.Errorf("outcome %v = %d, want %d", o, got, want)
		}
	}
	want := Contention{
		ObjectLockConflictPct:      25,            // 1 of 4 object writes
		AssociationLockConflictPct: 50,            // 1 of 2 edge writes
		UniqueAssociationExistsPct: 50,            // 1 of 2 unique adds
		PreconditionFailedPct:      50,            // 1 of 2 requests with checks
		OverallPct:                 2.0 / 6 * 100, // write requests with a lock conflict
	}
	got := s.Contention()
	if got.ObjectLockConflictPct != want.ObjectLockConflictPct ||
		got.AssociationLockConflictPct != want.AssociationLockConflictPct ||
		got.UniqueAssociationExistsPct != want.UniqueAssociationExistsPct ||
		got.PreconditionFailedPct != want.PreconditionFailedPct ||
		!near(got.OverallPct, want.OverallPct, 1e-12) || !near(got.OverallWithUniquePct, 3.0/6*100, 1e-12) {
		t.Errorf("contention = %+v, want %+v", got, want)
	}
	if got := NewSummary().Contention(); got != (Contention{}) {
		t.Errorf("empty contention = %+v, want zeros", got)
	}

	n, tl := s.Lost()
	wantTL := []LostSecond{{Second: 12, Errors: 1, Timeouts: 1}, {Second: 14, Errors: 1}}
	if n != 3 || len(tl) != len(wantTL) || tl[0] != wantTL[0] || tl[1] != wantTL[1] {
		t.Errorf("lost = %d %+v, want 3 %+v", n, tl, wantTL)
	}
}

// Merging per-client summaries must equal recording everything in one place.
func TestMergeEqualsSingleRecorder(t *testing.T) {
	one := NewRecorder()
	parts := []*Recorder{NewRecorder(), NewRecorder(), NewRecorder()}
	for i := range 300 {
		s := read(tao.Kind(i%5), time.Duration(i*i)*time.Microsecond)
		s.Outcome = tao.Outcome(i % int(tao.NumOutcomes))
		s.At = time.Duration(i) * 100 * time.Millisecond
		s.WritesObjects = i%3 == 0
		s.ObjectConflicts = i % 2
		one.Record(s)
		parts[i%3].Record(s)
	}
	merged := NewSummary()
	merged.Merge(nil)
	for _, p := range parts {
		merged.Merge(p.Snapshot())
	}
	want := one.Snapshot()
	for _, name := range []string{All, "read", "obj_read", "edge_time_read"} {
		if g, w := merged.Stats(name), want.Stats(name); g != w {
			t.Errorf("%s: merged %+v, single %+v", name, g, w)
		}
	}
	if merged.Requests() != want.Requests() || merged.Failed() != want.Failed() ||
		merged.Contention() != want.Contention() {
		t.Errorf("merged counts differ from a single recorder")
	}
	gn, gt := merged.Lost()
	wn, wt := want.Lost()
	if gn != wn || len(gt) != len(wt) {
		t.Errorf("merged lost %d in %d seconds, single %d in %d", gn, len(gt), wn, len(wt))
	}
}

func TestSnapshotIsACopy(t *testing.T) {
	r := NewRecorder()
	r.Record(read(tao.ObjRead, time.Millisecond))
	snap := r.Snapshot()
	r.Record(read(tao.ObjRead, time.Second))
	r.Record(&Sample{Class: tao.Read, Kind: tao.ObjRead, Outcome: tao.Error, Attempts: 1, At: 3 * time.Second})
	if st := snap.Stats("obj_read"); st.Count != 1 || st.Max != 1000 {
		t.Errorf("snapshot changed after later records: %+v", st)
	}
	if n, _ := snap.Lost(); n != 0 {
		t.Errorf("snapshot lost = %d, want 0", n)
	}
	// Merging into a summary must not alias the source either.
	sum := NewSummary()
	sum.Merge(snap)
	sum.Merge(r.Snapshot())
	if st := snap.Stats("obj_read"); st.Count != 1 {
		t.Errorf("merge changed its source: %+v", st)
	}
}

// Run with -race: clients record while a status goroutine snapshots.
func TestConcurrentRecordAndSnapshot(t *testing.T) {
	const clients, perClient = 4, 2000
	recs := make([]*Recorder, clients)
	for i := range recs {
		recs[i] = NewRecorder()
	}
	var wg sync.WaitGroup
	for _, r := range recs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := &Sample{Class: tao.WriteTxn, Kind: tao.NumKinds, Attempts: 1}
			for i := range perClient {
				s.Latency = time.Duration(i) * time.Microsecond
				s.Outcome = tao.Outcome(i % 8)
				s.At = time.Duration(i) * time.Millisecond
				r.Record(s)
			}
		}()
	}
	stop := make(chan struct{})
	statusDone := make(chan struct{})
	go func() {
		defer close(statusDone)
		var prev *Summary
		for {
			select {
			case <-stop:
				return
			default:
			}
			cur := NewSummary()
			for _, r := range recs {
				cur.Merge(r.Snapshot())
			}
			if prev != nil && cur.Requests() < prev.Requests() {
				t.Errorf("requests went down: %d after %d", cur.Requests(), prev.Requests())
			}
			_ = Status{Requests: cur.Requests(), P99: cur.Stats(All).P99}.String()
			prev = cur
		}
	}()
	wg.Wait()
	close(stop)
	<-statusDone
	sum := NewSummary()
	for _, r := range recs {
		sum.Merge(r.Snapshot())
	}
	if got := sum.Requests(); got != clients*perClient {
		t.Errorf("requests = %d, want %d", got, clients*perClient)
	}
	if got := sum.Stats("write_txn").Count; got != clients*perClient {
		t.Errorf("write_txn count = %d, want %d", got, clients*perClient)
	}
}

func TestStatusString(t *testing.T) {
	got := Status{Elapsed: 20 * time.Second, Measured: 10 * time.Second, Requests: 151, Failed: 3, Lost: 1, Rate: 5.1, P99: 2000}.String()
	for _, want := range []string{"[  20.0s]", "measured 10.0s", "5.1 req/s", "p99 2.000 ms", "151 requests", "3 failed", "1 lost"} {
		if !strings.Contains(got, want) {
			t.Errorf("status %q lacks %q", got, want)
		}
	}
	if got := (Status{}).String(); !strings.Contains(got, "0.0 req/s") || !strings.Contains(got, " 0 requests") {
		t.Errorf("empty status %q lacks 0.0 req/s and 0 requests", got)
	}
}

func BenchmarkRecord(b *testing.B) {
	r := NewRecorder()
	s := read(tao.EdgeRangeRead, 0)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s.Latency = time.Duration(i&0xffff) * time.Microsecond
		r.Record(s)
	}
}

// One recorder per goroutine, as the runner has one per client.
func BenchmarkRecordParallel(b *testing.B) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		r := NewRecorder()
		s := read(tao.EdgeRangeRead, 0)
		for i := 0; pb.Next(); i++ {
			s.Latency = time.Duration(i&0xffff) * time.Microsecond
			r.Record(s)
		}
	})
}
