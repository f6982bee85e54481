package livemetrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/taobench/taobench/bulkload"
)

// Load is a prometheus.Collector of a graph load's progress, fed the
// load's progress reports (about one a second).
type Load struct {
	mu      sync.Mutex
	last    bulkload.Progress
	started bool
}

// NewLoad returns a collector that reports nothing until the first Observe.
func NewLoad() *Load { return &Load{} }

// Observe keeps the latest progress report.
func (l *Load) Observe(p bulkload.Progress) {
	l.mu.Lock()
	l.last, l.started = p, true
	l.mu.Unlock()
}

var (
	descLoadRows = prometheus.NewDesc("taobench_load_rows_total",
		"Rows the graph load has written, by table.", []string{"table"}, nil)
	descLoadNodes = prometheus.NewDesc("taobench_load_nodes_total",
		"Nodes the graph load has written, each with its edges.", nil, nil)
	descLoadTotal = prometheus.NewDesc("taobench_load_nodes",
		"Nodes of the graph being loaded.", nil, nil)
	descLoadProgress = prometheus.NewDesc("taobench_load_progress_ratio",
		"Fraction of the graph's nodes loaded, 0 to 1.", nil, nil)
	descLoadElapsed = prometheus.NewDesc("taobench_load_elapsed_seconds",
		"Time since the load began.", nil, nil)
	descLoadDone = prometheus.NewDesc("taobench_load_done",
		"1 once the load has finished, indexes built.", nil, nil)
)

// Describe sends the descriptions of the load's metrics.
func (l *Load) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descLoadRows, descLoadNodes, descLoadTotal, descLoadProgress, descLoadElapsed, descLoadDone} {
		ch <- d
	}
}

// Collect sends the latest progress, or nothing before the load begins.
func (l *Load) Collect(ch chan<- prometheus.Metric) {
	l.mu.Lock()
	p, started := l.last, l.started
	l.mu.Unlock()
	if !started {
		return
	}
	counter := func(d *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	gauge := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v)
	}
	counter(descLoadRows, p.Objects, "objects")
	counter(descLoadRows, p.Edges, "edges")
	counter(descLoadNodes, p.Nodes)
	gauge(descLoadTotal, float64(p.TotalNodes))
	ratio := 0.0
	if p.TotalNodes > 0 {
		ratio = float64(p.Nodes) / float64(p.TotalNodes)
	}
	gauge(descLoadProgress, ratio)
	gauge(descLoadElapsed, p.Elapsed.Seconds())
	gauge(descLoadDone, b2f(p.Done))
}
