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
	if !reflect.DeepEqual(secs, []int{-2, -1, 0, 2}) {
		t.Errorf("seconds %v, want [-2 -1 0 2]", secs)
	}
	s0 := want.Timeline[2]
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
