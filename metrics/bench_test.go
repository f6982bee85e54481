package metrics

import (
	"testing"
	"time"

	"github.com/taobench/taobench/tao"
)

// BenchmarkRecordBatch measures the recorder's cost per sample, in batches
// of 64 as clients hand them over, at a million requests per second.
func BenchmarkRecordBatch(b *testing.B) {
	r := NewRecorder()
	batch := make([]Sample, 64)
	for i := range batch {
		batch[i] = Sample{Class: tao.Class(i % 4), Kind: tao.Kind(i % 11), Latency: time.Duration(100+i*37) * time.Microsecond, Attempts: 1}
	}
	b.ReportAllocs()
	at := time.Duration(0)
	for i := 0; i < b.N; i += len(batch) {
		for j := range batch {
			batch[j].At = at
			at += time.Microsecond
		}
		r.RecordBatch(batch)
	}
}
