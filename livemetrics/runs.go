package livemetrics

import (
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/tao"
)

// Buckets are the upper bounds, in seconds, of the latency histograms: 50 µs
// to 10 s in steps of about 2.5, fine enough for a null store's microseconds
// and a loaded server's hundreds of milliseconds.
var Buckets = []float64{
	0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
	0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
}

const (
	// shards of counters per experiment: clients hand batches to client%shards.
	shards = 8
	// kinds: tao's single-operation kinds, then one for transactions.
	kinds   = int(tao.NumKinds) + 1
	phases  = 2  // warmup, measured
	buckets = 18 // len(Buckets) + the +Inf bucket
)

var phaseNames = [phases]string{"warmup", "measured"}

// kindName labels a sample's kind: transactions are "txn".
func kindName(k int) string {
	if k == int(tao.NumKinds) {
		return "txn"
	}
	return tao.Kind(k).String()
}

// counts are one shard's totals. Buckets are not cumulative here; the
// collector accumulates them.
type counts struct {
	requests [phases][tao.NumClasses][kinds][tao.NumOutcomes]uint64
	buckets  [phases][tao.NumClasses][kinds][buckets]uint64
	seconds  [phases][tao.NumClasses][kinds]float64 // latency sum
}

func (c *counts) add(s *metrics.Sample) {
	if s.Class >= tao.NumClasses || s.Outcome >= tao.NumOutcomes {
		return // the recorders ignore these too
	}
	p := 1
	if s.Warmup {
		p = 0
	}
	k := min(int(s.Kind), int(tao.NumKinds))
	c.requests[p][s.Class][k][s.Outcome]++
	sec := s.Latency.Seconds()
	b := 0
	for b < len(Buckets) && sec > Buckets[b] {
		b++
	}
	c.buckets[p][s.Class][k][b]++
	c.seconds[p][s.Class][k] += sec
}

func (c *counts) merge(o *counts) {
	for p := range phases {
		for cl := range tao.NumClasses {
			for k := range kinds {
				for x := range tao.NumOutcomes {
					c.requests[p][cl][k][x] += o.requests[p][cl][k][x]
				}
				for b := range buckets {
					c.buckets[p][cl][k][b] += o.buckets[p][cl][k][b]
				}
				c.seconds[p][cl][k] += o.seconds[p][cl][k]
			}
		}
	}
}

type shard struct {
	mu sync.Mutex
	c  counts
}

// experiment is one run.Do: its clock, its shards, and whether it ended.
type experiment struct {
	label  string // 1-based number within the command
	info   run.LiveExperiment
	shards [shards]shard
	ended  time.Time // zero while it runs
}

// Runs is a prometheus.Collector and a run.Live: each experiment a command
// runs is labelled with its number, starting at 1.
type Runs struct {
	mu   sync.Mutex // guards exps; never taken by Observe
	exps []*experiment
	cur  *experiment // the experiment running; nil between experiments
	now  func() time.Time
}

// NewRuns returns a collector with no experiment yet.
func NewRuns() *Runs { return &Runs{now: time.Now} }

var _ run.Live = (*Runs)(nil)

// Begin starts counting a new experiment.
func (r *Runs) Begin(x run.LiveExperiment) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := &experiment{label: strconv.Itoa(len(r.exps) + 1), info: x}
	r.exps = append(r.exps, e)
	r.cur = e
}

// Observe counts a client's batch in its shard. Begin has been called, and
// End not yet, so r.cur is stable while clients run.
func (r *Runs) Observe(client int, batch []metrics.Sample) {
	sh := &r.cur.shards[client%shards]
	sh.mu.Lock()
	for i := range batch {
		sh.c.add(&batch[i])
	}
	sh.mu.Unlock()
}

// End marks the current experiment over.
func (r *Runs) End() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur != nil {
		r.cur.ended = r.now()
		r.cur = nil
	}
}

