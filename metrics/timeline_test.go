package metrics

import (
	"reflect"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/taobench/taobench/tao"
)

// TestTimeline: samples land in the second of their start, warmup seconds
// are negative and marked and count nowhere else, and recorders sharing a
// timeline give the same series as one recorder with its own.
func TestTimeline(t *testing.T) {
	ss := []Sample{
		{Class: tao.Read, Outcome: tao.OK, Latency: 100 * time.Microsecond, At: -1500 * time.Millisecond, Warmup: true},
		{Class: tao.Read, Outcome: tao.OK, Latency: 200 * time.Microsecond, At: -1 * time.Nanosecond, Warmup: true},
		{Class: tao.Read, Outcome: tao.OK, Latency: 300 * time.Microsecond, At: 0},
		{Class: tao.Write, Kind: tao.ObjAdd, Outcome: tao.Error, Latency: 5 * time.Millisecond, At: 999 * time.Millisecond, ObjectConflicts: 1},
		{Class: tao.WriteTxn, Outcome: tao.Timeout, Latency: time.Second, At: 2 * time.Second},
	}
	own := NewRecorder()
	own.RecordBatch(ss)
	tl := NewTimeline()
	a, b := NewRecorderSharing(tl), NewRecorderSharing(tl)
	a.RecordBatch(ss[:2])
	for i := range ss[2:] {
		b.Record(&ss[2+i])
	}
	shared := a.Snapshot()
	shared.Merge(b.Snapshot())
	shared.Merge(tl.Snapshot())

	want, err := own.Snapshot().Data()
	if err != nil {
		t.Fatal(err)
	}
	got, err := shared.Data()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(want, got) {
		t.Errorf("shared timeline:\n%+v\nown:\n%+v", got, want)
	}
	if n := own.Snapshot().Requests(); n != 3 {
		t.Errorf("%d requests counted, want 3: warmup samples count only in the series", n)
	}
	var secs []int
	for _, x := range want.Timeline {
		secs = append(secs, x.Second)
		if x.Warmup != (x.Second < 0) {
			t.Errorf("second %d: warmup %v", x.Second, x.Warmup)
		}
	}
	// Seconds 1 and 3 hold no start, only ends: the write that began at
	// 999 ms ended in second 1, the timeout that began at 2 s in second 3.
	if !reflect.DeepEqual(secs, []int{-2, -1, 0, 1, 2, 3}) {
		t.Errorf("seconds %v, want [-2 -1 0 1 2 3]", secs)
	}
	ends := map[int][2]int64{}
	for _, x := range want.Timeline {
		ends[x.Second] = [2]int64{*x.Completed, *x.Answered}
	}
	if ends[-2] != [2]int64{1, 1} || ends[-1] != [2]int64{0, 0} || ends[0] != [2]int64{2, 2} || ends[1] != [2]int64{1, 0} || ends[2] != [2]int64{0, 0} || ends[3] != [2]int64{1, 0} {
		t.Errorf("completed, answered by second: %v; want -2: 1,1, -1: 0,0 (the warmup read that began at -1 ns ended in 0), 0: 2,2, 1: 1,0 (the error), 2: 0,0, 3: 1,0 (the timeout)", ends)
	}
	s0 := want.Timeline[2]
	if s0.Second != 0 {
		t.Fatalf("timeline[2] is second %d, want 0", s0.Second)
	}
	if s0.Requests["read"][tao.OK] != 1 || s0.Requests["write"][tao.Error] != 1 || s0.Errors != 1 ||
		s0.WriteRequests != 1 || s0.LockConflicted != 1 || s0.ContentionPct != 100 {
		t.Errorf("second 0: %+v", s0)
	}
	if p := s0.P99US["write"]; p < 5000 || p > 5000*17/16 {
		t.Errorf("second 0: write p99 %v µs, want 5000 within 1/16", p)
	}
	h, err := hdrhistogram.Decode([]byte(s0.HDR["read"]))
	if err != nil || h.TotalCount() != 1 {
		t.Errorf("second 0: read histogram %v, %v; want 1 value", h, err)
	}
	back, err := FromData(want)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := back.Data(); !reflect.DeepEqual(again, want) {
		t.Errorf("FromData(Data()) differs:\n%+v\n%+v", again, want)
	}
}

