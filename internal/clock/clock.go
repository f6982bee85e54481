// Package clock waits until an instant more precisely than a Go timer.
//
// When every goroutine of a process is asleep, the Go runtime waits for its
// next timer in epoll_wait, whose timeout is whole milliseconds: a 200 µs
// sleep takes about 1.1 ms. An open-loop client waiting for a request's
// intended start would then start it up to a millisecond late at low rates,
// and the lateness would show in every latency. On Linux a Sleeper arms a
// timerfd (nanosecond resolution, about 50 µs of kernel timer slack) and
// reads it through the runtime's poller, so the goroutine parks as with a
// timer but wakes on time. Elsewhere it falls back to a Go timer. Waits
// of at most 10 µs (below the kernel's 50 µs timer slack) yield until
// the instant instead: at a million requests a second most waits are a few
// microseconds, and three system calls each would cost more than the wait.
package clock

import (
	"runtime"
	"time"
)

// spin is the longest wait done by yielding rather than sleeping.
const spin = 10 * time.Microsecond

// coarse is how long before the instant a Sleeper stops waiting on a Go
// timer (which can be cancelled) and waits on the precise one (which
// cannot): the most a cancel can be kept waiting.
const coarse = 2 * time.Millisecond

// Until waits until t, or until done is closed; it reports whether it
// waited fully. A Sleeper is not safe for concurrent use.
func (s *Sleeper) Until(done <-chan struct{}, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return true
	}
	if d <= spin {
		for time.Now().Before(t) {
			runtime.Gosched()
		}
		return true
	}
	if d > coarse {
		if s.timer == nil {
			s.timer = time.NewTimer(d - coarse)
		} else {
			s.timer.Reset(d - coarse)
		}
		select {
		case <-s.timer.C:
		case <-done:
			return false
		}
		if d = time.Until(t); d <= 0 {
			return true
		}
	}
	s.precise(d)
	return true
}

// Mono tells the time from the monotonic clock alone. time.Now reads the
// wall clock and the monotonic clock, two vDSO calls on linux/amd64, and a
// client tells the time twice per request: on a VM those four calls were
// 14% of a --db null client's CPU. Mono's times carry the wall time of its
// base plus the monotonic time since, so their wall time does not follow
// steps of the system clock after the base; comparisons and subtractions
// between times that carry a monotonic reading use that reading alone, and
// these are exact. The zero Mono is not usable: make one with NewMono.
type Mono struct{ base time.Time }

// NewMono returns a Mono based at the current time.
func NewMono() Mono { return Mono{base: time.Now()} }

// Now returns the current time.
func (m Mono) Now() time.Time { return m.base.Add(time.Since(m.base)) }