var (
	descRequests = prometheus.NewDesc("taobench_requests_total",
		"Requests finished, by final outcome after retries; a transaction counts once (kind txn). phase is warmup or measured.",
		[]string{"experiment", "phase", "class", "kind", "outcome"}, nil)
	descDuration = prometheus.NewDesc("taobench_request_duration_seconds",
		"Request latency, retries included, from the intended start in open loop.",
		[]string{"experiment", "phase", "class", "kind"}, nil)
	descInFlight = prometheus.NewDesc("taobench_in_flight_requests",
		"Clients waiting on the database now.", []string{"experiment"}, nil)
	descClients = prometheus.NewDesc("taobench_clients",
		"Clients (threads) of the experiment.", []string{"experiment"}, nil)
	descTarget = prometheus.NewDesc("taobench_target_rate_requests_per_second",
		"Target rate of an open-loop experiment; 0 in closed loop.", []string{"experiment"}, nil)
	descAchieved = prometheus.NewDesc("taobench_achieved_rate_requests_per_second",
		"Measured requests finished per second of the measured window so far.", []string{"experiment"}, nil)
	descPhase = prometheus.NewDesc("taobench_experiment_phase",
		"1 for the experiment's current phase (warmup, measured, ended), 0 for the others.", []string{"experiment", "phase"}, nil)
)

// Describe sends the descriptions of every metric Runs collects.
func (r *Runs) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descRequests, descDuration, descInFlight, descClients, descTarget, descAchieved, descPhase} {
		ch <- d
	}
}

// Collect adds up each experiment's shards. Series of requests never seen
// are left out rather than sent as zeros: there are hundreds of them.
func (r *Runs) Collect(ch chan<- prometheus.Metric) {
	r.mu.Lock()
	exps := append([]*experiment(nil), r.exps...)
	r.mu.Unlock()
	now := r.now()
	for _, e := range exps {
		var tot counts
		for i := range e.shards {
			sh := &e.shards[i]
			sh.mu.Lock()
			tot.merge(&sh.c)
			sh.mu.Unlock()
		}
		r.mu.Lock()
		ended := e.ended
		r.mu.Unlock()
		r.collect(ch, e, &tot, now, ended)
	}
}

func (r *Runs) collect(ch chan<- prometheus.Metric, e *experiment, tot *counts, now, ended time.Time) {
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	var measured uint64
	for p := range phases {
		for cl := range tao.NumClasses {
			for k := range kinds {
				var n uint64
				for o := range tao.NumOutcomes {
					if v := tot.requests[p][cl][k][o]; v > 0 {
						n += v
						ch <- prometheus.MustNewConstMetric(descRequests, prometheus.CounterValue, float64(v),
							e.label, phaseNames[p], cl.String(), kindName(k), o.String())
					}
				}
				if n == 0 {
					continue
				}
				if p == 1 {
					measured += n
				}
				cum := make(map[float64]uint64, len(Buckets))
				var c uint64
				for b, ub := range Buckets {
					c += tot.buckets[p][cl][k][b]
					cum[ub] = c
				}
				ch <- prometheus.MustNewConstHistogram(descDuration, n, tot.seconds[p][cl][k], cum,
					e.label, phaseNames[p], cl.String(), kindName(k))
			}
		}
	}
	phase := "measured"
	switch {
	case !ended.IsZero():
		phase = "ended"
	case now.Before(e.info.Measure):
		phase = "warmup"
	}
	for _, p := range []string{"warmup", "measured", "ended"} {
		gauge(descPhase, b2f(p == phase), e.label, p)
	}
	inFlight := 0
	if ended.IsZero() && e.info.InFlight != nil {
		inFlight = e.info.InFlight()
	}
	gauge(descInFlight, float64(inFlight), e.label)
	gauge(descClients, float64(e.info.Threads), e.label)
	gauge(descTarget, e.info.Rate, e.label)
	// The measured window so far: it ends at End, or earlier when the
	// experiment was cut short.
	last := now
	if !ended.IsZero() && ended.Before(last) {
		last = ended
	}
	if last.After(e.info.End) {
		last = e.info.End
	}
	achieved := 0.0
	if w := last.Sub(e.info.Measure).Seconds(); w > 0 {
		achieved = float64(measured) / w
	}
	gauge(descAchieved, achieved, e.label)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
