package result

import (
	"time"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/tao"
)

// Figures are an experiment's headline figures for a program that embeds
// taobench: throughput, latency as durations, and how the requests ended,
// in one value. They are computed from the experiment, never written: the
// JSON document keeps its own keys (docs/results.md).
type Figures struct {
	// Requests are the measured requests that ended, whatever their
	// outcome; Throughput is them per second of the measured window.
	Requests   int64
	Throughput float64
	// Lost ended in an error or a timeout, Failed in an outcome that
	// counts as failed, Conflicts in a conflict left after every retry.
	Lost, Failed, Conflicts int64
	// Latency is every request's; Classes each class's (read, write,
	// read_txn, write_txn), in tao.Class order.
	Latency Latency
	Classes [tao.NumClasses]Latency
}

// Latency is a latency series as durations (metrics.LatencyStats gives it
// in microseconds): Count requests; percentiles from the histogram, to 3
// significant digits.
type Latency struct {
	Count                               int64
	Mean, Min, P50, P90, P99, P999, Max time.Duration
}

// Figures are e's headline figures.
func (e *Experiment) Figures() Figures {
	s := e.Sum()
	lost, _ := s.Lost()
	f := Figures{
		Requests:   s.Requests(),
		Throughput: e.Throughput(),
		Lost:       lost,
		Failed:     s.Failed(),
		Conflicts:  s.Outcome(tao.ConflictObject) + s.Outcome(tao.ConflictAssociation),
		Latency:    e.Latency(metrics.All),
	}
	for c := range tao.NumClasses {
		f.Classes[c] = e.Latency(c.String())
	}
	return f
}

// Latency is the latency of a series of e: metrics.All, a class ("read",
// "write_txn") or a kind of single-operation request ("obj_read"), as
// metrics.Summary.Stats names them. An unknown name has no requests.
func (e *Experiment) Latency(series string) Latency {
	st := e.Sum().Stats(series)
	d := func(us float64) time.Duration { return time.Duration(us * float64(time.Microsecond)) }
	return Latency{Count: st.Count, Mean: d(st.Mean), Min: d(st.Min), P50: d(st.P50), P90: d(st.P90),
		P99: d(st.P99), P999: d(st.P999), Max: d(st.Max)}
}