func TestHistogram(t *testing.T) {
	r := NewRecorder()
	r.Record(&Sample{Class: tao.Read, Kind: tao.ObjRead, Outcome: tao.OK, Latency: 3 * time.Millisecond})
	r.Record(&Sample{Class: tao.Read, Kind: tao.EdgeRangeRead, Outcome: tao.OK, Latency: 5 * time.Millisecond})
	s := r.Snapshot()
	if h := s.Histogram("read"); h == nil || h.TotalCount() != 2 || h.Max() < 5000 || h.Max() > 5005 {
		t.Errorf("read histogram: %v", h)
	}
	if h := s.Histogram("obj_read"); h == nil || h.TotalCount() != 1 {
		t.Errorf("obj_read histogram: %v", h)
	}
	if s.Histogram("write") != nil || s.Histogram("nonsense") != nil {
		t.Error("an empty or unknown series has a histogram")
	}
	s.Histogram("read").Reset()
	if s.Histogram("read").TotalCount() != 2 {
		t.Error("Histogram returned the summary's own histogram, not a copy")
	}
}

// TestNoService: seconds with demand and no answer count, seconds without
// demand do not, a request that spans seconds keeps them in demand, and a
// summary read from a file without ends is unknown.
func TestNoService(t *testing.T) {
	ok := func(at, lat time.Duration) Sample {
		return Sample{Class: tao.Read, Outcome: tao.OK, At: at, Latency: lat, Warmup: at < 0}
	}
	var ss []Sample
	for s := range 12 {
		switch {
		case s == 3: // the server stops: one request hangs 4.5 s
			ss = append(ss, ok(2900*time.Millisecond, 4500*time.Millisecond))
		case s >= 4 && s <= 6: // nothing begins while it hangs
		case s == 8 || s == 9: // refused at once
			ss = append(ss, Sample{Class: tao.Write, Outcome: tao.Error, At: time.Duration(s) * time.Second, Latency: time.Millisecond})
		default:
			ss = append(ss, ok(time.Duration(s)*time.Second+100*time.Millisecond, time.Millisecond))
		}
	}
	ss = append(ss, ok(-500*time.Millisecond, time.Millisecond)) // warmup
	r := NewRecorder()
	r.RecordBatch(ss)
	sum := r.Snapshot()
	// Seconds 3-6 (hanging) and 8-9 (errors): 6, the longest run 4; second
	// 7 got the hanging request's answer. The window is 11 s: second 11's
	// request is past it.
	if n, longest, known := sum.NoService(11 * time.Second); n != 6 || longest != 4 || !known {
		t.Errorf("NoService = %d, %d, %v; want 6, 4, true", n, longest, known)
	}
	if n, longest, _ := sum.NoService(3 * time.Second); n != 0 || longest != 0 {
		t.Errorf("first 3 s: NoService = %d, %d; want 0, 0", n, longest)
	}

	// No demand is not an outage: one request every third second.
	idle := NewRecorder()
	for s := 0; s < 10; s += 3 {
		idle.Record(&Sample{Class: tao.Read, Outcome: tao.OK, At: time.Duration(s) * time.Second, Latency: time.Millisecond})
	}
	if n, _, _ := idle.Snapshot().NoService(10 * time.Second); n != 0 {
		t.Errorf("an idle open loop: %d seconds without service, want 0", n)
	}

	// Through the data, split in two and merged: the same.
	a, b := NewRecorder(), NewRecorder()
	a.RecordBatch(ss[:5])
	b.RecordBatch(ss[5:])
	da, _ := a.Snapshot().Data()
	db, _ := b.Snapshot().Data()
	sa, err := FromData(da)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := FromData(db)
	if err != nil {
		t.Fatal(err)
	}
	sa.Merge(sb)
	if n, longest, known := sa.NoService(11 * time.Second); n != 6 || longest != 4 || !known {
		t.Errorf("merged from data: NoService = %d, %d, %v; want 6, 4, true", n, longest, known)
	}

	// A file written before ends were recorded: unknown, not "no outage".
	for i := range da.Timeline {
		da.Timeline[i].Completed, da.Timeline[i].Answered = nil, nil
	}
	old, err := FromData(da)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, known := old.NoService(11 * time.Second); known {
		t.Error("a timeline without completed/answered: NoService known, want unknown")
	}
}
