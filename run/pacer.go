package run

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/taobench/taobench/internal/clock"
	"github.com/taobench/taobench/randdist"
)

// Open loop. An experiment with a target rate has one schedule of intended
// start times, drawn by a Pacer, shared by all its clients: a free client
// takes the next intended start, waits for it, and issues a request. When
// every client is busy, the next request waits for one, and its latency,
// measured from its intended start, shows the wait: the clients serve one
// queue of arrivals, as a database's users would, and a slow database cannot
// slow the arrivals down (no coordinated omission). Closed loop, the default,
// has no schedule: a request's intended start is its actual start.

// OvertimeTolerance is how much later than intended a request may start
// before it counts as an overtime operation.
const OvertimeTolerance = time.Millisecond

// MaxRate bounds a target rate: 10 ns between requests.
const MaxRate = 1e8

// Arrival is an open-loop arrival process.
type Arrival int

const (
	// Poisson arrivals: exponential inter-arrival times (LinkBench).
	Poisson Arrival = iota
	// Uniform arrivals: a fixed interval of 1/rate.
	Uniform
)

func (a Arrival) String() string {
	if a == Uniform {
		return "uniform"
	}
	return "poisson"
}

// ParseArrival parses "poisson" or "uniform".
func ParseArrival(s string) (Arrival, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "poisson", "exponential":
		return Poisson, nil
	case "uniform":
		return Uniform, nil
	}
	return 0, fmt.Errorf("arrival process %s: give poisson (exponential inter-arrival times) or uniform (a fixed interval)", quote(s))
}

// CheckRate reports whether rate is a usable target rate: 0 (closed loop)
// or a positive number of requests per second up to MaxRate.
func CheckRate(rate float64) error {
	if math.IsNaN(rate) || rate < 0 || rate > MaxRate {
		return fmt.Errorf("rate %v: give 0 (closed loop) or a target rate in requests per second above 0, at most %g", rate, float64(MaxRate))
	}
	return nil
}

// A Pacer draws the intended starts of an experiment's requests: each call
// of Next returns the next one as an offset from the experiment's start,
// never smaller than the previous. A Pacer is not safe for concurrent use.
type Pacer interface {
	Next() time.Duration
}

// NewPacer returns the pacer of an arrival process at rate requests per
// second (positive), drawing from seed.
func NewPacer(a Arrival, rate float64, seed uint64) Pacer {
	if a == Uniform {
		return &uniformPacer{interval: 1e9 / rate}
	}
	return &poissonPacer{mean: 1e9 / rate, rng: rand.New(rand.NewPCG(seed, 0x70616365))}
}

// poissonPacer draws exponential inter-arrival times of the given mean, in
// nanoseconds; t accumulates in float64, exact to a nanosecond for 100 days.
type poissonPacer struct {
	mean, t float64
	rng     *rand.Rand
}

func (p *poissonPacer) Next() time.Duration {
	p.t += p.rng.ExpFloat64() * p.mean
	return time.Duration(p.t)
}

// uniformPacer issues request k at k·interval: exactly rate·D requests in
// any window of length D, give or take one.
type uniformPacer struct {
	interval float64
	k        float64
}

func (p *uniformPacer) Next() time.Duration {
	d := time.Duration(p.k * p.interval)
	p.k++
	return d
}

// schedule hands the pacer's intended starts to the clients of one
// experiment and counts those of the measured window that were never issued.
type schedule struct {
	mu     sync.Mutex
	pacer  Pacer
	start  time.Time
	over   bool          // the pacer has passed the end: no more requests
	last   time.Duration // the pacer's last offset while over
	window [2]time.Duration
	// skip is how late the process began: arrivals before it are not
	// issued, as a late driver of a shared schedule does not catch up.
	lateBy time.Duration

	scheduled atomic.Int64 // intended starts in the measured window handed out
	skipped   atomic.Int64 // of those, never issued (the experiment ended first)
}

func newSchedule(p Pacer, start time.Time, b bounds) *schedule {
	return &schedule{pacer: p, start: start, window: [2]time.Duration{b.measure.Sub(start), b.end.Sub(start)}}
}

// next returns the next intended start, or false when it would fall at or
// after the end of the experiment.
func (s *schedule) next() (time.Time, bool) {
	s.mu.Lock()
	if s.over {
		s.mu.Unlock()
		return time.Time{}, false
	}
	off := s.pacer.Next()
	for off < s.lateBy && off < s.window[1] {
		off = s.pacer.Next()
	}
	if off >= s.window[1] {
		s.over, s.last = true, off
		s.mu.Unlock()
		return time.Time{}, false
	}
	s.mu.Unlock()
	if off >= s.window[0] {
		s.scheduled.Add(1)
	}
	return s.start.Add(off), true
}

// skip counts a request handed out for at that was never issued.
func (s *schedule) skip(at time.Time) {
	if off := at.Sub(s.start); off >= s.window[0] && off < s.window[1] {
		s.skipped.Add(1)
	}
}

// finish draws the rest of the schedule up to until (the end, or the
// moment the user cancelled) once the clients have stopped, and returns the
// requests scheduled in the measured window and how many were never issued.
func (s *schedule) finish(until time.Time) (scheduled, notIssued int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lim := min(until.Sub(s.start), s.window[1])
	var rest int64
	for !s.over {
		off := s.pacer.Next()
		if off >= lim {
			break
		}
		if off >= s.window[0] {
			rest++
		}
	}
	return s.scheduled.Load() + rest, s.skipped.Load() + rest
}

// pacerSeed is the seed of an experiment's pacer, apart from its clients'.
func pacerSeed(seed uint64) uint64 { return randdist.Hash(seed, 0x7061636572, 0, 0) }

// waitUntil waits until t, or until done is closed; it reports whether it
// waited fully. The client's clock.Sleeper wakes within tens of
// microseconds of t, where a Go timer in an otherwise idle process fires up
// to 1 ms late; waits of at most 10 µs yield instead (internal/clock).
func (c *client) waitUntil(done <-chan struct{}, t time.Time) bool {
	if !t.After(time.Now()) {
		return true
	}
	if c.sleeper == nil {
		c.sleeper = clock.New()
	}
	return c.sleeper.Until(done, t)
}
