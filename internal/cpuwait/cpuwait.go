// Package cpuwait tells how long this process waited for a CPU, so a
// timing test can tell what a loaded machine kept its code from doing
// (requests a pacer had no chance to issue, a deadline met late) from what
// the code failed to do, and allow exactly that much.
package cpuwait

import (
	"sync"
	"time"
)

// Total is how long this process's threads, together, have waited for a
// CPU while ready to run, plus the time the hypervisor held the machine's
// CPUs (steal). On a loaded machine it grows by the time the process could
// not run. ok is false when the kernel does not say (outside Linux): a
// test then allows nothing, as on an idle machine.
func Total() (time.Duration, bool) { return total() }

// Since is the growth of Total from before, 0 when the kernel does not say.
func Since(before time.Duration) time.Duration {
	d, ok := Total()
	if !ok || d < before {
		return 0
	}
	return d - before
}

type sample struct {
	at     time.Time
	waited time.Duration
}

// Sampler reads Total every period until stopped.
type Sampler struct {
	stop    chan struct{}
	once    sync.Once
	done    sync.WaitGroup
	samples []sample // owned by the sampling goroutine until done
	known   bool
}

// Sample starts a Sampler.
func Sample(period time.Duration) *Sampler {
	s := &Sampler{stop: make(chan struct{}), known: true}
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			d, ok := Total()
			s.known = s.known && ok
			s.samples = append(s.samples, sample{time.Now(), d})
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

// Stop ends the sampling; StarvedBefore calls it.
func (s *Sampler) Stop() {
	s.once.Do(func() { close(s.stop) })
	s.done.Wait()
}

// StarvedBefore stops the sampler and returns the longest stretch ending
// at end over which the process's threads, together, waited for a CPU at
// least three quarters of the time (0 when the kernel does not say).
// Clients that get even a small share of a CPU catch up on late requests
// far faster than a test's rate schedules them: only a stretch in which
// they could hardly run leaves requests due before the end unissued, and
// the client's own thread waiting through it makes the sum reach the span.
// It may be called for several ends.
func (s *Sampler) StarvedBefore(end time.Time) time.Duration {
	s.Stop()
	if !s.known || len(s.samples) == 0 {
		return 0
	}
	last := len(s.samples) - 1
	for last > 0 && s.samples[last-1].at.After(end) {
		last-- // the first sample at or after the end
	}
	e := s.samples[last]
	var longest time.Duration
	for _, x := range s.samples[:last] {
		if span := e.at.Sub(x.at); 4*(e.waited-x.waited) >= 3*span {
			longest = max(longest, span)
		}
	}
	return longest
}
