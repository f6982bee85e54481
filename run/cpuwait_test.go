package run

import (
	"sync"
	"time"
)

// cpuWaitSample is cpuWait at an instant.
type cpuWaitSample struct {
	at     time.Time
	waited time.Duration
}

// cpuWaitSampler reads cpuWait every period until stopped.
type cpuWaitSampler struct {
	stop    chan struct{}
	done    sync.WaitGroup
	samples []cpuWaitSample // owned by the sampling goroutine until done
	known   bool
}

func sampleCPUWait(period time.Duration) *cpuWaitSampler {
	s := &cpuWaitSampler{stop: make(chan struct{}), known: true}
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			d, ok := cpuWait()
			s.known = s.known && ok
			s.samples = append(s.samples, cpuWaitSample{time.Now(), d})
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

// starvedBefore stops the sampler and returns the longest stretch ending
// at end over which the process's threads, together, waited for a CPU at
// least three quarters of the time (0 when the kernel does not say).
// Clients that get even a small share of a CPU catch up on late requests
// far faster than a test's rate schedules them: only a stretch in which
// they could hardly run leaves requests due before the end unissued, and
// the client's own thread waiting through it makes the sum reach the span.
func (s *cpuWaitSampler) starvedBefore(end time.Time) time.Duration {
	close(s.stop)
	s.done.Wait()
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
